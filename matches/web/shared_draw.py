"""Sockets of one audience that ask for the current state at the same moment share one drawing.

A crowd arriving at once (2,000 spectators opening a link the stream just showed, every page of
a process reconnecting after Redis came back) asked for 2,000 identical drawings of the same
page: ~12 ms of database and template work each, in worker threads that share the GIL with the
event loop.  The loop then answered handshakes so late that daphne dropped some (it rejects a
websocket not accepted within its connect timeout, 5 s): tests/chaos/test_many_sockets.py.

Freshness: a socket asks after it has joined its audience's group, so every update committed
after the drawing it gets *started* reaches it through the group.  It may therefore share a
drawing that starts after it asked, never one already running: while a drawing of a key runs,
those who ask next wait for the one after it, which starts when it ends and serves them all.  At
most two drawings of a key are under way (one running, one waiting), however many ask.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class _Drawings:
    """One event loop's drawings: the waiting one of each key, and the one running."""

    def __init__(self) -> None:
        self.waiting: dict[Hashable, asyncio.Future[Any]] = {}
        self.running: dict[Hashable, asyncio.Future[Any]] = {}
        self.tasks: set[asyncio.Task[None]] = set()  # held: the loop keeps only weak references


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Drawings] = weakref.WeakKeyDictionary()


async def draw_once(key: Hashable, draw: Callable[[], Awaitable[T]]) -> T:
    """What `draw()` returns, from a drawing that starts after this call (shared with every caller
    of the same key that asks before it starts)."""
    loop = asyncio.get_running_loop()
    drawings = _loops.get(loop)
    if drawings is None:
        drawings = _loops[loop] = _Drawings()
    future = drawings.waiting.get(key)
    if future is None:
        future = drawings.waiting[key] = loop.create_future()
        task = loop.create_task(_run(drawings, key, future, draw))
        drawings.tasks.add(task)
        task.add_done_callback(drawings.tasks.discard)
    # shield: a caller that goes away (its socket closed) does not cancel the others' drawing
    result: T = await asyncio.shield(future)
    return result


async def _run(drawings: _Drawings, key: Hashable, future: asyncio.Future[Any],
               draw: Callable[[], Awaitable[Any]]) -> None:
    before = drawings.running.get(key)
    if before is not None:
        await asyncio.wait([before])  # its callers' drawing runs to its end (a failure is theirs)
    del drawings.waiting[key]  # from here on, a caller waits for the next drawing
    drawings.running[key] = future
    try:
        future.set_result(await draw())
    except asyncio.CancelledError:  # the loop is shutting down: so are its callers
        future.cancel()
        raise
    except Exception as error:  # every caller sees the drawing's failure, as its own would be
        future.set_exception(error)
        future.exception()  # (read: callers whose sockets went meanwhile leave no "never retrieved" log)
    finally:
        if drawings.running.get(key) is future:
            del drawings.running[key]
