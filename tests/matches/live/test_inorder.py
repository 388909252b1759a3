"""A match's updates reach a process's sockets in the order of their versions (matches/live/inorder.py),
whichever process drew each: the rules on their own (time passed in, nothing waited for), then the
relay writing to a real spectator socket (WebsocketCommunicator) what two "other processes" sent
through the channel layer in the wrong order."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from matches.live import relay, render
from matches.live.inorder import HOLD, InOrder, Update
from tests.wsclient import Communicator

G = "match-1-watch"


def delta(version: int, base: int | None = None, bout: int = 1) -> Update:
    return Update(bout, version, version - 1 if base is None else base, f"v{version}")


def whole(version: int, bout: int = 1) -> Update:
    return Update(bout, version, None, f"v{version}-whole")


def test_an_update_that_follows_what_the_group_was_given_goes_out_at_once() -> None:
    order = InOrder()
    assert order.offer(G, whole(3), now=0) == ["v3-whole"]  # the first: nothing to follow
    assert order.offer(G, delta(4), now=0) == ["v4"]
    assert order.offer(G, whole(5), now=0) == ["v5-whole"]
    assert order.due() is None


def test_an_update_that_overtook_the_one_before_waits_for_it_then_both_go_out_in_order() -> None:
    order = InOrder()
    order.offer(G, delta(4), now=0)
    assert order.offer(G, delta(7), now=0.1) == []  # drawn quickly on another process
    assert order.offer(G, delta(6), now=0.2) == []
    assert order.due() == pytest.approx(0.1 + HOLD)
    assert order.offer(G, delta(5), now=0.3) == ["v5", "v6", "v7"]
    assert order.due() is None and order.offer(G, delta(8), now=0.4) == ["v8"]


def test_groups_are_ordered_apart() -> None:
    order = InOrder()
    order.offer(G, delta(4), now=0)
    order.offer("match-1-host", delta(4), now=0)
    assert order.offer(G, delta(6), now=0) == []
    assert order.offer("match-1-host", delta(5), now=0) == ["v5"]
    assert order.offer(G, delta(5), now=0) == ["v5", "v6"]


def test_an_older_update_and_a_second_delta_of_a_version_are_dropped_a_whole_redraw_is_not() -> None:
    order = InOrder()
    order.offer(G, delta(4), now=0)
    assert order.offer(G, delta(3), now=0) == []
    assert order.offer(G, whole(3), now=0) == []
    assert order.offer(G, delta(4), now=0) == []  # the same version drawn by two processes
    assert order.offer(G, whole(4), now=0) == ["v4-whole"]  # a redraw (a host action, a seat taken)


def test_a_delta_from_an_older_version_goes_out_the_page_refetches() -> None:
    """Made from v3 when the group has v4 (its drawer could not wait for v4): nothing better will come."""
    order = InOrder()
    order.offer(G, delta(4), now=0)
    assert order.offer(G, delta(5, base=3), now=0) == ["v5"]


def test_a_whole_update_goes_out_at_once_and_what_it_overtook_is_dropped() -> None:
    """A whole update applies to any page (its drawer could not have the version before: that
    version's process was killed): it never waits."""
    order = InOrder()
    order.offer(G, delta(4), now=0)
    assert order.offer(G, delta(7), now=0) == []
    assert order.offer(G, whole(6), now=0) == ["v6-whole", "v7"]
    assert order.offer(G, delta(5), now=0) == []


def test_a_held_update_waits_at_most_hold_seconds_then_the_held_go_out_in_version_order() -> None:
    order = InOrder()
    order.offer(G, delta(4), now=0)
    order.offer(G, delta(7), now=10.0)
    order.offer(G, delta(6), now=10.5)
    assert order.expire(now=10.0 + HOLD - 0.01) == []
    assert order.expire(now=10.0 + HOLD) == [(G, "v6"), (G, "v7")]  # the page refetches at v6 (from v5)
    assert order.due() is None
    assert order.offer(G, delta(5), now=12.0) == []  # came too late: older than what went out
    assert order.offer(G, delta(8), now=12.0) == ["v8"]


def test_another_bout_goes_out_at_once_and_an_older_bouts_update_is_dropped() -> None:
    order = InOrder()
    order.offer(G, delta(9), now=0)
    assert order.offer(G, whole(1, bout=2), now=0) == ["v1-whole"]
    assert order.offer(G, delta(10), now=0) == []


def test_a_group_forgotten_takes_the_next_update_whatever_it_is() -> None:
    order = InOrder()
    order.offer(G, delta(4), now=0)
    order.offer(G, delta(6), now=0)
    order.forget(G)  # its last socket here left; or (None) the layer came back and pages resync
    assert order.due() is None
    assert order.offer(G, delta(9), now=0) == ["v9"]


def test_a_message_without_a_version_is_not_ordered() -> None:
    assert Update.of({"type": "match.update", "html": "<section id=presence>"}) is None
    assert Update.of({"bout": 1, "version": 5, "base": 4, "html": "x"}) == Update(1, 5, 4, "x")
    assert Update.of({"bout": 1, "version": 5, "base": None, "html": "x"}) == Update(1, 5, None, "x")


# -- through the relay to a real socket -------------------------------------------------------------

ORIGIN = [(b"origin", b"http://testserver")]
PRESENCE_BOXES = ('<section id="presence"', '<section id="watching"')


@pytest.fixture
def own_cache(settings: Any) -> None:
    """Presence in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


def _meta(version: int, base: int | None) -> str:
    based = "" if base is None else f' data-base="{base}"'
    return f'<div id="live-meta" data-bout="1" data-version="{version}"{based}></div>'


async def _next_update(comm: Communicator) -> str:
    """The next message that is not a box of who is here (redrawn through the relay as sockets come)."""
    while (text := await comm.receive_from(timeout=5)).lstrip().startswith(PRESENCE_BOXES):
        pass
    return text


async def _held(mine: relay.Relay) -> None:
    while mine.order.due() is None:
        await asyncio.sleep(0)


@pytest.mark.django_db(transaction=True)
async def test_a_spectator_socket_gets_updates_relayed_out_of_order_in_version_order(
        make_match: Any, own_cache: None) -> None:
    """Two other processes drew versions 11 and 12 (each a delta on the one before); 12 reaches this
    process first.  The spectator's socket gets 11, then 12; a third update from "another process"
    made from a version that never comes is written once it has waited `HOLD` (the relay's timer,
    called here as the loop would call it, at a time past it)."""
    from config.asgi import application

    match = await database_sync_to_async(make_match)("lance-assembly")
    comm = Communicator(application, f"/ws/m/{match.watch_token}/", headers=ORIGIN)
    connected, _ = await comm.connect()
    assert connected
    assert 'id="live-meta"' in await _next_update(comm)  # the state on connect
    layer = get_channel_layer()
    assert layer is not None
    group = render.group_name(match.id, -1)

    async def from_elsewhere(version: int, base: int | None) -> None:
        await layer.group_send(relay.relay_group(group), {
            "type": relay.UPDATE_TYPE, "group": group, "origin": "another-process", "bout": 1,
            "version": version, "base": base, "html": _meta(version, base)})

    await from_elsewhere(10, None)  # what the relay gives the group first goes out as it is
    assert 'data-version="10"' in await _next_update(comm)
    await from_elsewhere(12, 11)
    await from_elsewhere(11, 10)
    assert 'data-version="11"' in await _next_update(comm)
    assert 'data-version="12"' in await _next_update(comm)
    mine = relay.for_loop(layer)
    await from_elsewhere(14, 13)  # 13 was lost
    await asyncio.wait_for(_held(mine), 10)  # the relay has read it from the layer, and holds it
    await mine.release_held(now=asyncio.get_running_loop().time() + HOLD)
    assert 'data-version="14" data-base="13"' in await _next_update(comm)  # live.js refetches on it
    await comm.disconnect()


async def test_what_comes_for_a_socket_before_its_state_on_connect_follows_that_state() -> None:
    """A reconnecting page still tracks the version it showed before: an update relayed to its new
    socket before the state drawn on connect was made from a version it did not show, and it
    refetched.  The relay keeps what comes for a socket until the consumer says its state is sent."""
    from channels.layers import InMemoryChannelLayer

    class Sock:
        def __init__(self) -> None:
            self.got: list[str] = []

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            self.got.append(text_data or "")

        async def layer_recovered(self) -> None:
            pass

    mine = relay.Relay(InMemoryChannelLayer())
    settled, arriving = Sock(), Sock()
    await mine.join(G, settled)
    await mine.join(G, arriving, first=True)
    await mine.deliver_update(G, {"bout": 1, "version": 5, "base": 4, "html": "v5"})
    assert settled.got == ["v5"] and arriving.got == []
    await arriving.send(text_data="state on connect")  # what the consumer does, then:
    await mine.ready(arriving)
    await mine.deliver_update(G, {"bout": 1, "version": 6, "base": 5, "html": "v6"})
    assert arriving.got == ["state on connect", "v5", "v6"] and settled.got == ["v5", "v6"]
    await mine.leave(G, arriving)
    await mine.leave(G, settled)
    assert not mine.waiting and G not in mine.sockets
    for task in (mine.task, mine.refresher):
        assert task is not None
        task.cancel()
