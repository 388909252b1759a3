"""Server-authoritative clocks.

Turn-based games: every seat has a `Clock` per bout, a per-move allowance
plus a reserve.  While a seat is to act its deadline is
`turn start + per_move + reserve - used` (time over the allowance comes out
of the reserve); when it acts, the overflow is deducted from the reserve.
Sealed games: one deadline for the whole round (`Bout.round_deadline`); at
the deadline the round is resolved as if the host applied "resolve".

`Bout.deadline` is the earliest of these, indexed, so the sweeper finds
expired bouts with one query.  The sweeper (sweeper.py) claims each with a
compare-and-swap on `Bout.version` (healthchecks' sendalerts pattern), so a
time-out is applied exactly once however many sweepers run and however a
move races it.  This module never imports the engine.  These helpers run
inside the services' transactions and never save the bout (the caller does); they save clocks,
or with `save=False` leave them to `flush` (a move writes both seats' clocks in one UPDATE).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Prefetch, prefetch_related_objects

from matches.core import formats
from matches.models import Bout, Clock, Match
from matches.play import lag

log = logging.getLogger(__name__)


def rows(bout: Bout) -> list[Clock]:
    """The bout's clocks, read once per service call: the bout object lives for one locked
    transaction, and every change to its clocks goes through these objects (Django's prefetch
    cache: `bout.clocks.all()` then returns the same objects, without a query)."""
    prefetch_related_objects([bout], Prefetch("clocks", queryset=Clock.objects.order_by("seat")))
    return list(bout.clocks.all())


def of(bout: Bout, seat: int) -> Clock | None:
    return next((c for c in rows(bout) if c.seat == seat), None)


def create_clocks(match: Match, bout: Bout, seats: int) -> None:
    """Clock rows for a new bout (turn-based games with a seat clock only)."""
    fmt = match.format
    if match.game.sealed or not formats.has_seat_clock(fmt):
        return
    clock = fmt["clock"]
    previous = {}
    if not clock.get("refill", True):
        prev_bout = match.bouts.filter(number__lt=bout.number).order_by("-number").first()
        if prev_bout is not None:
            previous = {c.seat: c.reserve for c in prev_bout.clocks.all()}
    gain = lag.gain(clock.get("per_move"), clock.get("reserve"))
    quota = lag.start_quota(gain) if formats.lag_compensation(fmt) else None
    for seat in range(1, seats + 1):
        Clock.objects.create(
            bout=bout,
            seat=seat,
            per_move=clock.get("per_move"),
            reserve=previous.get(seat, clock.get("reserve") or 0.0),
            paused=match.paused,
            lag_quota=quota,
            lag_gain=gain,
        )


def _deadline(clock: Clock, now: datetime) -> datetime:
    left = (clock.per_move or 0.0) + clock.reserve - clock.used
    return now + timedelta(seconds=max(0.0, left))


def flag_at(clock: Clock) -> datetime | None:
    """When the seat's flag falls: its visible deadline plus the lag grace (lag.grace), the time
    a move arriving late could still be given back.  The sweeper sees this (through
    `Bout.deadline`), so grace is the same time-out path, only later."""
    if clock.deadline is None:
        return None
    return clock.deadline + timedelta(seconds=lag.grace(clock.lag_quota))


#: what a clock row stores beyond its bout and seat (`flush` writes these)
_FIELDS = ["per_move", "reserve", "deadline", "running_since", "used", "paused", "lag_quota"]


def _save(clock: Clock, save: bool) -> None:
    if save:
        clock.save()
    # else written by `flush`, with the other clocks of the bout


def flush(bout: Bout) -> None:
    """Write the bout's clocks as they stand: after changes made with `save=False`.  One UPDATE a
    clock: `bulk_update`'s single statement (a CASE per field) cost more to build here (~3 ms for
    two clocks) than the round trip it saves."""
    for clock in rows(bout):
        clock.save(update_fields=_FIELDS)


def start(clock: Clock, now: datetime, *, save: bool = True) -> None:
    clock.running_since = now
    clock.deadline = _deadline(clock, now)
    clock.paused = False
    _save(clock, save)


def stop(clock: Clock, now: datetime, *, save: bool = True) -> float:
    """End the seat's turn: charge the overflow to the reserve; time used this turn
    (what it had used before a pause included)."""
    used = elapsed(clock, now)
    overflow = max(0.0, used - (clock.per_move or 0.0))
    clock.reserve = max(0.0, clock.reserve - overflow)
    clock.used = 0.0
    clock.running_since = None
    clock.deadline = None
    _save(clock, save)
    return used


def elapsed(clock: Clock, now: datetime) -> float:
    """The server's measure of the seat's current turn (time before a pause included)."""
    used = clock.used
    if clock.running_since is not None:
        used += max(0.0, (now - clock.running_since).total_seconds())
    return used


def account(clock: Clock, now: datetime, think: float | None, network_lag: float | None) -> lag.Charge:
    """What a move of the seat arriving now would be charged (changes nothing)."""
    return lag.charge(elapsed(clock, now), think, quota=clock.lag_quota, gain_=clock.lag_gain, network_lag=network_lag)


def late(clock: Clock, charge: lag.Charge) -> bool:
    """The move arrived within the grace but its compensation does not cover the overrun: the
    seat ran out of time (lichess flags such a move too)."""
    return clock.deadline is not None and charge.charged > (clock.per_move or 0.0) + clock.reserve + 1e-6


def stop_move(clock: Clock, charge: lag.Charge, *, save: bool = True) -> None:
    """End the seat's turn by its own move, charged as `account` said."""
    overflow = max(0.0, charge.charged - (clock.per_move or 0.0))
    clock.reserve = max(0.0, clock.reserve - overflow)
    clock.lag_quota = charge.quota
    clock.used = 0.0
    clock.running_since = None
    clock.deadline = None
    _save(clock, save)


