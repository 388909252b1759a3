"""Presence: who has a page of a match open, per audience: the host dashboard's box (with the
sweeper's away alerts), and for players and spectators the spectators' count and each seat online
or offline (`public`).

Each open websocket is one member of a set per (match, audience), scored by
the time it expires.  A connection adds itself when it opens, removes itself
when it closes, and every web process refreshes the expiry of its own open
connections every `HEARTBEAT` seconds.  The count shown is the number of
members that have not expired, so it is

- exact across web processes (a member per connection, not a counter: no
  get-then-set race, no drift);
- self-healing: the connections of a killed process simply expire after
  `TTL` seconds, and a Redis that restarted empty is refilled by the next
  heartbeat.

The sets live in presence_store.py (Redis, or this process without REDIS_URL).
When Redis does not answer, the dashboard shows the presence as unknown
(`count` None) instead of failing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async

from games.core import HOST, SPECTATOR
from matches.core.audiences import AUDIENCE_HOST, AUDIENCE_WATCH
from matches.live.presence_store import HEARTBEAT as HEARTBEAT
from matches.live.presence_store import TTL as TTL
from matches.live.presence_store import _Local as _Local
from matches.live.presence_store import _make_store
from matches.live.presence_store import _Redis as _Redis
from matches.live.presence_store import _Unavailable as _Unavailable
from matches.live.presence_store import complete_key as complete_key
from matches.live.presence_store import key as key
from matches.live.presence_store import left_key as left_key

log = logging.getLogger(__name__)

PUSH_DELAY = 0.25  # the host's presence box is redrawn at most this often per match

store = _make_store()

#: this process's open connections: connection id -> presence key (refreshed by the heartbeat)
_open: dict[str, str] = {}
#: this process's open connections per presence key (changed on the loop, read by the drawing thread)
_here: Counter[str] = Counter()
_heartbeats: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = weakref.WeakKeyDictionary()
_tasks: set[asyncio.Task[None]] = set()
_pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[tuple[int, str]]] = weakref.WeakKeyDictionary()
#: connections that closed and wait for the next removal from the store, per event loop
_leaving: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Removal] = weakref.WeakKeyDictionary()
_removing: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


# -- the host dashboard ----------------------------------------------------------------------


def rows(match: Any, seats: list[Any] | None = None) -> list[dict[str, Any]]:
    """Open connections per audience; `count` is None when Redis does not answer.  A seat's row
    also has its away time left in the bout (`away_left` seconds, `away_until` while an away pause
    uses it), when the match pauses for a seat away (play/awaytime.py)."""
    # (reads the models: imported when used, like this module's other model imports)
    from matches.play import awaytime, lag

    seats = list(seats if seats is not None else match.seats.all())
    names = {s.number: s.name for s in seats}
    away_left = awaytime.left(match, seats, datetime.now(UTC))
    audiences = [("host", "Host"), ("watch", "Spectators")]
    audiences += [(f"seat-{n}", f"{names[n]} (seat {n})") for n in sorted(names)]
    names_ = [key(match.id, a) for a, _ in audiences]
    try:
        counts: list[int | None] = list(store.counts(names_))
        left: list[float | None] = store.left(names_)
    except _Unavailable:
        counts, left = [None] * len(audiences), [None] * len(audiences)
    lags = lag.stats(match)
    out = []
    for (a, label), c, gone in zip(audiences, counts, left, strict=True):
        row: dict[str, Any] = {"audience": a, "label": label, "count": c, "away_since": None}
        if c == 0 and gone is not None:
            row["away_since"] = datetime.fromtimestamp(gone, tz=UTC)
        if a.startswith("seat-"):
            row["lag"] = lags.get(int(a[5:]))
            row["away_left"], row["away_until"] = away_left.get(int(a[5:]), (None, None))
        out.append(row)
    return out


def alerts(match: Any, seats: list[Any], host_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The host's alerts of seats away longer than the match's `away_alert` (formats.py): the
    sweeper decides (`Seat.away_alert`, play/sweeper.sweep_alerts); an alert stops showing as soon
    as the seat has a page open again, before the sweeper clears it."""
    if match.status != "running":
        return []
    by_seat = {int(r["audience"][5:]): r for r in host_rows if r["audience"].startswith("seat-")}
    out = []
    for seat in seats:
        row = by_seat.get(seat.number, {})
        if seat.away_alert is None or seat.bot or row.get("count"):
            continue
        out.append({"number": seat.number, "label": row.get("label") or f"{seat.name} (seat {seat.number})",
                    "since": row.get("away_since") or seat.away_alert})
    return out


