"""The chat over the match websocket (consumers.MatchConsumer hands it what concerns chat).

On connect the consumer sends the page's whole chat panel (`panel`): the history of every room
its audience reads, so a page that was away misses no line.  A chat line arrives as
{"type": "chat", "room": "table", "text": "..."}; the reply is that room's error line (hidden
when the line was taken: the line itself comes to every reader, this socket too, through the
live path).  A spectator writes under the name and id of their signed cookie, read from the
socket's handshake.
"""

from __future__ import annotations

import json
from http.cookies import CookieError, SimpleCookie
from typing import Any

from channels.db import database_sync_to_async
from django.db import connections
from django.utils.html import escape

from config.ratelimits import client_network, scope_request
from games.core import SPECTATOR
from matches.core import chatrooms
from matches.pages import chat_panel
from matches.play import chat

CHAT_KEYS = {"type", "room", "text", "HEADERS", "csrfmiddlewaretoken"}
MAX_ROOM = 16
MAX_MESSAGE = 4096  # as consumers.MAX_MESSAGE


def identity(scope: Any, viewer: int) -> dict[str, str]:
    """Who writes: the client's address (what a mute holds, config.ratelimits.client_network: an IPv6
    client by its /64), and a spectator's cookie identity from the handshake's Cookie header."""
    address = {"address": client_network(scope_request(scope))}
    if viewer != SPECTATOR:
        return address
    raw = b"; ".join(value for name, value in scope.get("headers", []) if name == b"cookie")
    cookies: SimpleCookie = SimpleCookie()
    try:
        cookies.load(raw.decode("latin-1"))
    except CookieError:
        return address
    morsel = cookies.get(chat_panel.COOKIE)
    ident, name = chat_panel.spectator(morsel.value if morsel is not None else None)
    return {"spectator_id": ident, "spectator_name": name, **address}


def parse(text_data: str | None) -> dict[str, str] | None:
    """A chat message as {"room", "text"}; None when it is no chat message (the consumer reads
    it); {} when it is a malformed one (the consumer closes the socket)."""
    if not text_data or '"chat"' not in text_data or len(text_data) > MAX_MESSAGE:
        return None  # (the consumer refuses what is too long, as any message)
    try:
        data = json.loads(text_data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("type") != "chat":
        return None
    room, text = data.get("room"), data.get("text")
    if (not set(data) <= CHAT_KEYS or not isinstance(room, str) or not isinstance(text, str)
            or len(room) > MAX_ROOM or len(text) > 4 * 500):
        return {}
    return {"room": room, "text": text}


def draw_panel(match: Any, viewer: int, who: dict[str, str]) -> str:
    """The chat's panel for a socket that opens (its history and rooms), swapped out of band."""
    return chat_panel.panel(match, viewer, oob=True, spectator_id=who.get("spectator_id", ""),
                           spectator_name=who.get("spectator_name", ""))


async def post(match_id: int, viewer: int, room: str, text: str, who: dict[str, str]) -> str:
    """The reply to a chat line: its room's error line, empty and hidden when it was taken.

    On PostgreSQL a line is written and drawn in a worker thread of its own, beside the moves
    (chat never locks the match row: play/chat.py), so that a move never queues behind a chat
    line in the one thread Channels gives the moves (`database_sync_to_async`), where it waited
    for the line's transaction and drawing (bench/fanout.py times moves beside chat).  SQLite
    takes one writer at a time (two transactions that read, then write, fail with "database is
    locked"), so there a line waits in the moves' thread."""
    return await database_sync_to_async(_post, thread_sensitive=_one_writer())(match_id, viewer, room, text, who)


def _one_writer() -> bool:
    return connections["default"].vendor == "sqlite"


def _post(match_id: int, viewer: int, room: str, text: str, who: dict[str, str]) -> str:
    from matches.models import Match

    error = ""
    try:
        chat.post(match_id, viewer, room, text, spectator_id=who.get("spectator_id", ""),
                  spectator_name=who.get("spectator_name", ""), address=who.get("address", ""))
    except chat.ChatRefused as refused:
        error = str(refused)
    match = Match.objects.get(pk=match_id)
    target = room if room in chatrooms.readable(match, viewer, chatrooms.options(match)) else ""
    ident = f"chat-error-{target}" if target else "chat-flash"
    hidden = "" if error else " hidden"
    return f'<p id="{ident}" class="chat-error" role="alert" hx-swap-oob="true"{hidden}>{escape(error)}</p>'
