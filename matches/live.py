"""Live updates: services hand over a match id; this renders and fans out.

    services (decide, commit) --match id [+ what the move wrote]--> live.notify --> render
        --> channel layer (one message per audience and web process) --> relay --> sockets

`notify(match_id, written)` is called after commit and returns at once when the
process runs an event loop (daphne): the match is queued and the loop's
broadcaster renders it in a worker thread, sending each audience's message as
soon as it is drawn (spectators first, then the seat to act, the other seats,
the host), so the mover's reply never waits for other audiences' rendering.
Outside a server (management commands, tests without sockets) it renders and
sends in line.  Notifications for a match that arrive while it waits are
coalesced.

What is sent (`prepare`):

- only to audiences that may have a socket open (presence counters);
- one rendering per audience, and the board once for every audience with
  the same view (spectators and seats share the public board);
- a delta when this process sent the previous version of the same bout:
  `#live-meta` with `data-base` (the version it applies to), the fragments
  that changed (only the changed cells / facts of a board, see
  `render.split_parts`), and the new log rows appended with
  `hx-swap-oob="beforeend:#log-list"`.  Otherwise (first update of this
  process, a new bout, a rewritten log) the full fragments.  A page whose
  version is not the delta's base refetches everything (static/js/live.js).
- a move's update is drawn from what its transaction wrote (`Written`) when
  it follows the version this process sent: no query at all.

Each message goes to the audience's relay group (relay.py): one Redis message
per web process, written there to every socket of the audience.

A failed broadcast is logged and skipped: it never undoes or blocks a
committed move.  Presence ("who is connected") lives in presence.py.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import itertools
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections
from django.db.models import Count, Max, Q

from config.channel_layer import LayerUnavailable
from games.core import HOST, SPECTATOR

from . import presence, relay, render, statements
from .audiences import audiences, group_name, viewer_label
from .written import unfilled

log = logging.getLogger(__name__)

UPDATE_TYPE = "match.update"
#: called with (group, message) as soon as one audience's update is drawn
Emit = Callable[[str, dict[str, Any]], None]
#: seconds the drawing thread waits for the loop to write an audience's update before drawing the next
HANDOFF_WAIT = 0.05
#: matches whose last sent parts are kept in memory (per process) for deltas
CACHE_MATCHES = 1000
#: seconds an update drawn before its move's COMMIT was known waits for it (then it is dropped)
COMMIT_WAIT = 10.0



# -- the hand-off -----------------------------------------------------------------------

@dataclass(frozen=True)
class Written:
    """What a move's transaction saved, handed over after its commit (engine.notify): the locked
    match and bout as saved, the bout's clocks and the log rows written.  When this process sent
    the version just before, the update is drawn from these without reading anything back."""

    match: Any
    bout: Any
    rows: list[Any]
    clocks: tuple[Any, ...] = ()
    state: Any = None  # the bout's game state as the rules returned it (`bout.state` is its dump)
    #: the transaction's COMMIT is on its way (statements.Outcome): `rows` have no id or sequence yet
    committed: statements.Outcome | None = None
    #: the first audience's update, drawn in the moving thread while the COMMIT was on its way
    early: _Early | None = None

    def settled(self) -> Written:
        """The move once its commit is known (nothing left to wait for, nothing drawn early)."""
        return dataclasses.replace(self, committed=None, early=None)


class _Early:
    """The first audience's update of a move, drawn in the moving thread while the database
    commits (`_draw_inline`) and sent from there as soon as the commit is known; the worker
    draws the other audiences after it (`_drawn_early`)."""

    def __init__(self) -> None:
        self.done = threading.Event()  # set when the moving thread is through with it
        self.first: tuple[str, dict[str, Any]] | None = None
        self.steps: Iterator[tuple[str, dict[str, Any]]] | None = None
        self.sent: threading.Event | None = None  # set once the loop wrote `first` to its sockets


_lock = threading.Lock()
#: match ids waiting for a broadcast (in order), with what the transaction wrote when only one is
#: waiting, or the outcome of a commit to wait for before reading the match (`notify`)
_pending: dict[int, Written | statements.Outcome | _Prime | None] = {}


class _Prime:
    """In `_pending`: draw what every open audience of the match shows now and send nothing
    (`prime`); any update of the match handed over meanwhile takes its place."""


_PRIME = _Prime()
_scheduled = False
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


def notify(match_id: int, written: Written | None = None) -> None:
    """Push the current state of a match to every audience (sync; after commit)."""
    loop = _server_loop()
    if loop is None:
        _send_now(match_id, written)
        return
    match_id = int(match_id)
    with _lock:
        # two changes waiting for one broadcast: it reads the match as it is then (after the
        # commit of a move handed over before its COMMIT was known, see notify_committing)
        waiting = _pending.get(match_id)
        if match_id not in _pending or waiting is _PRIME:
            _pending[match_id] = written
        elif isinstance(waiting, Written) and waiting.committed is not None:
            _pending[match_id] = waiting.committed
        elif not isinstance(waiting, statements.Outcome):
            _pending[match_id] = None
    if not _schedule(loop, match_id):
        _send_now(match_id)


def notify_committing(match_id: int, written: Written) -> bool:
    """Hand over a move whose last writes and COMMIT are on their way (`written.committed` tells
    whether it committed), from the moving thread (statements.when_committing), while the
    database commits: the first audience's update is drawn here and now (`_draw_inline`) and
    sent as soon as the commit is known, the others are drawn on the loop's worker once it is
    (`_drawn_early`).  False, and nothing handed over, when there is no server loop to draw on
    (it would be drawn here, before the commit), when the match already waits for a broadcast,
    or with the "early" lever off: the caller notifies after the commit instead.  With the
    "inline" lever off, the worker draws every audience, the first one while the database
    commits."""
    loop = _server_loop()
    off = _off()
    if loop is None or "early" in off:
        return False
    match_id = int(match_id)
    early = _Early() if not {"inline", "stream"} & off else None
    if early is not None:
        written = dataclasses.replace(written, early=early)
    with _lock:
        if match_id in _pending and _pending[match_id] is not _PRIME:
            return False
        _pending[match_id] = written
    drawn = False
    if early is not None:
        try:
            drawn = _draw_inline(match_id, written, early, loop)
        except Exception:  # the worker draws it then
            log.exception("drawing the update of match %s while it commits failed", match_id)
        finally:
            early.done.set()
    # drawn here: the loop is woken once the commit is known, not while this thread needs the GIL
    return drawn or _schedule(loop, match_id)


class _Busy(Exception):
    """The moving thread's connection is busy with the COMMIT: an audience needs the database."""


