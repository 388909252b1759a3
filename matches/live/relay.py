"""One channel per web process carries the live updates to that process's sockets.

Why: a group message is then one Redis message and one wake-up per process, not per socket.

The relay joins each audience group it has sockets for once (`relay_group`) and keeps, per socket,
the drawing it last sent it (`delta.py`): each audience's drawing arrives whole (from this process,
or from another through the layer) and every socket is written what it lacks, one delta per
distinct drawing its sockets were sent; one older than what a socket has is dropped.  A socket
being connected (`join(first=True)`) gets nothing until its state on connect is sent (`ready`).
Messages without a version (chat lines, presence boxes, the host's alerts) are written as they
are.  When the layer says Redis is back (`RECOVERED_TYPE`) every local page resyncs.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from config.channel_layer import RECOVERED, LayerUnavailable
from matches.live import delta

log = logging.getLogger(__name__)

#: what a channel-layer call raises while Redis is away (the consumers catch the same)
LAYER_ERRORS = (LayerUnavailable, OSError, TimeoutError)
DRAWING_TYPE = "relay.drawing"  # {"group", "origin", "drawing"}: an audience's drawing (delta.py)
HTML_TYPE = "relay.html"  # {"group", "origin", "html", "give_way"}: markup to write as it is
RECOVERED_TYPE = RECOVERED["type"]  # what the resilient layer sends each of its channels when Redis is back
#: seconds after which a join adds the relay to its group again (the in-memory layer expires a
#: group's members after `group_expiry`, a day by default; Redis pub/sub keeps them)
REJOIN_AFTER = 3600.0
#: a chat line (or alert) written to many sockets gives the loop a turn after this many (`deliver`)
GIVE_WAY_EVERY = 50

Between = Callable[[], Awaitable[None]] | None


class Socket(Protocol):
    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None: ...

    async def layer_recovered(self) -> None:
        """Redis answers again after an outage: resync the page."""


def relay_group(group: str) -> str:
    """The group the process relays of an audience group join (one member per process)."""
    return f"relay-{group}"


class Relay:
    """This process's (this event loop's) relay over one channel layer."""

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        #: group -> socket -> the drawing it was last sent (None: its state on connect is not sent yet)
        self.sockets: dict[str, dict[Socket, delta.Drawing | None]] = {}
        self.channel: str | None = None
        self.task: asyncio.Task[None] | None = None
        self.refresher: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()
        self._joining: dict[str, asyncio.Lock] = {}
        self._joined: dict[str, float] = {}  # group -> when the relay last joined it (monotonic)
        #: chat lines and alerts drawn by another process, written by a task that gives way to moves
        self.lines: asyncio.Queue[tuple[str, str]] | None = None
        self.lines_task: asyncio.Task[None] | None = None
        #: sockets joined whose state on connect is not sent yet, with what came for them meanwhile
        self.waiting: dict[Socket, list[delta.Drawing | str]] = {}

    async def join(self, group: str, socket: Socket, first: bool = False) -> None:
        """`socket` gets what is sent to `group` from now on; `first`: only once `ready` says its
        state on connect is sent.  The relay joins the layer's group once for all of this process's
        sockets of the audience, and again after `REJOIN_AFTER` (Redis expires group members)."""
        if first:
            self.waiting[socket] = []
        self.sockets.setdefault(group, {})[socket] = None
        channel = await self._channel()
        async with self._joining.setdefault(group, asyncio.Lock()):
            joined = self._joined.get(group)
            if socket not in self.sockets.get(group, ()) or (
                    joined is not None and time.monotonic() - joined < REJOIN_AFTER):
                return
            try:
                await self.layer.group_add(relay_group(group), channel)
                self._joined[group] = time.monotonic()
            except LAYER_ERRORS as error:  # the resilient layer adds it when Redis is back
                log.warning("relay joins %s later: %s", group, error)

    async def ready(self, group: str, socket: Socket, drawing: delta.Drawing | None) -> None:
        """The socket was sent its state on connect, `drawing`: what came for it meanwhile follows."""
        members = self.sockets.get(group)
        if members is None or socket not in members:
            self.waiting.pop(socket, None)
            return
        members[socket] = drawing
        queued = self.waiting.get(socket, [])
        while queued:  # (what arrives meanwhile is queued behind)
            item = queued.pop(0)
            if isinstance(item, str):
                await socket.send(text_data=item)
                continue
            html = delta.update(members.get(socket), item)
            if html is not None:
                await socket.send(text_data=html)
                members[socket] = item
        self.waiting.pop(socket, None)

    async def leave(self, group: str, socket: Socket) -> None:
        self.waiting.pop(socket, None)
        members = self.sockets.get(group)
        if members is not None:
            members.pop(socket, None)
        if members or self.channel is None:
            return
        async with self._joining.setdefault(group, asyncio.Lock()):
            if self.sockets.get(group):
                return  # another socket of the audience arrived meanwhile
            self.sockets.pop(group, None)
            self._joining.pop(group, None)
            self._joined.pop(group, None)
            try:
                await self.layer.group_discard(relay_group(group), self.channel)
            except LAYER_ERRORS as error:  # the layer retries the discard when Redis is back
                log.info("relay left %s without the group: %s", group, error)

    async def _channel(self) -> str:
        async with self._starting:
            if self.channel is None:
                self.channel = await self.layer.new_channel()
                loop = asyncio.get_running_loop()
                self.task = loop.create_task(self._run(self.channel))
                self.refresher = loop.create_task(self._refresh(self.channel))
        return self.channel

    async def _refresh(self, channel: str) -> None:
        """Join every group with sockets again every `REJOIN_AFTER` seconds: sockets that stay
        open for days must not lose their updates when Redis expires the relay's membership."""
        while True:
            await asyncio.sleep(REJOIN_AFTER)
            for group in [g for g, members in self.sockets.items() if members]:
                try:
                    await self.layer.group_add(relay_group(group), channel)
                    self._joined[group] = time.monotonic()
                except LAYER_ERRORS as error:
                    log.warning("relay could not renew %s: %s", group, error)

    async def _run(self, channel: str) -> None:
        while True:
            try:
                message = await self.layer.receive(channel)
            except Exception as error:  # a layer without the resilient wrapper: wait, try again
                log.warning("relay receive failed: %r", error)
                await asyncio.sleep(1.0)
                continue
            kind, group = message.get("type"), str(message.get("group", ""))
            if kind == RECOVERED_TYPE:
                await self.recovered()
            elif message.get("origin") == channel:
                continue  # this process's own: written to its sockets when it was sent
            elif kind == DRAWING_TYPE and isinstance(message.get("drawing"), dict):
                await self.write_drawing(group, message["drawing"])
            elif kind == HTML_TYPE and message.get("give_way"):
                self._write_line(group, str(message.get("html", "")))
            elif kind == HTML_TYPE:
                await self.deliver(group, str(message.get("html", "")))

    def _write_line(self, group: str, html: str) -> None:
        """A chat line or alert from another process: written in order by a task of its own, which
        gives the loop a turn every GIVE_WAY_EVERY sockets, so that this relay reads (and writes) a
        move sent meanwhile without waiting for the whole line."""
        if self.lines is None or self.lines_task is None or self.lines_task.done():
            self.lines = asyncio.Queue()
            self.lines_task = asyncio.get_running_loop().create_task(self._write_lines(self.lines))
        self.lines.put_nowait((group, html))

    async def _write_lines(self, queue: asyncio.Queue[tuple[str, str]]) -> None:
        while True:
            group, html = await queue.get()
            await self.deliver(group, html, between=_a_turn)

    async def recovered(self) -> None:
        """The layer rejoined this relay's groups after an outage: every local page resyncs (it
        may have missed updates meanwhile)."""
        sockets = {socket for members in self.sockets.values() for socket in members}
        results = await asyncio.gather(*(socket.layer_recovered() for socket in sockets), return_exceptions=True)
        for error in results:
            if isinstance(error, Exception):  # a socket closing meanwhile must not stop the others
                log.info("a page did not resync after Redis came back: %r", error)

    async def write_drawing(self, group: str, drawing: delta.Drawing) -> None:
        """Write each socket of `group` what `drawing` adds to the drawing it was sent last: one
        update per distinct drawing the sockets were sent (all the same, as a rule)."""
        members = self.sockets.get(group)
        if not members:
            return
        alike: dict[int, tuple[delta.Drawing | None, list[Socket]]] = {}
        for socket, before in list(members.items()):
            if socket in self.waiting:
                self.waiting[socket].append(drawing)
            else:
                alike.setdefault(id(before), (before, []))[1].append(socket)
        for before, sockets in alike.values():
            html = delta.update(before, drawing)
            if html is not None:
                await self._write(group, members, sockets, html, drawing)

    async def deliver(self, group: str, html: str, between: Between = None) -> None:
        """Write `html` to every local socket of `group` as it is.  `between`: awaited after every
        GIVE_WAY_EVERY sockets (a chat line giving way to moves: fanout.py)."""
        members = self.sockets.get(group)
        if not members:
            return
        ready = []
        for socket in list(members):
            if socket in self.waiting:  # its state on connect is not sent yet
                self.waiting[socket].append(html)
            else:
                ready.append(socket)
        await self._write(group, members, ready, html, None, between)

    async def _write(self, group: str, members: dict[Socket, delta.Drawing | None], sockets: list[Socket],
                     html: str, drawing: delta.Drawing | None, between: Between = None) -> None:
        """One that fails is dropped (it is closed or closing: its consumer's disconnect would drop it too)."""
        for count, socket in enumerate(sockets, start=1):
            try:
                await socket.send(text_data=html)
                if drawing is not None and socket in members:
                    members[socket] = drawing
            except Exception as error:  # a socket closing meanwhile must not stop the others
                members.pop(socket, None)
                log.info("relay dropped a socket of %s: %r", group, error)
            if between is not None and count % GIVE_WAY_EVERY == 0:
                await between()


async def _a_turn() -> None:
    await asyncio.sleep(0)


def local(layer: Any) -> Relay | None:
    """The running loop's relay over `layer` when it has a channel (so sockets), else None."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    relay = _relays.get(loop)
    return relay if relay is not None and relay.layer is layer and relay.channel is not None else None


_relays: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Relay] = weakref.WeakKeyDictionary()


def for_loop(layer: Any) -> Relay:
    """The relay of the running event loop (one per server process; tests run one loop each)."""
    loop = asyncio.get_running_loop()
    relay = _relays.get(loop)
    if relay is None or relay.layer is not layer:
        relay = _relays[loop] = Relay(layer)
    return relay
