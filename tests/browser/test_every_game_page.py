"""Every registered game, played by clicks in a real browser: created on the home page, started by
the host, seat 1's first move clicked at a desktop (the clicks compose its text in the move box),
and every page live: the host's, seat 1's, seat 2's on a phone (390x844) and a spectator's show it
without a reload, with no script error.  Seat 1's link is opened on a small phone too once the match
is on, a first visit: its board is in the first screen (issue 56, test_phone_first_screen.py's
`first_screen`), and it follows the move live; so does a spectator on the small phone.

On the three phone pages (seat 2 at 390x844, seat 1 and the spectator at 360x640) the Chat button
never covers the board (issue 41: the floating button covered the Lance Assembly legend and the
edge of the Yinsh board): it is in the first screen, and at no scroll position from the top to
the end of the page does its box meet the box of the board or of anything drawn in it (legends,
facts, points).  It opens and closes the chat over the page.

axe-core finds no serious or critical violation on the host's page (also before the start, for a
setup page of each seat count: Lance Assembly, Back to the Wall), seat 1's and the spectator's at
a desktop, and on the phones for Lance Assembly, Two Connect and Back to the Wall (test_accessibility.py
checks the pages that are not a game's).

The clicks per game are tests/browser/flows.py's.  Screenshots: test-artifacts/game-<slug>.png
(seat 1), game-<slug>-phone.png (seat 2), phone-<slug>-360x640.png (seat 1's first screen),
chat-button-<slug>-<audience>-<width>.png and chat-button-open-<slug>-360.png."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, serious_axe, wait_connected, watch_errors
from .flows import FLOWS
from .test_phone_first_screen import PHONE as SMALL_PHONE
from .test_phone_first_screen import first_screen

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: axe on the host's page before the start: one setup page per seat count (the rest is shared)
AXE_BEFORE_START = ("lance-assembly", "back-to-the-wall")
#: axe on the phone pages: one column, the move bar at the bottom, the boards behind tabs
AXE_ON_PHONES = ("lance-assembly", "two-connect", "back-to-the-wall")

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


def chat_button_clear_of_the_board(page: Any, label: str) -> None:
    """The page's Chat button is shown in the first screen and meets the board at no scroll position."""
    page.wait_for_selector("#board [data-coord], #board .facts, #board #hg", state="attached", timeout=TIMEOUT)
    button = page.locator(".chat-toggle")
    assert button.is_visible(), label
    box = button.bounding_box()  # in reach when the page opens: at the top of the screen, not below it
    assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"], label
    assert page.evaluate(OVERLAPS_JS) == [], label


def test_every_registered_game_has_a_flow() -> None:
    assert set(FLOWS) == set(slugs())


@pytest.mark.parametrize("slug", sorted(FLOWS))
def test_every_game_is_played_by_clicks_live_on_every_page(slug: str, browser: Any,
                                                           start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    flow = FLOWS[slug]
    errors: list[str] = []
    host = browser.new_context(**DESKTOP).new_page()
    watch_errors(host, errors)
    host.on("dialog", lambda dialog: dialog.accept())  # "Resolve this round now?"
    match = start_match(slug, host=host, fields=dict(flow.fields))
    assert len(match.seats) == get_game(slug).seat_count({"seats": 2} if flow.fields else None)
    assert host.locator(".link-list input.link-url").count() == len(match.seats) + 2
    pages: dict[int | str, Any] = {"host": host}
    for who, url, device in ((1, match.seats[1], DESKTOP), (2, match.seats[2], PHONE), ("watch", match.watch, DESKTOP)):
        pages[who] = browser.new_context(**device).new_page()
        watch_errors(pages[who], errors)
        pages[who].goto(url)
    wait_connected(*pages.values())
    axe: dict[str, list[str]] = {}
    if slug in AXE_BEFORE_START:
        axe["host before the start"] = serious_axe(host)
    match.start()
    pages[1].wait_for_selector("#board", timeout=TIMEOUT)
    host.wait_for_selector("#board [data-coord], #board .facts", timeout=TIMEOUT)
    pages["watch"].wait_for_selector("#board", timeout=TIMEOUT)
    for who in ("host", 1, "watch"):
        axe[str(who)] = serious_axe(pages[who])
    host_moves = get_game(slug).host_moves
    first = browser.new_context(**SMALL_PHONE).new_page()
    watch_errors(first, errors)
    first.goto(match.seats[1])
    wait_connected(first)
    first.wait_for_selector("#board", timeout=TIMEOUT)
    if not host_moves:
        first.wait_for_selector("#sound-offer:not([hidden])", timeout=TIMEOUT)  # a first visit: the offer is shown
    first.screenshot(path=str(ARTIFACTS / f"phone-{slug}-360x640.png"))
    # the host's game: the answer box is the board, points come with a round
    first_screen(first, f"{slug} seat 360x640", points_optional=host_moves)
    pages["first"] = first
    pages["watch-phone"] = watch_phone = browser.new_context(**SMALL_PHONE).new_page()
    watch_errors(watch_phone, errors)
    watch_phone.goto(match.watch)
    wait_connected(watch_phone)
    for audience, page in (("seat", pages[2]), ("seat", first), ("spectator", watch_phone)):
        width = page.viewport_size["width"]
        chat_button_clear_of_the_board(page, f"{slug} {audience} {width}")
        page.screenshot(path=str(ARTIFACTS / f"chat-button-{slug}-{audience}-{width}.png"))
    # the button in the top bar opens the chat over the page, and closes it
    assert watch_phone.is_hidden("#chat")
    watch_phone.click(".chat-toggle")
    watch_phone.wait_for_selector("#chat", state="visible", timeout=TIMEOUT)
    assert watch_phone.get_attribute(".chat-toggle", "aria-expanded") == "true"
    assert watch_phone.inner_text(".chat-toggle .chat-toggle-word") == "Close chat"
    watch_phone.screenshot(path=str(ARTIFACTS / f"chat-button-open-{slug}-360.png"))
    watch_phone.click(".chat-toggle")
    watch_phone.wait_for_selector("#chat", state="hidden", timeout=TIMEOUT)
    assert watch_phone.get_attribute(".chat-toggle", "aria-expanded") == "false"
    if slug in AXE_ON_PHONES:
        axe["seat 2 on a phone"] = serious_axe(pages[2])
        axe["spectator on a phone"] = serious_axe(watch_phone)
    assert not {name: lines for name, lines in axe.items() if lines}, (slug, axe)
    for turn in flow.turns:
        page = pages[turn.by]
        for kind, selector, *value in turn.acts:
            if kind == "click":
                page.click(selector)
            elif kind == "fill":
                page.fill(selector, value[0])
            else:
                page.select_option(selector, value[0])
        if turn.text is not None:
            assert page.input_value("#move-text") == turn.text
        if turn.send:
            page.click(turn.send)
        if turn.after:
            page.wait_for_selector(turn.after, timeout=TIMEOUT)
            # every page holds that version before anyone acts on it (a host form carries it)
            version = page.get_attribute("#live-meta", "data-version")
            for other in pages.values():
                other.wait_for_selector(f'#live-meta[data-version="{version}"]', state="attached", timeout=TIMEOUT)
    for page in pages.values():
        page.wait_for_selector(flow.shown, state="attached", timeout=TIMEOUT)
    pages[1].screenshot(path=str(ARTIFACTS / f"game-{slug}.png"), full_page=True)
    pages[2].screenshot(path=str(ARTIFACTS / f"game-{slug}-phone.png"), full_page=True)
    assert not errors, errors
