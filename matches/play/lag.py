"""Lag compensation as lichess does it (scalachess `Clock.scala`, `LagTracker.scala`): pure
arithmetic on seconds, no Django, no clock of its own (the caller says what time it is).

A seat's move takes `elapsed` seconds by the server's measure: from the moment the server started
its clock to the moment the move arrived, so it holds the position's trip to the page, the
player's think time and the move's trip back.  The page reports the think time it measured
(position shown -> Play pressed).  The difference is the lag the seat may be compensated for:

- a report is clamped to [0, elapsed]: a client cannot claim less than nothing, nor more than the
  server saw, so the server never charges less than the think time it can prove
  (`elapsed - report`, at most the lag);
- the compensation is the smaller of that lag, the seat's quota, and the network lag the server
  measured on the seat's socket plus `NETWORK_MARGIN` (a liar claiming 0 s of thought on every
  move gains at most its real round trip, and never more than the quota);
- the quota starts at 3 gains, grows by one gain a move (less what was granted), and is capped at
  7 gains; the gain is min(1 s, estimate x 2/5 + 0.15 s) in lichess's units (the estimate in
  seconds gives centiseconds: 4 ms of gain per second of estimated game), so a 1-minute game
  gains 0.39 s a move and any game estimated at 212.5 s or more the full second;
- the flag waits `grace(quota)` = min(quota, 2 s) beyond the visible deadline, the lag a move
  arriving then could still be compensated for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: lichess's estimate of a game's length: the base time plus 40 moves of increment
ESTIMATED_MOVES = 40
#: gain per second of estimated game (lichess: estimate x 2/5 centiseconds = x 0.004 seconds)
GAIN_PER_ESTIMATED_SECOND = 0.004
GAIN_BASE = 0.15
GAIN_MAX = 1.0
START_GAINS = 3
MAX_GAINS = 7
#: what the compensation may exceed the measured network lag by (scheduling, rendering)
NETWORK_MARGIN = 0.04
GRACE_MAX = 2.0


def estimate(per_move: float | None, reserve: float | None) -> float:
    """A game's estimated length in seconds: the reserve plus 40 moves' allowances."""
    return max(0.0, reserve or 0.0) + ESTIMATED_MOVES * max(0.0, per_move or 0.0)


def gain(per_move: float | None, reserve: float | None) -> float:
    """The quota's gain per move."""
    return min(GAIN_MAX, estimate(per_move, reserve) * GAIN_PER_ESTIMATED_SECOND + GAIN_BASE)


def start_quota(gain_: float) -> float:
    return START_GAINS * gain_


def quota_cap(gain_: float) -> float:
    return MAX_GAINS * gain_


def grace(quota: float | None) -> float:
    """How long after a seat's visible deadline its flag falls (0 without compensation)."""
    return 0.0 if quota is None else max(0.0, min(quota, GRACE_MAX))


@dataclass(frozen=True)
class Charge:
    """One move's account: what the server measured, what the client said, what was charged."""

    elapsed: float
    #: the client's think time as reported (clamped to [0, elapsed]); None when it reported none
    reported: float | None
    #: elapsed - reported: the lag the move claims (0 without a report)
    lag: float
    #: the part of the lag given back to the seat
    comp: float
    #: what the seat's clock is charged: elapsed - comp, never less than `reported`
    charged: float
    #: the seat's quota after this move (None: compensation is off)
    quota: float | None


def clamp_report(elapsed: float, reported: float | None) -> float | None:
    """The client's think time, within what the server can check: [0, elapsed]."""
    if reported is None or not math.isfinite(reported):
        return None
    return min(max(0.0, reported), elapsed)


def charge(
    elapsed: float, reported: float | None, *, quota: float | None, gain_: float, network_lag: float | None
) -> Charge:
    """Account for a move that took `elapsed` server seconds, with a client report of `reported`.

    `quota` None: compensation is off (the seat is charged `elapsed`). `network_lag`: the round
    trip measured on the seat's socket, None when none was measured (then only the margin)."""
    elapsed = max(0.0, elapsed) if math.isfinite(elapsed) else 0.0
    think = clamp_report(elapsed, reported)
    lag = 0.0 if think is None else elapsed - think
    if quota is None:
        return Charge(elapsed, think, lag, 0.0, elapsed, None)
    network = max(0.0, network_lag) if network_lag is not None and math.isfinite(network_lag) else 0.0
    comp = max(0.0, min(lag, quota, network + NETWORK_MARGIN))
    after = min(quota + gain_ - comp, quota_cap(gain_))
    return Charge(elapsed, think, lag, comp, elapsed - comp, after)


def stats(match: Any) -> dict[int, dict[str, Any]]:
    """Per seat, over the match's moves: the average lag a move was counted and the total given
    back (play/lag.py).  A move's claim (server elapsed - reported think time) is not its lag: it
    also holds any time the page did not show the position (opened or reloaded mid-turn), which
    the server charges as thinking, giving back at most the round trip measured on the seat's
    socket plus a margin.  Averaging claims read "lag 6844 ms a move on average" beside moves
    each given back 0.04 s (issue 41), so with compensation on a move's lag is what it was given
    back; with it off nothing is given back and the claims are all there is."""
    from django.db.models import Avg, Count, F, Sum  # the rest of this module is pure arithmetic

    from matches.core import formats
    from matches.models import TurnLog

    per_move = F("lag_comp") if formats.lag_compensation(match.format or {}) else F("elapsed") - F("client_time")
    rows = (TurnLog.objects.filter(match_id=match.id, kind=TurnLog.MOVE, actor__gte=1, client_time__isnull=False,
                                   undone=False, corrected=False)
            .values("actor").annotate(avg=Avg(per_move), comp=Sum("lag_comp"), moves=Count("id")))
    return {int(r["actor"]): {"avg_ms": round(1000 * float(r["avg"] or 0.0)), "comp": float(r["comp"] or 0.0),
                              "moves": int(r["moves"])} for r in rows}
