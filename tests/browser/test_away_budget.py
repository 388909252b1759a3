"""Issue 37, item 2, in a real browser: the host sets the clocks to pause after 1 s away, for 4 s
a bout at most; Ann's page closes on her move; the host's presence box counts her away time down
while the in-process sweeper holds the clocks, then the clocks run again when it is used, though
Ann is still away.  Screenshot in test-artifacts/ (away-budget-host.png)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected

pytestmark = pytest.mark.browser

#: Ann's away time left in the host's presence box
LEFT = '#presence li:has-text("Ann (seat 1)") .away-left'


def test_the_host_sees_a_seats_away_time_run_down_and_the_clocks_run_again_when_it_is_used(
        server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(server.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.fill('input[name="seat1"]', "Ann")
    host.fill('input[name="seat2"]', "Bob")
    host.fill("#away_budget", "4")  # with no pause for a seat away: refused, with a clear message
    host.click("button[type=submit]")
    host.wait_for_selector("#form-error", timeout=TIMEOUT)
    assert "set the time away before the clocks pause too" in host.inner_text("#form-error")
    assert host.get_attribute("#away_budget", "aria-invalid") == "true"
    host.fill("#away_pause", "1")
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    ann_link = host.input_value("#seat-link-1")
    host.click("#host-start")
    host.wait_for_selector("#clock-state-1.running", state="attached", timeout=TIMEOUT)
    assert host.inner_text(LEFT) == "0:04"

    ann = browser.new_context().new_page()
    ann.goto(ann_link)
    wait_connected(ann)
    ann.context.close()  # Ann leaves on her move
    host.wait_for_selector(f"{LEFT}[data-until]", timeout=TIMEOUT)  # the sweeper paused the clocks
    host.wait_for_selector("#clock-state-1:not(.running)", state="attached", timeout=TIMEOUT)  # (the box and the clocks come apart)
    first = host.inner_text(LEFT)
    host.wait_for_function("([first]) => document.querySelector('#presence .away-left[data-until]').textContent "
                           "!== first", arg=[first], timeout=TIMEOUT)  # counting down on the page
    assert "(running)" in host.inner_text("#presence")
    host.locator(LEFT).scroll_into_view_if_needed()
    assert host.locator('#presence li:has-text("Bob (seat 2)") .away-left').inner_text() == "0:04"
    host.screenshot(path=str(ARTIFACTS / "away-budget-host.png"))
    # used: the clocks run again while Ann is still away, and her box says none is left
    host.wait_for_selector("#clock-state-1.running", state="attached", timeout=TIMEOUT)
    host.wait_for_selector(f"{LEFT}:not([data-until])", timeout=TIMEOUT)
    assert host.inner_text(LEFT) == "0:00" and "(running)" not in host.inner_text("#presence")
    assert "has used its 4 s of away time this bout" in host.inner_text("#log")
    assert not errors, errors
    host.context.close()
