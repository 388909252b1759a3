"""A live update merges into the page (idiomorph, static/js/live.js): what a user is typing stays.

The board of the host's game has no live parts: every update sends it whole.  It used to replace
the page's board, and the answer box with it: a seat typing its answer when another seat answered
lost the focus, and what it typed next went nowhere.  Now the board is merged into the page's,
the box stays where it is, focused, with its text and caret.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import TIMEOUT, StartMatch, wait_connected
from .test_custom_match import _create, _open_round, _send

pytestmark = pytest.mark.browser


def test_a_seat_typing_its_answer_keeps_typing_through_another_seats_answer(start_match: StartMatch, browser: Any) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    host = context.new_page()
    links, _ = _create(start_match, host, ["Ann", "Bob"])
    ann, bob = context.new_page(), context.new_page()
    for page, link in ((ann, links[1]), (bob, links[2])):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(link)
    wait_connected(host, ann, bob)
    host.click("#host-start")
    host.wait_for_selector("#move-text", timeout=TIMEOUT)
    _open_round(host, "Your secret word", "text", expect='round "Your secret word" text')
    for page in (ann, bob):
        page.wait_for_selector("#hg-free", timeout=TIMEOUT)
    ann.click("#hg-free")
    ann.keyboard.type("marma")
    bob.fill("#hg-free", "lantern")
    _send(bob, 'round 1 answer "lantern"')
    # Ann's board is drawn again (Bob has answered) while she types
    ann.wait_for_selector("#hg-who .hg-seat.answered >> text=Bob", timeout=TIMEOUT)
    ann.keyboard.type("lade")
    assert ann.input_value("#hg-free") == "marmalade"
    assert ann.evaluate("document.activeElement.id") == "hg-free"
    assert not errors, errors
    context.close()
