"""Live updates: the play side announces a committed change; this draws it and fans it out.

    services --on commit: events.publish--> live.notify --> draw, in a worker thread, once per
        audience with an open socket, the seat to act first --> each audience's update leaves as soon
        as it is drawn (the loop's outbox, in order): one message per other web process through
        the channel layer (relay.py), and meanwhile this process's own sockets (relay.local)

`notify(match_id, moved)` (subscribed to `events` in `MatchesConfig.ready`) returns at once when
the process runs an event loop (daphne, or `start_background_loop` in `run_clocks`): the match
is queued and the loop's broadcaster draws it in a worker thread, off the mover's request.
Changes of a match that arrive while it waits are drawn together (from the database).
Outside a server (management commands, tests without sockets) it draws and sends in line.

What is sent (`prepare`):

- only to audiences that may have a socket open (presence);
- one rendering per audience, from the templates (render.parts);
- a delta from the drawing of the version before, whichever web process drew it (sent.py: this
  process's memory, else the shared cache): `#live-meta` with `data-base` (the version it applies
  to), the fragments and live parts that changed, as drawn (render.Drawn: each part recorded by
  its `{% live %}` tag), and the new log rows appended to `#log-list`.  Otherwise (nothing drawn of
  the bout lately, a new bout, a rewritten log) the full fragments.  Every process writes a match's
  updates to its sockets in version order (relay.py, inorder.py).  A page whose version is not the
  delta's base refetches everything; a page that already shows the version (the mover's own reply)
  drops it (static/js/live.js, which reads the version of a reply as it is swapped in:
  templates/base.html).
- a move's update is drawn from what its transaction wrote (`events.Moved`) when it follows that
  drawing: its rows, match, bout and clocks are not read back.

A failed broadcast is logged and skipped: it never undoes or blocks a committed change.
Presence ("who is connected") lives in presence.py.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections
from django.db.models import Count, Max, Q

from config.channel_layer import LayerUnavailable
from games.core import HOST, SPECTATOR
from matches.core.audiences import audiences, group_name, viewer_label
from matches.core.events import Moved
from matches.live import presence, relay, render, sent

log = logging.getLogger(__name__)

UPDATE_TYPE = "match.update"
T = TypeVar("T")
#: called with an audience's (group, message) as soon as it is drawn
Emit = Callable[[str, dict[str, Any]], None]
#: called with a match's drawing once every audience's update is drawn (sent.share, or later)
Share = Callable[[int, "sent.Sent"], None]
#: seconds the drawing thread waits for the loop to take an update it drew (see `emit`)
HANDOFF_WAIT = 0.005
#: chat lines and alerts give way to moves every GIVE_WAY_EVERY sockets written, polling every
#: GIVE_WAY_POLL s, for at most GIVE_WAY_AT_MOST s a batch (`_send_aside`)
GIVE_WAY_EVERY, GIVE_WAY_POLL, GIVE_WAY_AT_MOST = relay.GIVE_WAY_EVERY, 0.001, 0.25
#: seconds this process's sockets wait at most for an update to be published to the other processes
#: before they get it (Redis answers in ~1-3 ms; frozen, its calls end after the layer's send_timeout)
PUBLISH_WAIT = 0.02

_lock = threading.Lock()
#: match ids waiting for a broadcast (in order), with what the move wrote when only one change waits
_pending: dict[int, Moved | None] = {}
#: waiting matches with several changes to draw together (their drawing waits for no other process's:
#: the version before the one read may be one of these changes, which nobody draws)
_merged: set[int] = set()
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
    with _lock:
        # two changes waiting for one broadcast: it reads the match as it is then
        if match_id in _pending:
            _merged.add(match_id)
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
        # a broadcaster of another loop, or of one that closed (its task cancelled at shutdown:
        # a test's loop), drains nothing more here
        if _scheduled is loop and not loop.is_closed():
            return True
        _scheduled = loop
    try:
        loop.call_soon_threadsafe(lambda: loop.create_task(_drain()))
    except RuntimeError:  # the loop closed meanwhile
        with _lock:
            _scheduled = None
            _pending.pop(match_id, None)
            _merged.discard(match_id)
        return False
    return True


async def _drain() -> None:
    global _scheduled
    loop = asyncio.get_running_loop()
    try:
        await _drain_pending(loop)
    except BaseException:  # cancelled with its loop (a test's): the next change starts another
        with _lock:
            if _scheduled is loop:
                _scheduled = None
        raise


async def _drain_pending(loop: asyncio.AbstractEventLoop) -> None:
    global _scheduled
    outbox = _outbox(loop)

    def emit(group: str, message: dict[str, Any]) -> None:  # called from the drawing thread
        written = threading.Event()
        loop.call_soon_threadsafe(outbox.put_nowait, ([(group, message)], written, None))
        # Wait (without the GIL) until the loop has written it to this process's sockets: otherwise
        # the loop waits for this thread, drawing the next audience, to be made to let go of the
        # GIL, up to 5 ms each time (sys.getswitchinterval).  Bounded: a loop busy writing
        # thousands of sockets does not hold the drawing up longer than HANDOFF_WAIT.
        written.wait(HANDOFF_WAIT)

    def share(match_id: int, drawing: sent.Sent) -> None:  # called from the drawing thread
        # shared once this drawing's updates have gone to the other processes: one that draws the next
        # version from it never sends a delta that arrives before its base (a process killed between
        # the two left every page of the others waiting for the base, then refetching)
        loop.call_soon_threadsafe(outbox.put_nowait, ([], None, functools.partial(sent.share, match_id, drawing)))

    while True:
        with _lock:
            if _scheduled is not loop:  # another loop's broadcaster took over
                return
            if not _pending:
                _scheduled = None  # in the lock that notify takes: a change now starts another
                return
            match_id = next(iter(_pending))
            moved = _pending.pop(match_id)
            alone = match_id not in _merged
            _merged.discard(match_id)
        try:
            # each audience's update leaves as soon as it is drawn (the seat to act first: _in_order),
            # while the worker thread draws the next audience's
            await sync_to_async(_prepare_and_close, thread_sensitive=False)(match_id, moved, emit, alone, share)
        except Exception:  # a broken broadcast must never stop the others
            log.exception("live update of match %s failed", match_id)


def _prepare_and_close(match_id: int, moved: Moved | None, emit: Emit, wait: bool, share: Share) -> None:
    try:
        prepare(match_id, moved, emit, wait, share)
    finally:
        close_old_connections()


#: the server loop's queue of updates to send, in the order they were drawn, and its sender; each
#: entry: updates drawn, an event to set once they are written to this process's sockets, and what
#: to do (in a thread) once they have gone to the other processes
_Batch = tuple[list[tuple[str, dict[str, Any]]], threading.Event | None, Callable[[], None] | None]
#: updates to publish to the other processes, what to do once they are, and the future that says so
_Onward = tuple[list[tuple[str, dict[str, Any]]], list[Callable[[], None]], "asyncio.Future[None]"]
_outboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[_Batch]] = weakref.WeakKeyDictionary()
_senders: set[asyncio.Task[None]] = set()


def _outbox(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[_Batch]:
    """The loop's outbox (made on the loop, with the task that empties it).  One sender sends in
    the order things were drawn: a page never gets a version before the one it follows."""
    return _queue_of(_outboxes, loop, _send_in_order)


def _queue_of(queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[T]],
              loop: asyncio.AbstractEventLoop,
              sender: Callable[[asyncio.Queue[T]], Coroutine[Any, Any, None]]) -> asyncio.Queue[T]:
    """The loop's queue in `queues`, made on first use with the task of `sender` that empties it."""
    queue = queues.get(loop)
    if queue is None:
        queue = queues[loop] = asyncio.Queue()
        _senders.add(task := loop.create_task(sender(queue)))
        task.add_done_callback(_senders.discard)
    return queue


