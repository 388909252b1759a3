"""A membership changed while Redis is away is in step with it once Redis is back.

In the 2,000-socket storm a burst of disconnects made some group discards fail, and closed channels
stayed members (each was sent every broadcast).  With the pub/sub layer a membership is a
subscription of the process's connection, which redis-py subscribes again after a reconnect: a
discard that failed would come back with it, an add that failed would be missing.  Both are done
again when Redis answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from config.channel_layer import RECOVERED, LayerUnavailable, ResilientRedisChannelLayer

from .conftest import RedisServer

pytestmark = [pytest.mark.chaos, pytest.mark.redis]


def _subscribed(redis: RedisServer) -> set[str]:
    """The groups some connection subscribes to, read from Redis itself (PUBSUB CHANNELS)."""
    return {name.rsplit("__", 1)[-1] for name in redis.command("PUBSUB", "CHANNELS", "*__group__*").split()}


def test_memberships_changed_during_an_outage_are_redone_when_redis_is_back(redis_server: RedisServer) -> None:
    layer = ResilientRedisChannelLayer(hosts=[{"address": redis_server.url, "socket_timeout": 10}],
                                       timeout=0.5, retry_after=0.5, check_every=0.2, prefix="discardtest")

    async def scenario() -> set[str]:
        left, kept = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("left-during-outage", left)
        await layer.group_add("still-here", kept)
        redis_server.kill()
        with contextlib.suppress(LayerUnavailable):  # (written as Redis dies, it may even raise nothing)
            await layer.group_discard("left-during-outage", left)
        while layer.healthy:  # the layer notices the outage
            await asyncio.sleep(0.05)
        with pytest.raises(LayerUnavailable):
            await layer.group_add("joined-during-outage", kept)
        redis_server.start()
        async with asyncio.timeout(30):  # the layer tells its channels once it has redone them
            assert await layer.receive(kept) == RECOVERED
        deadline = time.monotonic() + 30
        while (found := _subscribed(redis_server)) != {"still-here", "joined-during-outage"}:
            assert time.monotonic() < deadline, found
            await asyncio.sleep(0.1)
        return found

    assert asyncio.run(scenario()) == {"still-here", "joined-during-outage"}
