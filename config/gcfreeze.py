"""Keep the objects of open sockets out of CPython's full garbage collections.

Each open websocket keeps a few hundred objects alive (daphne's protocol,
autobahn's state, the consumer, its tasks and queues).  A full (generation 2)
collection walks every tracked object: with 2,000 sockets open on the project
machine each took 330-740 ms, during which no socket was served, and one
came every few seconds of play (bench/README.md).  Raising the thresholds
(config/asgi.py) makes them rarer, not shorter.

`gc.freeze()` moves every object tracked now into a permanent generation that
collections skip.  Here the process freezes a few seconds after its set of
sockets last changed (a burst of connections is frozen once, when it is
over), so a full collection walks only what was made since.  Frozen objects
that die are still freed by reference counting; only those in reference cycles
wait: every `REFRESH` seconds, when sockets have left since the last freeze, the
process unfreezes, collects once (one long pause, instead of one every few
seconds) and freezes again.

`changed()` is called by the consumers on every connect and disconnect, on
the server's event loop.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time

log = logging.getLogger(__name__)

#: seconds without a connect or disconnect before the process freezes what it holds
SETTLE = 2.0
#: seconds between full collections of the frozen objects (only when sockets left meanwhile)
REFRESH = 600.0

_timer: asyncio.TimerHandle | None = None
_left = 0  # sockets that closed since the last full collection
_last_refresh = time.monotonic()


def enabled() -> bool:
    return os.environ.get("DEATHMATCH_GC_FREEZE", "1").strip() not in ("0", "")


def changed(*, left: bool = False) -> None:
    """A socket connected (or, with `left`, closed): freeze once things are quiet again."""
    global _timer, _left
    if not enabled():
        return
    if left:
        _left += 1
    loop = asyncio.get_running_loop()
    if _timer is not None:
        _timer.cancel()
    _timer = loop.call_later(SETTLE, freeze)


def freeze() -> None:
    """Freeze what the process holds now; first collect the frozen objects again when it is time."""
    global _timer, _left, _last_refresh
    _timer = None
    started = time.perf_counter()
    refreshed = _left and time.monotonic() - _last_refresh >= REFRESH
    if refreshed:
        gc.unfreeze()
        gc.collect()
        _left = 0
        _last_refresh = time.monotonic()
    else:
        gc.collect(1)  # young garbage is not frozen with the rest
        if _left:  # the frozen objects of sockets that left are collected when it is time
            _timer = asyncio.get_running_loop().call_later(REFRESH - (time.monotonic() - _last_refresh), freeze)
    gc.freeze()
    log.info("froze %d objects in %.0f ms%s", gc.get_freeze_count(), (time.perf_counter() - started) * 1000,
             " after a full collection" if refreshed else "")