async def _send_in_order(outbox: asyncio.Queue[_Batch]) -> None:
    """Publish each update to the other web processes as soon as it is drawn (a second task, in the
    same order), then write it to this process's sockets once it is published or PUBLISH_WAIT has
    passed.  Published first, the other processes write their sockets while this one writes its
    own: when this process wrote first, the others heard of a move only once its own spectators
    had it (with 1,000 spectators a process, the other process started writing ~55 ms after this
    one, bench/README.md).  The wait is bounded: a slow or frozen Redis never holds this process's
    own pages more than PUBLISH_WAIT."""
    loop = asyncio.get_running_loop()
    onward: asyncio.Queue[_Onward] = asyncio.Queue()
    publisher = loop.create_task(_publish_in_order(onward))
    try:
        while True:
            batches = await _all_queued(outbox)  # what was drawn meanwhile goes together
            then = [after for _, _, after in batches if after is not None]
            messages = [m for drawn, _, _ in batches for m in drawn]
            published: asyncio.Future[None] = loop.create_future()
            onward.put_nowait((_relayed(messages), then, published))
            await asyncio.wait([published], timeout=PUBLISH_WAIT)
            try:
                await _deliver_here(messages)
            except Exception:  # a broken send must never stop the next
                log.exception("live update not sent")
            for _, written, _ in batches:
                if written is not None:
                    written.set()
    finally:
        publisher.cancel()


