"""Grid Master smoke flow in headless Chromium: created on the home page,
played by clicking (place, then pick a symbol and its destination), with a
server crash in the middle: the pages reconnect by themselves and catch up."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import (
    ARTIFACTS,
    TIMEOUT,
    Server,
    StartMatch,
    cell,
    click_cells,
    same_as_fresh,
    submit_and_wait,
    wait_connected,
)

pytestmark = pytest.mark.browser


def test_grid_master_by_clicking_survives_a_server_restart(server: Server, browser: Any,
                                                          start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    match = start_match("grid-master", ["Xena", "Otto"], host=browser.new_context().new_page())
    host = match.host
    x = browser.new_context().new_page()
    o = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
    watch = browser.new_context().new_page()
    x.goto(match.seats[1])
    o.goto(match.seats[2])
    watch.goto(match.watch)
    pages = [host, x, o, watch]
    wait_connected(*pages)
    host.click("#host-start")
    x.wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    click_cells(x, "A1")
    assert x.input_value("#move-text") == "place A1"
    submit_and_wait(x, pages, cell("A1", "X"))
    click_cells(o, "B2")
    submit_and_wait(o, pages, cell("B2", "O"))

    # the server dies and comes back: every page reconnects by itself
    server.restart()
    wait_connected(*pages, timeout=20_000)

    # X: place C1, then reposition the first symbol A1 one square down
    click_cells(x, "C1", "A1", "A2")
    assert x.input_value("#move-text") == "place C1; move A1 down 1"
    submit_and_wait(x, pages, cell("A2", "X"))
    for page in pages:
        page.wait_for_selector(cell("A1", ""), timeout=TIMEOUT)
        page.wait_for_selector("#board .cell.last", timeout=TIMEOUT)
    o.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    # the spectator's page, kept up by parts of the board, is what a fresh load draws
    same_as_fresh(browser, watch, host.input_value("#watch-link"), clocks=2)
    # a page that missed a version refetches its fragments over http (htmx GET, swapped out of band)
    watch.evaluate("document.getElementById('status').textContent = 'stale'")
    watch.evaluate("window.dmRefetch()")
    watch.wait_for_function("document.getElementById('status').textContent.includes('to move')", timeout=TIMEOUT)
    o.screenshot(path=str(ARTIFACTS / "grid-master-phone.png"), full_page=True)
    watch.screenshot(path=str(ARTIFACTS / "grid-master-spectator.png"), full_page=True)
