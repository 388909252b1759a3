"""Issue 25, defect 6, at 1280x800: a refused move's message is in view when it arrives, and a seat's
turn log opens scrolled to its latest rows (not to the top of the whole match), also after the
socket's first full update.  Screenshot: test-artifacts/issue25-refused-desktop.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected

pytestmark = pytest.mark.browser

IN_VIEW_JS = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"""
AT_LATEST_JS = """() => { const l = document.querySelector('#log-list');
    return l.scrollHeight > l.clientHeight && l.scrollTop + l.clientHeight >= l.scrollHeight - 2; }"""


def test_refused_move_in_view_and_log_at_latest(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    host = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    host.goto(server.url + "/")
    host.select_option("#game-select", "lance-assembly")
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    seat = host.input_value("#seat-link-1")
    host.click("#host-start")
    # a long log: the host pauses and restarts the clocks (two rows each time)
    for _ in range(8):
        host.click('button[name="action"][value="pause"]')
        host.wait_for_selector('button[name="action"][value="resume"]', timeout=TIMEOUT)
        host.click('button[name="action"][value="resume"]')
        host.wait_for_selector('button[name="action"][value="pause"]', timeout=TIMEOUT)
    ann = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    ann.goto(seat)
    wait_connected(ann)
    ann.wait_for_function(AT_LATEST_JS, timeout=TIMEOUT)
    # a refused move: its message is on screen, not below the fold
    ann.fill("#move-text", "place Z9")
    ann.click("#move-submit")
    ann.wait_for_selector("#move-error:not([hidden])", timeout=TIMEOUT)
    ann.wait_for_function(IN_VIEW_JS, arg="#move-error", timeout=TIMEOUT)
    ann.screenshot(path=str(ARTIFACTS / "issue25-refused-desktop.png"))
