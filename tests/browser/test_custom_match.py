"""The host's game end to end in headless Chromium, by clicks.

A host at a desktop (1280x800) creates a 6-seat match on the home form and
runs it from the console: a number round every seat answers by clicking, a
choice round for two seats, an author-only text round the host closes early.
Seats 1, 3, 5 play at a desktop, 2, 4, 6 on a phone (390x844); a spectator
follows.  The host reveals and scores by clicks and ends in a ranking by
points.  Then a 16-seat console, drawn at 1280x800.  Screenshots go to
test-artifacts/custom-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, same_as_fresh, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
NUMBERS = {1: 7, 2: 3, 3: 9, 4: 2, 5: 8, 6: 5}


def _create(start_match: StartMatch, host: Any, names: list[str]) -> tuple[dict[int, str], str]:
    match = start_match("custom", names, fields={'input[name="opt-custom-seats"]': str(len(names))}, host=host)
    assert len(match.seats) == len(names)
    return match.seats, match.watch


def _send(page: Any, expect_text: str) -> None:
    """Send what a click composed: a seat's answer in the box, or the host's console's one action on
    its pending list (issue 41: the list then empties, once the Send went through)."""
    if page.locator("#hg-queue").count():
        assert page.eval_on_selector_all("#hg-queue-list li", "els => els.map(e => e.dataset.text)") == [expect_text]
        assert page.input_value("#move-text") == ""
        page.click("#move-submit")
        page.wait_for_selector("#hg-queue-list li", state="detached", timeout=TIMEOUT)
        return
    assert page.input_value("#move-text") == expect_text
    page.click("#move-submit")


def _open_round(host: Any, prompt: str, kind: str, *, choices: str = "", seats: tuple[int, ...] = (),
                reveal: str = "everyone", expect: str) -> None:
    host.fill("#hg-prompt-in", prompt)
    host.select_option("#hg-kind", kind)
    if choices:
        host.fill("#hg-choices", choices)
    for seat in seats:
        host.check(f'.hg-seat-pick[value="{seat}"]')
    host.select_option("#hg-reveal", reveal)
    host.click("#hg-compose-round")
    _send(host, expect)
    for seat in seats:
        host.uncheck(f'.hg-seat-pick[value="{seat}"]')


def _fits_phone(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the phone page scrolls sideways ({width} px wide)"


def test_a_six_seat_hosts_game_played_by_clicks(server: Server, browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport=DESKTOP).new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    # the form shows a name field per seat chosen
    host.goto(server.url + "/")
    host.select_option("#game-select", "custom")
    host.fill('input[name="opt-custom-seats"]', str(len(NAMES)))
    assert host.locator(f'.seat-name[data-seat="{len(NAMES)}"]').is_visible()
    assert host.locator(f'.seat-name[data-seat="{len(NAMES) + 1}"]').is_hidden()
    links, watch = _create(start_match, host, NAMES)
    seats: dict[int, Any] = {}
    # one desktop and one phone context (pages of one context are cheaper than a context each)
    desktop, phone = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=PHONE, is_mobile=True,
                                                                                has_touch=True)
    for n, url in links.items():
        seats[n] = (desktop if n % 2 else phone).new_page()
        seats[n].on("pageerror", lambda exc: errors.append(str(exc)))
        seats[n].goto(url)
    spectator = desktop.new_page()
    spectator.on("pageerror", lambda exc: errors.append(str(exc)))
    spectator.goto(watch)
    everyone = [host, spectator, *seats.values()]
    wait_connected(*everyone)
    host.click("#host-start")
    for page in everyone:
        page.wait_for_selector("#hg", timeout=TIMEOUT)
    seats[1].wait_for_selector("#status >> text=Waiting for the host to open a round.", timeout=TIMEOUT)

    # -- round 1: a number, every seat answers by clicking; the last answer closes it
    host.wait_for_selector("#move-text", timeout=TIMEOUT)
    _open_round(host, "Pick a number", "number", expect='round "Pick a number" number 1-10')
    for page in everyone:
        page.wait_for_selector("#hg-prompt >> text=Pick a number", timeout=TIMEOUT)
    seats[2].click('#hg-answer [data-board="custom"][data-coord="4"]')
    _send(seats[2], "round 1 answer 4")
    seats[2].wait_for_selector("#hg-mine >> text=4", timeout=TIMEOUT)
    host.wait_for_selector('#hg-console tr[data-seat="2"] >> text=answered', timeout=TIMEOUT)
    seats[2].click('#hg-answer [data-coord="3"]')  # a change of mind: the new answer replaces the old
    _send(seats[2], "round 1 answer 3")
    seats[2].wait_for_selector("#hg-mine >> text=3", timeout=TIMEOUT)
    spectator.wait_for_selector('#hg-who .hg-seat.answered >> text=Bob', timeout=TIMEOUT)
    assert "3" not in spectator.inner_text("#hg-who")
    for n in (1, 3, 4, 5, 6):
        seats[n].click(f'#hg-answer [data-coord="{NUMBERS[n]}"]')
        _send(seats[n], f"round 1 answer {NUMBERS[n]}")
        seats[n].wait_for_selector(".hg-mine", timeout=TIMEOUT)
    host.wait_for_selector("#hg-round-1 button.hg-reveal", timeout=TIMEOUT)
    assert spectator.locator("#hg-round-1 .hg-revealed").count() == 0
    host.screenshot(path=str(ARTIFACTS / "custom-host-round1.png"), full_page=True)
    host.click("#hg-round-1 button.hg-reveal")
    _send(host, "reveal round 1")
    spectator.wait_for_selector("#hg-round-1 .hg-revealed >> text=Cy: 9", timeout=TIMEOUT)
    seats[4].wait_for_selector("#hg-round-1 .hg-revealed >> text=Bob: 3", timeout=TIMEOUT)
    # points: Cy's 9 was closest to the secret 10
    host.fill("#hg-reason", "closest to 10")
    host.click('#hg-console [data-coord="P3"]')
    _send(host, 'give 3 1 "closest to 10"')
    spectator.wait_for_selector('.hg-scoreboard li[data-seat="3"] .hg-points >> text=1', timeout=TIMEOUT)

    # -- round 2: a choice for Ann and Bob only
    _open_round(host, "Which door?", "choice", choices="Red, Green, Blue", seats=(1, 2),
                expect='round "Which door?" choice "Red", "Green", "Blue" seats 1,2')
    seats[3].wait_for_selector("#hg-prompt >> text=Which door?", timeout=TIMEOUT)
    assert seats[3].locator("#hg-answer").count() == 0  # not asked
    seats[1].wait_for_selector("#hg-answer", timeout=TIMEOUT)
    seats[1].click('#hg-answer [data-coord="C2"]')
    _send(seats[1], 'round 2 answer "Green"')
    seats[2].wait_for_selector("#hg-answer", timeout=TIMEOUT)
    seats[2].click('#hg-answer [data-coord="C3"]')
    _send(seats[2], 'round 2 answer "Blue"')
    host.wait_for_selector("#hg-round-2 button.hg-reveal", timeout=TIMEOUT)
    host.click("#hg-round-2 button.hg-reveal")
    _send(host, "reveal round 2")
    spectator.wait_for_selector("#hg-round-2 .hg-revealed >> text=Bob: Blue", timeout=TIMEOUT)
    host.fill("#hg-reason", "found the prize")
    host.click('#hg-console [data-coord="P2"]')
    _send(host, 'give 2 1 "found the prize"')
    host.wait_for_selector('#hg-console tr[data-seat="2"] .hg-points >> text=1', timeout=TIMEOUT)
    host.click('#hg-console [data-coord="P2"]')
    _send(host, 'give 2 1 "found the prize"')
    spectator.wait_for_selector('.hg-scoreboard li[data-seat="2"] .hg-points >> text=2', timeout=TIMEOUT)

    # -- round 3: free text each author keeps; the host closes it before everyone answers
    _open_round(host, "Your secret word", "text", reveal="author",
                expect='round "Your secret word" text reveal author')
    seats[2].wait_for_selector("#hg-free", timeout=TIMEOUT)
    seats[2].fill("#hg-free", "marmalade")
    # Di answers while Bob is still typing: the redrawn board keeps what Bob typed
    seats[4].wait_for_selector("#hg-free", timeout=TIMEOUT)
    seats[4].fill("#hg-free", "lantern")
    _send(seats[4], 'round 3 answer "lantern"')
    seats[2].wait_for_selector("#hg-who .hg-seat.answered >> text=Di", timeout=TIMEOUT)
    assert seats[2].input_value("#hg-free") == "marmalade"
    assert seats[2].inner_text("#move-submit") == "Send answer"
    _send(seats[2], 'round 3 answer "marmalade"')
    seats[2].wait_for_selector("#hg-mine >> text=marmalade", timeout=TIMEOUT)
    host.wait_for_selector('#hg-console tr[data-seat="2"] >> text=marmalade', timeout=TIMEOUT)
    seats[2].screenshot(path=str(ARTIFACTS / "custom-phone-seat-round3.png"), full_page=True)
    _fits_phone(seats[2])
    host.click("#hg-resolve")
    _send(host, "resolve")
    host.wait_for_selector("#hg-round-3", timeout=TIMEOUT)
    for page in (spectator, seats[1], seats[4]):
        assert "marmalade" not in page.content()
    assert "lantern" not in seats[2].content() and "lantern" in host.content()
    assert "no answer" in host.inner_text("#hg-round-3")

    # -- the end: a ranking by points (Bob 2, Cy 1, the rest 0)
    host.click("#hg-end-ranking")
    _send(host, "end ranking 2, 3, 1=4=5=6")
    expected = "Ranking: 1. Bob; 2. Cy; 3. Ann = Di = Ed = Flo."
    for page in everyone:
        page.wait_for_selector(f"#hg-ending >> text={expected}", timeout=TIMEOUT)
    assert seats[2].text_content("#status") == "You win the match — ranking."
    assert "Score: Ann 0, Bob 2, Cy 1, Di 0, Ed 0, Flo 0 (points)" in spectator.inner_text("#banner")
    assert "The host ranked the seats: Bob, then Cy, then Ann and Di and Ed and Flo." in spectator.inner_text("#banner")
    same_as_fresh(browser, seats[2], links[2], clocks=6)
    host.screenshot(path=str(ARTIFACTS / "custom-host-final.png"), full_page=True)
    seats[1].screenshot(path=str(ARTIFACTS / "custom-desktop-seat-final.png"), full_page=True)
    seats[2].screenshot(path=str(ARTIFACTS / "custom-phone-seat-final.png"), full_page=True)
    spectator.screenshot(path=str(ARTIFACTS / "custom-desktop-spectator-final.png"), full_page=True)
    _fits_phone(seats[2])
    assert not errors, errors
    for context in (host.context, desktop, phone):
        context.close()


def test_a_sixteen_seat_console_fits_a_laptop(browser: Any, start_match: StartMatch) -> None:
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu", "Mo", "Ned", "Oz",
             "Pia"]
    host = browser.new_context(viewport=DESKTOP).new_page()
    links, _watch = _create(start_match, host, names)
    assert len(links) == 16
    wait_connected(host)
    host.click("#host-start")
    host.wait_for_selector("#hg", timeout=TIMEOUT)
    _open_round(host, "Who is the wolf?", "seat", expect='round "Who is the wolf?" seat')
    host.wait_for_selector("#hg-prompt >> text=Who is the wolf?", timeout=TIMEOUT)
    seat = browser.new_context(viewport=DESKTOP).new_page()
    seat.goto(links[16])
    seat.wait_for_selector("#hg-answer", timeout=TIMEOUT)
    seat.click('#hg-answer [data-coord="S3"]')
    seat.click('#hg-answer [data-coord="S11"]')
    _send(seat, "round 1 answer 3,11")
    host.wait_for_selector('#hg-console tr[data-seat="16"] >> text=Cy, Kim', timeout=TIMEOUT)
    assert host.locator("#hg-console tbody tr").count() == 16
    width = host.evaluate("document.documentElement.scrollWidth")
    assert width <= DESKTOP["width"], f"the console scrolls sideways ({width} px wide)"
    host.locator("#hg-console").scroll_into_view_if_needed()
    host.screenshot(path=str(ARTIFACTS / "custom-host-16-seats.png"))
    host.screenshot(path=str(ARTIFACTS / "custom-host-16-seats-full.png"), full_page=True)
