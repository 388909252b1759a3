"""The socket's first update leaves alone what the page already shows.

A live page's socket sends the whole state when it connects, and that state
repeats the page just loaded.  It replaced every part all the same, so a click
under way as it landed was lost: its press on the old element, its release on
the new one.  CI's host clicked "Start match" at that moment and nothing
started.  Fragments are now merged into the page's (idiomorph): the page's elements stay.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, cell, wait_connected

pytestmark = pytest.mark.browser

DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}

# before any script of the page: the ids of elements taken out of the page, and whether the
# socket's first state (the message holding #live-meta) has been applied
WATCH = """
window.dmReplaced = [];
window.dmStates = 0;
new MutationObserver(function (records) {
  records.forEach(function (r) { r.removedNodes.forEach(function (n) { if (n.id) { window.dmReplaced.push(n.id); } }); });
}).observe(document, { childList: true, subtree: true });
document.addEventListener("htmx:wsAfterMessage", function (e) {
  if (String(e.detail.message).indexOf('id="live-meta"') >= 0) { window.dmStates += 1; }
});
"""


def _page(browser: Any, viewport: dict[str, int], errors: list[str]) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.add_init_script(WATCH)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def _first_state(page: Any) -> list[str]:
    wait_connected(page)
    page.wait_for_function("window.dmStates >= 1", timeout=TIMEOUT)
    return list(page.evaluate("window.dmReplaced"))


def test_the_first_update_keeps_the_page_and_a_click_on_it_counts(browser: Any, start_match: StartMatch) -> None:
    errors: list[str] = []
    match = start_match("lance-assembly", host=_page(browser, DESKTOP, errors))
    host = match.host
    replaced = _first_state(host)
    assert "host-panel" not in replaced and "board" not in replaced, replaced
    host.click("#host-start")
    host.wait_for_selector("#host-forfeit-match", timeout=TIMEOUT)  # a real change is still drawn,
    assert "host-panel" not in host.evaluate("window.dmReplaced")  # merged into the panel on the page

    seat = _page(browser, PHONE, errors)
    seat.goto(match.seats[1])
    replaced = _first_state(seat)
    assert "board" not in replaced and "status" not in replaced, replaced
    seat.click(cell("C3"))
    assert seat.input_value("#move-text") == "place C3"
    seat.click("#move-submit")
    seat.wait_for_selector(cell("C3", "R"), timeout=TIMEOUT)
    host.wait_for_selector(cell("C3", "R"), timeout=TIMEOUT)
    ARTIFACTS.mkdir(exist_ok=True)
    seat.screenshot(path=str(ARTIFACTS / "first-update-seat-phone.png"))
    assert not errors, errors
