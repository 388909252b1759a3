"""A seat's own say in its match: resign, offer a draw, ask for a takeback; and the host's answer.

Like lichess and BGA: a seat may resign the bout or the match at any time of a running bout.  A
draw offer or a takeback request goes to the host, who accepts or declines it with one click (the
opponent sees a draw offer; the host sees both).  Everything is logged: a seat's own entries are
`TurnLog.SEAT_NOTE`, not host actions, so they never move the host dashboard's exactly-once
sequence (`engine.host_seq`).  Accepting runs the existing paths: a declared draw
(`services.declare_result`), an undo (`services.undo`); a resignation is an ending `reopen_bout`
takes back like a forfeit (`endings.ENDING_NOTES`).

Open requests live in `match.format["requests"]` ({"kind", "seat", "bout"}): one per seat and kind,
only for the running bout (an ending leaves the rest unanswerable: `pending` drops them).  Making
or answering a request does not change the board, so the bout version stays and no move in flight
is refused for it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from matches.core.errors import NotAllowed, ServiceError
from matches.models import Bout, Match, TurnLog
from matches.play import engine, services
from matches.play.change import RUNNING, change

REQUESTS_KEY = "requests"

#: what each kind of request says in the log and on the pages
ASKS = {"draw": "offers a draw", "takeback": "asks to take back their last move"}
SCOPES = ("bout", "match")


def pending(match: Match, bout: Bout | None = None) -> list[dict[str, Any]]:
    """The open requests of the running bout, oldest first (read only)."""
    bout = bout if bout is not None else match.current_bout
    if bout is None or bout.finished is not None or match.status != Match.RUNNING:
        return []
    return [dict(r) for r in (match.format or {}).get(REQUESTS_KEY) or [] if r.get("bout") == bout.number]


def resign(match: Match, seat: int, scope: str) -> Bout:
    """`seat` resigns the running bout, or the whole match: every other seat wins it."""
    if scope not in SCOPES:
        raise ServiceError("resign either the bout or the match")
    with change(match, bout=RUNNING, seat=seat, with_clocks=True) as c:
        match, bout, seat = c.match, c.running, c.seat
        engine.bump(bout)
        _forget(match, bout, lambda r: True)
        _seat_note(match, bout, seat, f"resigns the {scope}", c.now)
        winners = [s for s in range(1, match.seat_count + 1) if s != seat]
        engine.finish_bout(match, bout, winners, "resign", c.now, whole_match=scope == "match")
        return bout


def ask(match: Match, seat: int, kind: str) -> None:
    """`seat` offers a draw or asks for a takeback; the host answers (`answer`)."""
    if kind not in ASKS:
        raise ServiceError("a seat may offer a draw or ask for a takeback")
    with change(match, bout=RUNNING, seat=seat) as c:
        match, bout, seat = c.match, c.running, c.seat
        if any(r["seat"] == seat and r["kind"] == kind for r in pending(match, bout)):
            done = "offered a draw" if kind == "draw" else "asked for a takeback"
            raise NotAllowed(f"you already {done}: the host has not answered yet")
        if kind == "takeback" and not bout.active_moves().filter(actor=seat).exists():
            raise NotAllowed(f"you have no move in bout {bout.number} to take back")
        fmt = dict(match.format or {})
        fmt[REQUESTS_KEY] = [*pending(match, bout), {"kind": kind, "seat": seat, "bout": bout.number}]
        match.format = fmt
        match.save(update_fields=["format"])
        _seat_note(match, bout, seat, ASKS[kind], c.now)


def answer(match: Match, seat: int, kind: str, accept: bool) -> str:
    """Host: accept or decline `seat`'s open request of `kind`; what was done, in words.  Accepting
    runs `declare_result` or `undo` inside this change (announced once, with it)."""
    with change(match, bout=RUNNING) as c:
        match, bout = c.match, c.running
        if not any(r["seat"] == seat and r["kind"] == kind for r in pending(match, bout)):
            raise NotAllowed("that request is no longer open (it was answered, or the bout ended)")
        _forget(match, bout, lambda r: r["seat"] == seat and r["kind"] == kind)
        who = engine.seat_label(match, seat)
        what = "draw offer" if kind == "draw" else "takeback request"
        c.note(f"{'accepted' if accept else 'declined'} the {what} of {who}")
        if not accept:
            return f"{what} declined"
        if kind == "draw":
            services.declare_result(match, "draw", bout.version)
            return "draw accepted: the bout is drawn"
        moves = list(bout.active_moves())
        mine = [i for i, t in enumerate(moves) if t.actor == seat]
        if not mine:  # the host undid it meanwhile: nothing left to take back (the refusal rolls back)
            raise NotAllowed(f"{who} has no move left in bout {bout.number} to take back")
        last = mine[-1]
        services.undo(match, bout.version, len(moves) - last)
        return f"takeback accepted: {len(moves) - last} turn(s) taken back"


def _forget(match: Match, bout: Bout, which: Any) -> None:
    """Drop the open requests `which` picks (and any left from an earlier bout)."""
    keep = [r for r in pending(match, bout) if not which(r)]
    if keep != (match.format or {}).get(REQUESTS_KEY, []):
        fmt = dict(match.format or {})
        if keep:
            fmt[REQUESTS_KEY] = keep
        else:
            fmt.pop(REQUESTS_KEY, None)
        match.format = fmt
        match.save(update_fields=["format"])


def _seat_note(match: Match, bout: Bout, seat: int, what: str, now: datetime) -> None:
    """The seat's own entry in the log ("seat 1 (Ann) offers a draw"), with the seat as its actor."""
    engine.write(match, bout, TurnLog.SEAT_NOTE, seat, f"{engine.seat_label(match, seat)} {what}", now)
