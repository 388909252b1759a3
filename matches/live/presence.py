"""Presence: who has a page of a match open, per audience.

Each open socket is a member of a sorted set per (match, audience), scored by when it expires: it
adds itself on connect, removes itself on close, and every web process renews its own sockets
every `HEARTBEAT` s.  Members, not a counter: exact across processes, and self-healing (a killed
process's sockets expire after `TTL`; a Redis that restarted empty is refilled by the next
heartbeat).  Redis sorted sets on the cache's Redis, or this process's memory without REDIS_URL.
When Redis does not answer, presence is unknown (`count` None), never an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings

from games.core import HOST, SPECTATOR
from matches.core.audiences import AUDIENCE_HOST, AUDIENCE_WATCH, group_name

log = logging.getLogger(__name__)

TTL = float(getattr(settings, "DEATHMATCH_PRESENCE_TTL", 60.0))
HEARTBEAT = TTL / 3
RETRY_AFTER = 1.0  # seconds without asking Redis after it failed
#: how long the time a connection closed is kept (a seat away longer shows as just "offline")
LEFT_TTL = 24 * 3600
#: since when the store keeps presence (`last_seen`): what it knows of a seat that never had a page
EPOCH_KEY = "deathmatch:presence:epoch"
PUSH_DELAY = 0.25  # the host's box is redrawn at most this often per match and process
PUBLIC_DELAY = 1.0  # the others' box at most this often per match, all processes together
HOST_BOX, PUBLIC_BOX = "host", "public"


def key(match_id: int, audience: str) -> str:
    return f"deathmatch:presence:{int(match_id)}:{audience}"


def complete_key(match_id: int) -> str:
    """While it exists an empty set means "nobody"; missing (Redis restarted empty), presence is
    unknown until the next heartbeat refills it."""
    return f"deathmatch:presence:{int(match_id)}:known"


def left_key(name: str) -> str:
    """When a connection of the audience `name` last closed: how long a seat has been away."""
    return f"{name}:left"


def public_claim_key(match_id: int) -> str:
    return f"deathmatch:presence:{int(match_id)}:public-push"


# -- the store: Redis sorted sets, or this process ------------------------------------------


class Unavailable(Exception):
    """Redis did not answer (it is not asked again for `RETRY_AFTER` s)."""


class RedisStore:
    def __init__(self) -> None:
        self.failed_at: float | None = None
        self._redis: Any = None

    def _client(self) -> Any:
        if self.failed_at is not None and time.monotonic() - self.failed_at < RETRY_AFTER:
            raise Unavailable
        if self._redis is None:
            # a client of its own on the cache's Redis, with its timeouts and pool size: Django's
            # cache has no public way to its client for sorted sets and pipelines
            import redis

            cache = settings.CACHES["default"]
            options = {k: v for k, v in cache.get("OPTIONS", {}).items() if k != "pool_class"}
            self._redis = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(cache["LOCATION"], **options))
        return self._redis

    @staticmethod
    def _k(name: str) -> str:
        """The cache's own key (KEY_PREFIX, version): processes that share a Redis keep apart."""
        from django.core.cache import cache

        return cache.make_key(name)

    def _run(self, fill: Any) -> list[Any]:
        from redis.exceptions import RedisError

        try:
            pipe = self._client().pipeline(transaction=False)
            fill(pipe)
            result: list[Any] = pipe.execute()
        except (RedisError, OSError) as error:
            if self.failed_at is None:
                log.warning("presence unavailable: Redis did not answer (%s)", type(error).__name__)
            self.failed_at = time.monotonic()
            raise Unavailable from error
        if self.failed_at is not None:
            log.warning("presence: Redis answers again")
            self.failed_at = None
        return result

    def add(self, members: Iterable[tuple[str, str]]) -> None:
        expires = time.time() + TTL
        by_key: dict[str, dict[str, float]] = {}
        for name, conn in members:
            by_key.setdefault(name, {})[conn] = expires

        def fill(pipe: Any) -> None:
            for name, scores in by_key.items():
                pipe.zadd(self._k(name), scores)
                pipe.expire(self._k(name), int(TTL) + 1)
            for match_id in {int(name.split(":")[2]) for name in by_key}:
                pipe.set(self._k(complete_key(match_id)), 1, ex=int(TTL) + 1)
            pipe.set(self._k(EPOCH_KEY), expires - TTL, nx=True)

        if by_key:
            self._run(fill)

    def remove(self, members: Iterable[tuple[str, str]]) -> None:
        gone, now = list(members), time.time()

        def fill(pipe: Any) -> None:
            for name, conn in gone:
                pipe.zrem(self._k(name), conn)
                pipe.set(self._k(left_key(name)), now, ex=LEFT_TTL)
            pipe.set(self._k(EPOCH_KEY), now, nx=True)

        if gone:
            self._run(fill)

    def claim(self, name: str, seconds: float) -> float:
        """0 when this process took `name` for `seconds` (shared by every process), else the seconds
        until whoever holds it lets it go."""
        ms = max(1, int(seconds * 1000))
        taken, left = self._run(lambda pipe: (pipe.set(self._k(name), 1, nx=True, px=ms), pipe.pttl(self._k(name))))
        return 0.0 if taken else max(0.001, left / 1000)  # (it may have expired in between: try again)

    def left(self, names: list[str]) -> list[float | None]:
        values = self._run(lambda pipe: pipe.mget([self._k(left_key(name)) for name in names]))[0]
        return [float(v) if v is not None else None for v in values]

    def epoch(self) -> float:
        """Set by the first read or write after Redis started empty (it never expires), so a
        restart that lost every record is seen."""
        now = time.time()
        _, value = self._run(lambda pipe: (pipe.set(self._k(EPOCH_KEY), now, nx=True), pipe.get(self._k(EPOCH_KEY))))
        return float(value) if value is not None else now

    def counts(self, names: list[str]) -> list[int]:
        return self._prune(names)[1]

    def known(self, match_id: int, names: list[str]) -> list[int] | None:
        known, counts = self._prune(names, complete_key(match_id))
        return counts if known else None

    def _prune(self, names: list[str], known: str | None = None) -> tuple[bool, list[int]]:
        """Drop expired members and count the rest.  An expired member's process died without
        closing it: it left when last renewed (expiry - TTL), kept as its `left` unless a later one is."""
        now = time.time()

        def fill(pipe: Any) -> None:
            if known:
                pipe.exists(self._k(known))
            else:
                pipe.ping()
            for name in names:
                pipe.zrangebyscore(self._k(name), "-inf", now, withscores=True)
                pipe.get(self._k(left_key(name)))
                pipe.zremrangebyscore(self._k(name), "-inf", now)
                pipe.zcard(self._k(name))

        result = self._run(fill)
        late: dict[str, float] = {}
        for i, name in enumerate(names):
            expired, before = result[1 + 4 * i], result[2 + 4 * i]
            if expired:
                gone = max(score for _, score in expired) - TTL
                if before is None or float(before) < gone:
                    late[name] = gone
        if late:
            self._run(lambda pipe: [pipe.set(self._k(left_key(n)), t, ex=LEFT_TTL) for n, t in late.items()])
        return bool(result[0]), [int(n) for n in result[4::4]]


