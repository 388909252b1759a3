"""The Content-Security-Policy (on in production) leaves htmx and the live
pages working: a daphne with the policy enforced, a match created from the
home form, started from the dashboard (htmx posts), a move clicked by a seat
and seen live by the other seat and a spectator (websocket + out-of-band
swaps), on a desktop and a phone viewport, with no policy violation in any
console.  Waits use selectors only: the policy refuses string evaluation,
which is what Playwright's wait_for_function would need."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, cell, skip_without_browser, wait_connected

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def csp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    skip_without_browser()
    before = os.environ.get("DEATHMATCH_CSP")
    os.environ["DEATHMATCH_CSP"] = "1"  # the production policy, with debug on for the test server
    try:
        srv = Server(tmp_path_factory.mktemp("csp"))
    finally:
        if before is None:
            os.environ.pop("DEATHMATCH_CSP", None)
        else:
            os.environ["DEATHMATCH_CSP"] = before
    yield srv
    srv.stop()


def _page(browser: Any, viewport: dict[str, int], problems: list[str]) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" or "Content Security" in m.text
            else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    return page


def test_live_pages_work_under_the_content_security_policy(csp_server: Server, browser: Any,
                                                          start_match: StartMatch) -> None:
    problems: list[str] = []
    desktop, phone = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
    host = _page(browser, desktop, problems)
    response = host.goto(csp_server.url + "/")
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy
    match = start_match("lance-assembly", host=host, server=csp_server)
    links = match.seats
    p1, p2 = _page(browser, desktop, problems), _page(browser, phone, problems)
    watch = _page(browser, phone, problems)
    p1.goto(links[1])
    p2.goto(links[2])
    watch.goto(match.watch)
    wait_connected(host, p1, p2, watch)  # a selector: the policy refuses string evaluation
    host.click("#host-start")  # an htmx post; the boards arrive over the websockets
    for page in (p1, p2, watch):
        page.wait_for_selector(cell("A1"), timeout=TIMEOUT)
    p1.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    p1.click('#board .cell[data-coord="C3"]')
    p1.click("#move-submit")
    for page in (p2, watch, host):
        page.wait_for_selector(cell("C3", "R"), timeout=TIMEOUT)
    p2.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ARTIFACTS.mkdir(exist_ok=True)
    host.screenshot(path=str(Path(ARTIFACTS) / "csp-host-desktop.png"), full_page=True)
    p2.screenshot(path=str(Path(ARTIFACTS) / "csp-seat2-phone.png"), full_page=True)
    watch.screenshot(path=str(Path(ARTIFACTS) / "csp-watch-phone.png"))
    assert not [p for p in problems if "favicon" not in p], problems
