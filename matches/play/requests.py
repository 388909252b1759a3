"""A seat's own say in its match: resign, offer a draw, ask for a takeback; and their answers.

Like lichess and BGA: a seat may resign the bout or the match at any time of a running bout.  Who
answers a draw offer or a takeback request is the match option `answers` (offers.answerer):

- the opponent (two seats; the default there): the other seat accepts or declines it on its page
  (`respond`); the offer lasts one turn (`offers.end_by_move`); the host sees it and the answer in
  the log and may overrule (`answer`): accept or decline it while it is open, or grant it after
  the opponent declined it;
- the host (more seats, or the host's choice): the host accepts or declines it (`answer`), and it
  waits for that answer (the other seats see a draw offer; a takeback is between its seat and the host).

A game whose `seat_offers` lack a kind (the host's game has none) refuses it.  Everything is
logged: a seat's own entries are `TurnLog.SEAT_NOTE`, not host actions, so they never move the host
dashboard's exactly-once sequence (`engine.host_seq`).  Accepting runs the existing paths: a draw
ends the bout (declared by the host, or agreed by the players), a takeback is an undo
(`services.undo`); a resignation or an agreed draw is an ending `reopen_bout` takes back like a
forfeit (`endings.ENDING_NOTES`).

Open requests: offers.py.  Making or answering a request does not change the board, so the bout
version stays and no move in flight is refused for it; answering names the request (its id), so a
doubled Accept, or an Accept of an offer since replaced, is refused, never applied twice.
"""

from __future__ import annotations

from typing import Any

from matches.core.errors import NotAllowed, ServiceError
from matches.models import Bout, Match
from matches.play import engine, services
from matches.play.change import RUNNING, change
from matches.play.offers import ASKS, HOST_ANSWERS, NAMES, OPPONENT, answerer, keep_only, pending, seat_note

__all__ = ["ASKS", "SCOPES", "answer", "ask", "pending", "resign", "respond"]

SCOPES = ("bout", "match")
_DONE = {"draw": "offered a draw", "takeback": "asked for a takeback"}


def resign(match: Match, seat: int, scope: str) -> Bout:
    """`seat` resigns the running bout, or the whole match: every other seat wins it."""
    if scope not in SCOPES:
        raise ServiceError("resign either the bout or the match")
    with change(match, bout=RUNNING, seat=seat, with_clocks=True) as c:
        match, bout, seat = c.match, c.running, c.seat
        engine.bump(bout)
        keep_only(match, bout, [])
        seat_note(match, bout, seat, f"resigns the {scope}", c.now)
        winners = [s for s in range(1, match.seat_count + 1) if s != seat]
        engine.finish_bout(match, bout, winners, "resign", c.now, whole_match=scope == "match")
        return bout


def ask(match: Match, seat: int, kind: str) -> None:
    """`seat` offers a draw or asks for a takeback; its opponent or the host answers."""
    if kind not in ASKS:
        raise ServiceError("a seat may offer a draw or ask for a takeback")
    with change(match, bout=RUNNING, seat=seat) as c:
        match, bout, seat = c.match, c.running, c.seat
        if kind not in match.game.seat_offers:
            raise NotAllowed(f"{match.game.name} has no {NAMES[kind]}s for seats: the host decides how its bouts end")
        open_ = pending(match, bout)
        by_opponent = answerer(match) == OPPONENT
        mine = next((r for r in open_ if r["seat"] == seat and r["kind"] == kind), None)
        if mine is not None and mine.get("declined"):
            raise NotAllowed(f"{_other(match, seat)} declined your {NAMES[kind]}: ask again after the next move")
        if mine is not None:
            who = _other(match, seat) if by_opponent else "the host"
            raise NotAllowed(f"you already {_DONE[kind]}: {who} has not answered yet")
        theirs = next((r for r in open_ if r["seat"] != seat and r["kind"] == "draw" and not r.get("declined")), None)
        if by_opponent and kind == "draw" and theirs is not None:
            raise NotAllowed(f"{_other(match, seat)} offers you a draw already: accept it instead")
        if kind == "takeback" and not bout.active_moves().filter(actor=seat).exists():
            raise NotAllowed(f"you have no move in bout {bout.number} to take back")
        entry = seat_note(match, bout, seat, ASKS[kind], c.now)
        keep_only(match, bout, [*open_, {"kind": kind, "seat": seat, "bout": bout.number, "id": entry.sequence}])


