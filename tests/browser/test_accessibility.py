"""axe-core (from the npm registry, static/vendor/axe.min.js) over every page
in headless Chromium: the home page, the host (before and after the start),
player and spectator pages of every registered game, a bout replay, and the
season pages.  No serious or critical violation is allowed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, ROOT, TIMEOUT, Server, StartMatch

pytestmark = pytest.mark.browser

AXE = ROOT / "static/vendor/axe.min.js"
BAD = ("serious", "critical")
#: Known violations still to fix (page name prefix, axe rule), listed apart
#: in the output; none today.  Anything else fails the test.
REPORTED: set[tuple[str, str]] = set()


def _axe(page: Any, name: str, found: dict[str, list[str]], reported: dict[str, list[str]] | None = None) -> None:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    for v in result:
        if v["impact"] not in BAD:
            continue
        line = f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:4]]}"
        known = any(name.startswith(prefix) and v["id"] == rule for prefix, rule in REPORTED)
        (reported if known and reported is not None else found).setdefault(name, []).append(line)
    CHECKED.append(name)


CHECKED: list[str] = []


def test_every_page_passes_axe(server: Server, browser: Any, start_match: StartMatch) -> None:
    if not AXE.exists():
        pytest.skip("static/vendor/axe.min.js is not built (run .ci/install)")
    ARTIFACTS.mkdir(exist_ok=True)
    found: dict[str, list[str]] = {}
    reported: dict[str, list[str]] = {}
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(server.url + "/")
    _axe(page, "home", found, reported)
    for slug in ("bidding-ttt", "back-to-the-wall"):  # per-seat garnets, the board editor
        page.select_option("#game-select", slug)
        if slug == "back-to-the-wall":
            page.wait_for_selector('fieldset[data-editor="thrice"] .pcell.corner', timeout=TIMEOUT)
        _axe(page, f"home with {slug}", found, reported)

    replay = ""
    phone_pages: list[tuple[str, str]] = []
    for slug in slugs():
        try:
            game = get_game(slug)
        except Exception:
            continue
        match = start_match(slug, host=page)
        if slug in ("lance-assembly", "back-to-the-wall"):  # one setup page per seat count (the rest is shared)
            _axe(page, f"{slug} host before the start", found, reported)
        seat, watch = match.seats[1], match.watch
        match.start()
        page.wait_for_selector("#board .cell, #board [data-coord], #board .facts", timeout=TIMEOUT)
        _axe(page, f"{slug} host", found, reported)
        if slug == "grid-master":
            host = page.url
            page.select_option('form:has(input[value="award"]) select[name="seat"]', "1")
            page.once("dialog", lambda dialog: dialog.accept())  # it names its consequence (issue 25)
            page.click('form:has(input[value="award"]) button[type=submit]')
            page.wait_for_selector("#banner.banner-match", timeout=TIMEOUT)
            _axe(page, f"{slug} host after the match", found, reported)
            replay = host.rstrip("/") + "/bouts/1/"
        if slug in ("lance-assembly", "two-connect", "back-to-the-wall"):
            phone_pages += [(f"{slug} player", seat), (f"{slug} spectator", watch)]
        for name, url in (("player", seat), ("spectator", watch)):
            page.goto(url)
            page.wait_for_selector("#board", timeout=TIMEOUT)
            _axe(page, f"{slug} {name} ({game.seats} seats)", found, reported)

    if replay:
        response = page.goto(replay)
        if response is not None and response.status == 200:
            _axe(page, "bout replay", found, reported)

    response = page.goto(server.url + "/seasons/")
    if response is not None and response.status == 200:
        _axe(page, "season list", found, reported)
        if page.locator('input[name="name"]').count():
            page.fill('input[name="name"]', "Axe Season")
            page.locator('form:has(input[name="name"]) button[type=submit]').first.click()
            page.wait_for_url("**/s/**")
            _axe(page, "season manage", found, reported)
            # its public page by the manage page's link (the list shows only seasons with a match)
            page.goto(page.input_value("#public-link"))
            _axe(page, "season page", found, reported)

    # the phone layout (one column, the move bar at the bottom) of the home page and a few games
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    for name, url in [("home", server.url + "/"), *phone_pages]:
        phone.goto(url)
        _axe(phone, f"{name} on a phone", found, reported)

    (ARTIFACTS / "axe.json").write_text(json.dumps({"checked": CHECKED, "failed": found, "reported": reported},
                                                   indent=2))
    print("axe: pages checked:", len(CHECKED), "reported to other helpers:", sorted(reported))
    assert not found, json.dumps(found, indent=2)