_asides: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[list[tuple[str, dict[str, Any]]]]] = (
    weakref.WeakKeyDictionary())


def _aside(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[list[tuple[str, dict[str, Any]]]]:
    """The loop's queue of messages drawn elsewhere (chat lines, the host's alerts), and its sender."""
    return _queue_of(_asides, loop, lambda queue: _send_aside(queue, _outbox(loop)))


async def _send_aside(queue: asyncio.Queue[list[tuple[str, dict[str, Any]]]], outbox: asyncio.Queue[_Batch]) -> None:
    """Send chat lines and alerts in order, giving way to moves: every `GIVE_WAY_EVERY` sockets
    written, while a move is being drawn or waits to be written, wait for it (at most
    `GIVE_WAY_AT_MOST` s a batch).  A chat line to 1,000 spectators is ~1,000 socket writes that
    never suspend (daphne's `send`): written in one go, they held the loop, so a move committed
    meanwhile waited for them before its drawing could start (13 ms median at 1,000 spectators with
    5 lines a second, bench/trace.py), and its drawing then shared the GIL with the rest of them."""
    loop = asyncio.get_running_loop()

    async def give_way() -> None:
        await asyncio.sleep(0)  # a turn of the loop: it reads the sockets (a move may be arriving)
        deadline = loop.time() + GIVE_WAY_AT_MOST
        while (_scheduled is loop or not outbox.empty()) and loop.time() < deadline:
            await asyncio.sleep(GIVE_WAY_POLL)

    while True:
        messages = [m for batch in await _all_queued(queue) for m in batch]
        try:
            await _deliver_here(messages, between=give_way)
            await _publish([(group, {**message, "aside": True}) for group, message in _relayed(messages)])
        except Exception:  # a broken send must never stop the next
            log.exception("a live update (chat line, host alert) failed")


async def _publish_in_order(onward: asyncio.Queue[_Onward]) -> None:
    while True:
        # published side by side (each group's in order: one connection)
        entries = await _all_queued(onward)
        try:
            await _publish([message for batch, _, _ in entries for message in batch])
        except Exception:
            log.exception("live update not relayed")
        for _, _, published in entries:
            published.set_result(None)
        for _, then, _ in entries:
            for after in then:  # (in order: a drawing shared after the one before it)
                try:
                    await asyncio.to_thread(after)
                except Exception:
                    log.exception("live: what follows a published update failed")


async def _all_queued(queue: asyncio.Queue[T]) -> list[T]:
    """The next entry of `queue` (waiting for one) and every entry queued behind it."""
    entries = [await queue.get()]
    while not queue.empty():
        entries.append(queue.get_nowait())
    return entries


def _send_now(match_id: int, moved: Moved | None = None) -> None:
    try:
        messages = prepare(match_id, moved)
        if messages:
            async_to_sync(_send)(messages)
    except Exception:
        log.exception("live update of match %s failed", match_id)


async def _send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Each message to this process's sockets of its audience (this loop's relay), then once per web
    process through the layer to the relays of the others (relay.py), which skip their own."""
    relayed = _relayed(messages)
    await _deliver_here(messages)
    await _publish(relayed)


async def _deliver_here(messages: list[tuple[str, dict[str, Any]]],
                        between: Callable[[], Awaitable[None]] | None = None) -> None:
    """Write each message to this process's sockets of its audience (this loop's relay).
    `between`: awaited every `GIVE_WAY_EVERY` sockets written (`_send_aside`)."""
    layer = get_channel_layer()
    mine = relay.local(layer) if layer is not None else None
    if mine is not None:
        for group, message in messages:
            # a match's updates in the order of their versions, whichever process drew each (inorder.py)
            await mine.deliver_update(group, message, between=between)


def _relayed(messages: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """What goes on to the other processes' relays: [(relay group, message tagged with this loop's
    relay channel, which skips the copy that comes back)]."""
    layer = get_channel_layer()
    if layer is None:
        return []
    mine = relay.local(layer)
    origin = mine.channel if mine is not None else ""
    return [(relay.relay_group(group), {**message, "type": relay.UPDATE_TYPE, "group": group, "origin": origin})
            for group, message in messages]


async def _publish(relayed: list[tuple[str, dict[str, Any]]]) -> None:
    """Send each relayed message through the layer (Redis: the other web processes)."""
    layer = get_channel_layer()
    if layer is None or not relayed:
        return
    results = await asyncio.gather(*(layer.group_send(group, message) for group, message in relayed),
                                   return_exceptions=True)
    for (group, _), result in zip(relayed, results, strict=True):
        if isinstance(result, LayerUnavailable):  # Redis down or frozen: pages resync when it is back
            log.warning("live update to %s skipped: %s", group, result)
        elif isinstance(result, BaseException):
            log.error("live update to %s failed: %r", group, result)


# -- what to send ---------------------------------------------------------------------------


def forget(match_id: int | None = None) -> None:
    """Drop what was sent (all matches when None): the next update is a full one."""
    sent.forget(match_id)


def message(bout: Any, html: str, base: int | None = None) -> dict[str, Any]:
    """An update as sent: its bout and version, and `base`, the version a delta applies to (None: whole);
    the relays of the receiving processes deliver a match's updates in that order (inorder.py)."""
    return {
        "type": UPDATE_TYPE,
        "bout": bout.number if bout is not None else 0,
        "version": bout.version if bout is not None else 0,
        "base": base,
        "html": html,
    }


