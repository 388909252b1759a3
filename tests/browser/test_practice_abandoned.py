"""A practice match its player left ends as abandoned (issue 51), in a real daphne with its
in-process clock sweeper: the player starts one by clicks, leaves its page for the home page, and
when the match has ended (the server's own sweeper, no page open for
DEATHMATCH_PRACTICE_ABANDONED_AFTER, a few seconds in this server) the seat's page says why.
Desktop (1280x800) and phone (390x844).  Screenshots: test-artifacts/practice-abandoned-*.png."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, wait_connected

pytestmark = pytest.mark.browser

VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
AFTER = "3"  # seconds with no page open, in this module's server
#: the seat's fragments (one fetch at a time, polled) say the match was abandoned
ENDED = """url => {
    if (!window.asking) {
        window.asking = true;
        fetch(url).then(r => r.text()).then(t => { window.ended = t.includes('abandoned'); window.asking = false; });
    }
    return window.ended === true;
}"""


@pytest.fixture(scope="module")
def quick_server(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own (the module's `server` fixture checks chromium and the static files)
    that abandons a practice match after AFTER seconds."""
    server.stop()
    before = os.environ.get("DEATHMATCH_PRACTICE_ABANDONED_AFTER")
    os.environ["DEATHMATCH_PRACTICE_ABANDONED_AFTER"] = AFTER
    try:
        quick = Server(tmp_path_factory.mktemp("abandoned"))  # (its environment is copied here)
    finally:
        if before is None:
            del os.environ["DEATHMATCH_PRACTICE_ABANDONED_AFTER"]
        else:
            os.environ["DEATHMATCH_PRACTICE_ABANDONED_AFTER"] = before
    yield quick
    quick.stop()


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_practice_match_left_alone_ends_as_abandoned(quick_server: Server, browser: Any, device: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(**VIEWPORTS[device])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(quick_server.url + "/")
    page.select_option("#practice-game", "squava")
    page.select_option("#practice-strength", "easy")
    page.click("#practice-start")
    page.wait_for_url("**/p/*/", timeout=TIMEOUT)
    wait_connected(page)
    seat = urlparse(page.url).path
    assert page.locator("#status.finished").count() == 0
    page.goto(quick_server.url + "/")  # the player leaves: no page of the match is open
    token = seat.strip("/").split("/")[-1]
    # the server's sweeper ends it: asked over plain HTTP (no socket: nobody is present meanwhile)
    page.wait_for_function(ENDED, arg=f"/f/{token}/", polling=250, timeout=TIMEOUT * 3)
    page.goto(quick_server.url + seat)
    wait_connected(page)
    page.wait_for_selector("#status.finished", state="attached", timeout=TIMEOUT)
    body = page.inner_text("body")
    assert "no winner — abandoned" in body and "nobody had a page of it open for 3 s" in body, body[:1500]
    assert "abandoned: nobody has had a page of this practice match open for 3 s" in page.inner_text("#log-list")
    page.screenshot(path=str(ARTIFACTS / f"practice-abandoned-{device}.png"), full_page=True)
    context.close()
    assert not errors, errors
