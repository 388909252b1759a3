"""What each seat's clock shows on a page: time left, the per-move allowance and the reserve apart,
running or stopped, and flagged (0:00) once the seat ran out of time.  `matches/pages/render.py`
puts these in every audience's context; `static/js/clocks.js` counts them down."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone


def clock_faces(bout: Any, rows: tuple[Any, ...] | None = None) -> dict[int, dict[str, Any]]:
    """Each seat's clock, the per-move allowance and the reserve apart: the
    page shows "0:42 + 5:00" and counts the move down first, then the reserve
    (`move_end` is when the allowance runs out and the reserve starts)."""
    if bout is None:
        return {}
    now = timezone.now()
    clocks = tuple(rows if rows is not None else bout.clocks.all())
    flagged = _flagged(bout, clocks)
    out: dict[int, dict[str, Any]] = {}
    for clock in clocks:
        remaining = clock.remaining(now)
        running = clock.deadline is not None and not clock.paused
        out[clock.seat] = {
            "remaining": None if remaining is None else max(0.0, float(remaining)),
            "deadline": clock.deadline.isoformat(timespec="milliseconds") if running else "",
            "paused": clock.paused,
            "per_move": clock.per_move,
            "reserve": clock.reserve,
            "running": running,
            "flagged": clock.seat in flagged,
            **_clock_split(clock, now, running),
        }
        if clock.seat in flagged:  # out of time: 0:00, not its next turn's allowance (clocks.js draws these too)
            out[clock.seat].update(remaining=0.0, move_left=None if clock.per_move is None else 0.0, reserve_left=0.0)
    return out


#: a bout's reasons that mean its losers ran out of time (engine.expire)
_TIME_OUT = ("time", "timeout")


def _flagged(bout: Any, rows: Any) -> set[int]:
    """The seats of `rows` (clocks) whose flag fell in `bout`: it ended on time, they did not win it."""
    if bout.finished is None or bout.reason not in _TIME_OUT:
        return set()
    winners = {int(s) for s in (bout.result or {}).get("winners", ())}
    return {c.seat for c in rows if c.seat not in winners}


def _clock_split(clock: Any, now: Any, running: bool) -> dict[str, Any]:
    per_move = clock.per_move
    if running:
        left = max(0.0, (clock.deadline - now).total_seconds())
        move_left = None if per_move is None else max(0.0, left - clock.reserve)
        reserve_left = min(clock.reserve, left)
        move_end = clock.deadline - timedelta(seconds=clock.reserve)
    else:
        used = clock.used if (clock.running_since is not None or clock.paused) else 0.0
        move_left = None if per_move is None else max(0.0, per_move - used)
        reserve_left = max(0.0, clock.reserve - max(0.0, used - (per_move or 0.0)))
        move_end = None
    # to the millisecond, like the deadlines: the page counts from these (and updates stay small)
    return {
        "move_left": None if move_left is None else round(move_left, 3),
        "reserve_left": round(reserve_left, 3),
        "move_end": move_end.isoformat(timespec="milliseconds") if move_end is not None and per_move is not None else "",
        "spending": per_move is None or (move_left is not None and move_left <= 0),
    }


def configured_clocks(match: Any) -> dict[str, Any] | None:
    """The clock the host set, for the pages before the match starts."""
    clock = (match.format or {}).get("clock") or None
    if not clock or (clock.get("per_move") is None and clock.get("reserve") is None):
        return None
    return {
        "remaining": None, "deadline": "", "paused": False, "running": False, "configured": True,
        "per_move": clock.get("per_move"), "reserve": clock.get("reserve") or 0.0,
        "move_left": clock.get("per_move"), "reserve_left": clock.get("reserve") or 0.0,
        "move_end": "", "spending": clock.get("per_move") is None,
    }
