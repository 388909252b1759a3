"""Hosting from Discord end to end: signed interactions posted to a live daphne (the real endpoint,
its in-process Discord worker), the messages it sends read off the stand-in Discord API, and a real
browser opening the links they carry: the host starts the match from the host link of the reply,
the player plays a move from the seat link of their DM."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.discordserver import APPLICATION, BOT_TOKEN, FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, new_command, sign

from .conftest import CHROMIUM, ROOT, TIMEOUT, Server, cell, wait_connected

pytestmark = pytest.mark.browser

KEY = Ed25519PrivateKey.generate()
LINK = re.compile(r"https?://[^\s)]+/(?P<kind>[phw])/(?P<token>[A-Za-z0-9_-]+)/")


@pytest.fixture(scope="module")
def discord() -> Iterator[FakeDiscord]:
    fake = FakeDiscord()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord) -> Iterator[Server]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian chromium is not installed")
    if not (ROOT / "static/vendor/htmx.min.js").exists():
        pytest.skip("static/vendor is not built (run .ci/install)")
    public = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with pytest.MonkeyPatch.context() as env:
        for name, value in {"DISCORD_APPLICATION_ID": APPLICATION, "DISCORD_PUBLIC_KEY": public,
                            "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_API_BASE": discord.base}.items():
            env.setenv(name, value)
        env.delenv("DEATHMATCH_PUBLIC_URL", raising=False)
        srv = Server(tmp_path_factory.mktemp("discord"))
    yield srv
    srv.stop()


def interact(server: Server, discord: FakeDiscord, interaction: dict[str, Any]) -> httpx.Response:
    discord.interaction(interaction.get("token", ""), HOST.id, interaction.get("channel_id", ""))
    body = json.dumps(interaction).encode()
    return httpx.post(f"{server.url}/discord/interactions/", content=body, timeout=10,
                      headers={**sign(KEY, body), "Content-Type": "application/json"})


def test_a_match_hosted_from_discord_is_played_from_the_links_its_messages_carry(
        bot_server: Server, discord: FakeDiscord, browser: Any) -> None:
    assert interact(bot_server, discord, {"id": "1", "type": 1}).json() == {"type": 1}
    forged = new_command("grid-master", PEOPLE[:2])
    body = json.dumps(forged).encode()
    stale = sign(KEY, body, str(int(time.time()) - 600))
    assert httpx.post(f"{bot_server.url}/discord/interactions/", content=body, headers=stale).status_code == 401

    answer = interact(bot_server, discord, new_command("grid-master", PEOPLE[:2])).json()
    assert answer["type"] == 4 and answer["data"]["flags"] == 64
    hosts = list(LINK.finditer(answer["data"]["content"]))
    assert [m.group("kind") for m in hosts] == ["h"]

    delivered = discord.wait_for(3)
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for message in delivered:
        for found in LINK.finditer(message.content):
            by_kind.setdefault(found.group("kind"), []).append((message.kind, message.to))
    assert sorted(by_kind["p"]) == sorted(("dm", p.id) for p in PEOPLE[:2])  # each seat link in its own DM
    assert by_kind["w"] == [("channel", "1000000000000000002")]  # the spectator link in the channel
    assert "h" not in by_kind  # the host link only in the reply to the host
    (ann_dm,) = [m for m in delivered if m.kind == "dm" and m.to == PEOPLE[0].id]
    seat_link = LINK.search(ann_dm.content)
    assert seat_link is not None

    host = browser.new_context().new_page()
    host.goto(hosts[0].group(0))
    ann = browser.new_context().new_page()
    ann.goto(seat_link.group(0))
    wait_connected(host, ann)
    assert "Player 1" in ann.inner_text("body")
    host.click("#host-start")
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.click('#board .cell[data-coord="A1"]')
    ann.click("#move-submit")
    for page in (ann, host):
        page.wait_for_selector(cell("A1", "X"), timeout=TIMEOUT)

