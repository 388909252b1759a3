"""Hosting from Discord end to end: signed interactions posted to a live daphne (the real endpoint,
its in-process Discord worker), the messages it sends read off the stand-in Discord API, and a real
browser opening the links they carry: the host starts the match from the host link of the reply,
the player plays a move from the seat link of their DM."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from matches.discord.hosting import TOKEN_REFUSED
from tests.discordserver import APPLICATION, BOT_TOKEN, FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, new_command, sign

from .conftest import ARTIFACTS, TIMEOUT, Server, cell, skip_without_browser, wait_connected

pytestmark = pytest.mark.browser

KEY = Ed25519PrivateKey.generate()
LINK = re.compile(r"https?://[^\s)]+/(?P<kind>[phw])/(?P<token>[A-Za-z0-9_-]+)/")


@pytest.fixture(scope="module")
def discord() -> Iterator[FakeDiscord]:
    fake = FakeDiscord()
    yield fake
    fake.close()


def bot(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord, token: str) -> Server:
    skip_without_browser()
    public = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with pytest.MonkeyPatch.context() as env:
        for name, value in {"DISCORD_APPLICATION_ID": APPLICATION, "DISCORD_PUBLIC_KEY": public,
                            "DISCORD_BOT_TOKEN": token, "DISCORD_API_BASE": discord.base}.items():
            env.setenv(name, value)
        env.delenv("DEATHMATCH_PUBLIC_URL", raising=False)
        return Server(tmp_path_factory.mktemp("discord"))


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord) -> Iterator[Server]:
    srv = bot(tmp_path_factory, discord, BOT_TOKEN)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def refused_server(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord) -> Iterator[Server]:
    """A server whose bot token Discord refuses (reset in the Developer Portal, say)."""
    srv = bot(tmp_path_factory, discord, "revoked-token")
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



def test_a_refused_bot_token_is_shown_on_the_host_dashboard_and_used_no_more(
        refused_server: Server, discord: FakeDiscord, browser: Any) -> None:
    def refused_calls() -> int:
        return len([c for c in discord.calls if c.authorization == "Bot revoked-token"])

    first = new_command("grid-master", PEOPLE[4:6])
    answer_token = first["token"]
    answer = interact(refused_server, discord, first).json()
    (host_link,) = LINK.finditer(answer["data"]["content"])
    with discord.changed:  # the worker's first DM meets Discord's 401
        assert discord.changed.wait_for(lambda: refused_calls() == 1, TIMEOUT / 1000)
    deadline = time.monotonic() + TIMEOUT / 1000
    while "discord-token-refused" not in httpx.get(host_link.group(0)).text:  # (recorded after the answer)
        assert time.monotonic() < deadline, "the dashboard never said the token is refused"
    def followups() -> int:
        return len([c for c in discord.calls if c.route == "followup" and c.status < 300])

    with discord.changed:  # the first command's channel post is out
        assert discord.changed.wait_for(lambda: any(c.route == "followup" and c.path.endswith(
            answer_token) for c in discord.calls), TIMEOUT / 1000)
        before = followups()
    second = interact(refused_server, discord, new_command("grid-master", PEOPLE[6:8])).json()
    assert TOKEN_REFUSED in second["data"]["content"]
    with discord.changed:  # the second command's channel post went out (a follow-up needs no bot token)...
        assert discord.changed.wait_for(lambda: followups() > before, TIMEOUT / 1000)
    assert refused_calls() == 1  # ... and its DMs were not even tried with the refused token

    ARTIFACTS.mkdir(exist_ok=True)
    for name, width, height, mobile in (("desktop", 1280, 800, False), ("phone", 390, 844, True)):
        page = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile,
                                   has_touch=mobile).new_page()
        page.goto(host_link.group(0))
        wait_connected(page)
        notice = page.locator("#discord-token-refused")
        notice.scroll_into_view_if_needed()
        assert notice.is_visible() and "Discord refuses the bot's token" in notice.inner_text()
        assert "revoked-token" not in page.content()
        box = notice.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        page.locator("#discord-status").screenshot(path=str(ARTIFACTS / f"discord-token-refused-{name}.png"))
        page.context.close()
