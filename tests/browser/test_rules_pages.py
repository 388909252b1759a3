"""How to play pages (issue 41 item 2) in headless Chromium, at 1280x800 and on a phone (390x844):
every registered game's /rules/<slug>/ loads its own board script and stylesheet without a script
error, also when a square of a drawing is clicked (there is no move box on the page), draws its
diagrams inside the page's width, and passes axe with no serious or critical violation.  The home
page's link follows the chosen game, and a match page's link opens its game's rules.
Screenshots: test-artifacts/rules-<slug>-<desktop|phone>.png, rules-link-player-desktop.png."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, TIMEOUT, Server, serious_axe

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: the page itself never scrolls sideways (a wide board scrolls inside its own frame)
OVERFLOW_JS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
#: every drawing has a size: the game's stylesheet reached it
DRAWN_JS = "() => [...document.querySelectorAll('.rules-board')].map(b => b.getBoundingClientRect().height)"


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_every_rules_page_draws_its_diagrams_without_errors_and_passes_axe(
        server: Server, browser: Any, viewport: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_context(viewport=VIEWPORTS[viewport]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    found: dict[str, list[str]] = {}
    page.goto(server.url + "/rules/")
    for slug in slugs():
        assert page.locator(f'a[href="/rules/{slug}/"]').count() == 1
    found["index"] = serious_axe(page)
    for slug in slugs():
        page.goto(f"{server.url}/rules/{slug}/")
        page.wait_for_load_state("load")
        assert page.locator("h1").inner_text() == f"How to play {get_game(slug).name}"
        heights = page.evaluate(DRAWN_JS)
        assert heights and all(h > 40 for h in heights), (slug, heights)
        assert page.evaluate(OVERFLOW_JS) <= 0, slug
        page.screenshot(path=str(ARTIFACTS / f"rules-{slug}-{viewport}.png"), full_page=True)
        found[slug] = serious_axe(page)
        # a square of a drawing is clicked as on a live board: the game's script composes nothing
        # (there is no move box) and throws nothing
        point = page.locator(".rules-board [data-board][data-coord]:visible").first
        if point.count():
            point.click()
    assert not errors, errors
    assert not {name: v for name, v in found.items() if v}


def test_the_home_page_and_a_match_page_link_the_game_s_rules(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_context(viewport=VIEWPORTS["desktop"]).new_page()
    page.goto(server.url + "/")
    page.select_option("#game-select", "yinsh")
    link = page.locator("#game-rules")
    assert link.inner_text() == "How to play Yinsh"
    assert link.get_attribute("href") == "/rules/yinsh/"
    page.select_option("#game-select", "lance-assembly")
    assert link.get_attribute("href") == "/rules/lance-assembly/"
    link.click()
    page.wait_for_url("**/rules/lance-assembly/")
    page.go_back()
    page.select_option("#game-select", "grid-master")
    page.click("button[type=submit]")
    page.wait_for_url("**/h/**")
    seat = page.input_value("#seat-link-1")
    page.goto(seat)
    page.screenshot(path=str(ARTIFACTS / "rules-link-player-desktop.png"))
    with page.context.expect_page() as opened:  # the rules open beside the match, which stays live
        page.click("#rules-link")
    rules = opened.value
    rules.wait_for_load_state("load")
    assert rules.url == server.url + "/rules/grid-master/"
    assert rules.locator("#notation").is_visible(timeout=TIMEOUT)
