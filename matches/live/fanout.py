"""Live updates: a committed change is drawn once per audience and sent to every web process.

    services --on commit: events--> fanout.notify --> the server loop's broadcaster draws the match
        in a worker thread (drawing.py), the seat to act first; each audience's drawing leaves as
        soon as it is drawn: published once for the other web processes, then written to this
        process's own sockets (relay.py, which writes each socket what it lacks: delta.py)

Why a queue and a worker thread: the mover's request returns at once, and the loop keeps serving
sockets while the next audience is drawn.  Changes of a match that arrive while it waits are drawn
together (from the database).  Outside a server (management commands, tests without sockets) it
draws and sends in line.  A failed broadcast is logged and skipped: it never undoes or blocks a
committed change; a page that missed one refetches on the next (static/js/live.js).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections

from config.channel_layer import LayerUnavailable
from matches.core.audiences import group_name
from matches.core.events import Moved
from matches.live import delta, drawing, presence, relay

log = logging.getLogger(__name__)

T = TypeVar("T")
Messages = list[tuple[str, dict[str, Any]]]
#: chat lines and alerts give way to moves every GIVE_WAY_EVERY sockets written, polling every
#: GIVE_WAY_POLL s, for at most GIVE_WAY_AT_MOST s a batch (`_send_lines`)
GIVE_WAY_EVERY, GIVE_WAY_POLL, GIVE_WAY_AT_MOST = relay.GIVE_WAY_EVERY, 0.001, 0.25

_lock = threading.Lock()
#: match ids waiting to be drawn (in order), with what the move wrote (None: read it, several changes wait)
_pending: dict[int, Moved | None] = {}
#: the event loop whose broadcaster is running (or about to), else None
_scheduled: asyncio.AbstractEventLoop | None = None
_loop: asyncio.AbstractEventLoop | None = None


def attach(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Broadcast from this event loop (the server's); consumers call it on connect."""
    global _loop
    _loop = loop or asyncio.get_running_loop()


def start_background_loop() -> asyncio.AbstractEventLoop:
    """For processes without a server loop that change matches in bulk (`run_clocks`): an event
    loop in a daemon thread broadcasts, so the caller never waits for rendering."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="deathmatch-live", daemon=True).start()
    attach(loop)
    return loop


def notify(match_id: int, moved: Moved | None = None) -> None:
    """Push the current state of a match to every audience (sync; after commit)."""
    loop = _server_loop()
    if loop is None:
        _send_now(match_id, moved)
        return
    match_id = int(match_id)
    with _lock:  # two changes waiting for one drawing: it reads the match as it is then
        _pending[match_id] = None if match_id in _pending else moved
    if not _schedule(loop, match_id):
        _send_now(match_id)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop broadcasts are drawn from, or None (then updates are drawn in line)."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def _schedule(loop: asyncio.AbstractEventLoop, match_id: int) -> bool:
    """Start the loop's broadcaster unless it runs; False (and the match not waiting) when the loop
    closed meanwhile."""
    global _scheduled
    with _lock:
        # a broadcaster of another loop, or of one that closed (a test's), drains nothing more here
        if _scheduled is loop and not loop.is_closed():
            return True
        _scheduled = loop
    try:
        loop.call_soon_threadsafe(lambda: loop.create_task(_drain()))
    except RuntimeError:  # the loop closed meanwhile
        with _lock:
            _scheduled = None
            _pending.pop(match_id, None)
        return False
    return True


async def _drain() -> None:
    """Draw the waiting matches one after another, each audience's drawing queued as it is drawn."""
    global _scheduled
    loop = asyncio.get_running_loop()
    outbox = _outbox(loop)

    def on_drawn(group: str, drawn: delta.Drawing) -> None:  # called from the drawing thread
        loop.call_soon_threadsafe(outbox.put_nowait, (group, drawn))

    try:
        while True:
            with _lock:
                if _scheduled is not loop:  # another loop's broadcaster took over
                    return
                if not _pending:
                    _scheduled = None  # in the lock that notify takes: a change now starts another
                    return
                match_id = next(iter(_pending))
                moved = _pending.pop(match_id)
            try:
                await sync_to_async(_prepare_and_close, thread_sensitive=False)(match_id, moved, on_drawn)
            except Exception:  # a broken broadcast must never stop the others
                log.exception("live update of match %s failed", match_id)
    except BaseException:  # cancelled with its loop (a test's): the next change starts another
        with _lock:
            if _scheduled is loop:
                _scheduled = None
        raise


def _prepare_and_close(match_id: int, moved: Moved | None, on_drawn: drawing.OnDrawn) -> None:
    try:
        drawing.prepare(match_id, moved, on_drawn)
    finally:
        close_old_connections()


_outboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[tuple[str, delta.Drawing]]] = (
    weakref.WeakKeyDictionary())
_line_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[Messages]] = weakref.WeakKeyDictionary()
_tasks: set[asyncio.Task[None]] = set()  # (the loop keeps only weak references to tasks)


