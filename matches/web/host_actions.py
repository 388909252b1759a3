"""The host dashboard's form posts -> services calls (one small function each).

`perform(match, data)` validates the form fields and calls the service; it
returns a short confirmation for the host, or raises `BadRequest` (bad form),
`AlreadyDone`, `services.ServiceError` or `RuleError` (the message is shown as is).

Exactly once: every form of the dashboard carries `host_seq`, the number of
host actions the match had when the page was drawn (`host_seq(match)`: the
host's entries in the append-only log; every host action writes at least
one, moves and clock events do not count).  `perform` locks the match row,
compares, and only then acts, in one transaction: of a double click, or of a
retry after an error whose first try went through, one is applied and the
others are told "already done".  (No new table: the log is the record.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from matches.models import Match
from matches.play import bots, season_tokens, services
from matches.play import rematch as rematches
from matches.play import requests as seat_requests
from matches.play.engine import host_seq


class BadRequest(ValueError):
    pass


class AlreadyDone(BadRequest):
    """The form was drawn before another host action: this one was (or may have been) done."""


def _int(data: Any, key: str, label: str) -> int:
    try:
        return int(str(data.get(key, "")).strip())
    except ValueError:
        raise BadRequest(f"the {label} must be a whole number") from None


def _seat(match: Any, data: Any) -> int:
    seat = _int(data, "seat", "seat")
    if not 1 <= seat <= match.seat_count:
        raise BadRequest("there is no such seat")
    return seat


def _text(data: Any, key: str = "text") -> str:
    text = str(data.get(key, "")).strip()
    if not text or len(text) > 500:
        raise BadRequest("type the text first (at most 500 characters)")
    return text


def _start(match: Any, data: Any) -> str:
    services.start_match(match, starting_seat=_seat(match, {"seat": data.get("starting_seat", "1")}))
    return "match started"


def _next_bout(match: Any, data: Any) -> str:
    services.start_next_bout(match)
    return "next bout started"


def _pause(match: Any, data: Any) -> str:
    services.pause_clocks(match)
    return "clocks paused"


def _resume(match: Any, data: Any) -> str:
    services.resume_clocks(match)
    return "clocks running"


def _clock(match: Any, data: Any) -> str:
    seconds = _int(data, "seconds", "number of seconds")
    services.adjust_clock(match, _seat(match, data), seconds)
    return f"clock changed by {seconds:+d} s"


def _undo(match: Any, data: Any) -> str:
    count = _int(data, "count", "number of turns")
    if not 1 <= count <= 50:
        raise BadRequest("undo between 1 and 50 turns")
    services.undo(match, _int(data, "version", "version"), count)
    return f"undid {count} turn(s)"


def _correct(match: Any, data: Any) -> str:
    services.correct(match, _int(data, "sequence", "log entry"), _text(data), _int(data, "version", "version"))
    return "log entry corrected"


def _resolve(match: Any, data: Any) -> str:
    services.host_apply(match, "resolve", _int(data, "version", "version"))
    return "round resolved"


#: the most actions one Send of the host's console carries
MAX_ACTIONS = 50


def _play(match: Any, data: Any) -> str:
    """Game actions in the host's own notation (games with `host_moves`: the host's game): the
    console's pending list and the box, each a `text` field, applied in order, all or none."""
    if not match.game.host_moves:
        raise BadRequest(f"the host plays no moves in {match.game.name}; enter orders for a seat instead")
    texts = [_text({"text": t}) for t in data.getlist("text") if str(t).strip()]
    if not texts:
        raise BadRequest("type an action or click one in the console first")
    if len(texts) > MAX_ACTIONS:
        raise BadRequest(f"send at most {MAX_ACTIONS} actions at once")
    services.host_play(match, texts, _int(data, "version", "version"))
    return "done: " + "; ".join(texts)


def _orders(match: Any, data: Any) -> str:
    seat = _seat(match, data)
    services.host_apply(match, f"seat {seat}: {_text(data)}", _int(data, "version", "version"))
    return f"entered for seat {seat}"


def _stalemate(match: Any, data: Any) -> str:
    services.declare_result(match, "stalemate", _int(data, "version", "version"))
    return "stalemate declared"


def _draw(match: Any, data: Any) -> str:
    services.declare_result(match, "draw", _int(data, "version", "version"))
    return "draw declared"


def _award(match: Any, data: Any) -> str:
    seat = _seat(match, data)
    services.award_bout(match, seat)
    return f"bout awarded to {match.seats.get(number=seat).name}"


