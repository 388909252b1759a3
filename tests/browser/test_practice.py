"""Practise against the computer, by clicks, to the end: from the home page's "Play the
computer" a player gets a match with a computer player in the other seat, started at once, on
the seat's own page.  The bot moves from the server's worker (matches/play/bots.py) and the page
shows its moves live; the player clicks empty points until the game is over (on the phone with
"send on click": the click is the move).  Desktop (1280x800, seat 1) and phone (390x844, seat 2).  Screenshots: test-artifacts/practice-*.png."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, wait_connected

pytestmark = pytest.mark.browser

VIEWPORTS: dict[str, tuple[dict[str, Any], str]] = {
    "desktop": ({"viewport": {"width": 1280, "height": 800}}, "1"),
    "phone": ({"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}, "2"),
}
#: the squares the player tries, in this order (the first empty one each turn)
ORDER = [f"{c}{r}" for r in range(1, 6) for c in "ABCDE"]
EMPTY = '#tc-root .pt[data-board="squava"][data-coord="{}"]:not(.s1):not(.s2)'
TURN_OR_END = "document.querySelector('#status.your-turn') || document.querySelector('#status.finished')"


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_player_practises_squava_against_the_computer_to_the_end(server: Server, browser: Any,
                                                                     device: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    options, seat = VIEWPORTS[device]
    context = browser.new_context(**options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "/")
    page.select_option("#practice-game", "squava")
    page.select_option("#practice-strength", "easy")
    page.select_option("#practice-seat", seat)
    page.screenshot(path=str(ARTIFACTS / f"practice-home-{device}.png"), full_page=True)
    page.click("#practice-start")
    page.wait_for_url("**/p/*/")
    wait_connected(page)
    assert "Opponent (computer, easy)" in page.inner_text("body")
    assert page.is_visible("#sound-offer")  # a first visit: the turn sound is offered, and left unanswered
    # on the phone the player chooses "send on click": each click on a point is the move (no Play);
    # the choice belongs to this browser and is kept over a reload
    send_on_click = device == "phone"
    if send_on_click:
        page.check("#send-on-click")
        page.reload()
        wait_connected(page)
        assert page.is_checked("#send-on-click")
    moves = 0
    for _ in range(20):
        _wait_turn_or_end(page, server)
        if page.locator("#status.finished").count():
            break
        coord = next(c for c in ORDER if page.locator(EMPTY.format(c)).count())
        version = int(page.get_attribute("#live-meta", "data-version"))
        page.click(EMPTY.format(coord))
        if not send_on_click:
            assert page.input_value("#move-text") == f"squava {coord}"
            page.click("#move-submit")
        # the server's answer (a pending click is drawn as a stone already): a newer board with the stone
        page.wait_for_function(f"+document.getElementById('live-meta').dataset.version > {version}", timeout=TIMEOUT)
        page.wait_for_selector(f'#tc-root .pt[data-coord="{coord}"].s{seat}', state="attached", timeout=TIMEOUT)
        assert page.is_hidden("#move-error"), page.inner_text("#move-error")
        moves += 1
        if moves == 2:
            page.screenshot(path=str(ARTIFACTS / f"practice-playing-{device}.png"), full_page=True)
    page.wait_for_selector("#status.finished", state="attached", timeout=TIMEOUT)
    stones = page.locator('#tc-root .pt[data-board="squava"].s1, #tc-root .pt[data-board="squava"].s2').count()
    bot_moves = stones - moves
    assert moves >= 2 and bot_moves in (moves - 1, moves, moves + 1)  # the computer answered every move
    log = page.inner_text("#log-list")
    assert "Opponent (computer, easy)" in log
    # the match is over: no turn left to sound, so the offer the page still held is gone
    page.wait_for_selector("#sound-offer", state="hidden", timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / f"practice-end-{device}.png"), full_page=True)
    # "Play again": a new match against the same computer, the player on the other side
    again = "2" if seat == "1" else "1"
    assert page.inner_text("#practice-again") == f"Play again (you move {'first' if again == '1' else 'second'})"
    finished = page.url
    page.click("#practice-again-button")
    page.wait_for_url(lambda url: "/p/" in url and url != finished, timeout=TIMEOUT)
    wait_connected(page)
    _wait_turn_or_end(page, server)
    assert page.locator("#status.your-turn").count() == 1 and "Opponent (computer, easy)" in page.inner_text("body")
    # seat 1 moves first: the computer has, when the player took seat 2
    first = page.locator('#tc-root .pt[data-board="squava"].s1').count()
    assert (first, page.locator('#tc-root .pt[data-board="squava"].s2').count()) == ((1, 0) if again == "2" else (0, 0))
    context.close()
    assert not errors, errors


def _wait_turn_or_end(page: Any, server: Server) -> None:
    """Wait for the player's turn or the end; on a time-out, say what the page and the server show."""
    try:
        page.wait_for_function(TURN_OR_END, timeout=TIMEOUT)
    except Exception as error:
        logs = "".join(path.read_text()[-2000:] for path in server.workdir.glob("daphne-*.log"))
        raise AssertionError(f"stuck at {page.inner_text('#status')!r}, "
                             f"{page.get_attribute('#live-meta', 'data-version')=}\n{logs}") from error