class _Committing:
    """The move's `Outcome` as `_steps` waits for it (an audience drawn whole reads the log once
    the commit is known), for an update whose first audience is drawn in the moving thread:
    there, the wait cannot be (this thread reads the COMMIT's answer after drawing), so such an
    audience is left to the worker (`_Busy`)."""

    def __init__(self, outcome: statements.Outcome) -> None:
        self.outcome = outcome
        self.inline = True

    def wait(self, timeout: float) -> bool:
        if self.inline:
            raise _Busy
        return self.outcome.wait(timeout)


def _refuse_queries(*args: Any) -> Any:
    raise _Busy


def _draw_inline(match_id: int, written: Written, early: _Early, loop: asyncio.AbstractEventLoop) -> bool:
    """Draw the first audience's update of a move (`notify_committing`) in the moving thread while
    its COMMIT is on its way, from copies of its log rows numbered as they will be (the next
    sequences after the last row sent: the match is locked), when it is a delta drawn without the
    database (the connection is busy); and have it sent from the committing thread once the
    commit is known (`Outcome.then`), with the loop's broadcaster then started for the other
    audiences: True.  False when left undrawn: the worker draws it."""
    from django.db import connection

    last = _last_sent(match_id)
    outcome = written.committed
    numbered = _numbered(written, last) if last is not None and outcome is not None and "written" not in _off() else None
    if numbered is None:
        return False
    rows, guess = numbered
    committing = _Committing(outcome)
    steps = _steps(guess.match, guess.bout, last, guess, committing)
    try:
        with connection.execute_wrapper(_refuse_queries):
            first = next(steps, None)
    except _Busy:
        return False
    finally:
        committing.inline = False  # the worker draws the others
    if first is None:
        return False
    early.first, early.steps = first, steps

    def committed(ok: bool) -> None:  # in the moving thread, as soon as the commit is known
        if ok and _renumbered(rows, written):
            sent = threading.Event()
            early.sent = sent
            loop.call_soon_threadsafe(lambda: loop.create_task(_send_logged([first], sent.set)))
        # (otherwise dropped, or drawn again by the worker from what was written)
        _schedule(loop, match_id)  # the other audiences

    outcome.then(committed)
    return True