# -- what players and spectators see: the spectators' count, each seat online or offline --------


def public(match: Any, seats: list[Any] | None = None) -> dict[str, Any]:
    """The same for every seat and spectator (none of the host's details: no times, no lag):
    `count` open spectator pages (None: unknown), and per seat "online", "offline", "computer"
    or "unknown"; `open` the audience labels with a page open (None: unknown)."""
    seats = list(seats if seats is not None else match.seats.order_by("number"))
    labels = [AUDIENCE_WATCH] + [f"seat-{s.number}" for s in seats]
    try:
        counts: list[int | None] = list(store.counts([key(match.id, label) for label in labels]))
    except _Unavailable:
        counts = [None] * len(labels)
    states = []
    for seat, count in zip(seats, counts[1:], strict=True):
        state = ("computer" if seat.bot else "unknown" if count is None else "online" if count else "offline")
        states.append({"number": seat.number, "name": seat.name, "state": state})
    known = None not in counts
    return {"count": counts[0], "seats": states,
            "open": {label for label, count in zip(labels, counts, strict=True) if count} if known else None}


def seat_presence(match_id: int, seat: int) -> tuple[int | None, float | None]:
    """A seat's open sockets and when its last one closed (core/away.py); (None, None) unknown."""
    name = key(match_id, f"seat-{int(seat)}")
    try:
        counts = store.known(match_id, [name])
        left = store.left([name])[0]
    except _Unavailable:
        return None, None
    return (None if counts is None else counts[0]), left


def last_seen(match_id: int, seats: list[int]) -> float | None:
    """When one of `seats` of the match last had a page open (a Unix time): now while one has; else
    its latest close; or, with none on record, the moment the store began keeping presence (a
    Redis that restarted empty knows nothing from before, so its restart counts as a sighting:
    core/away.py's `last_seen`).  None when unknown (the store does not answer)."""
    names = [key(match_id, f"seat-{int(n)}") for n in seats]
    try:
        counts = store.counts(names) if names else []
        left = store.left(names) if names else []
        since = store.epoch()
    except _Unavailable:
        return None
    if any(counts):
        return time.time()
    return max([since, *(t for t in left if t is not None)])


def open_audiences(match_id: int, labels: list[str]) -> set[str] | None:
    """The audiences (of `labels`) with a socket open; None when unknown (Redis away
    or restarted empty): then live renders every audience (one too many is harmless).
    An audience with a socket on this process is open without asking Redis (one web process:
    no round trip before a move is drawn, ~0.8 ms); the store is asked about the others."""
    here = {label for label in labels if _here[key(match_id, label)] > 0}
    rest = [label for label in labels if label not in here]
    if not rest:
        return here
    try:
        counts = store.known(match_id, [key(match_id, label) for label in rest])
    except _Unavailable:
        return None
    if counts is None:
        return None
    return here | {label for label, count in zip(rest, counts, strict=True) if count > 0}


# -- connections (async: called by the consumer) ------------------------------------------