def prepare(match_id: int, moved: Moved | None = None, emit: Emit | None = None,
            wait: bool = True, share: Share | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Render the update of every audience with an open socket: [(group, message)].  `emit` (when
    given) is called with each audience's (group, message) as soon as it is drawn; `share` (when
    given) with the drawing, to share with the other processes once its updates have gone to them
    (else it is shared at once).

    Each delta is made from the drawing of the version before, whichever process drew it (sent.py;
    `wait`: for it to be kept, when another process is drawing it).  `moved` (what a move's
    transaction wrote): when it follows exactly that drawing, the update is drawn from it and the
    match, bout, clocks and rows are not read."""
    from matches.models import Bout, Match

    drawn: tuple[str, int, int] | None = None  # what `last` is the base for
    if moved is not None:
        drawn = (moved.match.watch_token, moved.bout.number, moved.bout.version)
        last = sent.base(match_id, *drawn, wait=wait)
        if last is not None and _follows(last, moved):
            return _draw(moved.match, moved.bout, last, moved, emit, share)
    # the match and its current bout in one query (a match in setup has none)
    current = Bout.objects.select_related("match").filter(match_id=match_id).order_by("-number").first()
    match = current.match if current is not None else Match.objects.filter(pk=match_id).first()
    if match is None:
        forget(match_id)
        return []
    now = (match.watch_token, current.number if current is not None else 0, current.version if current is not None else 0)
    if now != drawn:
        # (when a move's version was waited for, the database is on a later one: the version before
        # that is this move's, drawn by nobody, so no waiting for it)
        last = sent.base(match_id, *now, wait=wait and drawn is None)
    return _draw(match, current, last, None, emit, share)


def _follows(last: sent.Sent, moved: Moved) -> bool:
    """`moved` is the next version of what `last` sent: same match and running bout, one version
    on, and its log rows follow the last row sent (no row written elsewhere between)."""
    bout, match, rows = moved.bout, moved.match, moved.rows
    sequences = [r.sequence for r in rows]
    return (bool(rows) and match.status == "running" and bout.finished is None and not last.finished
            and last.match_token == match.watch_token and last.status == match.status
            and last.bout == bout.number and last.version + 1 == bout.version and last.seats is not None
            and sequences == list(range(last.log_top + 1, last.log_top + 1 + len(rows)))
            and all(r.bout_id == bout.id and not r.undone and not r.corrected for r in rows))


def _draw(match: Any, current: Any, last: sent.Sent | None, moved: Moved | None,
          emit: Emit | None = None, share: Share | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Each open audience's (group, message); what was sent is kept as the base of the next delta.
    `moved` is given only when it follows `last` (`_follows`)."""
    from matches.models import TurnLog

    viewers = audiences(match)
    open_ = presence.open_audiences(match.id, [viewer_label(v) for v in viewers])
    if open_ is not None:
        viewers = [v for v in viewers if viewer_label(v) in open_]
    if not viewers:
        if current is not None:
            sent.drawn_for_nobody(match.id, match.watch_token, current.number, current.version)
        else:
            forget(match.id)
        return []
    # the score and the bout's label change only when a bout ends or another starts; seats only in setup
    # or by a host action (a computer player taking a seat), never by a move
    same_bout = (last is not None and current is not None and last.match_token == match.watch_token
                 and last.bout == current.number and not last.finished and current.finished is None
                 and last.status == match.status)
    snap = render.shared(match, turns=False, bout=current,
                         standing=last.standing if same_bout and last is not None else None,
                         seats=last.seats if same_bout and last is not None and moved is not None else None,
                         clocks=moved.clocks if moved is not None else None)
    snap["presence"] = False  # the host's presence list has messages of its own
    bout = snap["bout"]
    bout_no, version = (bout.number, bout.version) if bout is not None else (0, 0)
    finished = bout is not None and bout.finished is not None
    # the log as of the bout version drawn (a move committing meanwhile comes with the next update)
    log_rows = TurnLog.objects.filter(match_id=match.id)
    if bout is not None:
        log_rows = log_rows.exclude(bout_id=bout.id, version__gt=version)
    rows: list[Any] = []
    if moved is not None and last is not None:
        rows = list(moved.rows)
        log_max, log_top, flagged = max(r.id for r in rows), rows[-1].sequence, last.log_flagged
        delta = True
    else:
        found = log_rows.aggregate(top=Max("id"), seq=Max("sequence"),
                                   flagged=Count("id", filter=Q(undone=True) | Q(corrected=True)))
        log_max, log_top, flagged = found["top"] or 0, found["seq"] or 0, found["flagged"]
        # a bout that ended or reopened changes the log's frame (replay links): a full update then
        delta = (last is not None and bout is not None and last.match_token == match.watch_token
                 and last.bout == bout_no and last.version < version and last.finished == finished
                 and last.log_flagged == flagged and last.log_max_id <= log_max)
        if delta and last is not None:
            rows = list(log_rows.filter(id__gt=last.log_max_id, id__lte=log_max)
                        .select_related("bout").order_by("sequence", "id"))
            delta = all(r.bout_id == bout.id for r in rows)
    moves = [r for r in rows if r.kind == TurnLog.MOVE and not r.undone and not r.corrected]
    if delta and moves:  # the bout's last move is among the rows appended (all of this bout, in order)
        snap["last_move"] = (moves[-1].actor, moves[-1].text)
    elif delta and last is not None and last.last_move is not None:
        snap["last_move"] = last.last_move  # no move since, and no undo/correction (else no delta)
    else:
        snap["last_move"] = _last_move(bout)
    snap["log_top"] = log_top
    now = sent.Sent(match.watch_token, bout_no, version, finished, log_max, flagged, log_top=log_top,
                last_move=snap["last_move"], status=match.status, standing=(snap["score"], snap["bout_label"]),
                seats=snap["seats"])
    full_snap: dict[str, Any] | None = None
    out = []
    for viewer in _in_order(match, viewers, snap["state"]):
        old = last.parts.get(viewer) if delta and last is not None else None
        if old is None or last is None:
            if full_snap is None:
                turns = list(log_rows.select_related("bout").order_by("sequence", "id"))
                full_snap = {**snap, "turns": turns, "presence": True, "last_move": None}
            ctx = render.context(match, viewer, full_snap)
            if viewer == HOST:
                now.host_seq = ctx["host_seq"] = _host_seq(match, last if delta else None, rows)
                now.panel_key = render.host_panel_key(ctx, now.host_seq)
            parts = now.parts[viewer] = render.parts(ctx)
            html, base = render.assemble(ctx, parts), None
        else:
            ctx = render.context(match, viewer, snap)
            keep = {}
            if viewer == HOST:
                # the panel is redrawn only when what it shows changed (not for every move)
                now.host_seq = ctx["host_seq"] = _host_seq(match, last, rows)
                now.panel_key = render.host_panel_key(ctx, now.host_seq)
                if now.panel_key == last.panel_key and "host-panel" in old:
                    keep["host-panel"] = old["host-panel"]
            parts = now.parts[viewer] = render.parts(ctx, keep)
            pieces = [render.meta(ctx, last.version, oob=False)]
            for element, drawn in parts.items():
                before = old.get(element)
                pieces += [drawn.html] if before is None else before.changes(drawn)
            if rows:
                pieces.append(f'<ol hx-swap-oob="beforeend:#log-list">{render.log_rows(match, ctx, rows)}</ol>')
            html, base = "".join(pieces), last.version
        out.append((group_name(match.id, viewer), message(bout, html, base)))
        if emit is not None:
            emit(*out[-1])
    sent.remember(match.id, now)  # the base of this process's next delta
    (share or sent.share)(match.id, now)  # and of any other process's
    return out