class LocalStore:
    """One process (no REDIS_URL): the same sets in memory; presence is kept since it started."""

    def __init__(self) -> None:
        self.sets: dict[str, dict[str, float]] = {}
        self.gone: dict[str, float] = {}  # presence key -> when a connection of it last closed
        self.claims: dict[str, float] = {}
        self.lock = threading.Lock()
        self.started = time.time()

    def add(self, members: Iterable[tuple[str, str]]) -> None:
        expires = time.time() + TTL
        with self.lock:
            for name, conn in members:
                self.sets.setdefault(name, {})[conn] = expires

    def remove(self, members: Iterable[tuple[str, str]]) -> None:
        now = time.time()
        with self.lock:
            for name, conn in members:
                self.sets.get(name, {}).pop(conn, None)
                self.gone[name] = now

    def claim(self, name: str, seconds: float) -> float:
        now = time.monotonic()
        with self.lock:
            until = self.claims.get(name, 0.0)
            if until > now:
                return until - now
            self.claims[name] = now + seconds
            return 0.0

    def left(self, names: list[str]) -> list[float | None]:
        with self.lock:
            return [self.gone.get(name) for name in names]

    def epoch(self) -> float:
        return self.started

    def counts(self, names: list[str]) -> list[int]:
        now = time.time()
        with self.lock:
            result = []
            for name in names:
                members = self.sets.get(name, {})
                for conn in [c for c, t in members.items() if t <= now]:  # as RedisStore._prune
                    self.gone[name] = max(self.gone.get(name, 0.0), members.pop(conn) - TTL)
                result.append(len(members))
            return result

    def known(self, match_id: int, names: list[str]) -> list[int] | None:
        return self.counts(names)