async def _send_logged(messages: list[tuple[str, dict[str, Any]]], written: Callable[[], None]) -> None:
    try:
        await _send(messages, written)
    except Exception:
        log.exception("live update failed")


def prime(match_id: int, audience: int) -> None:
    """A socket of `audience` opened in this process (the consumer sent it the page as it is):
    when this process has drawn no update of the match for that audience yet, draw what every
    open audience shows now, on the loop's worker, and send nothing; the next move is then drawn
    as a delta of it (a few parts) rather than whole (every part and the log, ~10 ms for a Lance
    Assembly match, on the move's path).  What the sockets were sent on connect is what this
    draws: both are `render.parts` of the same version (a page that is behind refetches)."""
    match_id = int(match_id)
    with _sent_lock:
        last = _sent.get(match_id)
    loop = _server_loop()
    if (last is not None and audience in last.parts) or loop is None or "prime" in _off():
        return
    with _lock:
        if match_id in _pending:
            return
        _pending[match_id] = _PRIME
    _schedule(loop, match_id)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop broadcasts are drawn from, or None (then updates are drawn in line)."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running() or "offpath" in _off():
        return None
    return loop


def _schedule(loop: asyncio.AbstractEventLoop, match_id: int) -> bool:
    """Start the loop's broadcaster unless it runs; False (and the match not waiting) when the loop
    closed meanwhile."""
    global _scheduled
    with _lock:
        if _scheduled:
            return True
        _scheduled = True
    try:
        loop.call_soon_threadsafe(lambda: loop.create_task(_drain()))
    except RuntimeError:  # the loop closed meanwhile
        with _lock:
            _scheduled = False
            _pending.pop(match_id, None)
        return False
    return True


async def _drain() -> None:
    global _scheduled
    while True:
        with _lock:
            if not _pending:
                _scheduled = False
                return
            match_id = next(iter(_pending))
            written = _pending.pop(match_id)
        try:
            await _broadcast(match_id, written)
        except Exception:  # a broken broadcast must never stop the others
            log.exception("live update of match %s failed", match_id)


async def _broadcast(match_id: int, written: Written | statements.Outcome | _Prime | None) -> None:
    """Draw the update in a worker thread and send each audience's message from this loop as soon
    as it is drawn (spectators first, see `_in_order`), while the next audience is drawn.  (Drawing
    it on the loop itself was measured too: the loop then sends nothing until every audience is
    drawn, and the spectators waited longer; bench/README.md.)"""
    if isinstance(written, _Prime):
        await sync_to_async(_prepare_and_close, thread_sensitive=False)(match_id)
        return
    loop = asyncio.get_running_loop()
    sending: list[asyncio.Task[None]] = []
    off = _off()

    def emit(group: str, message: dict[str, Any]) -> None:  # in the worker thread
        out = threading.Event()
        loop.call_soon_threadsafe(lambda: sending.append(loop.create_task(_send([(group, message)], out.set))))
        # Let the loop write this audience to its sockets before the next one is drawn: both need
        # the GIL, and a thread that wants it waits up to the switch interval (5 ms) for a busy holder.
        if "handoff" not in off:
            out.wait(HANDOFF_WAIT)

    if "stream" in off:
        await _send(await sync_to_async(_prepare_and_close, thread_sensitive=False)(match_id, written))
        return
    await sync_to_async(_prepare_and_close, thread_sensitive=False)(match_id, written, emit)
    # every emit's callback ran before this coroutine resumed (the loop runs callbacks in order)
    await asyncio.gather(*sending)


def _off() -> frozenset[str]:
    return frozenset(getattr(settings, "DEATHMATCH_LIVE_OFF", frozenset()))


def _prepare_and_close(match_id: int, written: Written | statements.Outcome | None = None,
                       emit: Emit | None = None) -> list[tuple[str, dict[str, Any]]]:
    try:
        if isinstance(written, statements.Outcome):  # a commit to wait for, then the match is read
            written.wait(COMMIT_WAIT)
            written = None
        return prepare(match_id, written, emit)
    finally:
        close_old_connections()


