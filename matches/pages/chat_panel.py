"""The match chat as a page draws it: its rooms, their history and forms (`panel`), one line
(`line`), and the spectator's signed name cookie.  A page includes the panel; its socket sends it
again on connect, so a page that was away misses nothing (matches/live/chat_feed.py sends new lines)."""

from __future__ import annotations

from typing import Any

from django.core import signing
from django.template.loader import render_to_string

from games.core import HOST, SPECTATOR
from matches.core import chatrooms
from matches.core.audiences import viewer_label

#: lines of each room drawn in the panel (the latest)
HISTORY = 200
#: a spectator's chat name and id, signed (web/chat_views.py sets it; the socket reads it too)
COOKIE, SALT, COOKIE_AGE = "dm_chat", "deathmatch.chat", 365 * 24 * 3600


def spectator(cookie: str | None) -> tuple[str, str]:
    """(id, name) from the signed cookie's value; ("", "") when it is missing or forged."""
    if not cookie:
        return "", ""
    try:
        data = signing.loads(cookie, salt=SALT, max_age=COOKIE_AGE)
    except (signing.BadSignature, ValueError):
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    ident, name = data.get("id"), data.get("name")
    if not isinstance(ident, str) or not isinstance(name, str) or not ident.isalnum() or len(ident) > 32:
        return "", ""
    return ident, name


def spectator_cookie(ident: str, name: str) -> str:
    """The cookie's value: the spectator's id and name, signed (URL-safe characters only)."""
    return signing.dumps({"id": ident, "name": name}, salt=SALT, compress=True)


def _lines(match: Any, rooms: list[str]) -> dict[str, list[Any]]:
    from matches.models import ChatMessage

    found: dict[str, list[Any]] = {room: [] for room in rooms}
    for room in rooms:
        rows = ChatMessage.objects.filter(match_id=match.pk, room=room).order_by("-id")[:HISTORY]
        found[room] = list(reversed(rows))
    return found


def panel_context(match: Any, viewer: int, *, spectator_id: str = "", spectator_name: str = "",
                  error: str = "", error_room: str = "") -> dict[str, Any] | None:
    """The chat panel's context for `viewer`; None when it reads no room (a player in practice)."""
    from matches.models import ChatMessage

    opts = chatrooms.options(match)
    rooms = chatrooms.readable(match, viewer, opts)
    if not rooms:
        return None  # nothing to draw: no names, lines or mutes to load
    names = dict(match.seats.values_list("number", "name"))
    lines = _lines(match, rooms)
    mute = (chatrooms.active_mute(match.pk, chatrooms.writer_of(viewer, spectator_id))
            if viewer != SPECTATOR or spectator_id else None)
    drawn = []
    for room in rooms:
        drawn.append({
            "key": room,
            "title": chatrooms.title(match, viewer, room, names),
            "lines": lines[room],
            "closed": room in opts.closed,
            "refusal": chatrooms.write_refusal(match, viewer, room, opts),
            "private": chatrooms.seat_of(room) is not None,
            "error": error if room == error_room else "",
        })
    writers: list[dict[str, str]] = []
    muted: list[dict[str, str]] = []
    if viewer == HOST:
        # mutes in force, one line per writer (the host may lift them before they end)
        for row in chatrooms.active_mutes(match.pk):
            muted.append({"writer": row.writer, "name": row.name, "sentence": chatrooms.mute_words(row)})
        # whom the host may mute: each seat, each spectator who wrote
        writers = [{"writer": chatrooms.private_room(n), "name": f"{name} (seat {n})"}
                   for n, name in sorted(names.items())]
        seen: set[str] = set()
        spectators = ChatMessage.objects.filter(match_id=match.pk, writer__startswith="spectator-")
        for writer, name in spectators.order_by("-id").values_list("writer", "name")[:500]:
            if writer not in seen:
                seen.add(writer)
                writers.append({"writer": writer, "name": f"{name} (spectator)"})
    return {
        "chat_rooms": drawn,
        "chat_is_host": viewer == HOST,
        "chat_is_spectator": viewer == SPECTATOR,
        "chat_name": spectator_name,
        "chat_mute_note": chatrooms.mute_sentence(mute) if mute is not None else "",
        "chat_options": opts,
        "chat_writers": writers,
        "chat_muted": muted,
        "chat_viewer": viewer_label(viewer),
        # a seat's page fetches its panel again when the match ends (the spectators' room appears)
        "chat_delayed": viewer not in (HOST, SPECTATOR) and opts.spectators == chatrooms.DELAYED
        and match.status != "finished",
        "chat_mutes": chatrooms.DURATIONS,
        "chat_webhook": viewer == HOST and match.season_id is not None and bool(match.season.webhook_url),
    }


def panel(match: Any, viewer: int, *, oob: bool = False, request: Any = None, **identity: str) -> str:
    """The whole chat panel of `viewer`'s page (`oob`: to replace the page's by id; `request`: the
    page's, for the forms' CSRF token when they post without JavaScript); "" when it reads no room."""
    context = panel_context(match, viewer, **identity)
    if context is None:
        return ""  # no room to read (a player in practice): no panel, no Chat button
    return render_to_string("matches/partials/chat.html", {**context, "oob": oob}, request=request)


def line(message: Any, *, host: bool) -> str:
    return render_to_string("matches/partials/chat_line.html", {"line": message, "chat_is_host": host})
