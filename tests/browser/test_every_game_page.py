"""Every registered game, played by clicks in a real browser: created on the home page, started by
the host, seat 1's first move clicked at a desktop (the clicks compose its text in the move box),
and every page live: the host's, seat 1's, seat 2's on a phone (390x844) and a spectator's show it
without a reload, with no script error.  Seat 1's link is opened on a small phone too once the match
is on, a first visit: its board is in the first screen (issue 56, test_phone_first_screen.py's
`first_screen`), and it follows the move live.  The clicks per game are tests/browser/flows.py's.
Screenshots: test-artifacts/game-<slug>.png (seat 1), game-<slug>-phone.png (seat 2) and
phone-<slug>-360x640.png (seat 1's first screen)."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected, watch_errors
from .flows import FLOWS
from .test_phone_first_screen import PHONE as SMALL_PHONE
from .test_phone_first_screen import first_screen

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


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
    match.start()
    pages[1].wait_for_selector("#board", timeout=TIMEOUT)
    host.wait_for_selector("#board [data-coord], #board .facts", timeout=TIMEOUT)
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
