"""Move sounds are offered at the first visit, not folded away in Alerts (issue 41): a seat's first
match page in a browser shows the offer (a labelled region with two buttons); either answer hides
it, is saved in localStorage as the Alerts box's choice and is not asked again, on that match or
another.  Ann takes the sounds on her desktop and hears her turn come back; Bob declines on his
phone and hears nothing.  Spectators are offered nothing.  The tones are counted by wrapping the
page's AudioContext (test side).  Screenshots: test-artifacts/sound-offer-<device>.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: every tone the page starts is counted in window.tones
COUNT_TONES = """window.tones = 0;
if (window.AudioContext) {
  const Real = window.AudioContext;
  window.AudioContext = class extends Real { createOscillator() { window.tones++; return super.createOscillator(); } };
}"""


def _page(browser: Any, screen: dict[str, Any], errors: list[str]) -> Any:
    page = browser.new_context(**screen).new_page()
    page.add_init_script(COUNT_TONES)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def _offered(page: Any) -> bool:
    wait_connected(page)
    return bool(page.locator("#sound-offer").is_visible())


def test_sounds_are_offered_once_at_the_first_visit(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    match = start_match("grid-master", ["Ann", "Bob"])
    ann, bob = _page(browser, DESKTOP, errors), _page(browser, PHONE, errors)
    for device, page, url in (("desktop", ann, match.seats[1]), ("phone", bob, match.seats[2])):
        page.goto(url)
        assert _offered(page)
        offer = page.get_by_role("region", name="Play a sound on your turn?")
        assert offer.is_visible() and "10 s left" in offer.inner_text()
        if device == "phone":  # issue 56: a small bar under the board and its move box, the board first
            assert page.evaluate("document.querySelector('#board').compareDocumentPosition(document.querySelector('#sound-offer'))") & 4
            assert offer.bounding_box()["y"] > page.locator("#board").bounding_box()["y"]
            offer.scroll_into_view_if_needed()
        box = offer.bounding_box()  # seen without scrolling beside the board on a desktop; under it on a phone
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]
        assert not page.is_checked('input[data-alert="sound"]')  # nothing chosen yet: off
        page.screenshot(path=str(ARTIFACTS / f"sound-offer-{device}.png"))

    ann.click("#sound-offer-on")
    bob.get_by_role("button", name="No thanks").click()
    for page, on in ((ann, True), (bob, False)):
        page.wait_for_selector("#sound-offer", state="hidden", timeout=TIMEOUT)
        assert page.evaluate("localStorage.getItem('dm-alert-sound')") == ("1" if on else "0")
        assert page.is_checked('input[data-alert="sound"]') is on
        page.wait_for_function("document.getElementById('announce').textContent.includes('under Alerts')",
                               timeout=TIMEOUT)
    assert ann.evaluate("window.tones") == 1 and bob.evaluate("window.tones") == 0  # "on" plays a sample

    # asked once: not on a reload, nor on another match's page in the same browser
    for page in (ann, bob):
        page.reload()
        assert not _offered(page)
    other = start_match("lance-assembly")
    ann.goto(other.seats[1])
    assert not _offered(ann)
    ann.goto(match.seats[1])
    wait_connected(ann)

    # the sound is heard: Ann's turn comes back after Bob's move; Bob declined and hears nothing
    match.start()
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.wait_for_function("window.tones === 1", timeout=TIMEOUT)  # the match started: Ann's turn
    ann.fill("#move-text", "place A1")
    ann.click("#move-submit")
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    bob.fill("#move-text", "place B2")
    bob.click("#move-submit")
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.wait_for_function("window.tones === 2", timeout=TIMEOUT)  # and again after Bob's move
    assert bob.evaluate("window.tones") == 0

    # spectators are offered nothing (they have no turn)
    spectator = _page(browser, PHONE, errors)
    spectator.goto(match.watch)
    wait_connected(spectator)
    assert spectator.locator("#sound-offer").count() == 0
    assert not errors, errors
