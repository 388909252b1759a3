"""Drain on SIGTERM: a web process that is asked to stop lets its pages move elsewhere first.

Several web processes run behind a proxy (config/nginx/).  When one is stopped (a deploy, a
rolling restart, `docker compose up --scale web=2` after 3), SIGTERM makes it

1. stop accepting: its listening sockets close, so the proxy sends new requests and sockets to
   the other processes (a refused connection is retried there, config/nginx/);
2. tell each of its websockets to reconnect: close code 1012 ("service restart"), which the page's
   websocket extension answers by reconnecting after a jittered delay (htmx's `full-jitter`:
   0-1 s for the first try), through the proxy, to a process that is up; the page is sent the
   current state on connect and catches up without a reload;
3. finish what is in flight: the requests being answered (a move being applied is committed and
   its reply sent) and each closed socket's clean-up (its relay and presence entries), then exit.

Daphne's own SIGTERM stops Twisted's reactor at once: each socket was dropped without a close frame
(the page saw 1006 and retried with all the others at the same moment) and a request in flight
was cut.  This module wraps the ASGI application (counting the requests and sockets it serves)
and replaces the reactor's SIGTERM handler once the reactor runs.  A second SIGTERM, or
`DEATHMATCH_DRAIN_SECONDS` (default 8: under Docker's 10 s before SIGKILL) spent draining, stops
at once.  Under any other server (tests' communicators, runserver) nothing is installed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

log = logging.getLogger("deathmatch.drain")

#: RFC 6455 close code 1012, "service restart": the client should reconnect (htmx's websocket
#: extension does for 1006, 1011, 1012 and 1013)
SERVICE_RESTART = 1012
#: seconds left, once the last request is answered, for the broadcasts it queued (see `run`)
BROADCAST_GRACE = 0.5

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def drain_seconds() -> float:
    return float(os.environ.get("DEATHMATCH_DRAIN_SECONDS", "").strip() or 8.0)


def drain_min_seconds() -> float:
    """DEATHMATCH_DRAIN_MIN_SECONDS (0): the least time between SIGTERM and the exit.  Under compose
    (3) a replica's address must not vanish before the proxy has seen it refuse: see `run`."""
    return float(os.environ.get("DEATHMATCH_DRAIN_MIN_SECONDS", "").strip() or 0.0)


class Drain:
    """What this process serves (requests and sockets), and the drain that ends it."""

    def __init__(self) -> None:
        self.draining = False
        #: requests being answered and sockets open (each ASGI call not returned yet)
        self.calls = 0
        self._idle: asyncio.Event | None = None
        self._task: asyncio.Future[None] | None = None  # the drain (a task nobody holds may be collected)

    def wrap(self, app: App) -> App:
        async def served(scope: Scope, receive: Receive, send: Send) -> None:
            kind = scope["type"]
            if kind not in ("http", "websocket"):
                await app(scope, receive, send)
                return
            self.calls += 1
            try:
                if kind == "websocket":
                    await self._socket(app, scope, receive, send)
                else:
                    await app(scope, receive, send)
            finally:
                self.calls -= 1
                if self.calls == 0 and self._idle is not None:
                    self._idle.set()

        return served

    async def _socket(self, app: App, scope: Scope, receive: Receive, send: Send) -> None:
        refused = False

        async def guarded(message: Message) -> None:
            # a socket accepted once the drain has begun is refused instead (its page sees the
            # handshake fail and retries, through the proxy, on a process that is up); what the
            # app sends it after that goes nowhere
            nonlocal refused
            if refused:
                return
            if self.draining and message["type"] == "websocket.accept":
                refused = True
                message = {"type": "websocket.close"}
            await send(message)

        if self.draining:  # arrived as the listening socket closed
            await receive()  # websocket.connect
            await send({"type": "websocket.close"})
            return
        await app(scope, receive, guarded)

    # -- the drain ---------------------------------------------------------------------------
    async def run(self, stop_listening: Callable[[], None], close_sockets: Callable[[], int],
                  stop: Callable[[], None], seconds: float, at_least: float = 0.0) -> None:
        started = time.monotonic()
        self.draining = True
        stop_listening()
        count = close_sockets()
        log.warning("SIGTERM: draining (%d sockets told to reconnect, %d calls in flight)", count, self.calls)
        self._idle = asyncio.Event()
        if self.calls:
            try:
                async with asyncio.timeout(max(0.0, seconds - (time.monotonic() - started))):
                    await self._idle.wait()
            except TimeoutError:
                log.warning("drain: %d calls still open after %.1f s; stopping anyway", self.calls, seconds)
        # A move answered just now is broadcast after its answer, by the live fan-out's own task
        # (matches/live/fanout.py: drawn in a worker thread, then sent through Redis), which offers
        # no way to wait for it: a moment for it to go out, or the other processes' pages would
        # see that move only with the next one.
        await asyncio.sleep(BROADCAST_GRACE)
        log.warning("drain: done in %.2f s", time.monotonic() - started)
        # Under compose the proxy finds the replicas by DNS, and the exit is what takes this address
        # out of it; until the proxy's next look-up a connection to an address gone gets no answer
        # at all (a connect timeout, then a retry that nginx refuses if the look-up changed the
        # servers meanwhile: a 502).  Staying a while with the port closed lets the proxy see it
        # refused at once and set this process aside (max_fails, config/nginx/) before it is gone.
        rest = at_least - (time.monotonic() - started)
        if rest > 0:
            log.warning("drain: port closed, exiting in %.1f s (DEATHMATCH_DRAIN_MIN_SECONDS)", rest)
            await asyncio.sleep(rest)
        stop()

    def install(self) -> None:
        """Under daphne (Twisted's reactor): SIGTERM drains, once the reactor runs and has put its
        own handlers in place (this one replaces its SIGTERM handler)."""
        if "twisted.internet.reactor" not in sys.modules:
            return
        from twisted.internet import reactor

        reactor.callWhenRunning(self._handle_sigterm, reactor)

    def _handle_sigterm(self, reactor: Any) -> None:
        def stop_listening() -> None:
            from twisted.internet.interfaces import IListeningPort

            for reader in reactor.getReaders():
                if IListeningPort.providedBy(reader):
                    reader.stopListening()

        def close_sockets() -> int:
            """Send each open websocket a close frame with code 1012.  Through the websocket
            protocol itself: an ASGI `websocket.close` goes through autobahn's `sendClose`, which
            allows only 1000 and 3000-4999 (the codes an application defines), and a page's
            websocket extension reconnects on 1012 but not on those."""
            from autobahn.websocket.protocol import WebSocketProtocol

            closed = 0
            for reader in reactor.getReaders():  # the connections (the transports daphne upgraded)
                protocol = getattr(reader, "protocol", None)
                if isinstance(protocol, WebSocketProtocol) and protocol.state == WebSocketProtocol.STATE_OPEN:
                    protocol.sendCloseFrame(code=SERVICE_RESTART, isReply=False)
                    closed += 1
            return closed

        def stop() -> None:
            if reactor.running:
                reactor.stop()

        def begin() -> None:
            if self.draining:
                log.warning("SIGTERM again: stopping now")
                stop()
                return
            self._task = asyncio.ensure_future(self.run(stop_listening, close_sockets, stop, drain_seconds(),
                                                        drain_min_seconds()))

        # a signal handler may run between any two bytecodes: it only hands the work to the reactor
        # (as Twisted's own handlers do)
        signal.signal(signal.SIGTERM, lambda signum, frame: reactor.callFromThread(begin))


#: this process's
drain = Drain()
