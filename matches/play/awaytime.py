"""A seat's away time (issue 37): how long away pauses may hold the clocks, and the host's restart.

The sweeper pauses the clocks while the seat to act has no page open (sweeper.sweep_away, the
match's `away_pause`), but for at most the match's `away_budget` seconds a seat a bout in all
(formats.away_budget): each pause's time is added to the seat's clock row of the bout
(`Clock.away_used`) when it ends, so a new bout starts with the whole budget, and the running
pause began at `Match.away_paused_since`.  Once a seat's budget is used, its clock runs and times
out as usual.  Every change is made under the match's lock after checking again (engine.lock), so
any number of sweepers and the host's restart apply it once.

The host's restart wins while the seat stays away: the seat is marked (`Seat.away_resumed`) and
the sweeper does not pause for it again until it has had a page open.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from matches.core import away, events, formats
from matches.models import Bout, Clock, Match, Seat
from matches.play import clocks, engine

#: the match's fields an away pause sets and `close` clears
MATCH_FIELDS = ["away_paused", "away_paused_since"]


def runs_out(fmt: Mapping[str, Any], since: datetime | None, started: datetime, used: float) -> datetime:
    """When an away pause that began at `since` has used the seat's away time in the bout that
    began at `started`, of which earlier pauses used `used` seconds.  A pause that began in an
    earlier bout (the clocks stay paused into the next) counts from the bout's start; one of unknown
    start (paused before this was kept) too."""
    begun = started if since is None else max(since, started)
    return begun + timedelta(seconds=max(0.0, formats.away_budget(fmt) - used))


def close(match: Match, bout: Bout | None, at: datetime) -> int | None:
    """End the match's away pause at `at` (the caller holds the match's lock and saves
    MATCH_FIELDS): its time comes out of the seat's away time for the bout.  The seat, or None."""
    seat, since = match.away_paused, match.away_paused_since
    match.away_paused = match.away_paused_since = None
    clock = clocks.of(bout, seat) if bout is not None and seat is not None else None
    if bout is not None and clock is not None:
        begun = bout.started if since is None else max(since, bout.started)
        held = max(0.0, (at - begun).total_seconds())
        clock.away_used = min(formats.away_budget(match.format), clock.away_used + held)
        clock.save(update_fields=["away_used"])
    return seat


def host_resume(match: Match, bout: Bout | None, now: datetime) -> None:
    """The host restarts the clocks (the caller holds the match's lock, clears `paused` and saves
    MATCH_FIELDS): an away pause ends, its time counted, and neither its seat nor a seat to act
    with no page open is paused for again until it has had a page open."""
    seats = set()
    if match.away_paused is not None:
        seats.add(match.away_paused)
    close(match, bout, now)
    if formats.away_pause(match.format) is not None and bout is not None and bout.finished is None:
        for seat in match.game.to_act(engine.bout_state(bout)):
            if away.presence(match.pk, seat)[0] == 0:  # unknown (None) decides nothing
                seats.add(seat)
    if seats:
        Seat.objects.filter(match=match, number__in=seats, bot="").update(away_resumed=now)
    events.publish_alerts(match.pk)  # the host's presence box shows the away time left


def left(match: Match, seats: list[Seat], now: datetime) -> dict[int, tuple[float, datetime | None]]:
    """Per seat of a person, in the current bout: (seconds of away time left, when they run out
    if an away pause is using them now, else None).  {} when the match pauses for no one away."""
    if match.status != Match.RUNNING or formats.away_pause(match.format) is None:
        return {}
    bout = Bout.objects.filter(match_id=match.pk).order_by("-number").values_list("id", "started").first()
    if bout is None:
        return {}
    people = {s.number for s in seats if not s.bot}
    budget = formats.away_budget(match.format)
    out: dict[int, tuple[float, datetime | None]] = {}
    for seat, used in Clock.objects.filter(bout_id=bout[0], seat__in=people).values_list("seat", "away_used"):
        if match.paused and match.away_paused == seat:
            until = runs_out(match.format, match.away_paused_since, bout[1], used)
            out[seat] = (max(0.0, (until - now).total_seconds()), until)
        else:
            out[seat] = (max(0.0, budget - used), None)
    return out
