"""Internals of `matches.play.services`: locking, the log, replays, bout and match
ends.  Everything here runs inside a service's transaction with the match
row (then the bout row) locked; nothing here is called from views."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Max

from games.core import HOST, Game, IllegalAction, Result, RuleError
from matches.core import commits, events, formats
from matches.core.errors import NotAllowed, StaleVersion
from matches.models import Bout, Match, TurnLog
from matches.play import clocks, endings, lag

log = logging.getLogger(__name__)


# -- locking, versions, broadcast -----------------------------------------------


def lock(match: Match | int, *, with_clocks: bool = False) -> tuple[Match, Bout | None]:
    """Lock the match row, then its current bout row (always in this order).  `with_clocks`: read
    the bout's clocks too (clocks.rows), as the move's transaction will change them.

    The lock is PostgreSQL's FOR NO KEY UPDATE (`no_key=True`, what an UPDATE of columns other
    than the key takes): it orders every change of the match as FOR UPDATE would, but does not
    wait for transactions that only insert rows pointing at the match or bout (a chat line, whose
    foreign key check holds FOR KEY SHARE on the match until its commit reaches the disk)."""
    pk = match if isinstance(match, int) else match.pk
    found = Match.objects.select_for_update(no_key=True).filter(pk=pk).first()
    if found is None:
        raise Match.DoesNotExist(f"there is no match {pk}")
    bout = Bout.objects.select_for_update(no_key=True).filter(match_id=pk).order_by("-number").first()
    if bout is not None:
        bout.match = found  # the locked row, not another read of it
        if with_clocks:
            clocks.rows(bout)
    return found, bout


def check_version(bout: Bout, expected: int | None) -> None:
    if expected is None or int(expected) != bout.version:
        raise StaleVersion(
            f"the board changed since you loaded it (version {bout.version}, you sent {expected}); reload and try again"
        )


def check_sealed_version(bout: Bout, seat: int, expected: int | None) -> None:
    """Sealed rounds: several seats submit against the same round at once, so
    a seat's submission only needs a version from the current round (no
    resolution and no host rewrite since) that is not older than its own
    last submission (which is how a doubled submit is caught)."""
    if expected is None or int(expected) > bout.version or int(expected) < bout.round_version:
        raise StaleVersion(
            f"the round changed since you loaded it (version {bout.version}, you sent {expected}); reload and try again"
        )
    own = (
        bout.active_moves()
        .filter(actor=seat, version__gt=bout.round_version)
        .order_by("-sequence", "-id")
        .values_list("version", flat=True)
        .first()
    )
    if own is not None and int(expected) < own:
        raise StaleVersion(
            f"you already submitted after version {expected} (your submission made version {own}); reload to change it"
        )


def bump(bout: Bout) -> None:
    bout.version += 1


def notify(match_id: int, *, moved: events.Moved | None = None) -> None:
    """On commit: announce the change (events: the live path draws and sends it, off this
    request's path) and wake the clock sweeper (a deadline may have moved).  `moved`: what a move
    wrote, when that is all the transaction changed, so that nothing is read back."""
    transaction.on_commit(clocks.deadlines_changed.set)
    events.publish(match_id, moved)


def notify_move(match: Match, bout: Bout, entry: TurnLog) -> None:
    """`notify` for a move: the match and bout as saved, its log row and the bout's clocks."""
    notify(match.pk, moved=events.Moved(match, bout, [entry], tuple(clocks.rows(bout))))


# -- the log -----------------------------------------------------------------------


def next_sequence(match: Match) -> int:
    top = TurnLog.objects.filter(match=match).aggregate(top=Max("sequence"))["top"]
    return (top or 0) + 1


def write(
    match: Match,
    bout: Bout | None,
    kind: str,
    actor: int,
    text: str,
    now: datetime,
    *,
    sequence: int | None = None,
    **fields: Any,
) -> TurnLog:
    entry = TurnLog(match=match, bout=bout, sequence=sequence or next_sequence(match), kind=kind, actor=actor,
                    text=text, created=now, version=bout.version if bout is not None else None, **fields)
    entry.save()
    return entry


def note(match: Match, bout: Bout | None, text: str, now: datetime, *, kind: str = TurnLog.HOST_NOTE) -> TurnLog:
    """A match event in the log (host action or clock); never replayed."""
    return write(match, bout, kind, HOST, text, now)


def seat_label(match: Match, seat: int) -> str:
    name = match.seats.filter(number=seat).values_list("name", flat=True).first()
    return f"seat {seat} ({name})" if name else f"seat {seat}"


# -- replay --------------------------------------------------------------------------


def replay(game: Any, bout: Bout, entries: Iterable[tuple[int, str]]) -> Any:
    """State after applying `(actor, text)` entries from `new(bout.options)`."""
    state = game.new(bout.options)
    for actor, text in entries:
        state = game.play(state, actor, text)
    return state


def replay_bout(bout: Bout) -> Any:
    """The bout's state from its log alone (the truth the snapshot caches)."""
    game = bout.match.game
    return replay(game, bout, [(t.actor, t.text) for t in bout.active_moves()])


def bout_state(bout: Bout) -> Any:
    return bout.match.game.load(bout.state)


# -- bouts and matches -------------------------------------------------------------------


def bout_options(match: Match, starting_seat: int) -> dict[str, Any]:
    game = match.game
    options = game.options(match.options)
    if game.takes_starting_seat is None:  # never guessed from its options: the game says (games/core/game.py)
        raise TypeError(f"{game.slug} does not say how its first mover is given (Game.takes_starting_seat)")
    if game.takes_starting_seat:
        options["starting_seat"] = starting_seat
    if "garnets" in options and not match.options.get("garnets") and match.season_id:
        # a game's option "garnets" (a tie-break, a budget): garnets held in the season ledger when the bout
        # starts (stored in Bout.options, so replays stay exact)
        options["garnets"] = {
            str(seat.number): max(0, seat.season_player.garnet_balance())
            for seat in match.seats.select_related("season_player")
            if seat.season_player is not None
        }
    return options


def begin_bout(match: Match, number: int, starting_seat: int, now: datetime) -> Bout:
    game = match.game
    bout = Bout(match=match, number=number, starting_seat=starting_seat, started=now)
    bout.options = bout_options(match, starting_seat)
    state = game.new(bout.options)
    bout.state = game.dump(state)
    bout.save()
    clocks.create_clocks(match, bout, match.seat_count)
    settle_clocks(match, bout, state, now, new_round=True)
    bout.save()
    return bout


def next_starter(match: Match, last: Bout) -> int:
    if not last.counts:  # a replayed stalemate keeps its starter
        return last.starting_seat
    if match.format.get("alternate", True):
        return last.starting_seat % match.seat_count + 1
    return last.starting_seat


def settle_clocks(match: Match, bout: Bout, state: Any, now: datetime, *, new_round: bool,
                  save: bool = True) -> None:
    game = match.game
    if new_round:
        bout.round_version = bout.version
        if game.sealed:  # the game may set the round's own limit (the host's game: `time 60`)
            clocks.open_round(match, bout, now, game.round_clock(state, formats.round_seconds(match.format)))
    clocks.sync(bout, game.to_act(state), paused=match.paused, now=now, save=save)


def finish_bout(
    match: Match,
    bout: Bout,
    winners: Iterable[int],
    reason: str,
    now: datetime,
    *,
    scores: dict[int, float] | None = None,
    detail: str = "",
    whole_match: bool = False,
) -> None:
    """End `bout`; then the match if the format says so (or `whole_match`)."""
    commits.flush_now()  # a bout's end (its result, the season's ledger) always waits for the disk
    clocks.stop_all(bout, now)
    result = Result(frozenset(winners), reason, scores, detail)
    bout.result = result.to_json()
    bout.reason = reason
    bout.finished = now
    bout.counts = not (reason == "stalemate" and match.format.get("stalemate_replays"))
    clocks.refresh(bout)
    bout.save()
    if match.season_id:  # the season's ledger, exactly once (matches/season_results.py)
        from matches.seasons import results as season_results

        season_results.bout_finished(match, bout, now)
    if whole_match:
        finish_match(match, bout, sorted(result.winners), reason, now)
        return
    score = match.score()
    played = match.bouts.filter(finished__isnull=False, counts=True).count()
    best = max(score.values(), default=0)
    if best >= match.bouts_needed or played >= int(match.format.get("bouts", 1)):
        if int(match.format.get("bouts", 1)) == 1:
            finish_match(match, bout, sorted(result.winners), reason, now)
        else:
            leaders = [s for s, won in score.items() if won == best and best > 0]
            finish_match(match, bout, leaders, "bouts", now)
    elif match.format.get("auto_next_bout"):
        begin_bout(match, bout.number + 1, next_starter(match, bout), now)


def finish_match(match: Match, bout: Bout | None, winners: Sequence[int], reason: str, now: datetime) -> None:
    match.status = Match.FINISHED
    match.finished = now
    match.winners = sorted(int(w) for w in winners)
    match.result_reason = reason
    match.save()
    if bout is not None and bout.finished is None:
        clocks.stop_all(bout, now)
    if match.season_id:  # tokens, candidate, elimination (matches/season_results.py)
        from matches.seasons import results as season_results

        season_results.match_finished(match, bout, now)


def reopen(match: Match, bout: Bout) -> None:
    """The host rewound a finished bout: it (and the match, if over) runs again,
    and what it fed into the season is taken back (NotAllowed if it cannot be)."""
    if match.season_id:
        from matches.seasons import results as season_results

        season_results.reverse_results(match, bout)
    bout.finished = None
    bout.result = None
    bout.reason = ""
    bout.counts = True
    if match.status == Match.FINISHED:
        match.status = Match.RUNNING
        match.finished = None
        match.winners = []
        match.result_reason = ""
        match.save()


def after_state_change(match: Match, bout: Bout, state: Any, now: datetime, *, new_round: bool) -> None:
    """Store the new state; clocks; finish the bout if the rules ended it."""
    game = match.game
    bout.state = game.dump(state)
    result = game.result(state)
    if result is None:
        settle_clocks(match, bout, state, now, new_round=new_round, save=False)
        clocks.flush(bout)
        bout.save()
        return
    clocks.flush(bout)  # a clock stopped in memory (engine.play) before the bout ends
    bout.round_version = bout.version
    finish_bout(
        match, bout, result.winners, result.reason, now, scores=dict(result.scores or {}) or None, detail=result.detail
    )


def sealed_round_changed(game: Game[Any, Any], before: Any, after: Any, seat: int) -> bool:
    """True when a sealed submission closed the round (pending did not just lose `seat`)."""
    return game.pending(after) != game.pending(before) - {seat}


def round_opened_or_closed(game: Game[Any, Any], before: Any, after: Any) -> bool:
    """The host's game (rounds the host opens): a round opened or closed (nobody could act, or now nobody can)."""
    return bool(game.to_act(before)) != bool(game.to_act(after))


def play(
    match: Match, bout: Bout, actor: int, text: str, now: datetime, *, by_host: bool = False, bumped: bool = False,
    charge: lag.Charge | None = None,
) -> TurnLog:
    """parse -> apply -> log -> clocks -> result (the bout is locked).  `charge`: a seat's own
    move, accounted for its lag (clocks.account); otherwise the clock is charged what the server measured."""
    game = match.game
    before = game.load(bout.state)
    action = game.parse(before, actor, text)
    after = game.apply(before, actor, action)
    if match.season_id:  # garnet spends (a game whose orders spend them) against the season ledger
        from matches.seasons import results as season_results

        season_results.check_spends(match, bout, actor, action, by_host=by_host)
    news: list[str] = []
    if match.season_id and game.host_moves:  # the host's game: reveals go to the season's webhook
        from matches.seasons import results as season_results

        news = game.news(before, after, actor, action)
        season_results.game_news(match, bout, news, now)
    canonical = game.format(action)
    timing: dict[str, Any] = {"time_used": None}
    clock = clocks.of(bout, actor)
    if clock is not None and (clock.running or clock.used):
        # written with the next seat's clock (clocks.flush)
        if charge is not None and not by_host:
            clocks.stop_move(clock, charge, save=False)
            timing = {"time_used": charge.charged, "elapsed": charge.elapsed, "client_time": charge.reported,
                      "lag_comp": charge.comp}
        else:
            used = clocks.stop(clock, now, save=False)
            timing = {"time_used": used, "elapsed": used}
    if not bumped:
        bump(bout)
    entry = write(match, bout, TurnLog.MOVE, actor, canonical, now, by_host=by_host, **timing)
    # the host's own game action ("resolve") always closes the round
    new_round = not game.sealed or actor == HOST or sealed_round_changed(game, before, after, actor)
    if game.host_moves:  # the host's game: a round's clock starts when it opens and stops when it closes
        new_round = round_opened_or_closed(game, before, after)
    after_state_change(match, bout, after, now, new_round=new_round)
    if bout.finished is None and not news:
        commits.flush_lazily()  # a move inside a bout: its commit need not wait for the disk (core/commits.py)
    return entry


def expired(match: Match, bout: Bout, now: datetime) -> bool:
    """Whether `expire` would apply a time-out now (it changes nothing)."""
    if bout.finished is not None or match.status != Match.RUNNING or match.paused:
        return False
    return clocks.round_expired(bout, now) or bool(clocks.expired_seats(bout, now))


def expire(match: Match, bout: Bout, now: datetime, *, bumped: bool = False, late: Iterable[int] = ()) -> bool:
    """Apply the time-out rule of every expired deadline of `bout` (locked); `late`: seats whose
    move arrived within the lag grace with more lag than it gives back (clocks.late)."""
    if bout.finished is not None or match.status != Match.RUNNING or match.paused:
        return False
    if clocks.round_expired(bout, now):
        bout.round_deadline = None
        if not bumped:
            bump(bout)
        note(match, bout, "the round deadline passed: the round is resolved", now, kind=TurnLog.CLOCK)
        game = match.game
        # the host's game logs each seat that did not answer in time
        awaited = sorted(game.pending(bout_state(bout))) if game.host_moves else []
        try:
            play(match, bout, HOST, "resolve", now, bumped=True)
            for seat in awaited:
                note(match, bout, f"{seat_label(match, seat)}: no answer", now, kind=TurnLog.CLOCK)
        except RuleError as error:
            note(match, bout, f"the round could not be resolved: {error}", now, kind=TurnLog.CLOCK)
            clocks.refresh(bout)
            bout.save()
        notify(match.pk)
        return True
    out = sorted(set(clocks.expired_seats(bout, now)) | set(late))
    if not out:
        return False
    if not bumped:
        bump(bout)
    scope = (match.format.get("clock") or {}).get("on_timeout", "bout")
    losers = set(out)
    for seat in sorted(losers):
        note(match, bout, f"{seat_label(match, seat)} ran out of time and forfeits the {scope}", now, kind=TurnLog.CLOCK)
    winners = [s for s in range(1, match.seat_count + 1) if s not in losers]
    finish_bout(match, bout, winners, "time", now, whole_match=scope == "match")
    notify(match.pk)
    return True


def require_running_bout(match: Match, bout: Bout | None, over: str = "") -> Bout:
    """The bout in play.  `over`: what the caller does, named in the refusal when the bout
    has ended ("Bob cannot forfeit it"): the host's console hides those actions then, and a
    page drawn before the ending must learn why its click did nothing."""
    if match.status == Match.SETUP:
        raise NotAllowed("the match has not started yet")
    if bout is not None and bout.finished is not None and over:
        raise NotAllowed(f"bout {bout.number} is already over: {over}")
    if match.status == Match.FINISHED:
        raise NotAllowed("the match is over")
    if bout is None or bout.finished is not None:
        raise NotAllowed("the bout is over; the host starts the next one")
    return bout


def require_seat(match: Match, seat: int) -> int:
    if not 1 <= int(seat) <= match.seat_count:
        raise NotAllowed(f"there is no seat {seat} in this match")
    return int(seat)


def illegal_after(error: RuleError, where: str) -> IllegalAction:
    return IllegalAction(f"{where}: {error}")


# -- taking back what the host or a clock ended ---------------------------------------------

# the read-only half (what ended a bout, whether it may be reopened) lives in
# endings.py, so pages can ask it without importing the engine
ENDING_NOTES, last_ending, ended_match_only, reopen_refusal = (
    endings.ENDING_NOTES, endings.last_ending, endings.ended_match_only, endings.reopen_refusal)


def reopen_ending(match: Match, bout: Bout, now: datetime) -> str:
    """Take back the last host/clock ending of `bout` (checked by `reopen_refusal`);
    the log note's text.  The bout is bumped by the caller."""
    ending = last_ending(bout)
    if match.season_id:
        from matches.seasons import results as season_results

        season_results.reverse_results(match, bout, now, bout_too=not ended_match_only(match, bout, ending))
    TurnLog.objects.filter(pk__in=[e.pk for e in ending]).update(undone=True)
    what = "; ".join(f"{e.who}: {e.text}" for e in ending)
    text = f"reopened bout {bout.number} (took back {what})"
    if match.status == Match.FINISHED:
        match.status = Match.RUNNING
        match.finished = None
        match.winners = []
        match.result_reason = ""
        match.save()
    if ended_match_only(match, bout, ending):
        bout.save()
        return text
    game = match.game
    state = replay_bout(bout)
    bout.finished = None
    bout.result = None
    bout.reason = ""
    bout.counts = True
    broke = [
        c.seat for c in bout.clocks.filter(seat__in=game.to_act(state)) if (c.per_move or 0.0) + c.reserve - c.used <= 0
    ]
    if broke and not match.paused and game.result(state) is None:
        match.paused = True
        match.save(update_fields=["paused"])
        who = ", ".join(seat_label(match, s) for s in broke)
        text += f"; the clocks stay paused because {who} has no time left: add time, then restart them"
    after_state_change(match, bout, state, now, new_round=True)
    if match.paused:
        clocks.pause(bout, now)
        bout.save()
    return text


def host_seq(match: Match) -> int:
    """How many host actions the match has had (each logs at least one entry): the count the
    dashboard's forms carry, so a doubled host action is applied once (web.host_actions)."""
    return int(TurnLog.host_entries(match.pk).count())
