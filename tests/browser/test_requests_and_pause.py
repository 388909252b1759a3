"""Issue 25 in a real browser, desktop (Ann and the host, 1280x800) and phone (Bob, 390x844): a
pause reads "Paused by the host" where players look and disables Play, live; in a match where the
host answers them, a takeback request and a draw offer go to the host, who accepts each with one click; a seat resigns the bout after a
confirmation, another the match; the host's end banner offers what the host can do; a rematch
(seats swapped) reached from the old links; a forfeit confirmed by a sentence naming its
consequence, undone from the toast.  Every page
follows live, without reload.  Screenshots in test-artifacts/ (issue25-*.png)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, cell, play_cells, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"issue25-{name}.png"))


def _status_has(page: Any, text: str) -> None:
    page.wait_for_function("(t) => document.querySelector('#status').textContent.includes(t)", arg=text,
                           timeout=TIMEOUT)


def test_pause_requests_and_resignations_by_clicks(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    # the host answers the requests in this match (its option; the opponent answers by default: test_offers_browser.py)
    match = start_match("lance-assembly", ["Ann", "Bob"], fields={"#answers": "host"},
                        host=browser.new_context(viewport=DESKTOP).new_page())
    host, links, watch = match.host, match.seats, match.watch
    match.start()
    ann = browser.new_context(viewport=DESKTOP).new_page()
    bob = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    spectator = browser.new_context(viewport=DESKTOP).new_page()
    for page, url in ((ann, links[1]), (bob, links[2]), (spectator, watch)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(url)
    asked: list[str] = []
    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    host.on("dialog", answer)
    wait_connected(host, ann, bob, spectator)
    pages = (host, ann, bob, spectator)

    # 3. the host pauses: every page says so live, and Play is disabled
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    host.click('button[name="action"][value="pause"]')
    for page in pages:
        _status_has(page, "Paused by the host.")
        page.wait_for_selector("#board .board-paused", timeout=TIMEOUT)
        assert "Paused by the host" in page.inner_text("#clocks")
    assert ann.is_disabled("#move-submit") and bob.is_disabled("#move-submit")
    assert "Your turn" not in ann.inner_text("#status")
    _shot(ann, "paused-desktop")
    _shot(bob, "paused-phone")
    host.click('button[name="action"][value="resume"]')
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    assert ann.is_enabled("#move-submit")

    # Ann and Bob play; Ann asks for a takeback, which only the host sees, and the host accepts
    play_cells(ann, "C3")
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    play_cells(bob, "D4")
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.click("#ask-takeback")
    host.wait_for_selector('#host-requests form[data-request="takeback"]', timeout=TIMEOUT)
    _status_has(ann, "You asked to take back your last move")
    assert "take back" not in bob.inner_text("#status")
    _status_has(host, "Ann asks to take back their last move: answer it under Moderation.")
    host.locator("#host-requests").scroll_into_view_if_needed()
    _shot(host, "takeback-request-host")
    host.click('#host-requests form[data-request="takeback"] button[value="accept"]')
    for page in pages:
        page.wait_for_selector(cell("C3", ""), timeout=TIMEOUT)
        page.wait_for_selector(cell("D4", ""), timeout=TIMEOUT)
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    assert host.locator("#host-requests").count() == 0

    # Ann offers a draw: Bob (on the phone) sees it, the spectator does not; the host accepts
    ann.click("#offer-draw")
    _status_has(bob, "Ann offers a draw: the host decides.")
    _shot(bob, "draw-offer-phone")
    assert "draw" not in spectator.inner_text("#status")
    host.wait_for_selector('#host-requests form[data-request="draw"]', timeout=TIMEOUT)
    host.click('#host-requests form[data-request="draw"] button[value="accept"]')
    for page in pages:
        page.wait_for_selector("#banner-head >> text=Bout 1 is drawn — declared by the host", timeout=TIMEOUT)
    host.wait_for_selector("#log-list >> text=accepted the draw offer of seat 1 (Ann)", timeout=TIMEOUT)

    # bout 2: Bob resigns it on his phone (after a confirmation)
    host.click("#host-next-bout")
    bob.wait_for_selector("#banner", state="hidden", timeout=TIMEOUT)
    bob.click("#resign-bout")
    for page in pages:
        page.wait_for_selector("#banner-head >> text=resigned bout 2", timeout=TIMEOUT)
    assert ann.inner_text("#banner-head") == "Bob resigned bout 2: you win it"
    assert bob.inner_text("#banner-head") == "You resigned bout 2: Ann wins it"
    _shot(bob, "resigned-bout-phone")

    # bout 3: Ann resigns the match; the host is offered Reopen (a seat's ending, like a forfeit)
    host.click("#host-next-bout")
    ann.wait_for_selector("#banner", state="hidden", timeout=TIMEOUT)
    ann.click("#resign-match")
    for page in pages:
        page.wait_for_function("document.querySelector('#banner-head')?.textContent.includes('the match')",
                               timeout=TIMEOUT)
    assert bob.inner_text("#banner-head") == "Ann resigned the match: you win it"
    assert "Reopen bout 3" in host.inner_text("#banner")
    assert host.locator("#host-reopen").count() == 1
    links_text = " ".join(host.inner_text("#replay-links").split())
    assert "bout 1, bout 2, bout 3" in links_text
    _shot(host, "match-resigned-host")
    _shot(bob, "match-resigned-phone")

    # rematch, seats swapped: the host goes on to the new match; each old seat link leads there
    old_host = host.url
    host.check('form:has(#host-rematch) input[name="swap"]')
    host.click("#host-rematch")
    host.wait_for_url(lambda url: "/h/" in url and url != old_host, timeout=TIMEOUT)
    host.wait_for_selector("#host-start", timeout=TIMEOUT)
    for page in (ann, bob):
        page.wait_for_selector("#rematch-link", timeout=TIMEOUT)
    bob.click("#rematch-link")
    old_bob = links[2].rstrip("/").rsplit("/", 1)[-1]
    bob.wait_for_function("(old) => !location.pathname.includes(old)", arg=old_bob, timeout=TIMEOUT)
    assert "Bob · seat 1" in bob.inner_text("header")
    host.click("#host-start")
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.goto(links[1])  # Ann's old link, as she kept it
    ann.wait_for_selector("#board .cell", timeout=TIMEOUT)
    assert "Ann · seat 2" in ann.inner_text("header")
    _shot(bob, "rematch-phone")

    # a confirmed forfeit names its consequence, and the toast undoes it
    host.select_option('form:has(#host-forfeit-match) select[name="seat"]', label="Bob")
    host.click("#host-forfeit-match")
    host.wait_for_selector("#undo-toast", timeout=TIMEOUT)
    assert asked[-1] == "Bob forfeits the match: Ann wins it."
    for page in (ann, bob):
        page.wait_for_selector("#banner-head >> text=the match — forfeit", timeout=TIMEOUT)
    host.locator("#undo-toast").scroll_into_view_if_needed()
    _shot(host, "forfeit-undo-toast")
    host.click("#host-undo-ending")
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.wait_for_selector("#banner", state="hidden", timeout=TIMEOUT)
    host.wait_for_selector("#log-list >> text=reopened bout 1", timeout=TIMEOUT)
    assert not errors, errors
