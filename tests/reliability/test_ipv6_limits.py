"""Every per-client limit groups IPv6 clients by their /64 (issue 51, section 3): one host holds a
whole /64, so counting each IPv6 address on its own gave it unlimited budgets.  Two addresses of one
/64 share a budget, two /64s do not; IPv4 is counted per address as before; an IPv4-mapped IPv6
address (what a dual-stack socket reports for an IPv4 client, `::ffff:192.0.2.1`) is that IPv4
address, never one shared "::" budget for every IPv4 client.  Through the real stack: form posts,
secret links, the websocket, behind a trusted proxy, and the in-process counter used while the
shared cache does not answer.  Time is frozen: windows move only when the clock is moved."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

import pytest
import time_machine
from django.test import Client, RequestFactory

from config import ratelimits
from config.asgi import application
from matches.models import ChatMessage
from tests.wsclient import Communicator

NOON = dt.datetime(2030, 5, 1, 12, 0, 0, tzinfo=dt.UTC)
ORIGIN = [(b"origin", b"http://testserver")]
# one /64, another /64 of the same /48
A1, A2, B = "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:3::1"
V4, V4_OTHER = "192.0.2.1", "192.0.2.2"
MAPPED, MAPPED_OTHER = "::ffff:192.0.2.1", "::ffff:192.0.2.2"


def _seasons(client: Client, address: str, count: int, names: Any) -> list[int]:
    return [client.post("/seasons/", {"name": next(names)}, REMOTE_ADDR=address).status_code for _ in range(count)]


def _misses(client: Client, address: str, count: int) -> list[int]:
    return [client.get(f"/p/{secrets.token_urlsafe(24)}/", REMOTE_ADDR=address).status_code for _ in range(count)]


@pytest.mark.django_db
def test_two_addresses_of_one_64_share_the_new_season_budget(client: Client) -> None:
    names = (f"Season {n}" for n in range(100))
    with time_machine.travel(NOON, tick=False):
        assert _seasons(client, A1, 6, names) + _seasons(client, A2, 5, names) == [302] * 10 + [429]
        assert _seasons(client, B, 1, names) == [302]  # another /64: its own budget


@pytest.mark.django_db
def test_ipv4_counts_per_address_and_a_mapped_address_is_its_ipv4(client: Client) -> None:
    names = (f"Season {n}" for n in range(100))
    with time_machine.travel(NOON, tick=False):
        assert _seasons(client, V4, 5, names) + _seasons(client, MAPPED, 6, names) == [302] * 10 + [429]
        assert _seasons(client, V4_OTHER, 1, names) == [302]  # the next IPv4 address is another client
        assert _seasons(client, MAPPED_OTHER, 1, names) == [302]  # mapped too: not one "::" budget


@pytest.mark.django_db
def test_misses_of_secret_links_are_counted_per_64(client: Client) -> None:
    with time_machine.travel(NOON, tick=False):
        assert _misses(client, A1, 15) + _misses(client, A2, 16) == [404] * 30 + [429]
        assert _misses(client, B, 1) == [404]
        assert _misses(client, MAPPED_OTHER, 1) == [404]


@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_forwarded_ipv6_is_grouped_by_64(client: Client, settings: Any) -> None:
    settings.DEATHMATCH_TRUSTED_PROXIES = 1
    names = (f"Season {n}" for n in range(100))

    def create(forwarded: str) -> int:
        return client.post("/seasons/", {"name": next(names)}, HTTP_X_FORWARDED_FOR=forwarded).status_code

    with time_machine.travel(NOON, tick=False):
        assert [create(f"2001:db8:1:2::{n:x}") for n in range(1, 12)] == [302] * 10 + [429]
        assert create(B) == 302
        assert [create(f"::ffff:198.51.100.{n}") for n in range(1, 4)] == [302] * 3


@pytest.mark.django_db(transaction=True)
async def test_websocket_misses_share_the_budget_of_the_64() -> None:
    async def opens(address: str) -> int:
        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            await application({**scope, "client": (address, 50000)}, receive, send)

        comm = Communicator(app, f"/ws/m/{secrets.token_urlsafe(24)}/", headers=ORIGIN)
        assert (await comm.connect())[0]
        closed = await comm.receive_output(timeout=5)
        await comm.disconnect()
        return int(closed["code"])

    with time_machine.travel(NOON, tick=False):
        codes = [await opens(A1 if n % 2 else A2) for n in range(31)]
        assert codes == [4404] * 30 + [ratelimits.CLOSE_TOO_MANY]
        assert await opens(B) == 4404


@pytest.mark.django_db
def test_the_in_process_counter_groups_the_same_way() -> None:
    """While the shared cache does not answer, each process counts in memory (LocalCounter): the
    same grouping there."""
    counter, factory = ratelimits.LocalCounter(), RequestFactory()

    def over(address: str) -> bool:
        return counter.over(factory.get("/", REMOTE_ADDR=address), "matches") is not None

    with time_machine.travel(NOON, tick=False):
        assert [over(A1 if n % 2 else A2) for n in range(11)] == [False] * 10 + [True]
        assert not over(B)
        assert [over(V4 if n % 2 else MAPPED) for n in range(11)] == [False] * 10 + [True]
        assert not over(MAPPED_OTHER) and not over(V4_OTHER)


def test_the_client_network_names_an_ipv6_client_by_its_64() -> None:
    factory = RequestFactory()
    assert ratelimits.client_network(factory.get("/", REMOTE_ADDR=A1)) == "2001:db8:1:2::"
    assert ratelimits.client_network(factory.get("/", REMOTE_ADDR=A2)) == "2001:db8:1:2::"
    assert ratelimits.client_network(factory.get("/", REMOTE_ADDR=B)) == "2001:db8:1:3::"
    assert ratelimits.client_network(factory.get("/", REMOTE_ADDR=V4)) == V4
    assert ratelimits.client_network(factory.get("/", REMOTE_ADDR=MAPPED)) == V4


@pytest.mark.django_db
def test_a_chat_mute_holds_the_whole_64_through_a_new_name_cookie(make_match: Any) -> None:
    """A muted spectator who takes a new cookie and another address of the same /64 is still muted;
    a spectator of another /64 writes on."""
    match = make_match("lance-assembly")
    watch, host, troll, other = f"/w/{match.watch_token}/chat/", Client(), Client(), Client()

    def name(client: Client, who: str, address: str) -> None:
        assert client.post(f"/w/{match.watch_token}/chat/name/", {"name": who}, REMOTE_ADDR=address).status_code == 302

    name(troll, "Troll", A1)
    name(other, "Fan", B)
    assert troll.post(watch, {"room": "spectators", "text": "spam"}, REMOTE_ADDR=A1).status_code == 302
    writer = ChatMessage.objects.get(match=match, text="spam").writer
    assert host.post(f"/h/{match.host_token}/chat/mod/",
                     {"action": "mute", "writer": writer, "duration": "match", "reason": "spam"}).status_code == 302
    troll.cookies.clear()
    name(troll, "Innocent", A2)
    again = troll.post(watch, {"room": "spectators", "text": "back again"}, REMOTE_ADDR=A2)
    assert again.status_code == 400 and "muted you" in again.content.decode()
    assert other.post(watch, {"room": "spectators", "text": "hi"}, REMOTE_ADDR=B).status_code == 302
