"""The host's console (issue 41, item 4) by clicks, on a desktop (1280x800) and a phone (390x844).

1. A bout the host ends: its console switches, live and without reload (on the page that acted
   and on a second host page that only follows the socket), to what applies to a finished bout -
   Start next bout and Reopen, no Forfeit, Stalemate, Draw or Award - and back when the next
   bout starts.
2. The host's game: the console's buttons add to one pending list (readable, each removable,
   points for one seat adding up) instead of replacing what was there; Send sends the whole
   list and the box at once, applied once even on a double click; the box goes when the bout ends.

Screenshots go to test-artifacts/."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
#: the controls that act on a bout in play
IN_PLAY = ("#host-forfeit-bout", "#host-forfeit-match", "#host-stalemate", "#host-draw", "#host-award")


def _shot(page: Any, name: str, full: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full)


def _fits(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page scrolls sideways ({width} px wide)"


@pytest.mark.parametrize("device", VIEWPORTS)
def test_a_finished_bouts_console_by_clicks(browser: Any, start_match: StartMatch, device: str) -> None:
    errors: list[str] = []
    host = browser.new_context(**VIEWPORTS[device]).new_page()
    follower = browser.new_context(**VIEWPORTS["desktop"]).new_page()  # the same host link, in another tab
    match = start_match("lance-assembly", ["Ann", "Bob"], fields={"#bouts": "3"}, host=host)
    asked: list[str] = []
    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    host.on("dialog", answer)
    for page in (host, follower):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    follower.goto(host.url)
    wait_connected(host, follower)
    match.start()
    for page in (host, follower):
        for selector in IN_PLAY:
            page.wait_for_selector(selector, timeout=TIMEOUT)
        assert page.locator("#host-next-bout").count() == 0
    _shot(host, f"{device}-1-bout-in-play")

    host.select_option('form:has(#host-forfeit-bout) select[name="seat"]', label="Bob")
    host.click("#host-forfeit-bout")
    assert asked == ["Bob forfeits bout 1: Ann wins it."]
    for page in (host, follower):  # the follower has only its socket
        page.wait_for_selector("#host-next-bout", timeout=TIMEOUT)
        page.wait_for_selector("#host-reopen", timeout=TIMEOUT)
        for selector in (*IN_PLAY, "#host-undo", "#host-clock", "#host-orders"):
            assert page.locator(selector).count() == 0, (page is host, selector)
        assert page.locator("#host-end").is_visible() and page.locator("#host-pause").is_visible()
    host.locator("#host-panel").scroll_into_view_if_needed()
    _shot(host, f"{device}-2-bout-over", full=False)
    _shot(follower, f"{device}-2-bout-over-follower", full=False)
    _fits(host)

    # the next bout brings the bout's controls back, on both pages
    host.click("#host-next-bout")
    for page in (host, follower):
        for selector in IN_PLAY:
            page.wait_for_selector(selector, timeout=TIMEOUT)
        page.wait_for_selector("#host-next-bout", state="detached", timeout=TIMEOUT)
    assert asked == ["Bob forfeits bout 1: Ann wins it."]  # no other confirmation was asked
    assert not errors, errors
    for page in (host, follower):
        page.context.close()


def _queue(page: Any) -> list[tuple[str, str]]:
    """The pending list as shown: (readable label, notation) each."""
    return [tuple(row) for row in page.eval_on_selector_all(
        "#hg-queue-list li", "els => els.map(e => [e.querySelector('.hg-queue-label').textContent,"
                             " e.querySelector('code').textContent])")]


def _sent(page: Any) -> None:
    """Send, then wait until the list is gone (what the Send carried left it)."""
    page.click("#move-submit")
    page.wait_for_selector("#hg-queue-list li", state="detached", timeout=TIMEOUT)


@pytest.mark.parametrize("device", VIEWPORTS)
def test_the_hosts_game_console_adds_to_one_list_sent_whole(browser: Any, start_match: StartMatch,
                                                               device: str) -> None:
    errors: list[str] = []
    context = browser.new_context(**VIEWPORTS[device])
    host = context.new_page()
    match = start_match("custom", ["Ann", "Bob", "Cy"], fields={'input[name="opt-custom-seats"]': "3"}, host=host)
    ann = context.new_page()
    for page in (host, ann):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    ann.goto(match.seats[1])
    wait_connected(host, ann)
    match.start()
    host.wait_for_selector("#hg-queue", timeout=TIMEOUT)
    assert host.locator("#move-card").is_visible()

    # a round, written by the form: one entry on the list
    host.fill("#hg-prompt-in", "Pick a number")
    host.click("#hg-compose-round")
    assert _queue(host) == [("Open round \"Pick a number\"", 'round "Pick a number" number 1-10')]
    _sent(host)
    ann.wait_for_selector("#hg-answer", timeout=TIMEOUT)
    ann.click('#hg-answer [data-coord="4"]')
    assert ann.input_value("#move-text") == "round 1 answer 4"  # a seat's click still writes its answer
    ann.click("#move-submit")
    host.wait_for_selector('#hg-console tr[data-seat="1"] >> text=answered', timeout=TIMEOUT)
    host.click("#hg-resolve")
    _sent(host)

    # the defect: "Reveal round 1" then "+1" kept only the +1; now both are on the list
    host.wait_for_selector("#hg-round-1 button.hg-reveal", timeout=TIMEOUT)
    host.click("#hg-round-1 button.hg-reveal")
    host.fill("#hg-reason", "bold guess")
    host.click('#hg-console [data-coord="P1"]')
    host.click('#hg-console [data-coord="P1"]')  # points for one seat and reason add up
    host.click('#hg-console [data-coord="P2"]')
    assert _queue(host) == [("Reveal round 1", "reveal round 1"), ("Ann +2 (bold guess)", 'give 1 2 "bold guess"'),
                            ("Bob +1 (bold guess)", 'give 2 1 "bold guess"')]
    host.click('#hg-queue-list li:nth-child(3) .hg-queue-remove')  # each entry can be taken off
    assert _queue(host) == [("Reveal round 1", "reveal round 1"), ("Ann +2 (bold guess)", 'give 1 2 "bold guess"')]
    host.fill("#move-text", 'announce "Round 2 after the break"')  # typed: sent after the list
    assert host.inner_text("#move-submit") == "Send 3"
    host.locator("#hg-queue").scroll_into_view_if_needed()
    _shot(host, f"{device}-3-hosts-game-list", full=False)
    _fits(host)
    requests: list[str] = []
    host.on("request", lambda r: requests.append(r.url) if r.method == "POST" and "/act/" in r.url else None)
    host.dblclick("#move-submit")  # a doubled Send
    host.wait_for_selector("#hg-queue-list li", state="detached", timeout=TIMEOUT)
    ann.wait_for_selector("#hg-round-1 .hg-revealed >> text=Ann: 4", timeout=TIMEOUT)
    ann.wait_for_selector('.hg-scoreboard li[data-seat="1"] .hg-points >> text=2', timeout=TIMEOUT)
    ann.wait_for_selector("#hg-news >> text=Round 2 after the break", timeout=TIMEOUT)
    assert host.input_value("#move-text") == "" and host.inner_text("#move-submit") == "Send"
    assert host.locator("#hg-queue-empty").is_visible()
    assert len(requests) == 1, requests
    log = host.inner_text("#log-list")
    assert log.count('give 1 2 "bold guess"') == 1 and log.count("reveal round 1") == 1, log
    assert log.index("reveal round 1") < log.index('give 1 2 "bold guess"') < log.index("Round 2 after the break")
    _shot(host, f"{device}-4-hosts-game-sent")

    # the bout ends: the console and its box go, live
    host.click("#hg-end-draw")
    _sent(host)
    host.wait_for_selector("#hg-ending", timeout=TIMEOUT)
    host.wait_for_selector("#move-card", state="hidden", timeout=TIMEOUT)
    _shot(host, f"{device}-5-hosts-game-over")
    assert not errors, errors
    context.close()