def test_the_host_puts_a_bot_in_a_back_to_the_wall_seat_mid_match(browser: Any, start_match: StartMatch) -> None:
    """The host's console: Cy's seat goes to the computer (strong) after the start, chosen while
    the host's other tab pauses and resumes; every page names it "Cy (computer, strong)" live, the
    bot submits its sealed orders, and the host takes it out."""
    ARTIFACTS.mkdir(exist_ok=True)
    host = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors: list[str] = []
    host.on("pageerror", lambda error: errors.append(str(error)))
    match = start_match("back-to-the-wall", ["Ann", "Bob", "Cy", "Di"], host=host)
    bob = browser.new_context(**VIEWPORTS["phone"][0]).new_page()
    bob.on("pageerror", lambda error: errors.append(str(error)))
    bob.goto(match.seats[2])
    wait_connected(host, bob)
    host.click("#host-start")
    # the start's answer (its flash) came with the dashboard's forms drawn after it
    host.wait_for_selector('#host-flash:has-text("match started")', timeout=TIMEOUT)
    host.wait_for_selector("#bttw .sq", state="attached", timeout=TIMEOUT)
    host.select_option('#host-bot select[name="seat"]', "3")
    host.select_option('#host-bot select[name="strength"]', "strong")
    host.fill('#host-panel input[name="reason"]', "late arrival")
    host.focus('#host-panel input[name="reason"]')
    # the host's second tab pauses and resumes: each redraws the first tab's panel, which keeps the
    # choices made and the focus (static/js/live.js); the click then sends them, not the defaults
    second = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    second.goto(host.url)
    wait_connected(second)
    for action, shown in (("pause", "Resume clocks"), ("resume", "Pause clocks")):
        second.click(f'#host-panel button[value="{action}"]')
        host.wait_for_selector(f'#host-panel button:has-text("{shown}")', timeout=TIMEOUT)
        assert host.input_value('#host-bot select[name="seat"]') == "3"
        assert host.input_value('#host-bot select[name="strength"]') == "strong"
        assert host.input_value('#host-panel input[name="reason"]') == "late arrival"
        assert host.evaluate("document.activeElement.name") == "reason"
    second.context.close()
    host.click("#host-bot button[type=submit]")
    host.wait_for_selector('#host-flash:has-text("seat 3 (Cy) is played by the computer (strong)")', timeout=TIMEOUT)
    for page in (host, bob):
        page.wait_for_selector('#clock-3:has-text("Cy (computer, strong)")', timeout=TIMEOUT)
    # the bot's sealed orders are in: its seat is marked submitted (what it ordered stays hidden from Bob)
    for page in (host, bob):
        page.wait_for_selector("#clock-3 .badge.ok", timeout=TIMEOUT)
    assert "Cy (computer, strong)" in host.inner_text("#log-list")
    host.screenshot(path=str(ARTIFACTS / "practice-host-bot-desktop.png"), full_page=True)
    bob.screenshot(path=str(ARTIFACTS / "practice-host-bot-phone.png"), full_page=True)
    host.select_option('#host-bot select[name="seat"]', "3")
    host.select_option('#host-bot select[name="strength"]', "")
    host.click("#host-bot button[type=submit]")
    host.wait_for_selector('#host-flash:has-text("played by its person again")', timeout=TIMEOUT)
    bob.wait_for_selector('#clock-3:not(:has-text("computer"))', timeout=TIMEOUT)
    assert "seat 3 (Cy) is played by its person again" in host.inner_text("#log-list")
    assert not errors, errors


#: Lance Assembly: the squares a player places on, in this order (the first empty one each turn)
LANCE_ORDER = [f"{c}{r}" for r in range(1, 7) for c in "ABCDEF"]
LANCE_EMPTY = '#board .cell[data-board="lance-assembly"][data-coord="{}"][data-value=""]'


