"""One Redis connection pool per process for Django's cache (and presence), however many cache
objects Django makes.

Django's `RedisCache` keeps its connection pool on the cache object, and its cache handler
(`django.core.cache.caches`) keeps cache objects per thread and, under ASGI, per async context:
every sync_to_async call of a websocket (the rate limits, django-ratelimit's cache) made a new
cache object, a new pool and a new TCP connection to Redis (Django ticket #35651).  The old pool
sat in reference cycles until the next full garbage collection: a daphne kept ~48 KB and a Redis
connection per closed socket (RSS +14 MB per round of 300 sockets,
tests/chaos/test_socket_memory.py).

`SharedPool` is the cache's `pool_class` (a documented option of Django's `RedisCache`): its
`from_url` hands out the one pool already made for the same address and options, so every cache
object of the process shares it, bounded by `max_connections`.  redis-py's pool notices a fork
(it checks the process id) and starts afresh in the child.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import redis


class SharedPool(redis.BlockingConnectionPool):
    """A `BlockingConnectionPool` made once per process for each address and set of options."""

    made: ClassVar[dict[tuple[str, tuple[tuple[str, str], ...]], SharedPool]] = {}
    making: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> SharedPool:
        key = (url, tuple(sorted((name, repr(value)) for name, value in kwargs.items())))
        with cls.making:
            pool = cls.made.get(key)
            if pool is None:
                pool = cls.made[key] = super().from_url(url, **kwargs)
            return pool
