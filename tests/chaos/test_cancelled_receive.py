"""A consumer torn down while Redis is away must end.

CI once hung for 300 s closing a test's event loop: a websocket's `receive` was cancelled while
the layer was recovering and went back to waiting on Redis for ever.  The pub/sub layer's receive
waits on a queue of the process; cancelled, it unsubscribes its channel, which must not wait for a
Redis that is killed or frozen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from config.channel_layer import ResilientRedisChannelLayer

from .conftest import RedisServer

pytestmark = [pytest.mark.chaos, pytest.mark.redis]


@pytest.mark.parametrize("away", ["kill", "freeze"])
def test_a_receive_cancelled_while_redis_is_away_ends(redis_server: RedisServer, away: str) -> None:
    layer = ResilientRedisChannelLayer(hosts=[{"address": redis_server.url, "socket_timeout": 10}],
                                       timeout=2, prefix="canceltest")
    stop: Callable[[], None] = getattr(redis_server, away)

    async def scenario() -> asyncio.Task[object]:
        channel = await layer.new_channel()
        await layer.group_add("watchers", channel)
        receiving = asyncio.create_task(layer.receive(channel))
        await asyncio.sleep(0)  # (the receive waits on its queue)
        stop()
        receiving.cancel()
        await asyncio.wait([receiving], timeout=30)
        return receiving

    try:
        receiving = asyncio.run(scenario())
    finally:
        if away == "freeze":
            redis_server.thaw()
        else:
            redis_server.start()
    assert receiving.cancelled(), receiving
