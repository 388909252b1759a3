"""One websocket per page, at ws/m/<token>/: the token decides the audience.

Incoming messages are JSON objects (what the htmx ws extension sends from a
form with `ws-send`, or any client): {"type": "move", "text": "...",
"version": 7} from a seat, or {"type": "refresh"}.  Anything else closes
the socket with a 4xxx code.  Outgoing messages are HTML fragments swapped
out of band by the htmx ws extension; each carries the bout version in
`#live-meta`.

Clocks (issue 26): {"type": "ping", "n": 3} is answered at once with the JSON
{"type": "pong", "n": 3, "now": <server time, ms>} (the page's clock offset); the page answers
that with {"type": "ack", "n": 3} and the server times pong -> ack, the seat's network lag
(core/netlag.py).  A move may carry "think": the seconds its player took (play/lag.py).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import time
import uuid
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.utils.html import escape

from config import gcsweep, logredact, ratelimits
from games.core import HOST, SPECTATOR, RuleError
from matches.core import netlag
from matches.live import drawing, fanout, presence, relay
from matches.pages import render
from matches.web import chat_socket, shared_draw

log = logging.getLogger(__name__)
#: reads (token, current fragments) run in worker threads side by side, not one after another in
#: the single thread that changes matches: 2,000 sockets arriving at once are served in parallel
_read_only = functools.partial(database_sync_to_async, thread_sensitive=False)

CLOSE_BAD_TOKEN = 4404
CLOSE_BAD_MESSAGE = 4400
CLOSE_FORBIDDEN = 4403
MAX_MESSAGE = 4096
MAX_TEXT = 500
MAX_VERSION = 2**31  # Bout.version is a 32-bit column
ALLOWED_KEYS = {"type", "text", "version", "HEADERS", "think", "n"}
#: pings a socket may have waiting for their ack (older ones are forgotten)
MAX_PINGS = 4
MAX_THINK = 7 * 24 * 3600.0


class MatchConsumer(AsyncWebsocketConsumer):
    """A socket has no channel-layer channel of its own: everything it is sent (the updates of
    its audience, the host's presence box, "Redis is back") comes through this process's relay
    (live/relay.py), which holds one channel for all of the process's sockets.  A channel per
    socket cost a group_add on connect, a group_discard on close and a share of the layer's
    blocking read: a burst of 2,000 closes left hundreds of closed sockets in their groups when
    daphne killed the disconnects that waited on Redis.  Channels gives a consumer no channel when
    its `channel_layer_alias` names no configured layer (`get_channel_layer` returns None)."""

    channel_layer_alias = "deathmatch-sockets-use-the-relay"
    match_id: int | None = None
    viewer: int = SPECTATOR
    group: str = ""
    #: ping number -> when its pong was sent (time.monotonic), until the page acknowledges it
    _pings: dict[int, float] | None = None
    #: the latest round trip measured on this socket (seconds), None before the first
    _lag: float | None = None

    async def connect(self) -> None:
        token = str(self.scope["url_route"]["kwargs"].get("token", ""))
        # accept first: a handshake is never left waiting on the database (daphne drops
        # handshakes not accepted within its connect timeout when many sockets arrive at once)
        await self.accept()
        found = await self._resolve(token)
        if found is None:
            # accept first so the browser sees a 4xxx code (not a bare 403); a miss counts, and
            # past the budget closes with CLOSE_TOO_MANY (a valid link always opens: ratelimits.py)
            client = ratelimits.scope_request(self.scope)
            too_many = await _read_only(ratelimits.missed)(client) is not None
            await self.close(code=ratelimits.CLOSE_TOO_MANY if too_many else CLOSE_BAD_TOKEN)
            return
        self.match_id, self.viewer = found
        logredact.remember(token, f"match {self.match_id} {render.viewer_label(self.viewer)}")
        self.group = render.group_name(self.match_id, self.viewer)
        self.presence_id = uuid.uuid4().hex  # this socket, among the audience's open pages
        fanout.attach()  # broadcasts of this process run on this (the server's) event loop
        try:
            mine = relay.for_loop(get_channel_layer())
            await mine.join(self.group, self, first=True)  # everything it is sent, after its state
            await presence.arrive(self.match_id, render.viewer_label(self.viewer), self.presence_id)
            # a (re)connecting page may have missed updates: send the current state
            # (and the chat's history, chat_socket.py)
            # (sockets of one audience arriving together share one drawing of it: shared_draw.py)
            who = self._chat_identity()
            match_id, viewer = self.match_id, self.viewer
            state, drawn = await shared_draw.draw_once(
                ("connect", match_id, viewer, tuple(sorted(who.items()))),
                lambda: _read_only(_connect_state)(match_id, viewer, who))
            await self.send(text_data=state)
            await mine.ready(self.group, self, drawn)  # then what the relay got for it meanwhile
        except BaseException:
            # the consumer ends here (a client gone before its state was sent: daphne's "Attempt to
            # send on a closed protocol"), and channels runs no disconnect for it: leave the relay
            # and presence now, or the socket stayed in its audience for good
            # (tests/chaos/test_socket_memory.py found a closed socket's relay membership)
            await self.disconnect(1006)
            raise

    def _chat_identity(self) -> dict[str, str]:
        return chat_socket.identity(self.scope, self.viewer)

    async def disconnect(self, code: int) -> None:
        gcsweep.socket_closed()  # its cycles in daphne wait for a full collection: config/gcsweep.py
        if self.match_id is not None and self.group:
            await relay.for_loop(get_channel_layer()).leave(self.group, self)
            await presence.leave(self.match_id, render.viewer_label(self.viewer), self.presence_id)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        line = chat_socket.parse(text_data)  # a chat line: chat_socket.py
        if line is not None and self.match_id is not None:
            if not line:
                await self.close(code=CLOSE_BAD_MESSAGE)
                return
            await self.send(text_data=await chat_socket.post(self.match_id, self.viewer, line["room"], line["text"],
                                                             self._chat_identity()))
            return
        data = _validate(text_data)
        if data is None:
            await self.close(code=CLOSE_BAD_MESSAGE)
            return
        if data["type"] == "refresh":
            await self.send(text_data=await self._fragments())
            return
        if data["type"] in ("ping", "ack"):
            await self._clock_sync(data)
            return
        if self.viewer < 1:
            await self.close(code=CLOSE_FORBIDDEN)  # spectators and the host page do not move here
            return
        error = await self._submit(data["text"], data["version"], data.get("think"))
        if not error and not getattr(get_channel_layer(), "healthy", True):
            # the broadcast was skipped (Redis away): at least the mover sees the move
            await self.send(text_data=await self._fragments())
        await self.send(text_data=_error_fragment(error))

    # -- clock sync: the page's clock offset, the seat's network lag -----------------
    async def _clock_sync(self, data: dict[str, Any]) -> None:
        if self._pings is None:
            self._pings = {}
        pings, n = self._pings, data["n"]
        if data["type"] == "ping":
            pings[n] = time.monotonic()
            while len(pings) > MAX_PINGS:
                del pings[next(iter(pings))]
            await self.send(text_data=json.dumps({"type": "pong", "n": n, "now": time.time() * 1000}))
            return
        sent = pings.pop(n, None)
        if sent is not None and self.match_id is not None and self.viewer >= 1:
            round_trip = time.monotonic() - sent
            self._lag = netlag.clean(round_trip)  # this socket's moves use it without asking the cache
            await _read_only(netlag.record)(self.match_id, self.viewer, round_trip)

    # -- called by the relay ------------------------------------------------------------
    async def layer_recovered(self) -> None:
        """Redis is back (config.channel_layer): the relay has rejoined its groups; resync the page."""
        if self.match_id is not None:
            await presence.arrive(self.match_id, render.viewer_label(self.viewer), self.presence_id)
            await self.send(text_data=await self._fragments())

    # -- database ----------------------------------------------------------------
    @_read_only
    def _resolve(self, token: str) -> tuple[int, int] | None:
        from matches.models import Match, Seat

        if not token or len(token) > 128:
            return None
        seat = Seat.objects.filter(token=token).first()
        if seat is not None:
            return seat.match_id, seat.number
        match = Match.objects.filter(host_token=token).first()
        if match is not None:
            return match.id, HOST
        match = Match.objects.filter(watch_token=token).first()
        if match is not None:
            return match.id, SPECTATOR
        return None

    async def _fragments(self) -> str:
        assert self.match_id is not None  # set by connect() before any fragment is asked for
        match_id, viewer = self.match_id, self.viewer
        return await shared_draw.draw_once(("fragments", match_id, viewer),
                                       lambda: _read_only(_fragments)(match_id, viewer))

    @database_sync_to_async
    def _submit(self, text: str, version: int, think: float | None = None) -> str:
        from matches.play import services

        assert self.match_id is not None
        try:  # by id: the service reads (and locks) the match itself
            services.submit(self.match_id, self.viewer, text, version, think=think, network_lag=self._lag)
        except services.StaleVersion as exc:  # its own move sent again is done, as over HTTP (views.player_move)
            return "" if services.already_applied(self.match_id, self.viewer, version, text) else str(exc)
        except (services.ServiceError, RuleError) as exc:
            return str(exc)
        return ""


def _fragments(match_id: int, viewer: int) -> str:
    from matches.models import Match

    return render.fragments(Match.objects.get(pk=match_id), viewer)


def _connect_state(match_id: int, viewer: int, who: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """What a socket is sent when it opens (its audience's fragments and the chat's panel), and
    the drawing it is (the relay's delta base for this socket)."""
    from matches.models import Match

    match = Match.objects.get(pk=match_id)
    html, drawn = drawing.on_connect(match, viewer)
    return html + chat_socket.draw_panel(match, viewer, who), drawn


def _validate(text_data: str | None) -> dict[str, Any] | None:
    """The message as {"type", "text", "version"}, or None if it is not valid."""
    if not text_data or len(text_data) > MAX_MESSAGE:
        return None
    try:
        data = json.loads(text_data)
    except (ValueError, RecursionError):  # "[" * 4000 is short enough to arrive
        return None
    if not isinstance(data, dict) or not set(data) <= ALLOWED_KEYS:
        return None
    kind = data.get("type")
    if kind == "refresh":
        return {"type": "refresh"}
    if kind in ("ping", "ack"):
        n = data.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < MAX_VERSION:
            return None
        return {"type": kind, "n": n}
    if kind != "move":
        return None
    text, version = data.get("text"), data.get("version")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        return None
    if isinstance(version, str) and version.isdecimal():  # isdigit() lets "²" through to int()
        version = int(version)
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version < MAX_VERSION:
        return None
    think = parse_think(data.get("think"))
    if think is False:
        return None
    return {"type": "move", "text": text.strip(), "version": version, "think": think}


def parse_think(value: Any) -> float | bool | None:
    """A move's reported think time in seconds; None when absent or empty, False when malformed."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if not math.isfinite(value) or not 0 <= value <= MAX_THINK:
        return False
    return float(value)


def _error_fragment(error: str) -> str:
    hidden = "" if error else " hidden"
    return f'<div id="move-error" class="move-error" role="alert" hx-swap-oob="true"{hidden}>{escape(error)}</div>'
