"""The endpoint on a live daphne (its own process and database, its in-process Discord worker), posted
signed interactions over HTTP as Discord would: PING, `new` for 2, 4 and 16 seats, `links`, bad
input and bad signatures; every message the worker sent is read off the stand-in and classified by
who can read the links in it."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from matches.discord.hosting import ANSWERED
from tests import discordspec
from tests.browser.conftest import Server
from tests.discordserver import Delivered, FakeDiscord
from tests.matches.discord.conftest import BOT, CHANNEL, HOST, KEY, PEOPLE, Person, command, new_command, sign

#: hosts of their own for the tests that host several matches: the budget of new matches is counted per
#: Discord user a minute (10), and this module's tests share one server, so HOST alone would pass it
TESTER = Person("1500000000000000002", "tester", "Tester")
COHOST = Person("1500000000000000003", "cohost", "Co-host")
#: one client for every post (not httpx.post's client a call, which builds an SSL context each time);
#: no kept-alive connections, so a post never goes out on one to a server a test has stopped
HTTP = httpx.Client(timeout=10, limits=httpx.Limits(max_keepalive_connections=0))
LINK = re.compile(r"https?://[^\s)]+/(?P<kind>[phw])/(?P<token>[A-Za-z0-9_-]+)/")


@pytest.fixture(scope="module")
def second(live: tuple[Server, FakeDiscord]) -> Iterator[Server]:
    """Another daphne process beside the first, on the same database (as behind the proxy)."""
    server = Server(live[0].workdir)
    yield server
    server.stop()


def interact(live: tuple[Server, FakeDiscord], interaction: dict[str, Any], *,
             headers: dict[str, str] | None = None, to: Server | None = None) -> httpx.Response:
    """Post `interaction` signed (or with `headers`) to the first server (or `to`); an answer it reads
    must be one Discord takes for the interaction (tests/discordspec.py)."""
    server, fake = live
    user = (interaction.get("member") or {}).get("user") or {}
    if "token" in interaction:
        fake.interaction(interaction["token"], user.get("id", ""), interaction.get("channel_id", ""))
    body = json.dumps(interaction).encode()
    response = HTTP.post(f"{(to or server).url}/discord/interactions/", content=body,
                          headers={"Content-Type": "application/json",
                                   **(sign(KEY, body) if headers is None else headers)})
    if response.status_code == 200:
        assert discordspec.callback(interaction["type"], 200, response.json()) == []
    return response


def ephemeral(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["type"] == 4 and data["data"]["flags"] == 64
    return str(data["data"]["content"])


def links_in(text: str) -> list[tuple[str, str]]:
    return [(m.group("kind"), m.group("token")) for m in LINK.finditer(text)]


def test_ping_gets_pong_and_unsigned_posts_401(live: tuple[Server, FakeDiscord]) -> None:
    assert interact(live, {"id": "1", "type": 1}).json() == {"type": 1}
    interaction = new_command("grid-master", PEOPLE[:2])
    body = json.dumps(interaction).encode()
    for headers in ({}, sign(Ed25519PrivateKey.generate(), body), sign(KEY, body, str(int(time.time()) - 400))):
        assert interact(live, interaction, headers=headers).status_code == 401


def test_two_hundred_bad_signatures_from_one_address_all_get_401(live: tuple[Server, FakeDiscord]) -> None:
    ping = {"id": "1", "type": 1}
    body = json.dumps(ping).encode()
    forged = sign(Ed25519PrivateKey.generate(), body)
    codes = [interact(live, ping, headers=forged).status_code for _ in range(200)]
    assert codes == [401] * 200
    assert interact(live, ping).json() == {"type": 1}


@pytest.mark.parametrize(("game", "count"), [("grid-master", 2), ("back-to-the-wall", 4), ("custom", 16)])
def test_new_sends_each_link_only_to_who_may_read_it(live: tuple[Server, FakeDiscord], game: str,
                                                     count: int) -> None:
    _, fake = live
    before = len(fake.delivered())
    reply = ephemeral(interact(live, new_command(game, PEOPLE[:count])))
    (host_link,) = links_in(reply)
    assert host_link[0] == "h"
    sent = fake.wait_for(before + count + 1)[before:]
    assert len(sent) == count + 1
    assert_audiences(sent, host_token=host_link[1], players=PEOPLE[:count])


def assert_audiences(sent: list[Delivered], *, host_token: str, players: list[Person]) -> None:
    seen: Counter[str] = Counter()
    for message in sent:
        links = links_in(message.content)
        assert host_token not in message.content
        assert len(links) == 1, message
        kind = links[0][0]
        if kind == "p":  # a seat link: in its own player's DM
            assert message.kind == "dm" and message.to in {p.id for p in players}, message
            seen[message.to] += 1
        else:
            assert (kind, message.kind, message.to) == ("w", "channel", CHANNEL), message
    assert seen == Counter({p.id: 1 for p in players})  # one DM each


def test_links_brings_back_the_invokers_links(live: tuple[Server, FakeDiscord]) -> None:
    _, fake = live
    before = len(fake.delivered())
    ephemeral(interact(live, new_command("grid-master", [PEOPLE[0], PEOPLE[1]])))
    sent = fake.wait_for(before + 3)[before:]
    (dm,) = [m for m in sent if m.kind == "dm" and m.to == PEOPLE[0].id]
    reply = ephemeral(interact(live, command("links", invoker=PEOPLE[0])))
    assert links_in(dm.content)[0] in links_in(reply)
    assert {kind for kind, _ in links_in(reply)} == {"p"}
    host_links = ephemeral(interact(live, command("links", invoker=HOST)))
    assert {kind for kind, _ in links_in(host_links)} == {"h"}


def test_bad_input_gets_one_sentence_and_sends_nothing(live: tuple[Server, FakeDiscord]) -> None:
    _, fake = live
    before = len(fake.delivered())
    for interaction, sentence in [
        (new_command("chess", PEOPLE[:2], invoker=TESTER), "There is no game called 'chess'"),
        (new_command("back-to-the-wall", PEOPLE[:3], invoker=TESTER), "Back to the Wall is for 4 players, and you named 3."),
        (new_command("grid-master", [PEOPLE[0], PEOPLE[0]], invoker=TESTER), "Player 1 is named twice"),
        (new_command("grid-master", [PEOPLE[0], BOT], invoker=TESTER), "Other Bot is a bot"),
    ]:
        assert ephemeral(interact(live, interaction)).startswith(sentence)
    # the next good command's messages are the only ones after them
    ephemeral(interact(live, new_command("grid-master", PEOPLE[2:4], invoker=TESTER)))
    sent = fake.wait_for(before + 3)[before:]
    assert sorted(m.to for m in sent if m.kind == "dm") == [PEOPLE[2].id, PEOPLE[3].id]
    assert len(sent) == 3


def test_the_servers_log_holds_no_link_and_no_interaction_token(live: tuple[Server, FakeDiscord]) -> None:
    server, fake = live
    before = len(fake.delivered())
    ephemeral(interact(live, new_command("grid-master", PEOPLE[4:6])))
    assert len(fake.wait_for(before + 3)) == before + 3
    log = (server.workdir / f"daphne-{server.port}.log").read_text()
    assert "/discord/interactions/" in log  # (the access log is there)
    secrets = {token for message in fake.delivered() for _, token in links_in(message.content)}
    secrets |= {token.split(".")[0] for token in fake.interactions} | {"stand-in_interaction-token"}
    assert secrets and not [s for s in secrets if s in log]


def test_a_replayed_interaction_gets_no_link_from_either_web_process(live: tuple[Server, FakeDiscord],
                                                                    second: Server) -> None:
    """The same signed body, posted to one process and then to the other (or twice at once to both), is
    answered with its links once: the answered id is in the database both processes share."""
    server, fake = live
    before = len(fake.delivered())
    for interaction in (new_command("grid-master", PEOPLE[6:8], invoker=COHOST), command("links", invoker=PEOPLE[6])):
        body = json.dumps(interaction).encode()
        headers = sign(KEY, body)
        first = ephemeral(interact(live, interaction, headers=headers, to=server))
        assert links_in(first)
        for to in (second, server, second):
            again = ephemeral(interact(live, interaction, headers=headers, to=to))
            assert again == ANSWERED and not links_in(again)
            assert not any(token in again for _, token in links_in(first))
    together = new_command("grid-master", PEOPLE[8:10], invoker=COHOST)
    body = json.dumps(together).encode()
    headers = sign(KEY, body)
    answers: list[str] = []
    threads = [threading.Thread(target=lambda to=to: answers.append(
        ephemeral(interact(live, together, headers=headers, to=to)))) for to in (server, second) * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 4 and sum(bool(links_in(a)) for a in answers) == 1 and answers.count(ANSWERED) == 3
    sent = fake.wait_for(before + 6)[before:]  # two matches, three messages each, whichever process sent them
    assert len(sent) == 6
