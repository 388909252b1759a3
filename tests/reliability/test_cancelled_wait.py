"""A cancelled `receive` of the Redis channel layer ends, even when a
cancellation is lost below it.

redis-py writes each command through `asyncio.wait_for`, which on Python 3.11
returns the write's result when a cancellation lands as the write completes.
channels_redis's receive then went back to its blocking read (an empty
BZPOPMIN every few seconds) for ever: a refused socket's task never ended,
and CI hung 300 s closing a test's event loop.  That window is a few
microseconds wide, so here the base layer loses the first cancellation on
purpose, the way redis-py's write does, over the real Redis."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from channels_redis.core import RedisChannelLayer

from config.channel_layer import ResilientRedisChannelLayer

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")


class LosesACancellation(RedisChannelLayer):  # type: ignore[misc]  # channels_redis is untyped (Any): no stubs
    """channels_redis's layer, whose receive loses the first cancellation it gets."""

    started: asyncio.Event

    async def receive(self, channel: str) -> dict[str, Any]:
        try:
            self.started.set()
            await asyncio.Event().wait()  # cancelled here...
        except asyncio.CancelledError:
            pass  # ...and the cancellation is lost, as in redis-py's command write
        result: dict[str, Any] = await super().receive(channel)  # back to the blocking read
        return result


class Layer(ResilientRedisChannelLayer, LosesACancellation):
    pass


async def test_a_cancelled_receive_ends_though_a_cancellation_was_lost_below_it() -> None:
    layer = Layer(hosts=[{"address": os.environ["REDIS_URL"], "socket_timeout": 15}], blocking_read=1,
                  prefix=f"cancel{os.getpid()}")
    layer.started = asyncio.Event()
    channel = await layer.new_channel()
    receiving = asyncio.ensure_future(layer.receive(channel))
    await layer.started.wait()
    receiving.cancel()
    # before: the receive went on reading Redis (an empty read each second) and never ended
    await asyncio.wait([receiving], timeout=10)
    try:
        assert receiving.cancelled()
    finally:
        receiving.cancel()
        await layer.close_pools()


async def test_a_message_still_arrives_through_the_task_the_receive_waits_in() -> None:
    layer = ResilientRedisChannelLayer(hosts=[{"address": os.environ["REDIS_URL"], "socket_timeout": 15}],
                                       blocking_read=1, prefix=f"cancel{os.getpid()}")
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "hello", "n": 1})
    assert await layer.receive(channel) == {"type": "hello", "n": 1}
    await layer.close_pools()
