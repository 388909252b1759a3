"""The time-out banner names who ran out (issue 41, item 3), in headless Chromium against a real
daphne: a best-of-3 Lance Assembly match (the form's default) with a 4 s bank; Ann (desktop) never moves, the server's
sweeper flags her, and every page (Ann's, Bob's on a phone, the spectators', the host's) says
"Ann ran out of time" in its own words.  No sleeps: each page waits for the banner."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected

pytestmark = pytest.mark.browser

BANK = 4  # seconds: Ann's bank runs out while the pages wait


def test_every_audience_reads_who_ran_out_of_time(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    host.goto(server.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.fill("#per_move", "")
    host.fill("#reserve", str(BANK))
    host.fill('input[name="seat1"]', "Ann")
    host.fill('input[name="seat2"]', "Bob")
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    links = {n: host.input_value(f"#seat-link-{n}") for n in (1, 2)}
    watch_url = host.input_value("#watch-link")
    ann = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    bob = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    spectator = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    for page, url in ((ann, links[1]), (bob, links[2]), (spectator, watch_url)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    wait_connected(host, ann, bob, spectator)
    host.click("#host-start")
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    expected = {
        "ann": (ann, "You ran out of time: Bob wins bout 1"),
        "bob": (bob, "Ann ran out of time: you win bout 1"),
        "spectators": (spectator, "Ann ran out of time: Bob wins bout 1"),
        "host": (host, "Ann ran out of time: Bob wins bout 1"),
    }
    for who, (page, headline) in expected.items():
        page.wait_for_selector(f"#banner-head >> text={headline}", timeout=TIMEOUT + BANK * 1000)
        assert page.inner_text("#banner-head") == headline, who
        assert page.inner_text("#status") == headline + ".", who
    bob.screenshot(path=str(ARTIFACTS / "timeout-banner-phone.png"), full_page=True)
    host.screenshot(path=str(ARTIFACTS / "timeout-banner-host.png"), full_page=True)
    assert not errors