def _in_order(match: Any, viewers: list[int], state: Any) -> list[int]:
    """Who gets a move first: the seats to act (their clocks run from the commit: every audience
    drawn before theirs was charged to them, ~10 ms each), then spectators (the most sockets),
    the other seats, the host."""
    to_act = set(match.game.to_act(state)) if state is not None else set()
    return sorted(viewers, key=lambda v: (v not in to_act, v != SPECTATOR, v == HOST, v))


def _host_seq(match: Any, before: sent.Sent | None, rows: list[Any]) -> int:
    """The match's host-action count (host_actions.host_seq): counted from the rows appended since
    the last update when this process knows the count before them, else asked of the database."""
    from matches.models import TurnLog

    if before is not None and before.host_seq is not None:
        return before.host_seq + sum(1 for r in rows if TurnLog.is_host_entry(r))
    return int(TurnLog.host_entries(match.pk).count())


def _last_move(bout: Any) -> tuple[int, str]:
    """(actor, text) of the bout's last active move; render masks it per viewer in sealed games."""
    from matches.models import TurnLog

    if bout is None:
        return (0, "")
    found = (TurnLog.objects.filter(bout_id=bout.id, kind=TurnLog.MOVE, undone=False, corrected=False)
             .order_by("-sequence", "-id").values_list("actor", "text").first())
    return (found[0], found[1]) if found else (0, "")


def notify_alerts(match_id: int) -> None:
    """The `events.subscribe_alerts` subscriber: the sweeper raised or cleared a seat's away alert;
    the host's presence box and alerts are drawn again and sent to the host's pages alone."""
    messages = [(group_name(match_id, viewer), {"type": UPDATE_TYPE, "html": html})
                for viewer, html in presence.host_html(match_id)]
    if messages:
        send_soon(messages)


def send_soon(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send messages already drawn ([(group, message)], a chat line: live/chat_feed.py, or the host's
    alerts) the way an update goes: from the server's loop without waiting for it, or in line outside a server."""
    loop = _server_loop()
    if loop is None:
        try:
            async_to_sync(_send)(messages)
        except Exception:
            log.exception("a live update (chat line, host alert) failed")
        return
    loop.call_soon_threadsafe(lambda: _aside(loop).put_nowait(list(messages)))
