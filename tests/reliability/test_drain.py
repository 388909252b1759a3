"""config/drain.py without a server: what a draining process does with requests and sockets (the
whole drain, under daphne and nginx, is tests/chaos/test_cluster.py's SIGTERM case)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from config import drain as draining
from config.drain import Drain


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _request(wrapped: draining.App) -> None:
    """An HTTP request through `wrapped`: the apps here never receive or send, hence None for both."""
    nothing: Any = None
    await wrapped({"type": "http"}, nothing, nothing)


@pytest.fixture(autouse=True)
def no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(draining, "BROADCAST_GRACE", 0.0)


def test_a_drain_answers_the_requests_in_flight_then_stops() -> None:
    async def scenario() -> list[str]:
        done = asyncio.Event()
        said: list[str] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await done.wait()
            said.append("answered")

        served = Drain()
        wrapped = served.wrap(app)
        request = asyncio.create_task(_request(wrapped))
        await asyncio.sleep(0)
        assert served.calls == 1
        stopping = asyncio.create_task(served.run(lambda: said.append("closed the port"), lambda: 0,
                                                  lambda: said.append("stopped"), 10))
        await asyncio.sleep(0.05)
        assert said == ["closed the port"]  # the request is not cut
        done.set()
        await asyncio.gather(request, stopping)
        return said

    assert run(scenario()) == ["closed the port", "answered", "stopped"]


def test_a_socket_arriving_or_accepted_during_a_drain_is_refused() -> None:
    async def scenario() -> tuple[list[Any], list[Any], bool]:
        seen = False

        async def app(scope: Any, receive: Any, send: Any) -> None:
            nonlocal seen
            seen = True
            await send({"type": "websocket.accept"})

        served = Drain()
        served.draining = True
        sent: list[Any] = []

        async def receive() -> dict[str, str]:
            return {"type": "websocket.connect"}

        async def send(message: Any) -> None:
            sent.append(message)

        await served.wrap(app)({"type": "websocket"}, receive, send)
        arrived, seen_then = list(sent), seen
        sent.clear()
        served.draining = False

        async def late(scope: Any, receive: Any, send: Any) -> None:  # its accept comes once the drain began
            served.draining = True
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": "the state"})

        await served.wrap(late)({"type": "websocket"}, receive, send)
        return arrived, sent, seen_then

    arrived, accepted_late, seen = run(scenario())
    assert arrived == [{"type": "websocket.close"}] and not seen
    assert accepted_late == [{"type": "websocket.close"}]


def test_a_drain_that_takes_too_long_stops_anyway() -> None:
    async def scenario() -> bool:
        stopped = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await asyncio.Event().wait()  # never answers

        served = Drain()
        hanging = asyncio.create_task(_request(served.wrap(app)))
        await asyncio.sleep(0)
        await served.run(lambda: None, lambda: 0, stopped.set, 0.1)
        hanging.cancel()
        return stopped.is_set()

    assert run(scenario())


def test_a_drain_keeps_the_port_closed_process_until_its_least_time() -> None:
    """DEATHMATCH_DRAIN_MIN_SECONDS (compose: 3): the process, its port closed, does not exit before
    that time has passed since SIGTERM (the proxy must see it refuse before its address vanishes)."""
    async def scenario() -> list[str]:
        said: list[str] = []
        served = Drain()
        stopping = asyncio.create_task(served.run(lambda: said.append("closed the port"), lambda: 0,
                                                  lambda: said.append("stopped"), 10, at_least=60))
        while "closed the port" not in said:
            await asyncio.sleep(0)
        await asyncio.sleep(0.05)  # the drain itself has nothing to wait for: it is done by now
        assert said == ["closed the port"]  # not stopped: the least time has not passed
        stopping.cancel()
        await asyncio.gather(stopping, return_exceptions=True)
        return said

    assert run(scenario()) == ["closed the port"]