async def arrive(match_id: int, audience: str, conn: str) -> None:
    name = key(match_id, audience)
    if conn not in _open:  # (a page that resyncs after a Redis outage arrives again)
        _here[name] += 1
    _open[conn] = name
    _ensure_heartbeat()
    with contextlib.suppress(_Unavailable):  # if Redis is away, the heartbeat adds it when it is back
        await sync_to_async(store.add, thread_sensitive=False)([(name, conn)])
    _schedule_push(match_id, audience)


async def leave(match_id: int, audience: str, conn: str) -> None:
    name = _open.pop(conn, None)
    if name is None:  # (already gone)
        name = key(match_id, audience)
    else:
        _here[name] -= 1
        if _here[name] <= 0:
            del _here[name]
    await _remove((name, conn))
    _schedule_push(match_id, audience)


class _Removal:
    """Connections removed from the store together, and when that is done."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.members: list[tuple[str, str]] = []
        self.done: asyncio.Future[None] = loop.create_future()


async def _remove(member: tuple[str, str]) -> None:
    """Remove a closed connection from the store, together with every other connection that closed
    meanwhile: one worker thread and one Redis round trip for a burst, one removal at a time.

    One each, 2,000 sockets closing at once queued 2,000 jobs behind the default executor's few
    threads, whose GIL hand-offs slowed the event loop and every other disconnect with it: some
    took longer than daphne's 10 s for a closed socket's application, which it then killed
    ("took too long to shut down", tests/chaos/test_socket_memory.py)."""
    loop = asyncio.get_running_loop()
    batch = _leaving.get(loop)
    if batch is None:
        batch = _leaving[loop] = _Removal(loop)
        _tasks.add(task := loop.create_task(_flush(loop, batch)))
        task.add_done_callback(_tasks.discard)
    batch.members.append(member)
    await asyncio.shield(batch.done)  # a cancelled disconnect does not cancel the others' removal


async def _flush(loop: asyncio.AbstractEventLoop, batch: _Removal) -> None:
    async with _removing.setdefault(loop, asyncio.Lock()):  # meanwhile the batch takes more connections
        if _leaving.get(loop) is batch:
            del _leaving[loop]
        try:
            await sync_to_async(store.remove, thread_sensitive=False)(batch.members)
        except _Unavailable:
            pass  # Redis is away: the members expire by themselves
        except Exception:
            log.exception("presence: %d closed connections not removed", len(batch.members))
        batch.done.set_result(None)


def _ensure_heartbeat() -> None:
    loop = asyncio.get_running_loop()
    task = _heartbeats.get(loop)
    if task is None or task.done():
        _heartbeats[loop] = loop.create_task(_heartbeat())


async def _heartbeat() -> None:
    while _open:
        await asyncio.sleep(HEARTBEAT)
        try:
            await refresh()
        except _Unavailable:
            pass
        except Exception:  # never let the heartbeat die
            log.exception("presence heartbeat failed")


async def refresh() -> None:
    """One heartbeat: renew this process's open connections (adding those a restarted Redis lost).

    A connection that closes while the renewal is on its way to Redis has its removal run first
    and is then added back by the renewal, counted until it expires (`TTL`): seen when 2,000
    spectators left at once (tests/chaos/test_many_sockets.py).  Those are removed again once
    the renewal is done; `_open` is only changed on the loop, so each closing connection is
    either left out of the renewal's list or seen gone after it."""
    members = [(name, conn) for conn, name in list(_open.items())]
    await sync_to_async(store.add, thread_sensitive=False)(members)
    gone = [(name, conn) for name, conn in members if _open.get(conn) != name]
    if gone:
        await sync_to_async(store.remove, thread_sensitive=False)(gone)


# -- pushing the presence boxes ------------------------------------------------------------
#
# The host's box (and its away alerts) goes to the host's pages; the players' and spectators' box
# (spectators' count, seats online or offline) to every other audience with a page open.  Both
# are small fragments of their own, never a redraw of the page.  A burst of arrivals and
# departures is one push: the host's box at most every `PUSH_DELAY` s per process, the public box
# at most every `PUBLIC_DELAY` s for all web processes together (a claim in the store), so 2,000
# spectators coming and going send each socket a count at most that often.

