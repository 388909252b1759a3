"""A full garbage collection once sockets have gone and the server is quiet.

Each websocket leaves a few dozen objects in reference cycles inside daphne, Twisted and
autobahn (the protocol, its HTTP channel, deferreds, the frame validator's buffers), which only
a full (generation 2) collection frees.  config/asgi.py makes full collections ten times rarer
than Python's default, so that a server holding 2,000 sockets does not stall for hundreds of
milliseconds every few moves; the price was that the cycles of closed sockets waited, and a
daphne's memory grew by ~15 MB per 1,000 sockets that came and went before one ran
(tests/chaos/test_socket_memory.py).

So the garbage is collected when it exists and nobody waits on it: after `CLOSES` sockets have
closed, once no socket has closed for `QUIET` seconds (the burst of departures at the end of a
match is over), one full collection runs on the loop.  Its stall is logged.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import weakref

log = logging.getLogger(__name__)

#: closed sockets that make a collection worth its stall
CLOSES = 200
#: seconds without a socket closing before the collection runs
QUIET = 3.0


class _Pending:
    def __init__(self) -> None:
        self.closed = 0
        self.timer: asyncio.TimerHandle | None = None


_pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Pending] = weakref.WeakKeyDictionary()


def socket_closed() -> None:
    """Count a closed socket of the running loop; (re)arm the collection once enough have closed."""
    loop = asyncio.get_running_loop()
    pending = _pending.setdefault(loop, _Pending())
    pending.closed += 1
    if pending.timer is not None:
        pending.timer.cancel()
        pending.timer = None
    if pending.closed >= CLOSES:
        pending.timer = loop.call_later(QUIET, _collect, pending)


def _collect(pending: _Pending) -> None:
    closed, pending.closed, pending.timer = pending.closed, 0, None
    started = time.perf_counter()
    found = gc.collect()
    log.info("full garbage collection after %d sockets closed: %d objects freed, loop held %.0f ms",
             closed, found, 1000 * (time.perf_counter() - started))
