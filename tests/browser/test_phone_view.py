"""Issue 25, defect 7, at 390x844 (a phone): Gomoku's points are tap targets of at least 32 px (the
board pans sideways), the Back to the Wall move box keeps a usable width, and the status line stays
in view while the player uses the controls under the board.
Screenshots: test-artifacts/issue25-phone-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
IN_VIEW_JS = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"""


def _seat_page(server: Server, browser: Any, slug: str) -> Any:
    host = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    host.goto(server.url + "/")
    host.select_option("#game-select", slug)
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    seat = host.input_value("#seat-link-1")
    host.click("#host-start")
    host.wait_for_selector("#board [data-coord]", timeout=TIMEOUT)
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(seat)
    wait_connected(page)
    return page


def test_phone_tap_targets_move_box_and_status_in_view(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    gomoku = _seat_page(server, browser, "gomoku")
    sizes = gomoku.evaluate("""() => [...document.querySelectorAll('#board [data-board="gomoku"][data-coord]')]
        .map(p => { const r = p.getBoundingClientRect(); return Math.min(r.width, r.height); })""")
    assert len(sizes) == 14 * 14 and min(sizes) >= 32, min(sizes)
    # a point off screen to the right is reached by panning the board, then tapped
    gomoku.locator('#board [data-board="gomoku"][data-coord="N14"]').scroll_into_view_if_needed()
    gomoku.tap('#board [data-board="gomoku"][data-coord="N14"]')
    assert gomoku.input_value("#move-text").endswith("N14")
    gomoku.screenshot(path=str(ARTIFACTS / "issue25-phone-gomoku.png"))

    wall = _seat_page(server, browser, "back-to-the-wall")
    assert wall.evaluate("document.querySelector('#move-text').getBoundingClientRect().width") >= 150
    # using the controls under the board: the status line stays on screen
    wall.locator("#seat-requests").scroll_into_view_if_needed()
    assert not wall.evaluate(IN_VIEW_JS, "#clocks")  # (scrolled well past the top of the page)
    wall.wait_for_function(IN_VIEW_JS, arg="#status", timeout=TIMEOUT)
    wall.screenshot(path=str(ARTIFACTS / "issue25-phone-wall.png"))
