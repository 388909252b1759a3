"""A click on a square the rules rule out says why and composes nothing (issue 56), on a
desktop and a phone: Grid Master's first move off a corner, Lance Assembly's neutral tile on a
tile and a second slide, a Back to the Wall wall on a corner.  The sentences are the server's
(the game's view says what may be clicked); screenshots go to test-artifacts/click-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

DEVICES: dict[str, dict[str, Any]] = {"desktop": {"viewport": {"width": 1280, "height": 800}},
           "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}


def _seat(browser: Any, url: str, device: str) -> Any:
    page = browser.new_context(**DEVICES[device]).new_page()
    page.goto(url)
    return page


def _start(match: Any, *pages: Any) -> None:
    wait_connected(match.host, *pages)
    match.host.click("#host-start")


def _seen(page: Any, selector: str) -> None:
    """The sentence is on screen, and nothing (a phone's fixed Play bar) covers it."""
    page.wait_for_function("""(sel) => {
      const el = document.querySelector(sel), all = el && el.getBoundingClientRect(), r = el && el.getClientRects()[0];
      // (a pixel either way: scrolled into view to a fraction of one)
      if (!r || !all.height || all.top < -1 || all.bottom > innerHeight + 1) return false;
      const hit = document.elementFromPoint(r.left + Math.min(r.width, 40) / 2, r.top + r.height / 2);
      return !!hit && el.contains(hit);
    }""", arg=selector, timeout=TIMEOUT)


def _cell(coord: str) -> str:
    return f'#board .cell[data-coord="{coord}"]'


@pytest.mark.parametrize("device", DEVICES)
def test_grid_master_first_click_off_a_corner_is_refused_with_the_rule(
        browser: Any, start_match: StartMatch, device: str) -> None:
    match = start_match("grid-master", ["Xena", "Otto"])
    x = _seat(browser, match.seats[1], device)
    _start(match, x)
    x.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    x.click(_cell("B2"))
    assert x.inner_text("#run-sel") == "B2 is not a corner: the first move goes on a corner."
    _seen(x, "#run-sel")
    assert x.input_value("#move-text") == ""
    assert x.locator(_cell("B2")).get_attribute("class").split().count("ghost") == 0
    x.screenshot(path=str(ARTIFACTS / f"click-grid-master-{device}.png"), full_page=False)
    # a corner is taken, and the sentence goes
    x.click(_cell("A1"))
    assert x.input_value("#move-text") == "place A1"
    assert x.inner_text("#run-sel") == ""
    x.click("#move-submit")
    o = _seat(browser, match.seats[2], device)
    o.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    o.click(_cell("A1"))
    assert o.inner_text("#run-sel").startswith("A1 holds X, the other player's symbol")
    assert o.input_value("#move-text") == ""


@pytest.mark.parametrize("device", DEVICES)
def test_lance_clicks_the_rules_rule_out_are_said_not_composed(
        browser: Any, start_match: StartMatch, device: str) -> None:
    match = start_match("lance-assembly", ["Red", "Blue"])
    red, blue = _seat(browser, match.seats[1], "desktop"), _seat(browser, match.seats[2], device)
    _start(match, red, blue)
    red.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    red.click(_cell("C3"))
    red.click("#move-submit")
    blue.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    blue.wait_for_selector('#board .cell[data-coord="C3"][data-value="R"]', timeout=TIMEOUT)
    # the neutral tile on a tile
    blue.check("#neutral-toggle")
    blue.click(_cell("C3"))
    assert blue.inner_text("#run-sel") == "C3 is not empty: the neutral tile goes on an empty square."
    assert blue.input_value("#move-text") == ""
    blue.uncheck("#neutral-toggle")
    # a placement and a slide, then a second run to slide
    blue.click(_cell("D4"))
    blue.click(_cell("C3"))
    blue.click(_cell("C3"))
    blue.click('#lance-controls button.dir[data-dir="up"]')
    assert blue.input_value("#move-text") == "place D4; slide C3 up 1"
    blue.click(_cell("D4"))
    assert blue.inner_text("#run-sel") == \
        "You may make at most one slide per turn: this turn slides already (Clear starts it again)."
    assert blue.input_value("#move-text") == "place D4; slide C3 up 1"
    _seen(blue, "#run-sel")
    blue.screenshot(path=str(ARTIFACTS / f"click-lance-{device}.png"), full_page=False)
    blue.click("#move-submit")
    red.wait_for_selector('#board .cell[data-coord="C2"][data-value="R"]', timeout=TIMEOUT)


@pytest.mark.parametrize("device", DEVICES)
def test_back_to_the_wall_wall_on_a_corner_is_said_not_composed(
        browser: Any, start_match: StartMatch, device: str) -> None:
    match = start_match("back-to-the-wall", ["Ann", "Bob", "Cy", "Di"])
    ann = _seat(browser, match.seats[1], device)
    _start(match, ann)
    ann.wait_for_selector("#bttw.building", timeout=TIMEOUT)
    if device == "phone":
        ann.click("#bttw-tab-once")
    ann.click('#bttw .sq[data-board="once"][data-coord="A1"]')
    ann.wait_for_selector("text=No wall on A1: it is a corner, so a wall there is dropped", timeout=TIMEOUT)
    assert "wall A1" not in ann.input_value("#move-text")
    _seen(ann, '.bttw-build[data-for="once"] .bttw-flags')
    ann.screenshot(path=str(ARTIFACTS / f"click-bttw-{device}.png"), full_page=False)
    ann.click('#bttw .sq[data-board="once"][data-coord="C1"]')
    assert "once wall C1" in ann.input_value("#move-text")
