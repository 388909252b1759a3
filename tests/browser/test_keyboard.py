"""Grid Master played to a win by keyboard alone, in headless Chromium: Tab
reaches the board, arrow keys move the focus between squares by where they
are drawn (static/js/keys.js, generic over every board), Enter picks a
square, Tab reaches Play.  X on a desktop, O on a phone.  The corners are
lit on the first move and the symbol that must move on each player's second
turn; every cell has a spoken label; the end banner names the winner and
why."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, cell, wait_connected

pytestmark = pytest.mark.browser

_FOCUSED = "document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.coord || '' : ''"
_STEPS = {(0, -1): "ArrowUp", (0, 1): "ArrowDown", (-1, 0): "ArrowLeft", (1, 0): "ArrowRight"}


def _tab_until(page: Any, test: str, shift: bool = False, limit: int = 80) -> None:
    for _ in range(limit):
        if page.evaluate(test):
            return
        page.keyboard.press("Shift+Tab" if shift else "Tab")
    raise AssertionError(f"Tab never reached {test}")


def _to_board(page: Any) -> None:
    _tab_until(page, "!!(document.activeElement && document.activeElement.closest('#board .cell'))", shift=True)


def _pick(page: Any, coord: str) -> None:
    """Walk the focus to `coord` with the arrow keys only, then press Enter."""
    for _ in range(10):
        here = page.evaluate(_FOCUSED)
        if here == coord:
            page.keyboard.press("Enter")
            return
        dx = (ord(coord[0]) > ord(here[0])) - (ord(coord[0]) < ord(here[0]))
        dy = 0 if dx else (int(coord[1:]) > int(here[1:])) - (int(coord[1:]) < int(here[1:]))
        page.keyboard.press(_STEPS[(dx, dy)])
    raise AssertionError(f"the arrows never reached {coord} (at {page.evaluate(_FOCUSED)})")


def _play(page: Any, pages: list[Any], coords: list[str], text: str, expect: str, value: str) -> None:
    _to_board(page)
    for coord in coords:
        _pick(page, coord)
    assert page.input_value("#move-text") == text
    _tab_until(page, "document.activeElement && document.activeElement.id === 'move-submit'")
    page.keyboard.press("Enter")
    for other in pages:
        other.wait_for_selector(cell(expect, value), timeout=TIMEOUT)


def test_grid_master_won_by_keyboard_alone(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    match = start_match("grid-master", ["Xena", "Otto"])
    host = match.host
    x = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    o = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    for page in (x, o):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    x.goto(match.seats[1])
    o.goto(match.seats[2])
    pages = [host, x, o]
    wait_connected(*pages)
    host.click("#host-start")
    x.wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    # the first move goes on a corner: the four corners are lit and say so
    assert sorted(x.eval_on_selector_all("#board .cell.hint", "els => els.map(e => e.dataset.coord)")) == \
        ["A1", "A3", "C1", "C3"]
    assert x.get_attribute('#board .cell[data-coord="A1"]', "aria-label") == \
        "A1, empty, corner: the first move goes on a corner"
    # one tab stop for the whole board (a roving tabindex)
    assert x.locator('#board .cell[tabindex="0"]').count() == 1
    x.keyboard.press("Tab")
    _tab_until(x, "!!(document.activeElement && document.activeElement.closest('#board .cell'))")
    x.screenshot(path=str(ARTIFACTS / "keyboard-corners.png"))
    _play(x, pages, ["A1"], "place A1", "A1", "X")
    o.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    _play(o, pages, ["B1"], "place B1", "B1", "O")

    # X's second turn: the first symbol (A1) must move, and is lit
    x.wait_for_selector('#board .cell.hint[data-coord="A1"]', timeout=TIMEOUT)
    assert "must be moved this turn" in x.get_attribute('#board .cell[data-coord="A1"]', "aria-label")
    assert x.locator("#board .cell.hint").count() == 1
    x.locator("#board").screenshot(path=str(ARTIFACTS / "keyboard-must-move.png"))
    _play(x, pages, ["C1", "A1", "A2"], "place C1; move A1 down 1", "A2", "X")
    o.wait_for_selector('#board .cell.hint[data-coord="B1"]', timeout=TIMEOUT)
    _play(o, pages, ["A1", "B1", "B3"], "place A1; move B1 down 2", "B3", "O")
    # X wins: place B2, move C1 down to C2 -> A2 B2 C2
    x.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    _play(x, pages, ["B2", "C1", "C2"], "place B2; move C1 down 1", "C2", "X")

    for page, headline in ((x, "You win the match — three in a row"), (o, "Xena wins the match — three in a row"),
                           (host, "Xena wins the match — three in a row")):
        page.wait_for_selector("#banner.banner-match", timeout=TIMEOUT)
        assert headline in page.inner_text("#banner")
    assert x.get_attribute('#board .cell[data-coord="B2"]', "aria-label") == "B2, your X, last move, winning line"
    x.wait_for_function("document.getElementById('announce').textContent.includes('win the match')", timeout=TIMEOUT)
    x.screenshot(path=str(ARTIFACTS / "keyboard-win-desktop.png"))
    o.screenshot(path=str(ARTIFACTS / "keyboard-win-phone.png"), full_page=True)
    assert not errors, errors


def test_arrow_keys_walk_the_yinsh_lattice_and_enter_composes_once(browser: Any, start_match: StartMatch) -> None:
    """keys.js knows no game: on Two Connect's SVG Yinsh points it steps to the
    drawn neighbour, and Enter (handled by the game's own script there) adds
    the point to the move once, not twice."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    match = start_match("two-connect", host=page)
    seat = match.seats[1]
    match.start()
    page.goto(seat)
    wait_connected(page)
    page.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    point = '[data-board="yinsh"][data-coord="E5"]'
    page.focus(point)
    start = page.eval_on_selector(point, "el => el.getBoundingClientRect().x")
    page.keyboard.press("ArrowRight")
    moved = page.evaluate("[document.activeElement.dataset.board, document.activeElement.dataset.coord,"
                          " document.activeElement.getBoundingClientRect().x]")
    assert moved[0] == "yinsh" and moved[1] != "E5" and moved[2] > start, moved
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(_FOCUSED) == "E5"
    page.keyboard.press("Enter")
    text = page.input_value("#move-text")
    assert text.lower().count("e5") == 1, text
    assert not errors, errors