def _outbox(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[tuple[str, delta.Drawing]]:
    """The loop's queue of drawings to send, in the order they were drawn, and its sender."""
    return _queue_of(_outboxes, loop, _send_drawings)


def _queue_of(queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[T]],
              loop: asyncio.AbstractEventLoop,
              sender: Callable[[asyncio.Queue[T]], Coroutine[Any, Any, None]]) -> asyncio.Queue[T]:
    """The loop's queue in `queues`, made on first use with the task of `sender` that empties it."""
    queue = queues.get(loop)
    if queue is None:
        queue = queues[loop] = asyncio.Queue()
        _background(loop.create_task(sender(queue)))
    return queue


def _background(task: asyncio.Task[None]) -> None:
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _send_drawings(outbox: asyncio.Queue[tuple[str, delta.Drawing]]) -> None:
    while True:
        group, drawn = await outbox.get()
        try:
            await _send_drawing(group, drawn)
        except Exception:  # a broken send must never stop the next
            log.exception("live update not sent")


async def _send_drawing(group: str, drawn: delta.Drawing) -> None:
    """Publish a drawing for the other processes, then write this process's sockets: the publish
    is on its way first (one turn of the loop), so the other processes write theirs meanwhile."""
    _background(asyncio.get_running_loop().create_task(
        _publish([(group, {"type": relay.DRAWING_TYPE, "drawing": drawn})])))
    await asyncio.sleep(0)
    mine = _local_relay()
    if mine is not None:
        await mine.write_drawing(group, drawn)


def _send_now(match_id: int, moved: Moved | None = None) -> None:
    async def send(drawn: list[tuple[str, delta.Drawing]]) -> None:
        await _publish([(group, {"type": relay.DRAWING_TYPE, "drawing": one}) for group, one in drawn])
        mine = _local_relay()
        if mine is not None:
            for group, one in drawn:
                await mine.write_drawing(group, one)

    try:
        drawn = drawing.prepare(match_id, moved)
        if drawn:
            async_to_sync(send)(drawn)
    except Exception:
        log.exception("live update of match %s failed", match_id)


def _local_relay() -> relay.Relay | None:
    layer = get_channel_layer()
    return relay.local(layer) if layer is not None else None


async def _publish(messages: Messages) -> None:
    """Send each message through the layer to the relays of the audience group (Redis: the other
    web processes), tagged with this process's relay channel, which skips the copy that comes back."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    mine = relay.local(layer)
    origin = mine.channel if mine is not None else ""
    for group, message in messages:  # (in line: the first is on its way in the task's first step)
        try:
            await layer.group_send(relay.relay_group(group), {**message, "group": group, "origin": origin})
        except LayerUnavailable as error:  # Redis down or frozen: pages resync when it is back
            log.warning("live update to %s skipped: %s", group, error)
        except Exception as error:
            log.error("live update to %s failed: %r", group, error)


# -- chat lines and the host's alerts: drawn elsewhere, no version ----------------------------


def notify_alerts(match_id: int) -> None:
    """The `events.subscribe_alerts` subscriber: the sweeper raised or cleared a seat's away alert;
    the host's presence box and alerts are drawn again and sent to the host's pages alone."""
    messages = [(group_name(match_id, viewer), {"html": html}) for viewer, html in presence.host_html(match_id)]
    if messages:
        send_soon(messages)


def send_soon(messages: Messages) -> None:
    """Send markup already drawn ([(group, {"html": ...})]: a chat line, chat_feed.py, or the
    host's alerts) from the server's loop without waiting for it, or in line outside a server."""
    loop = _server_loop()
    if loop is None:
        try:
            async_to_sync(_write_lines)(messages)
        except Exception:
            log.exception("a live update (chat line, host alert) failed")
        return
    loop.call_soon_threadsafe(lambda: _queue_of(_line_queues, loop, _send_lines).put_nowait(list(messages)))


async def _write_lines(messages: Messages, between: relay.Between = None) -> None:
    """To this process's sockets, then to the other processes' (which give way to moves too)."""
    mine = _local_relay()
    if mine is not None:
        for group, message in messages:
            await mine.deliver(group, str(message["html"]), between=between)
    await _publish([(group, {"type": relay.HTML_TYPE, "html": message["html"], "give_way": True})
                    for group, message in messages])


async def _send_lines(queue: asyncio.Queue[Messages]) -> None:
    """Send chat lines and alerts in order, giving way to moves (a line's socket writes never
    suspend, so a move would wait for all of them): every `GIVE_WAY_EVERY` sockets, while a move
    is being drawn or waits to be written, wait for it, at most `GIVE_WAY_AT_MOST` s a batch."""
    loop = asyncio.get_running_loop()
    outbox = _outbox(loop)

    async def give_way() -> None:
        await asyncio.sleep(0)  # a turn of the loop: it reads the sockets (a move may be arriving)
        deadline = loop.time() + GIVE_WAY_AT_MOST
        while (_scheduled is loop or not outbox.empty()) and loop.time() < deadline:
            await asyncio.sleep(GIVE_WAY_POLL)

    while True:
        messages = [await queue.get()]
        while not queue.empty():
            messages.append(queue.get_nowait())
        try:
            await _write_lines([m for batch in messages for m in batch], give_way)
        except Exception:  # a broken send must never stop the next
            log.exception("a live update (chat line, host alert) failed")