HOST_BOX, PUBLIC_BOX = "host", "public"
PUBLIC_DELAY = 1.0  # the players' and spectators' box is redrawn at most this often per match


def public_claim_key(match_id: int) -> str:
    return f"deathmatch:presence:{int(match_id)}:public-push"


def _schedule_push(match_id: int, audience: str | None = None) -> None:
    """Redraw the host's box, and the public one unless only a host page came or went, once for
    a burst of arrivals/departures."""
    _schedule(match_id, HOST_BOX)
    if audience != AUDIENCE_HOST:
        _schedule(match_id, PUBLIC_BOX)


def _schedule(match_id: int, box: str) -> None:
    loop = asyncio.get_running_loop()
    pending = _pending.setdefault(loop, set())
    if (match_id, box) in pending:
        return
    pending.add((match_id, box))
    _tasks.add(task := loop.create_task(_push_later(match_id, box, pending)))
    task.add_done_callback(_tasks.discard)


async def _push_later(match_id: int, box: str, pending: set[tuple[int, str]]) -> None:
    try:
        if box == HOST_BOX:
            await asyncio.sleep(PUSH_DELAY)
        else:
            await asyncio.sleep(PUBLIC_DELAY)
            # another process pushed the box within PUBLIC_DELAY s: push when that is over (what
            # changed here may have been after its drawing); it is read after the claim, so a
            # change made before a claim is drawn by its holder or by the next one
            while wait := await sync_to_async(_claim, thread_sensitive=False)(match_id):
                await asyncio.sleep(wait)
        pending.discard((match_id, box))
        await push(match_id, box)
    except Exception as error:  # a broken broadcast only delays the box: it is redrawn with every full update
        pending.discard((match_id, box))
        log.warning("presence update of match %s skipped: %s", match_id, error)


def _claim(match_id: int) -> float:
    try:
        return store.claim(public_claim_key(match_id), PUBLIC_DELAY)
    except _Unavailable:
        return 0.0  # nobody to share with: push (the box says "unknown")


async def push(match_id: int, box: str = HOST_BOX) -> None:
    from channels.layers import get_channel_layer

    from matches.core.audiences import group_name  # not render: render reads presence, never the other way
    from matches.live import relay

    layer = get_channel_layer()
    if layer is None:
        return
    drawn = await sync_to_async(host_html if box == HOST_BOX else _public_html)(match_id)
    for viewer, html in drawn:
        # to every process's relay of the audience's pages (this one's too: no origin to skip)
        group = group_name(match_id, viewer)
        await layer.group_send(relay.relay_group(group), {"type": relay.HTML_TYPE, "group": group, "html": html})


def host_html(match_id: int) -> list[tuple[int, str]]:
    """[(HOST, the host's presence box and away alerts)], or [] when the match is gone."""
    from django.template.loader import render_to_string

    from matches.models import Match

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return []
    seats = list(match.seats.order_by("number"))
    host_rows = rows(match, seats)
    ctx = {"presence": host_rows, "away_alerts": alerts(match, seats, host_rows), "oob": True}
    return [(HOST, render_to_string("matches/partials/presence.html", ctx)
             + render_to_string("matches/partials/away_alerts.html", ctx))]


def _public_html(match_id: int) -> list[tuple[int, str]]:
    """The public box, once, for each seat and the spectators with a page open (all when unknown)."""
    from django.template.loader import render_to_string

    from matches.models import Match

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return []
    watching = public(match)
    html = render_to_string("matches/partials/watching.html", {"watching": watching, "oob": True})
    viewers = [SPECTATOR, *(s["number"] for s in watching["seats"])]
    opened = watching["open"]
    return [(v, html) for v in viewers if opened is None or (AUDIENCE_WATCH if v == SPECTATOR else f"seat-{v}") in opened]