def test_the_host_seats_the_computer_from_the_form_and_lance_assembly_is_played_to_the_end(
        server: Server, browser: Any) -> None:
    """On the "host a match" form the host chooses "played by: the computer, normal" for seat 2
    of a one-bout Lance Assembly match and starts it; Ann plays by clicks (a placement on the
    first empty square, then Play) until the bout ends, on a phone, while the computer answers
    from the server's worker (the host uses a phone too; the form and the board's clicks at a
    desktop: start_match's host, test_lance_match.py).  Screenshots: test-artifacts/lance-bot-*.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    device = "phone"
    errors: list[str] = []
    host = browser.new_context(**VIEWPORTS[device][0]).new_page()
    host.on("pageerror", lambda error: errors.append(str(error)))
    host.goto(server.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.fill('input[name="seat1"]', "Ann")
    host.fill('input[name="seat2"]', "Robo")
    host.select_option('select[name="bot2"]', "normal")
    host.fill("#bouts", "1")
    host.screenshot(path=str(ARTIFACTS / f"lance-bot-form-{device}.png"), full_page=True)
    host.click("#create-form button[type=submit]")
    host.wait_for_url("**/h/**")
    assert "seat 2 (Robo) is played by the computer (normal)" in host.inner_text("#log-list")
    ann = browser.new_context(**VIEWPORTS[device][0]).new_page()
    ann.on("pageerror", lambda error: errors.append(str(error)))
    ann.goto(host.input_value("#seat-link-1"))
    wait_connected(host, ann)
    assert "Robo (computer, normal)" in ann.inner_text("body")
    host.click("#host-start")
    moves = 0
    for _ in range(30):
        _wait_turn_or_end(ann, server)
        if ann.locator("#status.finished").count():
            break
        coord = next((c for c in LANCE_ORDER if ann.locator(LANCE_EMPTY.format(c)).count()), None)
        assert coord is not None, "no empty square left to place on"
        version = int(ann.get_attribute("#live-meta", "data-version"))
        ann.click(LANCE_EMPTY.format(coord))
        assert ann.input_value("#move-text") == f"place {coord}"
        ann.click("#move-submit")
        ann.wait_for_function(f"+document.getElementById('live-meta').dataset.version > {version}", timeout=TIMEOUT)
        assert ann.is_hidden("#move-error"), ann.inner_text("#move-error")
        moves += 1
        if moves == 3:
            ann.screenshot(path=str(ARTIFACTS / f"lance-bot-playing-{device}.png"), full_page=True)
    ann.wait_for_selector("#status.finished", state="attached", timeout=TIMEOUT)
    log = ann.inner_text("#log-list")
    # the computer answered every one of Ann's moves but maybe the last (a lance ends the bout)
    bot_moves = len(re.findall(r"Robo \(computer, normal\)\n(place|slide|neutral)", log))
    assert moves >= 3 and bot_moves in (moves - 1, moves), log
    ann.screenshot(path=str(ARTIFACTS / f"lance-bot-end-{device}.png"), full_page=True)
    host.wait_for_selector("#status.finished", state="attached", timeout=TIMEOUT)
    assert not errors, errors


def test_the_computer_grants_a_takeback_and_declines_a_draw(server: Server, browser: Any) -> None:
    """By clicks: the player's move and the computer's reply are taken back at once when the player
    asks; a draw offer is declined at once (the player does not wait for a move to end it), the answer
    pointing to no host (nobody hosts a practice match), and the game goes on, the turn log showing
    its latest rows.  The page has no chat: nobody would read it.  On a phone (the log's box and the
    answers are drawn alike at a desktop).  Screenshot: test-artifacts/practice-answers-phone.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    device = "phone"
    options, _ = VIEWPORTS[device]
    page = browser.new_context(**options).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "/")
    page.select_option("#practice-game", "squava")
    page.select_option("#practice-strength", "easy")
    page.select_option("#practice-seat", "1")
    page.click("#practice-start")
    page.wait_for_url("**/p/*/")
    wait_connected(page)
    _wait_turn_or_end(page, server)
    page.click(EMPTY.format("C3"))
    page.click("#move-submit")
    stones = '#tc-root .pt[data-board="squava"].s1, #tc-root .pt[data-board="squava"].s2'
    page.wait_for_function(f"document.querySelectorAll('{stones}').length === 2", timeout=TIMEOUT)  # its reply
    _wait_turn_or_end(page, server)
    page.click("#ask-takeback")
    page.wait_for_selector("#log-list >> text=accepts the takeback request of seat 1", timeout=TIMEOUT)
    page.wait_for_function(f"document.querySelectorAll('{stones}').length === 0", timeout=TIMEOUT)
    _wait_turn_or_end(page, server)  # the player's turn again, on the empty board
    page.click("#offer-draw")
    page.wait_for_selector("#log-list >> text=declines the draw offer of seat 1", timeout=TIMEOUT)
    assert page.locator("#status.finished").count() == 0 and page.locator("#status.your-turn").count() == 1
    page.wait_for_selector("text=declined your draw offer.", timeout=TIMEOUT)
    assert "the host may still grant it" not in page.inner_text("body")  # nobody hosts a practice match
    # rows that came without a new board (the offer, its answer) are shown: the log follows them
    page.wait_for_function("() => { const l = document.querySelector('#log-list');"
                           " return l.scrollTop + l.clientHeight >= l.scrollHeight - 2; }", timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / f"practice-answers-{device}.png"), full_page=True)
    # no chat nobody would read: no panel, and no Chat button in the phone's top bar
    assert page.locator("#chat").count() == 0 and page.locator(".chat-toggle").count() == 0
    assert not errors, errors
