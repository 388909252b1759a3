"""The finished pages in headless Chromium, on a desktop (1280x800) and a
phone (390x844): the home form without JSON (garnets per seat, Back to the
Wall's board editor refusing a corner wall and a wall that cuts a corner off,
with the rules' reason), the Sliding Tic-Tac-Toe title, the split clock on a
short clock (move time first, then the reserve being spent), the Lance
Assembly pending-turn preview (ghost tiles, a slide arrow), Play reachable
without scrolling, and the end-of-match banner."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, wait_connected, watch_errors

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
BOARD = "opt-back-to-the-wall-boards"


def _in_view(page: Any, selector: str) -> bool:
    return bool(page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
             return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth; }""",
        selector))


def test_home_form_controls_replace_json(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    page = watch_errors(browser.new_context(viewport=DESKTOP).new_page(), errors)
    page.goto(server.url + "/")
    page.select_option("#game-select", "lance-assembly")
    variant = 'select[name="opt-lance-assembly-variant"]'
    assert page.locator(f"{variant} option:checked").inner_text() == "Lance Assembly"
    page.select_option(variant, "sliding-tic-tac-toe")
    assert "not refilled" in page.inner_text("#opt-lance-assembly-variant-description")

    page.select_option("#game-select", "bidding-ttt")
    assert page.is_visible('input[name="opt-bidding-ttt-garnets-1"]')
    assert page.locator('fieldset[data-game="bidding-ttt"] textarea, fieldset[data-game="bidding-ttt"] input[value="{}"]').count() == 0

    page.select_option("#game-select", "back-to-the-wall")
    once = 'fieldset[data-editor="once"]'
    page.wait_for_selector(f'{once} .pcell.corner[data-coord="A1"]', timeout=TIMEOUT)
    assert page.locator(f"{once} .pcell.wall").count() == 2  # the default B3 and E4
    # a wall on a corner is refused, with the rules' reason
    page.click(f'{once} .pcell[data-coord="F6"]')
    page.wait_for_selector(f"{once} .wall-reason.bad", timeout=TIMEOUT)
    assert "corner F6" in page.inner_text(f"{once} .wall-reason")
    assert page.input_value(f'input[name="{BOARD}-once-walls"]') == "B3, E4"
    # a wall that would cut corner A1 off: B1 is fine, then A2 is refused
    page.click(f'{once} .pcell[data-coord="B1"]')
    page.wait_for_function(f"document.querySelector('input[name=\"{BOARD}-once-walls\"]').value.includes('B1')")
    page.click(f'{once} .pcell[data-coord="A2"]')
    page.wait_for_function(f"document.querySelector('{once} .wall-reason').textContent.includes('cut a corner off')")
    assert "A2" not in page.input_value(f'input[name="{BOARD}-once-walls"]')
    page.screenshot(path=str(ARTIFACTS / "home-boards-refused.png"), full_page=True)
    # a bigger Twice gets the rules' default walls for its size
    page.select_option(f'select[name="{BOARD}-twice-size"]', "9")
    page.wait_for_function(
        "document.querySelectorAll('fieldset[data-editor=\"twice\"] .pcell').length === 81", timeout=TIMEOUT)
    page.click("button[type=submit]")
    page.wait_for_url("**/h/**")
    assert page.locator(".link-list input.link-url").count() == 6

    # a bad value typed by hand comes back marked, with the rest kept
    phone = watch_errors(browser.new_context(**PHONE).new_page(), errors)
    phone.goto(server.url + "/")
    phone.select_option("#game-select", "back-to-the-wall")
    phone.fill('input[name="seat1"]', "Wanda")
    phone.fill(f'input[name="{BOARD}-thrice-walls"]', "A1")
    phone.click("button[type=submit]")
    phone.wait_for_selector("#form-error")
    assert "corner A1" in phone.inner_text("#form-error")
    assert phone.get_attribute(f'input[name="{BOARD}-thrice-walls"]', "aria-invalid") == "true"
    assert phone.input_value('input[name="seat1"]') == "Wanda"
    phone.screenshot(path=str(ARTIFACTS / "home-error-phone.png"), full_page=True)
    # the refused form itself is answered 400 on purpose; nothing else may fail
    assert [e for e in errors if "status of 400" not in e] == [] and len(errors) <= 1, errors


def test_split_clock_preview_title_and_banner(browser: Any, start_match: StartMatch) -> None:
    errors: list[str] = []
    host = watch_errors(browser.new_context(viewport=DESKTOP).new_page(), errors)
    # a short clock: the move time runs out at once, then the reserve
    fields = {'select[name="opt-lance-assembly-variant"]': "sliding-tic-tac-toe", "#bouts": "1", "#per_move": "2",
              "#reserve": "600"}
    match = start_match("lance-assembly", ["Ann", "Bob"], fields=fields, host=host)
    assert host.inner_text("h1") == "Sliding Tic-Tac-Toe" and host.title().startswith("Sliding Tic-Tac-Toe")
    # before the start: the configured clock, not "no clock"
    assert host.locator(".clock-time.none").count() == 0
    shown = host.eval_on_selector("#clocks .seat-1 .clock-time", "el => [...el.children].filter("
                                  "c => !c.classList.contains('visually-hidden')).map(c => c.textContent).join('')")
    assert shown == "0:02 + 10:00"
    assert host.text_content("#clocks .seat-1 .clock-time") == "0:02 for the move + 10:00 reserve"
    ann = watch_errors(browser.new_context(viewport=DESKTOP).new_page(), errors)
    bob = watch_errors(browser.new_context(**PHONE).new_page(), errors)
    ann.goto(match.seats[1])
    bob.goto(match.seats[2])
    wait_connected(host, ann, bob)
    ann.evaluate("window.__alerts = []; document.addEventListener('dm:clock-alert', e => __alerts.push(e.detail.kind))")
    host.click("#host-start")
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    assert ann.title().startswith("● ")
    # the move clock counts down first, then the reserve is spent (amber)
    ann.wait_for_selector("#clocks .clock-state.spending.running + .clock.me", timeout=TIMEOUT)
    ann.wait_for_function("document.querySelector('#clocks .me .clock-reserve').textContent.startsWith('9:5')",
                          timeout=TIMEOUT)
    move, reserve = ann.inner_text("#clocks .me .clock-move"), ann.inner_text("#clocks .me .clock-reserve")
    assert move == "0:00" and reserve.startswith("9:5"), (move, reserve)
    assert ann.evaluate("getComputedStyle(document.querySelector('#clocks .me .clock-reserve')).color") == "rgb(180, 83, 9)"
    # the alerts: 10 s left on the move, then the reserve starts (the clock flashes by default)
    ann.wait_for_function("window.__alerts.includes('move10') && window.__alerts.includes('reserve')", timeout=TIMEOUT)
    ann.screenshot(path=str(ARTIFACTS / "clock-reserve-spent.png"))

    # Bob switches on the browser notification (a spy stands in for the browser's; the tab is "hidden")
    bob.evaluate("""() => { window.__notes = [];
        class Spy { constructor(title, opts) { window.__notes.push(opts.body); } }
        Spy.permission = 'granted'; Spy.requestPermission = () => Promise.resolve('granted');
        window.Notification = Spy;
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => true}); }""")
    bob.click("#alerts summary")
    bob.check('input[data-alert="notify"]')
    bob.wait_for_function("document.getElementById('notify-state').textContent.includes('Notifications on')")
    assert bob.evaluate("localStorage.getItem('dm-alert-notify')") == "1"

    # Ann: place C3; Bob previews place D3 + slide C3-D3 right 2, sees the ghost and the arrow
    ann.click('#board .cell[data-coord="C3"]')
    assert _in_view(ann, "#move-submit")  # Play below the board without scrolling
    ann.click("#move-submit")
    bob.wait_for_selector('#board .cell[data-coord="C3"][data-value="R"]', timeout=TIMEOUT)
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    bob.wait_for_function("window.__notes.length === 1", timeout=TIMEOUT)
    assert bob.evaluate("window.__notes[0]") == "Your turn: last move place C3"
    assert bob.title().startswith("● ")
    bob.click('#board .cell[data-coord="D3"]')
    bob.wait_for_selector('#board .cell.ghost.ghost-p2[data-coord="D3"]')
    bob.click('#board .cell[data-coord="C3"]')
    bob.click('#board .cell[data-coord="D3"]')
    bob.select_option("#slide-distance", "2")
    bob.click('button.dir[data-dir="right"]')
    assert bob.input_value("#move-text") == "place D3; slide C3-D3 right 2"
    bob.wait_for_selector("#board svg.move-preview .preview-line", state="attached")
    assert bob.text_content("#board svg.move-preview .preview-label") == "→2"
    assert _in_view(bob, "#move-submit") and _in_view(bob, "#move-clear")  # the sticky bar on a phone
    bob.screenshot(path=str(ARTIFACTS / "lance-preview-phone.png"))
    bob.locator("#board").screenshot(path=str(ARTIFACTS / "lance-preview-board.png"))
    bob.click("#move-submit")
    host.wait_for_selector('#board .cell[data-coord="F3"][data-value="B"]', timeout=TIMEOUT)

    # the host awards the bout (best of 1): the match-over banner on every page
    host.select_option('form:has(input[value="award"]) select[name="seat"]', "2")
    host.once("dialog", lambda dialog: dialog.accept())  # "Bout 1 goes to Bob." (issue 25)
    host.click('form:has(input[value="award"]) button[type=submit]')
    for page, text in ((bob, "You win the match — host awarded"), (ann, "Bob wins the match — host awarded")):
        page.wait_for_selector("#banner.banner-match", timeout=TIMEOUT)
        assert text in page.inner_text("#banner")
        assert "Score: Ann 0, Bob 1" in page.inner_text("#banner")
    assert _in_view(bob, "#banner .banner-head")  # scrolled into view on the phone
    ann.wait_for_function("document.getElementById('announce').textContent.includes('wins the match')", timeout=TIMEOUT)
    host.wait_for_selector("#banner.banner-match", timeout=TIMEOUT)
    # the award's notice stays only as the toast that can undo it for 30 s (issue 25)
    host.wait_for_selector("#host-flash #undo-toast", timeout=TIMEOUT)
    ann.screenshot(path=str(ARTIFACTS / "banner-match-desktop.png"))
    bob.screenshot(path=str(ARTIFACTS / "banner-match-phone.png"))
    assert not [e for e in errors if "favicon" not in e], errors
