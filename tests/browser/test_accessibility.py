"""axe-core (from the npm registry, static/vendor/axe.min.js) in headless Chromium over the pages
that are not a game's: the home page (also with the per-seat garnets and the board editor a game
adds to its form, and on a phone), a match's host page once the match is over, its bout replay,
and the season pages.  No serious or critical violation is allowed.  Every registered game's host,
player and spectator pages are checked the same way on the match test_every_game_page.py plays."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, serious_axe

pytestmark = pytest.mark.browser


def test_every_page_passes_axe(server: Server, browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    found: dict[str, list[str]] = {}
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(server.url + "/")
    found["home"] = serious_axe(page)
    for slug in ("bidding-ttt", "back-to-the-wall"):  # per-seat garnets, the board editor
        page.select_option("#game-select", slug)
        if slug == "back-to-the-wall":
            page.wait_for_selector('fieldset[data-editor="thrice"] .pcell.corner', timeout=TIMEOUT)
        found[f"home with {slug}"] = serious_axe(page)

    # a match the host ends: the host's page after it, and its bout replay
    match = start_match("grid-master", host=page)
    match.start()
    page.wait_for_selector("#board .cell", timeout=TIMEOUT)
    host = page.url
    page.select_option('form:has(input[value="award"]) select[name="seat"]', "1")
    page.once("dialog", lambda dialog: dialog.accept())  # it names its consequence (issue 25)
    page.click('form:has(input[value="award"]) button[type=submit]')
    page.wait_for_selector("#banner.banner-match", timeout=TIMEOUT)
    found["host after the match"] = serious_axe(page)
    assert page.goto(host.rstrip("/") + "/bouts/1/").status == 200
    found["bout replay"] = serious_axe(page)

    page.goto(server.url + "/seasons/")
    found["season list"] = serious_axe(page)
    page.fill('input[name="name"]', "Axe Season")
    page.locator('form:has(input[name="name"]) button[type=submit]').first.click()
    page.wait_for_url("**/s/**")
    found["season manage"] = serious_axe(page)
    # its public page by the manage page's link (the list shows only seasons with a match)
    page.goto(page.input_value("#public-link"))
    found["season page"] = serious_axe(page)

    # the phone layout (one column) of the home page
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    phone.goto(server.url + "/")
    found["home on a phone"] = serious_axe(phone)
    assert not {name: lines for name, lines in found.items() if lines}
