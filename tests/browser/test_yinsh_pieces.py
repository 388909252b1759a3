"""One seat's Yinsh rings and markers are told apart at a glance (issue 41): a ring is hollow (the
board shows through it) and wide, a marker solid and much smaller, on the Yinsh board alone and
inside Two Connect, on a desktop and on a phone.  Played in the browser up to a ring move that
leaves a marker (seat 1: marker on E5, ring on E8), then measured as drawn.  Screenshots:
test-artifacts/yinsh-pieces-<game>-<device>.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

RINGS = (("E5", "F6"), ("C3", "D7"), ("G4", "H8"), ("B6", "I5"), ("J8", "C7"))
#: the turns typed by seat 1 and 2 in turn: five rings each, then seat 1's ring E5 moves to E8
YINSH = [f"ring {at}" for pair in RINGS for at in pair] + ["E5-E8"]
#: the same on Two Connect: after its one-move first turn, each turn also plays Gomoku (far apart)
GOMOKU = ["A1", "A3", "C1", "C3", "E1", "E3", "G1", "G3", "I1", "I3", "K1"]
TWO_CONNECT = [f"yinsh {YINSH[0]}"] + [f"yinsh {move}; gomoku {GOMOKU[n]}" for n, move in enumerate(YINSH[1:])]

#: the drawn ring (E8) and marker (E5) of seat 1: fill, fill opacity, stroke and width on screen
PIECES_JS = """() => Object.fromEntries([['ring', 'E8', '.ring'], ['marker', 'E5', '.marker']].map(([name, at, sel]) => {
    const el = document.querySelector(`#tc-root .pt[data-board="yinsh"][data-coord="${at}"] ${sel}`);
    const style = getComputedStyle(el);
    return [name, {fill: style.fill, opacity: style.fillOpacity, stroke: style.stroke,
                   width: el.getBoundingClientRect().width}];
}))"""

#: the point a click in the middle of seat 1's ring (E8) lands on
HOLE_JS = """() => {
    const box = document.querySelector('#tc-root .pt[data-board="yinsh"][data-coord="E8"] .ring').getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return hit && hit.closest('.pt') ? hit.closest('.pt').dataset.coord : (hit ? hit.outerHTML.slice(0, 80) : null);
}"""


@pytest.mark.parametrize(("slug", "turns"), [("yinsh", YINSH), ("two-connect", TWO_CONNECT)])
def test_rings_are_hollow_and_wide_markers_solid_and_small(browser: Any, start_match: StartMatch, slug: str,
                                                           turns: list[str]) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    match = start_match(slug, ["Uli", "Vic"])
    uli, vic = browser.new_context(**DESKTOP).new_page(), browser.new_context(**PHONE).new_page()
    for page, url in ((uli, match.seats[1]), (vic, match.seats[2])):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    wait_connected(uli, vic)
    match.start()
    players = {1: uli, 2: vic}
    for n, turn in enumerate(turns):
        player = players[1 + n % 2]
        player.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
        player.fill("#move-text", turn)
        player.click("#move-submit")
        player.wait_for_selector("#status:not(.your-turn)", timeout=TIMEOUT)
        assert player.is_hidden("#move-error"), player.inner_text("#move-error")
    for device, page in (("desktop", uli), ("phone", vic)):
        page.wait_for_selector('#tc-root .pt[data-board="yinsh"][data-coord="E5"].m1', state="attached", timeout=TIMEOUT)
        tab = page.locator('#tc-root .tc-tab[data-tab="yinsh"]')  # a phone shows one of Two Connect's boards
        if tab.count() and tab.is_visible():
            tab.click()
        board = page.locator("#tc-root .tc-yinsh .tc-svg")
        board.scroll_into_view_if_needed()
        pieces = page.evaluate(PIECES_JS)
        ring, marker = pieces["ring"], pieces["marker"]
        assert ring["fill"] == "none", (device, ring)  # hollow: the board's lines show through it
        assert marker["fill"] == ring["stroke"] and marker["opacity"] == "1", (device, pieces)  # solid, the seat's colour
        assert ring["width"] >= 1.6 * marker["width"], (device, pieces)  # and much wider
        # hollow, yet a click in its hole still lands on the ring's point (not on the lines behind it)
        assert page.evaluate(HOLE_JS) == "E8", device
        board.screenshot(path=str(ARTIFACTS / f"yinsh-pieces-{slug}-{device}.png"))
    assert not errors, errors
