"""One channel per web process carries the live updates to that process's sockets.

Channels' own fan-out gives every websocket consumer a channel of its own in
each audience group: a group message becomes one queued message per socket,
and each consumer task wakes, takes it, unpacks it and dispatches it, one
asyncio step at a time for all of them.  Measured on the project machine
(bench/trace.py), the first of 100 spectator sockets got its move 16-28 ms
after the message reached the process, and the last ~15 ms later; at 1,000
sockets ten times that.  With the core Redis layer the group message is
also pushed to Redis once per socket.

Here each process joins each audience group it has sockets for once, with
one channel (`relay_group(group)`); `live` sends each audience's update to
that group, so Redis carries one message per process, and the relay writes
it straight to every local socket of the audience.  It carries everything a
socket is sent (the host's presence box too), and when the layer says Redis
is back (`RECOVERED_TYPE`) it has every local page resync: the sockets
themselves have no channel (web/consumers.py).

The process that drew an update does not wait for Redis to bring it back:
`live` hands it to its own relay first (`local`, `deliver`), then sends it
to the group tagged with that relay's channel (`origin`), and the relay
skips the copy that comes back.  Measured on the project machine, the
group_send and the trip back through Redis were ~10 ms of the ~20 ms a move
took to reach 10 spectators on the same process (bench/README.md).  With
Redis away, this process's own sockets still get their updates.

Updates of a match, its own and those relayed, go out in the order of the match's versions
(`deliver_update`, inorder.py): another process's update can arrive before the one it follows.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from config.channel_layer import RECOVERED, LayerUnavailable
from matches.live.inorder import InOrder, Update

log = logging.getLogger(__name__)

#: what a channel-layer call raises while Redis is away (the consumers catch the same)
LAYER_ERRORS = (LayerUnavailable, OSError, TimeoutError)
UPDATE_TYPE = "relay.update"
RECOVERED_TYPE = RECOVERED["type"]  # what the resilient layer sends each of its channels when Redis is back
#: seconds after which a join adds the relay to its group again (channels_redis expires a group's
#: members after `group_expiry`, a day by default)
REJOIN_AFTER = 3600.0
#: a chat line (or alert) written to many sockets gives the loop a turn after this many (`deliver`)
GIVE_WAY_EVERY = 50


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
        self.sockets: dict[str, set[Socket]] = {}
        self.channel: str | None = None
        self.task: asyncio.Task[None] | None = None
        self.refresher: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()
        self._joining: dict[str, asyncio.Lock] = {}
        self._joined: dict[str, float] = {}  # group -> when the relay last joined it (monotonic)
        #: chat lines and alerts drawn by another process, written by a task of their own (`_aside`)
        self.aside: asyncio.Queue[tuple[str, str]] | None = None
        self.aside_task: asyncio.Task[None] | None = None
        #: a match's updates go out in the order of their versions, whichever process drew them
        self.order = InOrder()
        self._expiry: asyncio.TimerHandle | None = None
        #: sockets joined whose state on connect is not sent yet, with what came for them meanwhile
        self.waiting: dict[Socket, list[str]] = {}

    async def join(self, group: str, socket: Socket, first: bool = False) -> None:
        """`socket` gets the updates sent to `group` from now on.  `first`: what comes before the
        consumer calls `ready` waits for it (the state drawn on connect goes first: an update that
        reached a reconnecting page before it was made from a version the page did not show).

        The relay joins the layer's group once for all of this process's sockets of the audience
        (2,000 sockets arriving at once make one `group_add`, not 2,000 more), and again when its
        membership is older than `REJOIN_AFTER` (Redis expires group members after a day)."""
        if first:
            self.waiting[socket] = []
        self.sockets.setdefault(group, set()).add(socket)
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

    async def ready(self, socket: Socket) -> None:
        """The socket's state on connect is sent: what came for it meanwhile follows, in order (the
        page drops what its state already shows)."""
        for html in self.waiting.pop(socket, []):
            await socket.send(text_data=html)

    async def leave(self, group: str, socket: Socket) -> None:
        self.waiting.pop(socket, None)
        members = self.sockets.get(group)
        if members is not None:
            members.discard(socket)
        if members or self.channel is None:
            return
        async with self._joining.setdefault(group, asyncio.Lock()):
            if self.sockets.get(group):
                return  # another socket of the audience arrived meanwhile
            self.sockets.pop(group, None)
            self._joining.pop(group, None)
            self._joined.pop(group, None)
            self.order.forget(group)
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
                # (a cancellation ends the wait on Redis: config/channel_layer.py's receive)
                message = await self.layer.receive(channel)
            except Exception as error:  # a layer without the resilient wrapper: wait, try again
                log.warning("relay receive failed: %r", error)
                await asyncio.sleep(1.0)
                continue
            if message.get("type") == UPDATE_TYPE and message.get("origin") != channel:
                # (this process's own updates were delivered when they were sent: `local`)
                if message.get("aside"):
                    self._aside(str(message.get("group", "")), str(message.get("html", "")))
                else:
                    await self.deliver_update(str(message.get("group", "")), message)
            elif message.get("type") == RECOVERED_TYPE:
                await self.recovered()

    def _aside(self, group: str, html: str) -> None:
        """A chat line or alert from another process: written in order by a task of its own, which
        gives the loop a turn every GIVE_WAY_EVERY sockets, so that this relay reads (and writes) a move sent
        meanwhile without waiting for the whole line (live/fanout.py gives way the same)."""
        if self.aside is None or self.aside_task is None or self.aside_task.done():
            self.aside = asyncio.Queue()
            self.aside_task = asyncio.get_running_loop().create_task(self._write_aside(self.aside))
        self.aside.put_nowait((group, html))

    async def _write_aside(self, queue: asyncio.Queue[tuple[str, str]]) -> None:
        while True:
            group, html = await queue.get()
            await self.deliver(group, html, between=_a_turn)

    async def recovered(self) -> None:
        """The layer rejoined this relay's groups after an outage: every local page resyncs (it
        may have missed updates meanwhile)."""
        self.order.forget()  # what was held is older than the state each page now fetches
        sockets = {socket for members in self.sockets.values() for socket in members}
        results = await asyncio.gather(*(socket.layer_recovered() for socket in sockets), return_exceptions=True)
        for error in results:
            if isinstance(error, Exception):  # a socket closing meanwhile must not stop the others
                log.info("a page did not resync after Redis came back: %r", error)

    async def deliver_update(self, group: str, message: dict[str, Any],
                             between: Callable[[], Awaitable[None]] | None = None) -> None:
        """Write an update of a match to the group's sockets in the order of the match's versions
        (inorder.py): at once when it follows what they were given, else once the version before
        it has come (or after `inorder.HOLD` s); a message without a version at once."""
        update = Update.of(message)
        if update is None or not self.sockets.get(group):  # (no socket here: nothing to order or keep)
            await self.deliver(group, str(message.get("html", "")), between=between)
            return
        for html in self.order.offer(group, update, asyncio.get_running_loop().time()):
            await self.deliver(group, html, between=between)
        self._arm()

    def _arm(self) -> None:
        """Have the loop release held updates when the oldest of them has waited long enough."""
        due = self.order.due()
        if due is None or (self._expiry is not None and self._expiry.when() <= due):
            return
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = asyncio.get_running_loop().call_at(due, self._release_soon)

    def _release_soon(self) -> None:
        task = asyncio.get_running_loop().create_task(self.release_held())
        _tasks.add(task)  # (the loop keeps only a weak reference to a task)
        task.add_done_callback(_tasks.discard)

    async def release_held(self, now: float | None = None) -> None:
        """Write the updates held for longer than `inorder.HOLD` (their version before never came)."""
        self._expiry = None
        loop = asyncio.get_running_loop()
        for group, html in self.order.expire(loop.time() if now is None else now):
            await self.deliver(group, html)
        self._arm()

    async def deliver(self, group: str, html: str, between: Callable[[], Awaitable[None]] | None = None) -> None:
        """Write one update to every local socket of `group`; one that fails is dropped (it is
        closed or closing: its consumer's disconnect would drop it too).  `between`: awaited after
        every GIVE_WAY_EVERY sockets (a chat line giving way to moves: live/fanout.py)."""
        members = self.sockets.get(group, set())
        for count, socket in enumerate(list(members), start=1):
            if self.waiting and socket in self.waiting:  # its state on connect is not sent yet
                self.waiting[socket].append(html)
                continue
            try:
                await socket.send(text_data=html)
            except Exception as error:  # a socket closing meanwhile must not stop the others
                members.discard(socket)
                log.info("relay dropped a socket of %s: %r", group, error)
            if between is not None and count % GIVE_WAY_EVERY == 0:
                await between()


_tasks: set[asyncio.Task[None]] = set()  # releases of held updates under way


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