store: RedisStore | LocalStore = (
    RedisStore() if settings.CACHES.get("default", {}).get("BACKEND", "").endswith("RedisCache") else LocalStore())


# -- reading it: the host's box, the others' box, the sweeper, the live path ----------------------


def rows(match: Any, seats: list[Any] | None = None) -> list[dict[str, Any]]:
    """The host's box: open connections per audience (`count` None: unknown); a seat's row also its
    lag and away time left in the bout (`away_left` s, `away_until` while an away pause uses it)."""
    from matches.play import awaytime, lag  # (they read the models)

    seats = list(seats if seats is not None else match.seats.all())
    names = {s.number: s.name for s in seats}
    away_left = awaytime.left(match, seats, datetime.now(UTC))
    audiences = [("host", "Host"), ("watch", "Spectators")] + [(f"seat-{n}", f"{names[n]} (seat {n})") for n in sorted(names)]
    keys = [key(match.id, a) for a, _ in audiences]
    try:
        counts: list[int | None] = list(store.counts(keys))
        left: list[float | None] = store.left(keys)
    except Unavailable:
        counts, left = [None] * len(audiences), [None] * len(audiences)
    lags = lag.stats(match)
    out = []
    for (a, label), c, gone in zip(audiences, counts, left, strict=True):
        row: dict[str, Any] = {"audience": a, "label": label, "count": c,
                               "away_since": datetime.fromtimestamp(gone, tz=UTC) if c == 0 and gone is not None else None}
        if a.startswith("seat-"):
            row["lag"] = lags.get(int(a[5:]))
            row["away_left"], row["away_until"] = away_left.get(int(a[5:]), (None, None))
        out.append(row)
    return out