def respond(match: Match, seat: int, kind: str, accept: bool, offer: int | None = None) -> str:
    """The opponent `seat` accepts or declines the other seat's open request of `kind` (`offer`: its
    id, as the page showing it drew it); what was done, in words.  Accepting ends the bout drawn by
    agreement, or takes the move back, in this one change."""
    if kind not in ASKS:
        raise ServiceError("answer a draw offer or a takeback request")
    with change(match, bout=RUNNING, seat=seat) as c:
        match, bout, seat = c.match, c.running, c.seat
        if answerer(match) != OPPONENT:
            raise NotAllowed("the host answers draw offers and takeback requests in this match")
        open_ = pending(match, bout)
        named = [r for r in open_ if r["kind"] == kind and (offer is None or r.get("id") == offer)]
        found = next((r for r in named if r["seat"] != seat and not r.get("declined")), None)
        if found is None and any(r["seat"] == seat for r in named):
            raise NotAllowed(f"you cannot answer your own {NAMES[kind]}: {_other(match, seat)} answers it")
        if found is None:
            raise NotAllowed(f"that {NAMES[kind]} is no longer open: it was answered, or a move ended it")
        other, what = int(found["seat"]), NAMES[kind]
        if not accept:
            keep_only(match, bout, [{**r, "declined": True} if r == found else r for r in open_])
            seat_note(match, bout, seat, f"declines the {what} of {engine.seat_label(match, other)}", c.now)
            return f"{what} declined"
        keep_only(match, bout, [r for r in open_ if r != found])
        accepted = f"accepts the {what} of {engine.seat_label(match, other)}"
        if kind == "draw":
            engine.bump(bout)
            seat_note(match, bout, seat, accepted, c.now)
            engine.finish_bout(match, bout, [], "agreed", c.now)
            return "draw accepted: the bout is drawn"
        return _take_back(match, bout, other, by_seat=seat, why=accepted)


def answer(match: Match, seat: int, kind: str, accept: bool) -> str:
    """Host: accept or decline `seat`'s open request of `kind` (overruling the opponent, when the
    opponent answers: while it is open, or granting it once declined); what was done, in words.
    Accepting runs `declare_result` or `undo` inside this change (announced once, with it)."""
    with change(match, bout=RUNNING) as c:
        match, bout = c.match, c.running
        open_ = pending(match, bout)
        found = next((r for r in open_ if r["seat"] == seat and r["kind"] == kind), None)
        if found is None:
            raise NotAllowed("that request is no longer open (it was answered, or the bout ended)")
        who, what = engine.seat_label(match, seat), NAMES[kind]
        if found.get("declined") and not accept:
            raise NotAllowed(f"{_other(match, seat)} has declined the {what} of {who} already: "
                             "you may only grant it")
        keep_only(match, bout, [r for r in open_ if r != found])
        if found.get("declined"):
            c.note(f"granted the {what} of {who}, which {engine.seat_label(match, _opponent(match, seat))} declined")
        else:
            c.note(f"{'accepted' if accept else 'declined'} the {what} of {who}")
        if not accept:
            return f"{what} declined"
        if kind == "draw":
            services.declare_result(match, "draw", bout.version)
            return "draw accepted: the bout is drawn"
        return _take_back(match, bout, seat)


def _take_back(match: Match, bout: Bout, seat: int, *, by_seat: int = 0, why: str = "") -> str:
    """Undo `seat`'s last move of `bout` and every move after it (inside the answer's change)."""
    moves = list(bout.active_moves())
    mine = [i for i, t in enumerate(moves) if t.actor == seat]
    if not mine:  # the host undid it meanwhile: nothing left to take back (the refusal rolls back)
        raise NotAllowed(f"{engine.seat_label(match, seat)} has no move left in bout {bout.number} to take back")
    count = len(moves) - mine[-1]
    if by_seat:
        services.undo(match, bout.version, count, by_seat=by_seat, why=why)
    else:
        services.undo(match, bout.version, count)
    return f"takeback accepted: {count} turn(s) taken back"


def _opponent(match: Match, seat: int) -> int:
    """The other seat of a two-seat match (where the opponent answers)."""
    return next((s for s in range(1, match.seat_count + 1) if s != seat), seat)


def _other(match: Match, seat: int) -> Any:
    """The other seat's name ("Bob"), for refusals a seat reads; "the host" in a host-answered match
    of more seats."""
    if answerer(match) == HOST_ANSWERS and match.seat_count != 2:
        return "the host"
    return match.seats.filter(number=_opponent(match, seat)).values_list("name", flat=True).first() or "your opponent"
