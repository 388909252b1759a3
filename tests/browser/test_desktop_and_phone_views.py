"""Issue 25 page defects in a real browser (one server for both viewports).

Defect 6, at 1280x800: a refused move's message is in view when it arrives, and a seat's
turn log opens scrolled to its latest rows (not to the top of the whole match), also after the
socket's first full update.  Also (defect 10) the variant hint clear of its select, and the season
form's game select wide enough for its names.  Screenshot: test-artifacts/issue25-refused-desktop.png.

Defect 7, at 390x844 (a phone): Gomoku's points are tap targets of at least 32 px (the board pans
sideways), the Back to the Wall move box keeps a usable width, and the status line stays in view
while the player uses the controls under the board.  Screenshots: test-artifacts/issue25-phone-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, wait_connected

pytestmark = pytest.mark.browser

IN_VIEW_JS = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"""
AT_LATEST_JS = """() => { const l = document.querySelector('#log-list');
    return l.scrollHeight > l.clientHeight && l.scrollTop + l.clientHeight >= l.scrollHeight - 2; }"""


def test_refused_move_in_view_and_log_at_latest(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    match = start_match("lance-assembly")
    host, seat = match.host, match.seats[1]
    match.start()
    # a long log: the host pauses and restarts the clocks (two rows each time)
    for _ in range(8):
        host.click('button[name="action"][value="pause"]')
        host.wait_for_selector('button[name="action"][value="resume"]', timeout=TIMEOUT)
        host.click('button[name="action"][value="resume"]')
        host.wait_for_selector('button[name="action"][value="pause"]', timeout=TIMEOUT)
    ann = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    ann.goto(seat)
    wait_connected(ann)
    ann.wait_for_function(AT_LATEST_JS, timeout=TIMEOUT)
    # a refused move: its message is on screen, not below the fold
    ann.fill("#move-text", "place Z9")
    ann.click("#move-submit")
    ann.wait_for_selector("#move-error:not([hidden])", timeout=TIMEOUT)
    ann.wait_for_function(IN_VIEW_JS, arg="#move-error", timeout=TIMEOUT)
    ann.screenshot(path=str(ARTIFACTS / "issue25-refused-desktop.png"))


def test_variant_hint_clear_of_its_select_and_season_game_names_whole(server: Server, browser: Any) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(server.url + "/")
    page.select_option("#game-select", "lance-assembly")
    select = page.locator('select[name="opt-lance-assembly-variant"]').bounding_box()
    hint = page.locator("#opt-lance-assembly-variant-description").bounding_box()
    assert select and hint and hint["y"] - (select["y"] + select["height"]) >= 4
    page.goto(server.url + "/seasons/")
    page.fill("#season-name", "Winter")
    page.click("#create-season")
    page.wait_for_url("**/s/**")
    page.select_option("#match-game", "lance-assembly")
    # the chosen game's whole name fits: the select is wider than its text
    assert page.evaluate("""() => { const s = document.querySelector('#match-game');
        const probe = document.createElement('span'); probe.style.font = getComputedStyle(s).font;
        probe.textContent = s.options[s.selectedIndex].text; document.body.appendChild(probe);
        const fits = probe.getBoundingClientRect().width + 30 <= s.getBoundingClientRect().width;
        probe.remove(); return fits; }""")


PHONE = {"width": 390, "height": 844}
def _seat_page(start_match: StartMatch, browser: Any, slug: str) -> Any:
    match = start_match(slug)
    host, seat = match.host, match.seats[1]
    match.start()
    host.wait_for_selector("#board [data-coord]", timeout=TIMEOUT)
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(seat)
    wait_connected(page)
    return page


def test_phone_tap_targets_move_box_and_status_in_view(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    gomoku = _seat_page(start_match, browser, "gomoku")
    sizes = gomoku.evaluate("""() => [...document.querySelectorAll('#board [data-board="gomoku"][data-coord]')]
        .map(p => { const r = p.getBoundingClientRect(); return Math.min(r.width, r.height); })""")
    assert len(sizes) == 14 * 14 and min(sizes) >= 32, min(sizes)
    # a point off screen to the right is reached by panning the board, then tapped
    # (scrolled in the page in one step: a live swap of the board may replace the element meanwhile,
    # which a locator's scroll action reports as "not attached")
    gomoku.evaluate("""() => document.querySelector('#board [data-board="gomoku"][data-coord="N14"]')
        .scrollIntoView({block: "center", inline: "center"})""")
    gomoku.tap('#board [data-board="gomoku"][data-coord="N14"]')
    assert gomoku.input_value("#move-text").endswith("N14")
    gomoku.screenshot(path=str(ARTIFACTS / "issue25-phone-gomoku.png"))

    wall = _seat_page(start_match, browser, "back-to-the-wall")
    assert wall.evaluate("document.querySelector('#move-text').getBoundingClientRect().width") >= 150
    # using the controls under the board: the status line stays on screen
    wall.evaluate("""() => document.querySelector("#seat-requests").scrollIntoView({block: "center"})""")
    assert not wall.evaluate(IN_VIEW_JS, ".match-head")  # (scrolled well past the top of the page)
    wall.wait_for_function(IN_VIEW_JS, arg="#status", timeout=TIMEOUT)
    wall.screenshot(path=str(ARTIFACTS / "issue25-phone-wall.png"))