def sync(bout: Bout, to_act: Iterable[int], *, paused: bool, now: datetime, save: bool = True) -> None:
    """Run exactly the clocks of the seats in `to_act` (none when paused or over).

    A seat that stopped being to act (it moved, or the host rewound the bout)
    has its turn ended even while paused, so time it used before the pause is
    charged now, not carried into its next turn."""
    acting = set() if bout.finished else set(to_act)
    for clock in rows(bout):
        if clock.seat in acting:
            if not paused and not clock.running:
                start(clock, now, save=save)
        elif clock.running or clock.used:
            stop(clock, now, save=save)
    refresh(bout)


def stop_all(bout: Bout, now: datetime) -> None:
    for clock in rows(bout):
        if clock.running or clock.used:
            stop(clock, now)
    bout.round_deadline = None
    bout.round_left = None
    refresh(bout)


#: open_round's default: the match's round clock (formats.round_seconds)
MATCH_ROUND_CLOCK: Any = object()


def open_round(match: Match, bout: Bout, now: datetime, seconds: float | None = MATCH_ROUND_CLOCK) -> None:
    """A sealed round opened: set its deadline (kept aside while paused).  `seconds`: how long
    it may last (None: no deadline); by default the match's round clock (the engine passes
    the game's `round_clock`, the host's game's own limit per round)."""
    if seconds is MATCH_ROUND_CLOCK:
        seconds = formats.round_seconds(match.format)
    if seconds is None or bout.finished:
        bout.round_deadline = None
        bout.round_left = None
    elif match.paused:
        bout.round_deadline = None
        bout.round_left = seconds
    else:
        bout.round_deadline = now + timedelta(seconds=seconds)
        bout.round_left = None
    refresh(bout)


def refresh(bout: Bout) -> None:
    """Recompute the indexed `Bout.deadline` (when the sweeper looks) from the clocks' flags and the round."""
    deadlines = [at for at in (flag_at(c) for c in rows(bout)) if at is not None]
    if bout.round_deadline is not None:
        deadlines.append(bout.round_deadline)
    bout.deadline = None if bout.finished or not deadlines else min(deadlines)


def pause(bout: Bout, now: datetime) -> None:
    for clock in rows(bout):
        if clock.running_since is not None:
            clock.used += max(0.0, (now - clock.running_since).total_seconds())
            clock.running_since = None
            clock.deadline = None
        clock.paused = True
        clock.save()
    if bout.round_deadline is not None:
        bout.round_left = max(0.0, (bout.round_deadline - now).total_seconds())
        bout.round_deadline = None
    refresh(bout)


def resume(bout: Bout, to_act: Iterable[int], now: datetime) -> None:
    bout.clocks.update(paused=False)
    for clock in rows(bout):
        clock.paused = False
    sync(bout, to_act, paused=False, now=now)
    if bout.round_left is not None and not bout.finished:
        bout.round_deadline = now + timedelta(seconds=bout.round_left)
        bout.round_left = None
    refresh(bout)


def adjust(bout: Bout, seat: int, seconds: float, now: datetime) -> str:
    """Add (or with a negative number remove) time; a sentence for the log."""
    clock = of(bout, seat)
    if clock is not None:
        clock.reserve = max(0.0, clock.reserve + seconds)
        if clock.running_since is not None:
            clock.deadline = _deadline(clock, clock.running_since)
        clock.save()
        refresh(bout)
        return f"seat {seat} reserve is now {clock.reserve:g} s"
    if bout.round_deadline is not None:
        bout.round_deadline = max(now, bout.round_deadline + timedelta(seconds=seconds))
    elif bout.round_left is not None:
        bout.round_left = max(0.0, bout.round_left + seconds)
    else:
        return ""
    refresh(bout)
    return "the round deadline moved"


def expired_seats(bout: Bout, now: datetime) -> list[int]:
    return [c.seat for c in rows(bout) if (at := flag_at(c)) is not None and at <= now]


def round_expired(bout: Bout, now: datetime) -> bool:
    return bout.round_deadline is not None and bout.round_deadline <= now


# -- waking the sweeper ----------------------------------------------------------

#: Set after a change commits (engine.notify): a deadline may have moved, so the
#: in-process sweeper recomputes when to wake (see sweeper.py).
deadlines_changed = threading.Event()
