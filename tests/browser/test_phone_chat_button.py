"""On a phone the Chat button never covers the board or its legend (issue 41: the floating button
covered the Lance Assembly legend and the edge of the Yinsh board).  Every game's seat and
spectator pages, on two phone screens, scrolled from the top to the end of the page: at no scroll
position does the button's box meet the box of the board or of anything drawn in it (legends,
facts, points).  The button still opens and closes the chat.  Screenshots:
test-artifacts/chat-button-<game>-<audience>-<width>.png."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import slugs

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser

PHONES = ({"width": 390, "height": 844}, {"width": 360, "height": 640})

#: at every scroll position of the page (a step of 60 px, and the very end): the boxes of the board
#: and of everything in it that the Chat button's box meets, as "scrollY: element"
OVERLAPS_JS = """() => {
    const button = document.querySelector('.chat-toggle');
    const parts = [document.getElementById('board'), ...document.querySelectorAll('#board *')];
    const end = document.documentElement.scrollHeight - innerHeight;
    const found = [];
    for (let y = 0; ; y = Math.min(end, y + 60)) {
        scrollTo(0, y);
        const b = button.getBoundingClientRect();
        for (const el of parts) {
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height) { continue; }
            if (r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom) {
                found.push(`${scrollY}: ${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute('class') || ''}`);
            }
        }
        if (y >= end) { break; }
    }
    scrollTo(0, 0);
    return found;
}"""


def test_the_phone_chat_button_never_covers_a_board(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    phones = [browser.new_context(viewport=size, is_mobile=True, has_touch=True).new_page() for size in PHONES]
    for page in phones:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    checked = 0
    for slug in slugs():
        match = start_match(slug)
        match.start()
        match.host.wait_for_selector("#board [data-coord], #board .facts", timeout=TIMEOUT)
        for audience, url in (("seat", match.seats[1]), ("spectator", match.watch)):
            for page in phones:
                page.goto(url)
                wait_connected(page)
                page.wait_for_selector("#board [data-coord], #board .facts, #board #hg", state="attached", timeout=TIMEOUT)
                button = page.locator(".chat-toggle")
                assert button.is_visible(), (slug, audience)
                # in reach when the page opens: at the top of the screen, not below it
                box = button.bounding_box()
                assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"]
                assert page.evaluate(OVERLAPS_JS) == [], (slug, audience, page.viewport_size)
                page.screenshot(path=str(ARTIFACTS / f"chat-button-{slug}-{audience}-{page.viewport_size['width']}.png"))
                checked += 1
        match.host.context.close()
    assert checked == len(slugs()) * 2 * len(PHONES)

    # the button in the top bar still opens the chat over the page, and closes it
    page = phones[1]
    assert page.is_hidden("#chat")
    page.click(".chat-toggle")
    page.wait_for_selector("#chat", state="visible", timeout=TIMEOUT)
    assert page.get_attribute(".chat-toggle", "aria-expanded") == "true"
    assert page.inner_text(".chat-toggle .chat-toggle-word") == "Close chat"
    page.screenshot(path=str(ARTIFACTS / "chat-button-open-360.png"))
    page.click(".chat-toggle")
    page.wait_for_selector("#chat", state="hidden", timeout=TIMEOUT)
    assert page.get_attribute(".chat-toggle", "aria-expanded") == "false"
    assert not errors, errors
