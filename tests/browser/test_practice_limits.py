"""One browser may have 3 practice matches running (issue 51): by clicks on the home page's "Play
the computer", three matches start; the fourth click lands on the practice form again with one
sentence naming the three, each a link to the player's own seat, which opens it.  Desktop (1280x800)
and phone (390x844), each its own browser.  Screenshots: test-artifacts/practice-limit-*.png."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected

pytestmark = pytest.mark.browser

VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


def _start(page: Any, server: Server) -> None:
    page.goto(server.url + "/")
    page.select_option("#practice-game", "squava")
    page.select_option("#practice-strength", "easy")
    page.click("#practice-start")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_fourth_practice_match_is_refused_with_links_to_the_three(server: Server, browser: Any,
                                                                      device: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(**VIEWPORTS[device])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    seats = []
    for _ in range(3):
        _start(page, server)
        page.wait_for_url("**/p/*/", timeout=TIMEOUT)
        wait_connected(page)
        seats.append(urlparse(page.url).path)
    _start(page, server)
    page.wait_for_selector("#practice-error", timeout=TIMEOUT)
    sentence = page.inner_text("#practice-error")
    assert sentence.startswith("You have 3 practice matches running already (Squava #")
    assert sentence.endswith("finish or resign one before you start another.")
    links = page.locator("#practice-error a")
    assert [links.nth(n).get_attribute("href") for n in range(links.count())] == seats
    assert page.is_visible("#practice-start")  # the form is there to try again, as it was posted
    assert (page.input_value("#practice-game"), page.input_value("#practice-strength")) == ("squava", "easy")
    page.screenshot(path=str(ARTIFACTS / f"practice-limit-{device}.png"), full_page=True)
    links.nth(1).click()
    page.wait_for_url(f"**{seats[1]}", timeout=TIMEOUT)
    wait_connected(page)
    assert "Opponent (computer, easy)" in page.inner_text("body")
    context.close()
    assert not errors, errors