def _forfeit(match: Any, data: Any) -> str:
    scope = str(data.get("scope", "")) or None
    if scope not in (None, "bout", "match"):
        raise BadRequest("a forfeit loses the bout or the match")
    seat = _seat(match, data)
    services.forfeit(match, seat, scope)
    return f"{match.seats.get(number=seat).name} forfeited the {scope or match.format.get('forfeit', 'match')}"


def _reopen(match: Any, data: Any) -> str:
    bout = services.reopen_bout(match, _int(data, "version", "version"))
    return f"bout {bout.number} reopened"


def _garnets(match: Any, data: Any) -> str:
    amount = _int(data, "amount", "number of garnets")
    if amount == 0:
        raise BadRequest("award or deduct at least one garnet")
    services.adjust_garnets(match, _seat(match, data), amount, str(data.get("reason", "")).strip()[:200])
    return f"garnets {amount:+d} recorded"


def _end(match: Any, data: Any) -> str:
    try:
        winners = sorted({int(str(w).strip()) for w in data.getlist("winners")})
    except ValueError:
        raise BadRequest("there is no such seat") from None
    if any(not 1 <= w <= match.seat_count for w in winners):
        raise BadRequest("there is no such seat")
    services.end_match(match, winners or None)
    return "match ended"


def _answer(match: Any, data: Any) -> str:
    """Accept or decline a seat's draw offer or takeback request (matches/play/requests.py)."""
    kind, verdict = str(data.get("kind", "")), str(data.get("answer", ""))
    if kind not in seat_requests.ASKS or verdict not in ("accept", "decline"):
        raise BadRequest("answer a draw offer or a takeback request with accept or decline")
    return seat_requests.answer(match, _seat(match, data), kind, verdict == "accept")


def _token(match: Any, data: Any) -> str:
    """The Token of Life question of an elimination match: use the token, or keep it."""
    verdict = str(data.get("answer", ""))
    if verdict not in ("use", "keep"):
        raise BadRequest("answer the Token of Life question with use or keep")
    player = _int(data, "player", "player")
    return season_tokens.answer(match, player, verdict == "use", where=f"answered on the host page of match #{match.pk}").text


def _rematch(match: Any, data: Any) -> str:
    new = rematches.rematch(match, swap=str(data.get("swap", "")) == "1")
    return f"rematch created (match {new.pk}): every seat's link now leads to it"


def _replay_access(match: Any, data: Any) -> str:
    from matches.core.replay_access import MAX_BEHIND, describe_access

    access = str(data.get("access", ""))
    if access == "host":
        behind = None
    elif access == "delay":
        behind = _int(data, "behind", "delay")
        if not 0 <= behind <= MAX_BEHIND:
            raise BadRequest(f"choose a delay between 0 and {MAX_BEHIND} moves")
    else:
        raise BadRequest("choose who may replay the running bout")
    services.set_replay_access(match, behind)
    match.refresh_from_db()
    return describe_access(match)


def _bot(match: Any, data: Any) -> str:
    strength = str(data.get("strength", "")).strip()
    if strength not in ("", *bots.STRENGTHS):
        raise BadRequest("choose a person, or the computer at easy, normal or strong")
    return bots.set_bot(match, _seat(match, data), strength)


ACTIONS: dict[str, Callable[[Any, Any], str]] = {
    "bot": _bot,
    "start": _start,
    "next_bout": _next_bout,
    "pause": _pause,
    "resume": _resume,
    "clock": _clock,
    "undo": _undo,
    "correct": _correct,
    "resolve": _resolve,
    "orders": _orders,
    "play": _play,
    "stalemate": _stalemate,
    "draw": _draw,
    "award": _award,
    "forfeit": _forfeit,
    "garnets": _garnets,
    "end": _end,
    "reopen": _reopen,
    "replay_access": _replay_access,
    "answer": _answer,
    "token": _token,
    "rematch": _rematch,
}


def perform(match: Any, data: Any) -> str:
    action = ACTIONS.get(str(data.get("action", "")))
    if action is None:
        raise BadRequest("unknown host action")
    try:
        seen = int(str(data.get("host_seq", "")).strip())
    except ValueError:
        raise BadRequest("reload the page: the form lost its version") from None
    with transaction.atomic():
        # the services lock the match row too (match first, then bout): same order, no deadlock
        locked = Match.objects.select_for_update(no_key=True).get(pk=match.pk)
        if host_seq(locked) != seen:
            raise AlreadyDone("already done: another host action was applied since this page was drawn "
                              "(a double click or a retry?); check the log before repeating it")
        return action(locked, data)
