"""Host actions on a running match's clocks and garnets (re-exported by `services`)."""

from __future__ import annotations

from matches.core.errors import NotAllowed, ServiceError
from matches.models import GarnetEntry, Match, MatchGarnet
from matches.play import awaytime, clocks, engine
from matches.play.change import RUNNING, change, clean
from matches.seasons import results as season_results

#: Bounds on host adjustments: beyond them timedelta and the integer columns overflow.
MAX_ADJUST_SECONDS = 24 * 3600
MAX_GARNETS = 1000


def pause_clocks(match: Match) -> None:
    with change(match) as c:
        match, bout, now = c.match, c.bout, c.now
        if match.status != Match.RUNNING:
            raise NotAllowed("the match is not running")
        if match.paused:
            raise NotAllowed("the clocks are already paused")
        match.paused = True
        match.save(update_fields=["paused"])
        if bout is not None:
            clocks.pause(bout, now)
            engine.bump(bout)
            bout.save()
        c.note("paused the clocks")


def resume_clocks(match: Match) -> None:
    with change(match) as c:
        match, bout, now = c.match, c.bout, c.now
        if not match.paused:
            raise NotAllowed("the clocks are not paused")
        awaytime.host_resume(match, bout, now)  # ends an away pause too; the host wins while the seat is away
        match.paused = False
        match.save(update_fields=["paused", *awaytime.MATCH_FIELDS])
        if bout is not None:
            to_act = match.game.to_act(engine.bout_state(bout)) if bout.finished is None else ()
            clocks.resume(bout, to_act, now)
            engine.bump(bout)
            bout.save()
        c.note("restarted the clocks")


def adjust_clock(match: Match, seat: int, seconds: float) -> None:
    """Host: add (or remove, with a negative number) time on a seat's clock;
    in sealed games, move the round deadline."""
    with change(match, bout=RUNNING, seat=seat, with_clocks=True,
                over="its clocks have stopped, so no time can be added or removed") as c:
        bout, seat = c.running, c.seat
        seconds = float(seconds)
        if not abs(seconds) <= MAX_ADJUST_SECONDS:  # also refuses NaN
            raise ServiceError(f"add or remove at most {MAX_ADJUST_SECONDS} seconds (a day) at a time")
        outcome = clocks.adjust(bout, seat, seconds, c.now)
        if not outcome:
            raise NotAllowed("this bout has no clock to adjust")
        engine.bump(bout)
        bout.save()
        sign = "added" if seconds >= 0 else "removed"
        c.note(f"{sign} {abs(seconds):g} s for {engine.seat_label(c.match, seat)}: {outcome}")


def adjust_garnets(match: Match, seat: int, amount: int, reason: str = "") -> GarnetEntry | MatchGarnet:
    """Host: award (or deduct, negative) garnets: in the season ledger of a match in a season,
    else on the match itself (never in a season found by name; the season host may add the
    match to a season later, which moves them into its ledger: matches/season_attach.py)."""
    reason = clean(reason)
    amount = int(amount)
    if amount == 0:
        raise ServiceError("award or deduct at least one garnet")
    if abs(amount) > MAX_GARNETS:
        raise ServiceError(f"award or deduct at most {MAX_GARNETS} garnets at a time")
    with change(match, seat=seat) as c:
        match, bout = c.match, c.bout
        seat_row = match.seats.get(number=c.seat)
        entry = season_results.match_host_garnets(match, seat_row, amount, reason.strip(), c.now)
        if bout is not None:
            engine.bump(bout)
            bout.save()
        verb = f"awarded {amount}" if amount > 0 else f"deducted {-amount}"
        why = f": {reason.strip()}" if reason.strip() else ""
        c.note(f"{verb} garnet(s) {'to' if amount > 0 else 'from'} {engine.seat_label(match, seat)}{why}")
        return entry
