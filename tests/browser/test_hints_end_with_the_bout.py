"""A finished board stops showing opening hints (issue 41): Grid Master lights the corners on the
first turn ("The first move goes on a corner."); when Ann resigns the bout by clicks on her
desktop, the hint goes from her page and from Bob's phone, live; the next bout hints again, and
when Bob resigns the match on his phone the hint goes for good.  Screenshots:
test-artifacts/hints-<when>-<device>.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
CORNER = "The first move goes on a corner."


def _hinted(page: Any) -> bool:
    page.wait_for_selector("#board .cell", state="attached", timeout=TIMEOUT)
    return bool(page.locator("#board-hint").count() or page.locator("#board .cell.hint").count())


def _hint_gone(page: Any) -> None:
    page.wait_for_selector("#board-hint", state="detached", timeout=TIMEOUT)
    assert page.locator("#board .cell.hint").count() == 0
    assert page.locator("#status.your-turn").count() == 0


def test_the_corner_hint_goes_when_the_bout_ends(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    match = start_match("grid-master", ["Ann", "Bob"], fields={'input[name="bouts"]': "3"})
    ann = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    bob = browser.new_context(**PHONE).new_page()
    for page, url in ((ann, match.seats[1]), (bob, match.seats[2])):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(url)
    wait_connected(ann, bob)
    match.start()
    pages = {"desktop": ann, "phone": bob}
    for page in pages.values():
        page.wait_for_selector(f"#board-hint >> text={CORNER}", timeout=TIMEOUT)
        assert page.locator("#board .cell.hint").count() == 4

    ann.click("#resign-bout")  # bout 1 is over, the match goes on
    for device, page in pages.items():
        page.wait_for_selector("#banner-head >> text=resigned bout 1", timeout=TIMEOUT)
        _hint_gone(page)
        page.screenshot(path=str(ARTIFACTS / f"hints-bout-over-{device}.png"))

    match.host.click("#host-next-bout")  # bout 2's first turn is hinted again
    for page in pages.values():
        page.wait_for_selector(f"#board-hint >> text={CORNER}", timeout=TIMEOUT)
        assert _hinted(page)

    bob.click("#resign-match")
    for device, page in pages.items():
        page.wait_for_function("document.querySelector('#banner-head')?.textContent.includes('the match')",
                               timeout=TIMEOUT)
        _hint_gone(page)
        page.screenshot(path=str(ARTIFACTS / f"hints-match-over-{device}.png"))
    assert not errors, errors
