"""A clock that ran out shows 0:00 and "flagged" (issue 41, item 3), in headless Chromium against a
real daphne, by clicks: the host creates a Lance Assembly match with a tiny clock (2 s a move + 2 s)
and starts it; Ann (desktop) never moves and the server's sweeper flags her.  Every page (Ann's,
Bob's on a phone, the spectators' on a phone, the host's on a desktop) shows her clock at 0:00,
flagged, and Bob's as it stood, live and after a reload; and its banner says who ran out in its
own words ("You ran out of time" on Ann's page, "you win" on Bob's).  A bank shown to the minute
shows its seconds below 10 minutes.  No sleeps: each page waits for what it shows."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: Ann's clock: it runs out (with the lag grace) while the pages wait
CLOCK = {"#per_move": "2", "#reserve": "2"}
#: what each clock shows, without the words for screen readers
SHOWN_JS = """seat => [...document.querySelectorAll(`#clock-${seat} .clock-time > :not(.visually-hidden)`)]
    .map(el => el.textContent).join('')"""


def _clocks(page: Any) -> tuple[str, str, str]:
    """(Ann's time, Ann's flag, Bob's time) as the page shows them."""
    flag = page.locator("#clock-1 .flag")
    return (page.evaluate(SHOWN_JS, 1), flag.inner_text() if flag.count() else "", page.evaluate(SHOWN_JS, 2))


def test_a_flagged_clock_shows_0_00_flagged_on_every_page(start_match: StartMatch, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    match = start_match("lance-assembly", ["Ann", "Bob"], fields=CLOCK)
    host = match.host
    pages = {"ann": (browser.new_context(**DESKTOP).new_page(), match.seats[1]),
             "bob": (browser.new_context(**PHONE).new_page(), match.seats[2]),
             "spectators": (browser.new_context(**PHONE).new_page(), match.watch)}
    for page, url in pages.values():
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    pages["host"] = (host, host.url)
    wait_connected(*(page for page, _ in pages.values()))
    # before the start: the configured clocks
    assert _clocks(host) == ("0:02 + 0:02", "", "0:02 + 0:02")
    host.click("#host-start")
    pages["ann"][0].wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    for who, (page, _) in pages.items():
        page.wait_for_selector("#clock-1 .flag", timeout=TIMEOUT + 6000)  # her 4 s and the lag grace
        assert _clocks(page) == ("0:00", "flagged", "0:02 + 0:02"), who
        assert "flagged" in str(page.get_attribute("#clock-state-1", "class")), who
    # the banner (and the status line) name who ran out, to each audience in its own words
    headlines = {"ann": "You ran out of time: Bob wins bout 1", "bob": "Ann ran out of time: you win bout 1",
                 "spectators": "Ann ran out of time: Bob wins bout 1", "host": "Ann ran out of time: Bob wins bout 1"}
    for who, (page, _) in pages.items():
        page.wait_for_selector(f"#banner-head >> text={headlines[who]}", timeout=TIMEOUT)
        assert page.inner_text("#banner-head") == headlines[who], who
        assert page.inner_text("#status") == headlines[who] + ".", who
    # the page's own script keeps 0:00: a tick after the update draws what the state says
    for who, (page, _) in pages.items():
        page.evaluate("document.dispatchEvent(new CustomEvent('dm:clock-sync'))")  # clocks.js ticks at once
        assert _clocks(page)[0] == "0:00", who
    pages["ann"][0].screenshot(path=str(ARTIFACTS / "flagged-clock-ann-desktop.png"), full_page=True)
    pages["bob"][0].locator("#clocks").screenshot(path=str(ARTIFACTS / "flagged-clock-bob-phone.png"))
    pages["spectators"][0].screenshot(path=str(ARTIFACTS / "flagged-clock-spectators-phone.png"), full_page=True)
    host.screenshot(path=str(ARTIFACTS / "flagged-clock-host.png"), full_page=True)

    # a reload is a fresh load: the same
    for who, (page, url) in pages.items():
        page.goto(url)
        wait_connected(page)
        assert _clocks(page) == ("0:00", "flagged", "0:02 + 0:02"), who
    assert not errors, errors


def test_a_bank_below_10_minutes_shows_its_seconds(start_match: StartMatch, browser: Any) -> None:
    """Two Connect's bank, to the minute for players above 10 minutes ("19 min"), with its seconds
    below ("9:42"): as drawn by the server, and as the page's script counts it down."""
    ARTIFACTS.mkdir(exist_ok=True)
    match = start_match("two-connect", ["Ann", "Bob"], fields={"#reserve": "582"})
    ann = browser.new_context(**DESKTOP).new_page()
    bob = browser.new_context(**PHONE).new_page()
    ann.goto(match.seats[1])
    bob.goto(match.seats[2])
    wait_connected(ann, bob, match.host)
    for page in (ann, bob):
        assert page.evaluate(SHOWN_JS, 1) == page.evaluate(SHOWN_JS, 2) == "9:42"
        assert page.evaluate("[582, 599, 600, 1140.5, 59].map(window.dmClockFormat.minutes)") == [
            "9:42", "9:59", "10 min", "19 min", "0:59"]
    match.host.click("#host-start")
    for page in (ann, bob):  # Ann's bank runs, counted down in minutes and seconds
        page.wait_for_function("document.querySelector('#clock-1 .clock-reserve').textContent.startsWith('9:4')"
                               " && document.querySelector('#clock-1 .clock-reserve').textContent !== '9:42'",
                               timeout=TIMEOUT)
        assert page.evaluate(SHOWN_JS, 2) == "9:42"
    ann.locator("#clocks").screenshot(path=str(ARTIFACTS / "bank-seconds-desktop.png"))
    bob.locator("#clocks").screenshot(path=str(ARTIFACTS / "bank-seconds-phone.png"))
