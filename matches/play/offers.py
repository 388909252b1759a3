"""The open draw offers and takeback requests of a match, and how a move ends them.

Below `requests` (which makes and answers them) so that `services`, whose moves end them, need not
import what imports it.  They live in `match.format["requests"]`, each {"kind", "seat", "bout",
"id"} (the log sequence of the seat's note that made it), and "declined": True once the opponent
declined it (the host may still grant it).

Who answers is the match's `answers` (matches/core/formats.py).  When the opponent does, an
offer lasts one turn, as on lichess: the next move ends it, the offerer's (it played on) or
anyone's (the position it was made in is gone); each ending is logged as a note of the offerer's.
When the host alone answers, a request waits for the host's answer (or the bout's end).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core import HOST
from matches.core import formats
from matches.models import Bout, Match, TurnLog
from matches.play import engine

KEY = "requests"
OPPONENT, HOST_ANSWERS = formats.OPPONENT, formats.HOST_ANSWERS

#: each kind of request: what its seat's note says when made, its name, and when a move ends it
ASKS = {"draw": "offers a draw", "takeback": "asks to take back their last move"}
NAMES = {"draw": "draw offer", "takeback": "takeback request"}
ENDED = {"draw": "no longer offers a draw", "takeback": "no longer asks for a takeback"}


def answerer(match: Match) -> str:
    """Who answers this match's requests: OPPONENT (the host may overrule) or HOST_ANSWERS."""
    return formats.answers(match.format or {})


def pending(match: Match, bout: Bout | None = None) -> list[dict[str, Any]]:
    """The open requests of the running bout, oldest first (read only)."""
    bout = bout if bout is not None else match.current_bout
    if bout is None or bout.finished is not None or match.status != Match.RUNNING:
        return []
    return [dict(r) for r in (match.format or {}).get(KEY) or [] if r.get("bout") == bout.number]


def keep_only(match: Match, bout: Bout, kept: list[dict[str, Any]]) -> None:
    """Store `kept` as the open requests (dropping any left from an earlier bout)."""
    if kept != (match.format or {}).get(KEY, []):
        fmt = dict(match.format or {})
        if kept:
            fmt[KEY] = kept
        else:
            fmt.pop(KEY, None)
        match.format = fmt
        match.save(update_fields=["format"])


def seat_note(match: Match, bout: Bout, seat: int, what: str, now: datetime) -> TurnLog:
    """The seat's own entry in the log ("seat 1 (Ann) offers a draw"), with the seat as its actor:
    not a host action, so the host dashboard's exactly-once sequence (`engine.host_seq`) stays."""
    return engine.write(match, bout, TurnLog.SEAT_NOTE, seat, f"{engine.seat_label(match, seat)} {what}", now)


def end_by_move(match: Match, bout: Bout, mover: int, now: datetime) -> bool:
    """A move by `mover` (a seat, or HOST: a sealed round closed by the host or its deadline) was just
    played on the locked `bout`:
    when the opponent answers, every open request ends with it, each logged.  True if any ended
    (the move's event then carries more than the move: the caller announces it as a change)."""
    if answerer(match) != OPPONENT:
        return False
    ended = pending(match, bout)
    if not ended:
        return False
    keep_only(match, bout, [])
    for request in ended:
        seat = int(request["seat"])
        who = ("the round closed" if mover == HOST else "they moved" if mover == seat
               else f"{engine.seat_label(match, mover)} moved")
        seat_note(match, bout, seat, f"{ENDED[request['kind']]}: {who}", now)
    return True