def _send_now(match_id: int, written: Written | None = None) -> None:
    try:
        messages = prepare(match_id, written)
        if messages:
            async_to_sync(_send)(messages)
    except Exception:
        log.exception("live update of match %s failed", match_id)


async def _send(messages: list[tuple[str, dict[str, Any]]], written: Callable[[], None] | None = None) -> None:
    """Each message to this process's sockets of its audience at once (this loop's relay), then once
    per web process through the layer to the relays of the others (relay.py), which skip their own;
    with the "relay" lever off, to every socket's own channel.  `written()` is called when this
    process's sockets have it (before the layer is asked anything)."""
    layer = get_channel_layer()
    off = _off()
    mine = relay.local(layer) if layer is not None and "relay" not in off and "local" not in off else None
    try:
        if mine is not None:
            for group, message in messages:
                await mine.deliver(group, message["html"])
            if written is not None and messages:
                await _written_out()
    finally:
        if written is not None:
            written()
    if layer is None or not messages:
        return
    if "relay" not in off:
        origin = mine.channel if mine is not None else ""
        messages = [(relay.relay_group(group), {**message, "type": relay.UPDATE_TYPE, "group": group, "origin": origin})
                    for group, message in messages]
    results = await asyncio.gather(*(layer.group_send(group, message) for group, message in messages),
                                   return_exceptions=True)
    for (group, _), result in zip(messages, results, strict=True):
        if isinstance(result, LayerUnavailable):  # Redis down or frozen: pages resync when it is back
            log.warning("live update to %s skipped: %s", group, result)
        elif isinstance(result, BaseException):
            log.error("live update to %s failed: %r", group, result)


async def _written_out() -> None:
    """Return once the loop has written what the sockets were just handed: daphne's transport
    (Twisted) buffers a send and writes it when the loop next polls the socket, and a
    task resumed by `sleep(0)` runs before that poll's write callbacks, hence two."""
    await asyncio.sleep(0)
    await asyncio.sleep(0)


# -- what to send ---------------------------------------------------------------------------


@dataclass
class _Sent:
    """What this process last sent for a match (the base of the next delta)."""

    match_token: str  # the match's watch token: a reused id (a test database) is another match
    bout: int
    version: int
    finished: bool
    log_max_id: int
    log_flagged: int
    log_top: int = 0  # the highest sequence in the log sent
    host_seq: int | None = None  # host actions so far (None: not counted, no host socket)
    panel_key: str | None = None  # what the host panel showed (render.host_panel_key)
    last_move: tuple[int, str] | None = None
    status: str = ""  # the match's
    standing: tuple[dict[int, Any], str] | None = None  # score and bout label (render.shared)
    seats: list[Any] | None = None  # the match's seats (they change only before it starts)
    presence_checked: float = 0.0  # when presence was last read (time.monotonic)
    parts: dict[int, dict[str, str]] = field(default_factory=dict)


_sent: OrderedDict[int, _Sent] = OrderedDict()
_sent_lock = threading.Lock()


def forget(match_id: int | None = None) -> None:
    """Drop what was sent (all matches when None): the next update is a full one."""
    with _sent_lock:
        if match_id is None:
            _sent.clear()
        else:
            _sent.pop(int(match_id), None)


def message(bout: Any, html: str) -> dict[str, Any]:
    return {
        "type": UPDATE_TYPE,
        "bout": bout.number if bout is not None else 0,
        "version": bout.version if bout is not None else 0,
        "html": html,
    }


