"""A websocket that leaves while Redis is slow or away must still leave its group.

In the 2,000-socket storm a burst of disconnects made some `group_discard`
calls time out; the layer then skipped every call for a second, and 364
closed channels stayed members of the spectators' group (each would be sent
every broadcast until the group expired).  A failed or skipped discard is now
remembered and done when Redis answers again.
"""

from __future__ import annotations

import asyncio

import pytest

from config.channel_layer import LayerUnavailable, ResilientRedisChannelLayer

from .conftest import RedisServer

pytestmark = [pytest.mark.chaos, pytest.mark.redis]


def _members(redis: RedisServer, layer: ResilientRedisChannelLayer, group: str) -> set[str]:
    # the sorted set channels_redis keeps a group's members in ("<prefix>:group:<name>"), read
    # from Redis itself rather than through the layer's private key helper
    return set(redis.command("ZRANGE", f"{layer.prefix}:group:{group}", "0", "-1").split())


def test_a_discard_that_failed_is_done_when_redis_answers_again(redis_server: RedisServer) -> None:
    layer = ResilientRedisChannelLayer(
        hosts=[{"address": redis_server.url, "socket_timeout": 10}], blocking_read=2,
        group_timeout=0.5, send_timeout=0.5, retry_after=0.5, prefix="discardtest")

    async def scenario() -> None:
        await layer.group_add("watchers", "left-during-outage")
        await layer.group_add("watchers", "skipped-just-after")
        await layer.group_add("watchers", "still-here")
        redis_server.freeze()
        try:
            with pytest.raises(LayerUnavailable):
                await layer.group_discard("watchers", "left-during-outage")  # times out
            with pytest.raises(LayerUnavailable):
                await layer.group_discard("watchers", "skipped-just-after")  # skipped: failed moments ago
        finally:
            redis_server.thaw()
        for _ in range(50):
            if await layer.recover():
                break
            await asyncio.sleep(0.2)
        assert layer.healthy

    asyncio.run(scenario())
    assert _members(redis_server, layer, "watchers") == {"still-here"}
    assert not layer.pending_discards
