"""The home form does not move when its script takes over: the server draws it as home.js shows it
(the chosen game's options and seats only), so the page laid out before the script ran and after it
are one.  Without any script the form shows every game's options and seats, so any game can still
be set up.  At a desktop and a phone viewport.  Screenshots: test-artifacts/home-form-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: where the submit button is and what the form shows, as the page lays it out now
LAYOUT_JS = """() => ({
    button: document.querySelector('#create-form button[type=submit]').getBoundingClientRect().top
            + window.scrollY,
    options: [...document.querySelectorAll('.game-options')].filter(f => f.offsetParent !== null)
             .map(f => f.dataset.game),
    seats: [...document.querySelectorAll('.seat-name')].filter(s => s.offsetParent !== null).length,
    round: document.querySelector('#round-label').offsetParent !== null,
    start: document.querySelector('#starting-label').offsetParent !== null,
})"""


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_form_is_where_it_will_be_before_its_script_runs(server: Server, browser: Any, viewport: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    size = VIEWPORTS[viewport]
    bare = browser.new_context(viewport=size).new_page()
    bare.route("**/js/home.js", lambda route: route.abort())  # the page before its script runs
    bare.goto(server.url + "/")
    before = bare.evaluate(LAYOUT_JS)
    page = browser.new_context(viewport=size).new_page()
    page.goto(server.url + "/")
    page.wait_for_load_state("load")
    after = page.evaluate(LAYOUT_JS)
    assert before == after
    assert len(after["options"]) <= 1 and after["seats"] == 2 and after["start"]  # Lance Assembly: a starting seat
    page.screenshot(path=str(ARTIFACTS / f"home-form-{viewport}.png"), full_page=True)
    # the script still shows another game's options, seats and round clock when it is picked
    page.select_option("#game-select", "back-to-the-wall")
    page.locator(".game-options[data-game=back-to-the-wall]").wait_for(state="visible", timeout=TIMEOUT)
    picked = page.evaluate(LAYOUT_JS)
    assert picked["options"] == ["back-to-the-wall"] and picked["seats"] == 4 and picked["round"]
    assert not picked["start"]  # four seats order at once: nobody moves first (Game.takes_starting_seat)
    page.screenshot(path=str(ARTIFACTS / f"home-form-{viewport}-back-to-the-wall.png"), full_page=True)


def test_without_scripts_every_games_options_and_seats_show(server: Server, browser: Any) -> None:
    page = browser.new_context(viewport=VIEWPORTS["desktop"], java_script_enabled=False).new_page()
    page.goto(server.url + "/")
    options = page.locator(".game-options")
    assert options.count() > 1
    assert all(options.nth(i).is_visible() for i in range(options.count()))
    seats = page.locator(".seat-name")
    assert seats.count() == 16 and all(seats.nth(i).is_visible() for i in range(seats.count()))
    assert page.locator("#round-label").is_visible() and page.locator("#starting-label").is_visible()