def prepare(match_id: int, written: Written | None = None, emit: Emit | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Render the update of every audience with an open socket: [(group, message)].

    `written` (a move's transaction, see `Written`): when it follows exactly the version this
    process sent last, the update is drawn from it and nothing is read from the database.
    `emit(group, message)` is called as soon as each audience's message is drawn."""
    from .models import Bout, Match

    off = _off()
    last = _last_sent(int(match_id))
    if written is not None and written.committed is not None:
        if (last is not None or written.early is not None) and "written" not in off:
            return _drawn_early(match_id, written, last, emit)
        if not written.committed.wait(COMMIT_WAIT):
            return []  # the move did not happen
        written = written.settled()
    if written is not None and "written" in off:
        written = None
    if written is not None and last is not None and _follows(last, written):
        return _render(written.match, written.bout, last, written, emit)
    # the match and its current bout in one query (a match in setup has none)
    current = Bout.objects.select_related("match").filter(match_id=match_id).order_by("-number").first()
    match = current.match if current is not None else Match.objects.filter(pk=match_id).first()
    if match is None:
        forget(match_id)
        return []
    return _render(match, current, last, None, emit)


def _last_sent(match_id: int) -> _Sent | None:
    """What this process last sent for the match, the base of a delta (none with "deltas" off)."""
    if "deltas" in _off():
        return None
    with _sent_lock:
        return _sent.get(match_id)


def _follows(last: _Sent, written: Written) -> bool:
    """`written` is the next version of what `last` sent: same match and running bout, one
    version on, and its log rows follow the last row sent (no row written elsewhere between)."""
    bout, match, rows = written.bout, written.match, written.rows
    sequences = [r.sequence for r in rows]
    return (bool(rows) and match.status == "running" and bout.finished is None and not last.finished
            and last.match_token == match.watch_token and last.status == match.status
            and last.bout == bout.number and last.version + 1 == bout.version and last.seats is not None
            and sequences == list(range(last.log_top + 1, last.log_top + 1 + len(rows)))
            and all(r.bout_id == bout.id and not r.undone and not r.corrected for r in rows))


#: how long the audiences a process last drew for count as still open (no presence read meanwhile)
PRESENCE_FRESH = 5.0


def _render(match: Any, current: Any, last: _Sent | None, written: Written | None,
            emit: Emit | None = None) -> list[tuple[str, dict[str, Any]]]:
    return _sent_as_drawn(_steps(match, current, last, written), emit)


def _sent_as_drawn(steps: Iterator[tuple[str, dict[str, Any]]],
                   emit: Emit | None = None) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for item in steps:
        out.append(item)
        if emit is not None:  # sent now: the next audience is drawn meanwhile
            emit(*item)
    return out


def _drawn_early(match_id: int, written: Written, last: _Sent | None,
                 emit: Emit | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The update of a move whose last writes and COMMIT are on their way (`notify_committing`),
    on the loop's worker.  The first audience's message (the spectators') is drawn while the
    database commits, from copies of the move's log rows numbered as they will be (`_numbered`),
    unless the moving thread drew (and sent) it already (`_draw_inline`): then the others are
    drawn once it is written out.  Nothing is sent, and nothing recorded as sent, before the
    commit is known: a move that failed is dropped; one whose rows were numbered otherwise is
    drawn again from what it wrote."""
    outcome = written.committed
    early = written.early
    if early is not None:
        early.done.wait(COMMIT_WAIT)
        if early.steps is not None and early.first is not None:  # the first audience drawn inline
            if not outcome.wait(COMMIT_WAIT):
                early.steps.close()
                return []
            if early.sent is None:  # its rows were numbered otherwise: drawn again from what it wrote
                early.steps.close()
                return prepare(match_id, written.settled(), emit)
            # the loop writes the first audience's update before the next one is drawn (see _broadcast)
            early.sent.wait(HANDOFF_WAIT)
            return [early.first, *_sent_as_drawn(early.steps, emit)]
    if last is None:
        if not outcome.wait(COMMIT_WAIT):
            return []
        return prepare(match_id, written.settled(), emit)
    numbered = _numbered(written, last)
    steps = _steps(numbered[1].match, numbered[1].bout, last, numbered[1], outcome) if numbered else None
    first = next(steps, None) if steps is not None else None
    if not outcome.wait(COMMIT_WAIT):
        if steps is not None:
            steps.close()
        return []
    if steps is None or numbered is None or not _renumbered(numbered[0], written):
        if steps is not None:
            steps.close()
        return prepare(match_id, written.settled(), emit)
    return _sent_as_drawn(itertools.chain(() if first is None else (first,), steps), emit)


def _numbered(written: Written, last: _Sent) -> tuple[list[Any], Written] | None:
    """A move whose COMMIT is on its way, drawn from copies of its log rows numbered as they will
    be (the next sequences after the last row sent: the match is locked): (the copies, the move
    with them); None when it does not follow what this process sent last (`_follows`)."""
    rows = [copy.copy(row) for row in written.rows]
    for offset, row in enumerate(rows):
        row.sequence = last.log_top + 1 + offset
    guess = dataclasses.replace(written.settled(), rows=rows)
    return (rows, guess) if _follows(last, guess) else None


def _renumbered(rows: list[Any], written: Written) -> bool:
    """Once the move committed: whether its rows were numbered as their copies (`_numbered`), which
    then take their ids (the log's top id is recorded as sent when the last audience is drawn)."""
    if [row.sequence for row in written.rows] != [row.sequence for row in rows]:
        return False
    for row, real in zip(rows, written.rows, strict=True):
        row.id = real.id
    return True


def _steps(match: Any, current: Any, last: _Sent | None, written: Written | None,
           committing: statements.Outcome | _Committing | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each audience's (group, message) as soon as it is drawn; what was sent is kept at the end.
    `committing`: the move's COMMIT is on its way (`_drawn_early`); an audience drawn whole reads
    the log only once it is known."""
    from .models import TurnLog

    off = _off()
    viewers = audiences(match)
    checked = time.monotonic()
    if written is not None and last is not None and set(viewers) <= set(last.parts) \
            and checked - last.presence_checked < PRESENCE_FRESH:
        # a move drawn from its transaction, every audience drawn last time (a few seconds ago):
        # no presence read (an audience that left meanwhile gets one update too many)
        open_ = None
        checked = last.presence_checked
    else:
        open_ = None if "presence" in off else presence.open_audiences(match.id, [viewer_label(v) for v in viewers])
    if open_ is not None:
        viewers = [v for v in viewers if viewer_label(v) in open_]
    if not viewers:
        forget(match.id)
        return
    # the score and the bout's label change only when a bout ends or another starts; seats only in setup
    same_bout = (last is not None and current is not None and last.match_token == match.watch_token
                 and last.bout == current.number and not last.finished and current.finished is None
                 and last.status == match.status)
    snap = render.shared(match, turns=False, bout=current,
                         standing=last.standing if same_bout and last is not None else None,
                         seats=last.seats if same_bout and last is not None else None,
                         clocks=written.clocks if written is not None else None,
                         state=written.state if written is not None else None)
    snap["presence"] = False  # the host's presence list has messages of its own
    viewers = _in_order(match, viewers, snap["state"])
    bout = snap["bout"]
    bout_no, version = (bout.number, bout.version) if bout is not None else (0, 0)
    before = last
    finished = bout is not None and bout.finished is not None
    rows: list[Any] = []
    if written is not None and before is not None:  # the rows written follow the last row sent (_follows)
        rows = list(written.rows)
        # (the rows' top id is set at the end: drawn before the commit, they have none yet)
        log_max, log_top, flagged = 0, rows[-1].sequence, before.log_flagged
        delta = True
    else:
        # the log as of the bout version read above (a move committing meanwhile comes with the next update)
        log_rows = TurnLog.objects.filter(match_id=match.id)
        if bout is not None:
            log_rows = log_rows.exclude(bout_id=bout.id, version__gt=version)
        state = log_rows.aggregate(top=Max("id"), seq=Max("sequence"),
                                   flagged=Count("id", filter=Q(undone=True) | Q(corrected=True)))
        log_max, log_top, flagged = state["top"] or 0, state["seq"] or 0, state["flagged"]
        # a bout that ended or reopened changes the log's frame (replay links): a full update then
        delta = (before is not None and bout is not None and before.match_token == match.watch_token
                 and before.bout == bout_no and before.version < version
                 and before.finished == finished and before.log_flagged == flagged and before.log_max_id <= log_max)
        if delta and before is not None:
            rows = list(log_rows.filter(id__gt=before.log_max_id, id__lte=log_max)
                        .select_related("bout").order_by("sequence", "id"))
            delta = all(r.bout_id == bout.id for r in rows)
    moves = [r for r in rows if r.kind == TurnLog.MOVE and not r.undone and not r.corrected]
    if delta and moves:  # the bout's last move is among the rows appended (all of this bout, in order)
        snap["last_move"] = (moves[-1].actor, moves[-1].text)
    elif delta and before is not None and before.last_move is not None:
        snap["last_move"] = before.last_move  # no move since, and no undo/correction (else no delta)
    else:
        snap["last_move"] = _last_move(bout)
    full_snap: dict[str, Any] | None = None
    now = _Sent(match.watch_token, bout_no, version, finished, log_max, flagged, log_top=log_top,
                last_move=snap["last_move"], status=match.status, standing=(snap["score"], snap["bout_label"]),
                seats=snap["seats"], presence_checked=checked)
    boards: dict[Any, str] | None = None if "share" in off else {}
    diffs: dict[tuple[str, str], list[str]] = {}
    row_html: dict[Any, str] = {}
    for viewer in viewers:
        old = before.parts.get(viewer) if delta and before is not None else None
        if old is None or before is None:
            if full_snap is None:
                if committing is not None:
                    committing.wait(COMMIT_WAIT)  # the log below must hold the move's rows
                full_snap = {**snap, "turns": list(match.turns.select_related("bout").order_by("sequence", "id")),
                             "presence": True, "last_move": None}
            ctx = render.context(match, viewer, full_snap)
            if viewer == HOST:
                now.host_seq = ctx["host_seq"] = _host_seq(match, before if delta else None, rows)
                now.panel_key = render.host_panel_key(ctx, now.host_seq)
            parts = now.parts[viewer] = render.parts(ctx, boards, personalize=False)
            html = render.assemble(ctx, {k: render.personal(v, ctx["viewer_cls"]) for k, v in parts.items()})
        else:
            ctx = render.context(match, viewer, snap)
            keep = {}
            if viewer == HOST:
                # the panel is redrawn only when what it shows changed (not for every move)
                now.host_seq = ctx["host_seq"] = _host_seq(match, before, rows)
                now.panel_key = render.host_panel_key(ctx, now.host_seq)
                if now.panel_key == before.panel_key and "host-panel" in old:
                    keep["host-panel"] = old["host-panel"]
            # parts as drawn for every audience alike (slots unfilled): cut and compared once per update
            parts = now.parts[viewer] = render.parts(ctx, boards, keep, personalize=False)
            pieces = [render.meta(ctx, before.version, oob=False)]
            for element, part in parts.items():
                pieces += [render.personal(piece, ctx["viewer_cls"])
                           for piece in _changed(old.get(element), part, diffs, "patch" not in off)]
            if rows:
                # the same rows look the same to every audience but the host (correction forms)
                # and, in sealed games, to each seat (its own orders)
                key = (viewer == HOST, viewer if match.game.sealed else None)
                if key not in row_html:
                    row_html[key] = render.log_rows(match, ctx, rows)
                pieces.append(f'<ol hx-swap-oob="beforeend:#log-list">{row_html[key]}</ol>')
            html = "".join(pieces)
        yield group_name(match.id, viewer), message(bout, html)
    if written is not None and before is not None:
        now.log_max_id = max(r.id for r in rows)
    with _sent_lock:
        _sent[match.id] = now
        _sent.move_to_end(match.id)
        while len(_sent) > CACHE_MATCHES:
            _sent.popitem(last=False)


def _in_order(match: Any, viewers: list[int], state: Any) -> list[int]:
    """Who gets a move first: spectators (the most sockets), then the seats, the one to act next
    first, then the host."""
    to_act = set(match.game.to_act(state)) if state is not None else set()
    return sorted(viewers, key=lambda v: (v != SPECTATOR, v == HOST, v not in to_act, v))


def _host_seq(match: Any, before: _Sent | None, rows: list[Any]) -> int:
    """The match's host-action count (host_actions.host_seq): counted from the rows appended since
    the last update when this process knows the count before them, else asked of the database."""
    from .models import TurnLog

    if before is not None and before.host_seq is not None:
        return before.host_seq + sum(1 for r in rows if TurnLog.is_host_entry(r))
    return int(TurnLog.host_entries(match.pk).count())


def _last_move(bout: Any) -> tuple[int, str]:
    """(actor, text) of the bout's last active move; render masks it per viewer in sealed games."""
    from .models import TurnLog

    if bout is None:
        return (0, "")
    found = (TurnLog.objects.filter(bout_id=bout.id, kind=TurnLog.MOVE, undone=False, corrected=False)
             .order_by("-sequence", "-id").values_list("actor", "text").first())
    return (found[0], found[1]) if found else (0, "")


def _changed(old: str | None, new: str, memo: dict[tuple[str, str], list[str]], patch: bool = True) -> list[str]:
    """The out-of-band elements that turn `old` into `new`: nothing, changed parts, or all of `new`."""
    if old == new:
        return []
    if old is None:
        return [new]
    key = (old, new)
    if key not in memo:
        memo[key] = [new]
        a, b = render.split_parts(old), render.split_parts(new)
        if a is not None and b is not None and a[0] == b[0] and a[1].keys() == b[1].keys():
            memo[key] = [_out_of_band(html, a[1][ident], patch) for ident, html in b[1].items() if a[1][ident] != html]
    return memo[key]


#: a start tag's attributes as this app writes them (name or name="value", values escaped)
_START_TAG = re.compile(r'<([a-zA-Z][\w-]*)((?:\s+[^\s=>/"]+(?:="[^"]*")?)*)\s*$')
_ATTRIBUTE = re.compile(r'\s+([^\s=>/"]+)(?:="([^"]*)")?')


def _attributes(head: str) -> tuple[str, dict[str, str | None]] | None:
    """(tag, {name: raw value or None}) of a start tag without its ">"; None if not plainly written."""
    found = _START_TAG.match(head)
    if found is None:
        return None
    attributes: dict[str, str | None] = {}
    for attribute in _ATTRIBUTE.finditer(found.group(2)):
        name = attribute.group(1)
        if name in attributes:
            return None
        attributes[name] = attribute.group(2)
    return found.group(1).lower(), attributes


def _patch(head: str, old_head: str) -> str | None:
    """The start tag `head` as a patch of `old_head`: its id, the attributes that changed and
    `data-merge` (the page keeps the rest; static/js/live.js), `data-drop` naming those it lost.
    None when the two are not the same element or are not plainly written."""
    new, old = _attributes(head), _attributes(old_head)
    if new is None or old is None or new[0] != old[0] or new[1].get("id") is None \
            or new[1].get("id") != old[1].get("id"):
        return None
    tag, attrs = new
    before = old[1]
    out = [f'<{tag} id="{attrs["id"]}"']
    for name, value in attrs.items():
        if name == "id" or (name in before and before[name] == value):
            continue
        out.append(f" {name}" if value is None else f' {name}="{value}"')
    out.append(" data-merge")
    dropped = [name for name in before if name not in attrs]
    if dropped:
        out.append(f' data-drop="{" ".join(dropped)}"')
    return "".join(out)


def _out_of_band(element: str, old: str | None = None, patch: bool = True) -> str:
    """A live part, swapped alone by the websocket (htmx's ws extension swaps every top-level
    element of a message out of band, by id, so no `hx-swap-oob` is written).  Sent whole, it
    keeps its `data-live` marker, as a fresh page draws it (static/js/live.js records what the
    server drew on such parts); a patch never names it.

    Against the part the page holds (`old`), only what changed is sent:
    - when its start tag changed, only the attributes that changed, with `data-merge` (and
      `data-drop` for those it lost): static/js/live.js copies the rest from the page's element;
    - when only its start tag changed (a cell that lost its "last move" mark, a clock that
      started or stopped), it is sent empty with `data-keep`: live.js moves the page's children
      into it.  A clock's times count as unchanged (`written.FILLED`): clocks.js draws them from
      the clock's data attributes, both while it runs and after it stopped.
    `patch=False` (the "patch" lever off, for the benchmark): the whole start tag, `hx-swap-oob`
    written, and children kept only when they are the same and the old part did not tick."""
    end = element.index(">")
    cut = end - 1 if element[end - 1] == "/" else end
    head = element[:cut] + ("" if patch else ' hx-swap-oob="true"')
    old_end = old.find(">") if old is not None else -1
    if old is None or old_end < 0 or (not patch and " data-ticking" in old[:old_end]):
        return head + element[cut:]
    old_cut = old_end - 1 if old[old_end - 1] == "/" else old_end
    patched = _patch(head, old[:old_cut]) if patch else None
    if patched is not None and len(patched) < len(head):
        head = patched
    close = element.rfind("</")
    if cut == end and close > end:  # an element with children: the page's may do
        children, old_children = element[end + 1:close], old[old_end + 1:old.rfind("</")]
        if old_children == children or (patch and unfilled(old_children) == unfilled(children)):
            return head + " data-keep" + element[cut:end + 1] + element[close:]
    return head + element[cut:]