def alerts(match: Any, seats: list[Any], host_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seats away longer than the match's `away_alert`: the sweeper raises them
    (play/sweeper.sweep_alerts); one stops showing as soon as its seat has a page open again."""
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


def host_box(match: Any, seats: list[Any]) -> dict[str, Any]:
    """What the host's page shows of presence: the box and the away alerts."""
    host_rows = rows(match, seats)
    return {"presence": host_rows, "away_alerts": alerts(match, seats, host_rows)}


def public(match: Any, seats: list[Any] | None = None) -> dict[str, Any]:
    """What every seat and spectator sees (no times, no lag): `count` open spectator pages (None:
    unknown), each seat "online", "offline", "computer" or "unknown", and `open` the audience
    labels with a page open (None: unknown)."""
    seats = list(seats if seats is not None else match.seats.order_by("number"))
    labels = [AUDIENCE_WATCH] + [f"seat-{s.number}" for s in seats]
    try:
        counts: list[int | None] = list(store.counts([key(match.id, label) for label in labels]))
    except Unavailable:
        counts = [None] * len(labels)
    states = [{"number": seat.number, "name": seat.name,
               "state": "computer" if seat.bot else "unknown" if count is None else "online" if count else "offline"}
              for seat, count in zip(seats, counts[1:], strict=True)]
    opened = {label for label, count in zip(labels, counts, strict=True) if count} if None not in counts else None
    return {"count": counts[0], "seats": states, "open": opened}


def seat_presence(match_id: int, seat: int) -> tuple[int | None, float | None]:
    """A seat's open sockets and when its last one closed (core/away.py); (None, None) unknown."""
    name = key(match_id, f"seat-{int(seat)}")
    try:
        counts = store.known(match_id, [name])
        left = store.left([name])[0]
    except Unavailable:
        return None, None
    return (None if counts is None else counts[0]), left


def last_seen(match_id: int, seats: list[int]) -> float | None:
    """When one of `seats` last had a page open (Unix time): now while one has; else its latest
    close; with none on record, when the store began keeping presence (a Redis that restarted
    empty knows nothing from before: core/away.py).  None when the store does not answer."""
    names = [key(match_id, f"seat-{int(n)}") for n in seats]
    try:
        counts = store.counts(names) if names else []
        left = store.left(names) if names else []
        since = store.epoch()
    except Unavailable:
        return None
    if any(counts):
        return time.time()
    return max([since, *(t for t in left if t is not None)])


def open_audiences(match_id: int, labels: list[str]) -> set[str] | None:
    """The audiences (of `labels`) with a socket open; None when unknown (then live draws every
    audience: one too many is harmless).  One with a socket here is open without asking Redis."""
    here = {label for label in labels if _here[key(match_id, label)] > 0}
    rest = [label for label in labels if label not in here]
    if not rest:
        return here
    try:
        counts = store.known(match_id, [key(match_id, label) for label in rest])
    except Unavailable:
        return None
    if counts is None:
        return None
    return here | {label for label, count in zip(rest, counts, strict=True) if count > 0}


# -- connections (async: called by the consumer) ------------------------------------------

#: this process's open connections: connection id -> presence key (renewed by the heartbeat)
_open: dict[str, str] = {}
#: this process's open connections per presence key (changed on the loop, read by the drawing thread)
_here: Counter[str] = Counter()
_heartbeats: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = weakref.WeakKeyDictionary()
_tasks: set[asyncio.Task[None]] = set()
_pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[tuple[int, str]]] = weakref.WeakKeyDictionary()
#: connections that closed and wait for the next removal from the store, per event loop
_leaving: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Removal] = weakref.WeakKeyDictionary()
_removing: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


async def arrive(match_id: int, audience: str, conn: str) -> None:
    name = key(match_id, audience)
    if conn not in _open:  # (a page that resyncs after a Redis outage arrives again)
        _here[name] += 1
    _open[conn] = name
    loop = asyncio.get_running_loop()
    if (beat := _heartbeats.get(loop)) is None or beat.done():
        _heartbeats[loop] = loop.create_task(_heartbeat())
    with contextlib.suppress(Unavailable):  # if Redis is away, the heartbeat adds it when it is back
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
    """Remove a closed connection with every other that closed meanwhile, one removal at a time:
    a burst of closes is one worker thread and one round trip, not a job each that starves the loop."""
    loop = asyncio.get_running_loop()
    batch = _leaving.get(loop)
    if batch is None:
        batch = _leaving[loop] = _Removal(loop)
        _background(loop.create_task(_flush(loop, batch)))
    batch.members.append(member)
    await asyncio.shield(batch.done)  # a cancelled disconnect does not cancel the others' removal


async def _flush(loop: asyncio.AbstractEventLoop, batch: _Removal) -> None:
    async with _removing.setdefault(loop, asyncio.Lock()):  # meanwhile the batch takes more connections
        if _leaving.get(loop) is batch:
            del _leaving[loop]
        try:
            await sync_to_async(store.remove, thread_sensitive=False)(batch.members)
        except Unavailable:
            pass  # Redis is away: the members expire by themselves
        except Exception:
            log.exception("presence: %d closed connections not removed", len(batch.members))
        batch.done.set_result(None)


