"""A consumer torn down while Redis comes back must end.

CI once hung for 300 s closing a test's event loop: a websocket's `receive`
was cancelled while the layer was recovering, and the cancellation was lost
(Python 3.11's `asyncio.wait_for` returns the inner call's result when a
cancellation lands as that call completes).  The receive then went back to
waiting on Redis for ever, and the loop could not close.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from config.channel_layer import ResilientRedisChannelLayer

from .conftest import RedisServer

pytestmark = [pytest.mark.chaos, pytest.mark.redis]


class TornDownOnRejoin(ResilientRedisChannelLayer):
    """The layer as it is, and a consumer torn down the moment the groups are rejoined."""

    on_rejoined: Callable[[], object] = staticmethod(lambda: None)

    async def _rejoin(self, index: int) -> None:
        await super()._rejoin(index)
        self.on_rejoined()


def test_a_receive_cancelled_just_as_redis_answers_again_ends(redis_server: RedisServer) -> None:
    # the watcher's own retry is kept far off (retry_after / 2), so the receive's retry is the
    # one that finds Redis back
    layer = TornDownOnRejoin(
        hosts=[{"address": redis_server.url, "socket_timeout": 10}], blocking_read=2,
        group_timeout=2, retry_after=60, prefix="canceltest")

    async def scenario() -> asyncio.Task[object]:
        channel = await layer.new_channel()
        await layer.group_add("watchers", channel)
        redis_server.kill()
        receiving = asyncio.create_task(layer.receive(channel))
        layer.on_rejoined = receiving.cancel
        while layer.healthy:  # its first read fails
            await asyncio.sleep(0.05)
        redis_server.start()
        await asyncio.wait([receiving], timeout=30)
        return receiving

    receiving = asyncio.run(scenario())
    assert receiving.cancelled(), receiving
