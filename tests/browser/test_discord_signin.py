"""Sign in with Discord in a real browser, on a desktop and a phone: a season and its match made from
Discord (signed interactions posted to a live daphne), then a player who was sent nothing clicks the
header's "Sign in with Discord", passes through the stand-in Discord's authorize page and back, opens
My matches from the header and finds their season, their personal page and their seat page, which
opens their seat.  Signing out takes the header back to the sign-in link."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.discordserver import APPLICATION, BOT_TOKEN, CLIENT_SECRET, FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, command, new_command, sign

from .conftest import ARTIFACTS, TIMEOUT, Server, skip_without_browser

pytestmark = pytest.mark.browser

KEY = Ed25519PrivateKey.generate()
ANN, BOB, CID = PEOPLE[0], PEOPLE[1], PEOPLE[2]


@pytest.fixture(scope="module")
def discord() -> Iterator[FakeDiscord]:
    fake = FakeDiscord()
    yield fake
    fake.close()
    assert fake.violations == [], "requests Discord would not take"


@pytest.fixture(scope="module")
def signin_server(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord) -> Iterator[Server]:
    skip_without_browser()
    public = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with pytest.MonkeyPatch.context() as env:
        for name, value in {"DISCORD_APPLICATION_ID": APPLICATION, "DISCORD_PUBLIC_KEY": public,
                            "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_CLIENT_SECRET": CLIENT_SECRET,
                            "DISCORD_API_BASE": discord.base}.items():
            env.setenv(name, value)
        env.delenv("DEATHMATCH_PUBLIC_URL", raising=False)
        srv = Server(tmp_path_factory.mktemp("signin"))
    yield srv
    srv.stop()


def interact(server: Server, discord: FakeDiscord, interaction: dict[str, Any]) -> dict[str, Any]:
    discord.interaction(interaction["token"], HOST.id, interaction["channel_id"])
    body = json.dumps(interaction).encode()
    answer = httpx.post(f"{server.url}/discord/interactions/", content=body, timeout=10,
                        headers={**sign(KEY, body), "Content-Type": "application/json"})
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


@pytest.fixture(scope="module")
def season(signin_server: Server, discord: FakeDiscord) -> str:
    """Genius, opened from the channel, Ann and Bob on its roster and a match of theirs in it; and a
    match of Bob and Cid outside it, which is not Ann's."""
    interact(signin_server, discord, command("season new", [{"type": 3, "name": "name", "value": "Genius"}]))
    interact(signin_server, discord, command("season add", [{"type": 6, "name": f"player{n}", "value": p.id}
                                                            for n, p in enumerate((ANN, BOB), start=1)],
                                             people=[ANN, BOB]))
    interact(signin_server, discord, new_command("grid-master", [ANN, BOB],
                                                 extra=[{"type": 3, "name": "season", "value": "Genius"}]))
    interact(signin_server, discord, new_command("grid-master", [BOB, CID]))
    return "Genius"


@pytest.mark.parametrize("name,width,height,mobile", [("desktop", 1280, 800, False), ("phone", 390, 844, True)])
def test_a_player_signs_in_with_discord_and_finds_their_season_and_match(
        signin_server: Server, discord: FakeDiscord, season: str, browser: Any,
        name: str, width: int, height: int, mobile: bool) -> None:
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile)
    page = context.new_page()
    page.goto(f"{signin_server.url}/seasons/")
    login = page.locator("a[data-discord-login]")
    assert login.is_visible()
    discord.deny()  # first she cancels at Discord's page
    login.click()
    page.wait_for_selector("#signin-note", timeout=TIMEOUT)
    assert page.url == f"{signin_server.url}/seasons/"
    assert "Discord sign-in was cancelled" in page.locator("#signin-note").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"discord-signin-cancelled-{name}.png"))

    discord.sign_in_as(ANN.user())
    with page.expect_request(lambda r: r.url.startswith(f"{discord.origin}/oauth2/authorize?")) as to_discord:
        login.click()
    assert f"client_id={APPLICATION}" in to_discord.value.url and "scope=identify" in to_discord.value.url
    page.wait_for_url(f"{signin_server.url}/seasons/", timeout=TIMEOUT)  # back where it started
    signed = page.locator("[data-signed-in]")
    assert signed.inner_text() == "Player 1"
    assert page.locator("a[data-discord-login]").count() == 0 and page.locator("#signin-note").count() == 0

    page.locator("a[data-my-matches]").click()
    page.wait_for_selector("#mine-running", timeout=TIMEOUT)
    seasons, running = page.locator("#mine-seasons").inner_text(), page.locator("#mine-running").inner_text()
    assert season in seasons and "your personal page" in seasons
    assert "Grid Master" in running and season in running
    assert page.locator("#mine-running li").count() == 1  # Bob and Cid's match is not hers
    for part in ("#mine", ".topbar"):
        box = page.locator(part).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    page.screenshot(path=str(ARTIFACTS / f"discord-signin-mine-{name}.png"), full_page=True)

    page.locator("#mine-running a[data-seat]").click()
    page.wait_for_selector("#board", timeout=TIMEOUT)
    assert "/p/" in page.url and "Player 1" in page.inner_text("body")
    page.goto(f"{signin_server.url}/")
    page.locator("[data-sign-out]").click()
    page.wait_for_selector("a[data-discord-login]", timeout=TIMEOUT)
    page.goto(f"{signin_server.url}/mine/")
    assert page.locator("#mine-running").count() == 0 and page.locator("[data-discord-login-page]").count() == 1
    page.screenshot(path=str(ARTIFACTS / f"discord-signin-signed-out-{name}.png"))
    page.goto(f"{signin_server.url}/accounts/login/")  # allauth's own sign-in page, in the site's layout
    assert page.locator("a[href*='/accounts/discord/login/']").count() >= 1
    page.screenshot(path=str(ARTIFACTS / f"discord-signin-allauth-login-{name}.png"))
    context.close()
