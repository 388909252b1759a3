"""A cancelled `receive` of the Redis channel layer ends, and a message still arrives through it.

CI once hung 300 s closing a test's event loop: a refused socket's receive, cancelled, went back to
waiting on Redis.  The pub/sub layer's receive waits on a queue of the process and unsubscribes its
channel when cancelled (what happens when Redis is away meanwhile: tests/chaos/test_cancelled_receive.py)."""

from __future__ import annotations

import asyncio
import os

import pytest

from config.channel_layer import ResilientRedisChannelLayer

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")


def _layer() -> ResilientRedisChannelLayer:
    return ResilientRedisChannelLayer(hosts=[{"address": os.environ["REDIS_URL"], "socket_timeout": 15}],
                                      prefix=f"cancel{os.getpid()}")


async def test_a_cancelled_receive_ends() -> None:
    layer = _layer()
    channel = await layer.new_channel()
    receiving = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0)  # (it waits on its queue)
    receiving.cancel()
    await asyncio.wait([receiving], timeout=10)
    assert receiving.cancelled()
    await layer.flush()


async def test_a_message_and_a_group_message_arrive() -> None:
    layer = _layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "hello", "n": 1})
    assert await layer.receive(channel) == {"type": "hello", "n": 1}
    await layer.group_add("readers", channel)
    await layer.group_send("readers", {"type": "hello", "n": 2})
    assert await layer.receive(channel) == {"type": "hello", "n": 2}
    await layer.flush()
