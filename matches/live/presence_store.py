"""Presence's store: a sorted set per (match, audience) of its open connections, each scored by
when it expires (see presence.py).  Redis sorted sets reached through the cache's Redis with its
timeouts; without REDIS_URL (one process) the same sets in this process's memory.  When Redis does
not answer a call raises `_Unavailable`, and Redis is not asked again for `RETRY_AFTER` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings

log = logging.getLogger("matches.live.presence")

TTL = float(getattr(settings, "DEATHMATCH_PRESENCE_TTL", 60.0))
HEARTBEAT = TTL / 3
RETRY_AFTER = 1.0  # seconds without asking Redis after it failed


def key(match_id: int, audience: str) -> str:
    return f"deathmatch:presence:{int(match_id)}:{audience}"


def complete_key(match_id: int) -> str:
    """Refreshed with the members: while it exists an empty set really means "nobody";
    when it is missing (Redis restarted empty) presence is unknown until the heartbeat."""
    return f"deathmatch:presence:{int(match_id)}:known"


def left_key(name: str) -> str:
    """When a connection of the audience `name` last closed: how long a seat has been away."""
    return f"{name}:left"


#: how long the time a connection closed is kept (a seat away longer shows as just "offline")
LEFT_TTL = 24 * 3600
#: since when the store keeps presence (`last_seen`): what it knows of a seat that never had a page
EPOCH_KEY = "deathmatch:presence:epoch"


def _match_of(name: str) -> int:
    return int(name.split(":")[2])


# -- storage: Redis sorted sets, or this process --------------------------------------------


class _Unavailable(Exception):
    pass


class _Redis:
    def __init__(self) -> None:
        self.failed_at: float | None = None
        self._redis: Any = None

    def _client(self) -> Any:
        if self.failed_at is not None and time.monotonic() - self.failed_at < RETRY_AFTER:
            raise _Unavailable
        if self._redis is None:
            # A client of its own, on the cache's Redis and with the cache's timeouts and pool size
            # (Django's cache exposes no public way to reach its client for sorted sets and pipelines)
            import redis
            from django.conf import settings

            cache = settings.CACHES["default"]
            options = {k: v for k, v in cache.get("OPTIONS", {}).items() if k != "pool_class"}
            pool = redis.BlockingConnectionPool.from_url(cache["LOCATION"], **options)
            self._redis = redis.Redis(connection_pool=pool)
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
            raise _Unavailable from error
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
            for match_id in {_match_of(name) for name in by_key}:
                pipe.set(self._k(complete_key(match_id)), 1, ex=int(TTL) + 1)
            pipe.set(self._k(EPOCH_KEY), expires - TTL, nx=True)

        if by_key:
            self._run(fill)

    def remove(self, members: Iterable[tuple[str, str]]) -> None:
        gone = list(members)
        now = time.time()

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
        """Since when this Redis keeps presence: set by the first read or write after it started
        empty (`add`, `remove` too; it never expires), so a restart that lost every record is seen."""
        now = time.time()
        _, value = self._run(lambda pipe: (pipe.set(self._k(EPOCH_KEY), now, nx=True), pipe.get(self._k(EPOCH_KEY))))
        return float(value) if value is not None else now

    def counts(self, names: list[str]) -> list[int]:
        return self._prune(names)[1]

    def known(self, match_id: int, names: list[str]) -> list[int] | None:
        known, counts = self._prune(names, complete_key(match_id))
        return counts if known else None

    def _prune(self, names: list[str], known: str | None = None) -> tuple[bool, list[int]]:
        """Drop expired members and count the rest.  A member that expired belonged to a process
        that died without closing it: it left when it was last renewed (its expiry - TTL), which
        is kept like a closed connection's time (`left`), unless a later one is known."""
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


class _Local:
    """One process (no REDIS_URL): the same sets in memory."""

    def __init__(self) -> None:
        self.sets: dict[str, dict[str, float]] = {}
        #: presence key -> when a connection of it last closed
        self.gone: dict[str, float] = {}
        self.lock = threading.Lock()
        self.claims: dict[str, float] = {}
        #: this process keeps presence since it started (nothing from before survives a restart)
        self.started = time.time()

    def claim(self, name: str, seconds: float) -> float:
        now = time.monotonic()
        with self.lock:
            until = self.claims.get(name, 0.0)
            if until > now:
                return until - now
            self.claims[name] = now + seconds
            return 0.0

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
                for conn in [c for c, t in members.items() if t <= now]:
                    # a process that died without closing it: it left when last renewed
                    self.gone[name] = max(self.gone.get(name, 0.0), members.pop(conn) - TTL)
                result.append(len(members))
            return result

    def known(self, match_id: int, names: list[str]) -> list[int] | None:
        return self.counts(names)


def _make_store() -> _Redis | _Local:
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    return _Redis() if backend.endswith("RedisCache") else _Local()
