"""The Redis channel layer's configuration: its calls give up before a Redis connection's read
timeout would, and the cache's timeouts stay short.  The behaviour over a real Redis is in
tests/chaos/."""

from __future__ import annotations

import os

import pytest

from config.channel_layer import ResilientRedisChannelLayer


def test_settings_configure_redis_for_long_lived_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    import config.settings

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("DATABASE_URL", "")  # empty counts as unset
    settings = importlib.reload(config.settings)
    try:
        layer = settings.CHANNEL_LAYERS["default"]
        assert layer["BACKEND"] == "config.channel_layer.ResilientRedisChannelLayer"
        host = layer["CONFIG"]["hosts"][0]
        # a frozen Redis is given up by the layer's own time limit, not by the read timeout
        assert host["socket_timeout"] > layer["CONFIG"]["timeout"]
        cache = settings.CACHES["default"]["OPTIONS"]
        assert cache["socket_timeout"] <= 0.5 and cache["socket_connect_timeout"] <= 0.5
        # the configured backend accepts its own configuration
        backend = ResilientRedisChannelLayer(**layer["CONFIG"])
        assert backend.timeout == layer["CONFIG"]["timeout"]
    finally:
        monkeypatch.undo()
        importlib.reload(config.settings)


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
def test_cache_calls_from_many_async_contexts_share_one_redis_pool() -> None:
    """Issue 21, defect 3: Django makes a cache object per async context, and its RedisCache a pool
    (and a Redis connection) per cache object; each websocket's rate-limit check made one, kept
    until a full garbage collection.  Here 20 sync_to_async calls, each from an event loop of its
    own (a socket's context), use the cache as the socket path does: no new pool may be left."""
    import asyncio
    import gc

    import redis
    from asgiref.sync import sync_to_async
    from django.core.cache import caches

    def pools() -> set[int]:
        # type(), not isinstance(): a lazy object left by another test (a CSP nonce) would evaluate
        return {id(o) for o in gc.get_objects() if issubclass(type(o), redis.ConnectionPool)}

    async def one_socket() -> None:
        await sync_to_async(caches["ratelimit"].get, thread_sensitive=False)("issue-21-probe")
        await sync_to_async(caches["default"].get, thread_sensitive=False)("issue-21-probe")

    asyncio.run(one_socket())  # the process's pool, made once
    gc.disable()  # what a closed socket leaves stays visible (the leak lived until a full collection)
    try:
        before = pools()
        for _ in range(20):
            asyncio.run(one_socket())
        made = pools() - before
    finally:
        gc.enable()
    assert not made, f"{len(made)} Redis connection pools made by 20 sockets' cache calls"