async def _heartbeat() -> None:
    while _open:
        await asyncio.sleep(HEARTBEAT)
        try:
            await refresh()
        except Unavailable:
            pass
        except Exception:  # never let the heartbeat die
            log.exception("presence heartbeat failed")


async def refresh() -> None:
    """One heartbeat: renew this process's open connections (adding those a restarted Redis lost).
    One that closed while the renewal was on its way was added back by it: removed again after
    (`_open` changes only on the loop, so each is either left out or seen gone)."""
    members = [(name, conn) for conn, name in list(_open.items())]
    await sync_to_async(store.add, thread_sensitive=False)(members)
    gone = [(name, conn) for name, conn in members if _open.get(conn) != name]
    if gone:
        await sync_to_async(store.remove, thread_sensitive=False)(gone)


def _background(task: asyncio.Task[None]) -> None:
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


# -- pushing the boxes: small fragments of their own, once for a burst of arrivals and departures --


def _schedule_push(match_id: int, audience: str) -> None:
    """The host's box, and the others' unless only a host page came or went."""
    loop = asyncio.get_running_loop()
    pending = _pending.setdefault(loop, set())
    for box in (HOST_BOX,) if audience == AUDIENCE_HOST else (HOST_BOX, PUBLIC_BOX):
        if (match_id, box) not in pending:
            pending.add((match_id, box))
            _background(loop.create_task(_push_later(match_id, box, pending)))


async def _push_later(match_id: int, box: str, pending: set[tuple[int, str]]) -> None:
    try:
        if box == HOST_BOX:
            await asyncio.sleep(PUSH_DELAY)
        else:
            await asyncio.sleep(PUBLIC_DELAY)
            # another process pushed within PUBLIC_DELAY: push when that is over, reading after the
            # claim, so a change made before a claim is drawn by its holder or by the next one
            while wait := await sync_to_async(_claim, thread_sensitive=False)(match_id):
                await asyncio.sleep(wait)
        pending.discard((match_id, box))
        await push(match_id, box)
    except Exception as error:  # a broken push only delays the box: every full update draws it
        pending.discard((match_id, box))
        log.warning("presence update of match %s skipped: %s", match_id, error)


def _claim(match_id: int) -> float:
    try:
        return store.claim(public_claim_key(match_id), PUBLIC_DELAY)
    except Unavailable:
        return 0.0  # nobody to share with: push (the box says "unknown")


async def push(match_id: int, box: str = HOST_BOX) -> None:
    from channels.layers import get_channel_layer

    from matches.live import relay

    layer = get_channel_layer()
    if layer is None:
        return
    drawn = await sync_to_async(host_html if box == HOST_BOX else _public_html)(match_id)
    for viewer, html in drawn:  # to every process's relay of the audience (this one's too)
        group = group_name(match_id, viewer)
        await layer.group_send(relay.relay_group(group), {"type": relay.HTML_TYPE, "group": group, "html": html})


def _match(match_id: int) -> Any:
    from matches.models import Match

    return Match.objects.filter(pk=match_id).first()


def host_html(match_id: int) -> list[tuple[int, str]]:
    """[(HOST, the host's presence box and away alerts)], or [] when the match is gone."""
    from django.template.loader import render_to_string

    match = _match(match_id)
    if match is None:
        return []
    ctx = {**host_box(match, list(match.seats.order_by("number"))), "oob": True}
    return [(HOST, render_to_string("matches/partials/presence.html", ctx)
             + render_to_string("matches/partials/away_alerts.html", ctx))]


def _public_html(match_id: int) -> list[tuple[int, str]]:
    """The others' box, drawn once, for each seat and the spectators with a page open (all when unknown)."""
    from django.template.loader import render_to_string

    match = _match(match_id)
    if match is None:
        return []
    watching = public(match)
    html = render_to_string("matches/partials/watching.html", {"watching": watching, "oob": True})
    opened = watching["open"]
    viewers = [SPECTATOR, *(s["number"] for s in watching["seats"])]
    return [(v, html) for v in viewers if opened is None or (AUDIENCE_WATCH if v == SPECTATOR else f"seat-{v}") in opened]
