"""An episode's choices by clicks in headless Chromium against a real daphne (issue 52): the
season and its Host's game main match (8 players, ended with a ranking naming Ann's Token of
Life and Hal's candidacy) are set up through the services in the server's own database; then
Hal chooses an opponent on his personal page, Hal and Gus ban in turn on theirs (each page
follows the other's clicks by itself: the personal page's poll), the death match appears with
each one's seat link, and Gus, holding the advantage, chooses who starts.  Once with the
candidate on a phone and the opponent on a desktop, once the other way round.  Screenshots go to
test-artifacts/."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from .conftest import ARTIFACTS, ROOT, TIMEOUT, Server, axe_violations

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Finn", "Gus", "Hal"]

SETUP = """
import json
from matches.play import season_matches, services
from matches.seasons import episodes, ledger
season = ledger.create_season({name!r}, base_url={base!r})
players = [ledger.add_player(season, n) for n in {names!r}]
episodes.set_pool(season, ["lance-assembly", "grid-master", "squava", "gomoku"])
match = season_matches.create_season_match(season, "custom", players)
services.start_match(match)
match.refresh_from_db()
services.host_apply(match, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8", match.current_bout.version)
print(json.dumps({{"manage": season.manage_token, "slug": season.slug,
                  "me": {{p.name: p.personal_token for p in season.players.all()}}}}))
"""


def _setup(server: Server, name: str) -> dict[str, Any]:
    code = SETUP.format(name=name, base=server.url, names=NAMES)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=server.env,
                         capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def _click(page: Any, button: str) -> str:
    with page.expect_navigation():
        page.click(button)
    text: str = page.inner_text("#season-messages")
    return text


@pytest.mark.parametrize("candidate_on", ["phone", "desktop"])
def test_the_candidate_chooses_and_the_pair_ban_by_clicks(server: Server, browser: Any, candidate_on: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    made = _setup(server, f"Genius {candidate_on}")
    errors: list[str] = []

    def page_for(device: str) -> Any:
        page = browser.new_context(**(PHONE if device == "phone" else DESKTOP)).new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        return page

    other_on = "desktop" if candidate_on == "phone" else "phone"
    hal, gus = page_for(candidate_on), page_for(other_on)
    hal.goto(f"{server.url}/me/{made['me']['Hal']}/")
    gus.goto(f"{server.url}/me/{made['me']['Gus']}/")
    # Hal chooses from the eligible players only: not Ann (immune), not himself
    options = hal.eval_on_selector_all("#choose-opponent select[name=opponent] option", "els => els.map(e => e.value)")
    assert options == ["Bob", "Cy", "Di", "Eve", "Finn", "Gus"]
    assert gus.locator("#choose-opponent").count() == 0
    hal.screenshot(path=str(ARTIFACTS / f"episode-pick-{candidate_on}.png"), full_page=True)
    assert axe_violations(hal) == []
    hal.select_option("#choose-opponent select[name=opponent]", "Gus")
    assert "You chose Gus." in _click(hal, "#choose-opponent button[type=submit]")

    # Hal bans first; Gus's page follows by itself and shows whose turn it is
    hal.wait_for_selector("#death-match-choice button[value=ban]:enabled", timeout=TIMEOUT)
    gus.wait_for_selector("#death-match-choice button[value=ban]:disabled", timeout=TIMEOUT)
    assert "Waiting for Hal to ban or agree." in gus.inner_text("#choices")
    gus.screenshot(path=str(ARTIFACTS / f"episode-bans-waiting-{other_on}.png"), full_page=True)
    assert axe_violations(gus) == []
    host = page_for(candidate_on)
    host.goto(f"{server.url}/s/{made['manage']}/")
    assert "Hal vs Gus: waiting for Hal to ban or agree" in host.inner_text("#episode-waiting")
    host.locator("#episode").screenshot(path=str(ARTIFACTS / f"episode-manage-bans-{candidate_on}.png"))
    hal.select_option("#death-match-choice select[name=game]", "gomoku")
    _click(hal, "#death-match-choice button[value=ban]")
    assert hal.locator("#death-match-choice button[value=ban]:disabled").count() == 1
    gus.wait_for_selector("#death-match-choice button[value=ban]:enabled", timeout=TIMEOUT)
    assert gus.eval_on_selector_all("#death-match-choice select[name=game] option", "els => els.map(e => e.value)") == [
        "lance-assembly", "grid-master", "squava"]
    gus.screenshot(path=str(ARTIFACTS / f"episode-bans-turn-{other_on}.png"), full_page=True)
    gus.select_option("#death-match-choice select[name=game]", "lance-assembly")
    _click(gus, "#death-match-choice button[value=ban]")
    hal.wait_for_selector("#death-match-choice button[value=ban]:enabled", timeout=TIMEOUT)
    hal.screenshot(path=str(ARTIFACTS / f"episode-bans-turn-{candidate_on}.png"), full_page=True)
    hal.select_option("#death-match-choice select[name=game]", "grid-master")
    assert "The death match is Squava." in _click(hal, "#death-match-choice button[value=ban]")

    # the death match: each one's own seat link; Gus (the advantage) chooses who starts
    assert "/p/" in (hal.get_attribute("a[data-seat-link]", "href") or "")
    gus.wait_for_selector("#choose-starter", timeout=TIMEOUT)
    gus_seat = gus.get_attribute("a[data-seat-link]", "href")
    assert gus_seat and gus_seat != hal.get_attribute("a[data-seat-link]", "href")
    gus.screenshot(path=str(ARTIFACTS / f"episode-starter-{other_on}.png"), full_page=True)
    gus.select_option("#choose-starter select[name=starter]", "Hal")
    assert "the death match is ready" in _click(gus, "#choose-starter button[type=submit]")
    with gus.expect_navigation():
        gus.click("a[data-seat-link]")
    assert gus.locator("#board").count() == 1

    # the host's manage page and the public recap tell it
    host.goto(f"{server.url}/s/{made['manage']}/")
    assert "Gus starts" not in host.inner_text("#episode")  # Hal starts
    assert "Hal starts" in host.inner_text("#episode") and "the death match is being played" in host.inner_text("#episode")
    host.locator("#episode").screenshot(path=str(ARTIFACTS / f"episode-manage-{candidate_on}.png"))
    assert axe_violations(host) == []
    public = page_for(candidate_on)
    public.goto(f"{server.url}/seasons/{made['slug']}/")
    told = public.inner_text("#episodes")
    for line in ("Hal chose Gus.", "Hal bans Gomoku", "Gus bans Lance Assembly", "Hal bans Grid Master",
                 "Death match: Squava"):
        assert line in told, line
    public.screenshot(path=str(ARTIFACTS / f"episode-public-{candidate_on}.png"), full_page=True)
    assert errors == []
