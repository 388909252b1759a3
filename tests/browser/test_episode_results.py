"""Episode results in headless Chromium against a real daphne (issue 52): the season host pastes the
roster in one go (the roster box opens the manage page; a paste naming someone twice adds nothing
and says so), runs a Host's game main match whose console shows, before sending, who gets the Token
of Life and who is the Elimination Candidate (a tie for last is flagged), changes the candidate by a
click (desktop) and sends the end from a phone; the season records what the console showed, and the
elimination match's pages say the loser leaves the season.  Screenshots go to test-artifacts/."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected, watch_errors

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _season(page: Any, server: Server, name: str) -> str:
    page.goto(server.url + "/seasons/")
    page.fill("#season-name", name)
    with page.expect_navigation():
        page.click("#create-season")
    return str(page.url)


def _paste(page: Any, names: str) -> str:
    page.fill("#add-names", names)
    with page.expect_navigation():
        page.click("#add-players")
    text: str = page.inner_text(".season-messages")
    return text


def _fits(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"


def test_the_roster_paste_on_a_phone(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    phone = watch_errors(browser.new_context(**PHONE).new_page(), errors)
    _season(phone, server, "Phone League")
    # the roster box is where the page starts: above the links, in view without scrolling
    top = phone.eval_on_selector("#roster", "el => el.getBoundingClientRect().top")
    assert top < phone.eval_on_selector("#links", "el => el.getBoundingClientRect().top")
    assert top < 844
    phone.tap("#add-names")
    assert "Ann, Bob, Cy and Di added to the roster (4 players)" in _paste(phone, "Ann\nBob\n\nCy\nDi\n")
    refused = _paste(phone, "Eve\nbob\nEve")
    assert "nothing was added: Bob is already on the roster and Eve is listed twice" in refused
    assert phone.input_value("#add-names") == "Eve\nbob\nEve"  # back in its box, to fix
    phone.screenshot(path=str(ARTIFACTS / "episode-roster-paste-phone.png"), full_page=False)
    _fits(phone)
    rows = phone.eval_on_selector_all("#standings tbody tr th, #standings tbody tr td:first-child",
                                      "els => els.map(e => e.textContent.trim())")
    assert not any("Eve" in r for r in rows)
    assert "Jo added to the roster" in _paste_one(phone, "Jo")
    assert not errors, errors


def _paste_one(page: Any, name: str) -> str:
    page.fill("#add-name", name)
    with page.expect_navigation():
        page.click("#add-player")
    text: str = page.inner_text(".season-messages")
    return text


def test_the_host_console_shows_and_changes_what_the_end_gives(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = watch_errors(browser.new_context(viewport=DESKTOP).new_page(), errors)
    manage = _season(host, server, "Genius Season 1")
    assert "Ann, Bob, Cy and Di added to the roster (4 players)" in _paste(host, "Ann\nBob\nCy\nDi")
    host.select_option("#match-game", "custom")
    for n, name in enumerate(["Ann", "Bob", "Cy", "Di"], start=1):
        host.select_option(f"#match-seat{n}", label=name)
    with host.expect_navigation():
        host.click("#create-match")
    host.screenshot(path=str(ARTIFACTS / "episode-manage-desktop.png"), full_page=True)
    host.click("#matches .host-link >> nth=0")
    host.wait_for_url("**/h/**")
    dashboard = host.url
    wait_connected(host)
    host.click("#host-start")
    host.wait_for_selector("#hg-console", timeout=TIMEOUT)

    # points: Bob 2, Cy 1, Ann and Di 0 (tied for last)
    for coord in ("P2", "P2", "P3"):
        host.click(f'#hg-console [data-coord="{coord}"]')
    host.click("#move-submit")
    host.wait_for_selector("#hg-queue-list li", state="detached", timeout=TIMEOUT)
    host.wait_for_selector('#hg-console tr[data-seat="3"] .hg-points >> text=1', timeout=TIMEOUT)
    host.wait_for_selector('#hg-awards-preview >> text=Elimination Candidate: Ann and Di tied, for the host to settle.',
                           timeout=TIMEOUT)
    assert host.inner_text("#hg-awards-preview") == (
        "End: ranking by points gives: Token of Life: Bob. Elimination Candidate: Ann and Di tied, for the host "
        "to settle.")

    # a typed end is previewed by the server before it is sent
    host.fill("#move-text", "end ranking 3, 2, 1, 4")
    host.wait_for_selector("#hg-awards-typed:not([hidden])", timeout=TIMEOUT)
    assert host.inner_text("#hg-awards-typed") == ("Typed (end ranking 3, 2, 1, 4): This end gives: Token of Life: "
                                                   "Cy. Elimination Candidate: Di.")
    host.fill("#move-text", "")

    # the host settles the tie by a click: Di is the candidate; the end's notation names them
    host.check('#hg-awards .hg-award[data-award="candidate"][value="4"]')
    host.wait_for_selector("#hg-awards-preview >> text=Elimination Candidate: Di.", timeout=TIMEOUT)
    host.click("#hg-end-ranking")
    queued = host.eval_on_selector_all("#hg-queue-list li", "els => els.map(e => e.dataset.text)")
    assert queued == ["end ranking 2, 3, 1=4 token 2 candidate 4"]
    label = host.inner_text("#hg-queue-list li .hg-queue-label")
    assert label == ("End: ranking by points (Bob, then Cy, then Ann = Di). Token of Life: Bob. Elimination "
                     "Candidate: Di.")
    host.wait_for_selector("#hg-awards-typed >> text=This end gives: Token of Life: Bob. Elimination Candidate: Di.",
                           timeout=TIMEOUT)
    host.screenshot(path=str(ARTIFACTS / "episode-console-desktop.png"), full_page=True)
    host.locator("#hg-console").screenshot(path=str(ARTIFACTS / "episode-console-desktop-awards.png"))

    # the phone: the same host link, the same preview; the host changes the candidate to Ann and sends from there
    phone = watch_errors(browser.new_context(**PHONE).new_page(), errors)
    phone.goto(dashboard)
    wait_connected(phone)
    phone.wait_for_selector("#hg-awards", timeout=TIMEOUT)
    assert "Ann and Di tied" in phone.inner_text("#hg-awards-preview")
    phone.tap('#hg-awards .hg-award[data-award="candidate"][value="1"]')
    phone.wait_for_selector("#hg-awards-preview >> text=Elimination Candidate: Ann.", timeout=TIMEOUT)
    phone.tap("#hg-end-ranking")
    assert phone.eval_on_selector_all("#hg-queue-list li", "els => els.map(e => e.dataset.text)") == [
        "end ranking 2, 3, 1=4 token 2 candidate 1"]
    phone.wait_for_selector("#hg-awards-typed >> text=This end gives: Token of Life: Bob. Elimination Candidate: Ann.",
                            timeout=TIMEOUT)
    phone.screenshot(path=str(ARTIFACTS / "episode-console-phone.png"), full_page=True)
    phone.locator("#hg-awards").screenshot(path=str(ARTIFACTS / "episode-console-phone-awards.png"))
    phone.locator("#hg-queue").screenshot(path=str(ARTIFACTS / "episode-console-phone-queue.png"))
    _fits(phone)
    phone.tap("#move-submit")
    phone.wait_for_selector("#hg-ending >> text=Token of Life: Bob. Elimination Candidate: Ann.", timeout=TIMEOUT)
    host.wait_for_selector("#hg-ending >> text=Token of Life: Bob. Elimination Candidate: Ann.", timeout=TIMEOUT)

    # the season recorded what the console showed
    host.goto(manage)
    standings = host.inner_text("#standings")
    assert "elimination candidate" in standings
    log = host.inner_text("#season-log")
    assert "Token of Life: Bob. Elimination Candidate: Ann." in log

    # the elimination match: Ann against Di; its seat page says the loser leaves the season
    host.select_option("#match-game", "squava")
    host.select_option("#match-seat1", label="Ann (elimination candidate)")
    host.select_option("#match-seat2", label="Di")
    host.check("#match-elimination")
    with host.expect_navigation():
        host.click("#create-match")
    host.click("#matches .host-link >> nth=0")
    host.wait_for_url("**/h/**")
    assert host.inner_text("#elimination") == "Elimination match: the loser leaves Genius Season 1"
    seat_link = host.input_value("#seat-link-2")
    seat = watch_errors(browser.new_context(**PHONE).new_page(), errors)
    seat.goto(seat_link)
    wait_connected(seat)
    assert seat.inner_text("#elimination") == "Elimination match: the loser leaves Genius Season 1"
    assert "elimination" in seat.inner_text("body").lower()
    seat.screenshot(path=str(ARTIFACTS / "episode-elimination-seat-phone.png"), full_page=False)
    _fits(seat)
    assert not errors, errors
