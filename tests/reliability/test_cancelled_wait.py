"""A cancelled `receive` of the Redis channel layer ends, and a message still arrives through it.

CI once hung 300 s closing a test's event loop: a refused socket's receive, cancelled, went back to
waiting on Redis.  The pub/sub layer's receive waits on a queue of the process and unsubscribes its
channel when cancelled (what happens when Redis is away meanwhile: tests/chaos/test_cancelled_receive.py)."""

from __future__ import annotations

import asyncio
import os
import random

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


async def test_a_task_cancelled_while_redis_answers_ends() -> None:
    """redis-py returns a reply whose call was cancelled as it arrived: the layer's watcher (which a
    closing event loop cancels) and a task of bounded calls (a consumer torn down) still end, each
    time, wherever the cancellation lands (CI hung 300 s closing a test's loop on the watcher)."""
    layer = ResilientRedisChannelLayer(hosts=[os.environ["REDIS_URL"]], check_every=0.001,
                                       prefix=f"cancel{os.getpid()}")

    async def sending() -> None:
        while True:
            await layer.group_send("nobody", {"type": "hello"})

    stuck = []
    for round_ in range(150):
        task = asyncio.ensure_future(sending())
        await asyncio.sleep(random.random() * 0.01)
        watcher = layer._loop().watcher  # (this loop's: started by the first call)
        assert watcher is not None
        for each in (task, watcher):
            each.cancel()
            await asyncio.wait([each], timeout=2)
            if not each.done():
                stuck.append(round_)
                each.cancel()
    assert not stuck, f"{len(stuck)} of 150 cancelled tasks kept running"
    await layer.flush()
