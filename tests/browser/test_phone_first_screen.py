"""Issue 56: a player opening a seat link on a phone sees the board in the first screen.

Every registered game, its seat page and its practice page (where a bot plays the other seats), on a
first visit (a fresh browser context: the turn-sound offer is shown) at 390x844 and 360x640: the top
of the board sits in the upper 60 % of the screen, every clickable board point is at least 24x24 CSS px
(WCAG 2.2 target size, AA), and nothing fixed or sticky covers the board.  The host's game's console:
its "To send" list is clear of the fixed Play bar once scrolled to.  Screenshots per game and size
(test-artifacts/phone-<slug>-<w>x<h>.png) for a person to look at."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, wait_connected

pytestmark = pytest.mark.browser

SIZES = [(390, 844), (360, 640)]

#: the board's top edge and each clickable board point's box; then, each point scrolled into view as a
#: player would (the page's scroll padding keeps it clear of the bars), whatever lies on its centre
#: instead of it: a fixed or sticky part covering it
MEASURE_JS = """() => {
  const board = document.querySelector('#board');
  const clickable = [...document.querySelectorAll('#board [data-coord]')]
    .filter(el => el.getClientRects().length && (el.tagName === 'BUTTON' || el.tagName === 'A' || el.hasAttribute('tabindex')));
  // the top of the board: its first clickable point (the playing surface, not the lines above it)
  const top = clickable.length ? Math.min(...clickable.map(el => el.getBoundingClientRect().top)) : board.getBoundingClientRect().top;
  const points = clickable.map(el => { const r = el.getBoundingClientRect(); return [el.dataset.coord, r.width, r.height]; });
  const covered = [];
  for (const el of clickable) {
    el.scrollIntoView({block: 'nearest', behavior: 'instant'});
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit && !el.contains(hit)) covered.push(el.dataset.coord + ' under ' + (hit.closest('[id]') || hit).id);
  }
  window.scrollTo({top: 0, behavior: 'instant'});
  return {top, points, covered, height: innerHeight};
}"""


def _check(page: Any, label: str, points_optional: bool = False) -> None:
    found = page.evaluate(MEASURE_JS)
    assert found["points"] or points_optional, f"{label}: no clickable board point"
    assert found["top"] <= 0.6 * found["height"], f"{label}: the board starts at y={found['top']:.0f} of {found['height']}"
    small = [p for p in found["points"] if p[1] < 24 or p[2] < 24]
    assert not small, f"{label}: board points under 24x24 px: {small[:5]}"
    assert not found["covered"], f"{label}: board points covered: {found['covered'][:5]}"


def _games() -> list[str]:
    return list(slugs())


@pytest.mark.parametrize("slug", _games())
def test_seat_page_board_in_first_screen(slug: str, browser: Any, start_match: StartMatch) -> None:
    game = get_game(slug)
    match = start_match(slug)
    match.start()
    match.host.wait_for_selector("#board [data-coord], #board .facts", timeout=TIMEOUT)
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.goto(match.seats[1])
        wait_connected(page)
        page.wait_for_selector("#board", timeout=TIMEOUT)
        if not game.host_moves:
            page.wait_for_selector("#sound-offer:not([hidden])", timeout=TIMEOUT)  # a first visit: the offer is shown
        page.screenshot(path=str(ARTIFACTS / f"phone-{slug}-{width}x{height}.png"))
        # the host's game: the answer box is the board, points come with a round
        _check(page, f"{slug} seat {width}x{height}", points_optional=game.host_moves)
        context.close()
    match.host.context.close()


@pytest.mark.parametrize("slug", [s for s in _games() if not get_game(s).host_moves])
def test_practice_page_board_in_first_screen(slug: str, browser: Any, server: Server) -> None:
    link = ""
    for width, height in SIZES:  # one practice match (a browser may run only a few), a first visit at each size
        context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
        page = context.new_page()
        if not link:
            page.goto(server.url + "/")
            page.select_option("#practice-game", slug)
            page.click("#practice-start")
            page.wait_for_url("**/p/**")
            link = page.url
        else:
            page.goto(link)
        wait_connected(page)
        page.wait_for_selector("#board [data-coord]", timeout=TIMEOUT)
        page.wait_for_selector("#sound-offer:not([hidden])", timeout=TIMEOUT)
        page.screenshot(path=str(ARTIFACTS / f"phone-practice-{slug}-{width}x{height}.png"))
        _check(page, f"{slug} practice {width}x{height}")
        context.close()


def test_host_console_to_send_clear_of_the_play_bar(browser: Any, start_match: StartMatch) -> None:
    """The host's game: the host's queue ("To send") and its remove buttons are not under the fixed bar."""
    host = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    match = start_match("custom", ["Ann", "Bob"], host=host)
    match.start()
    host.wait_for_selector("#hg-console", timeout=TIMEOUT)
    host.click('#hg-console [data-coord="P1"]')
    host.click('#hg-console [data-coord="P2"]')
    host.wait_for_selector("#hg-queue-list li >> nth=1", timeout=TIMEOUT)
    host.locator("#hg-queue-list li").last.scroll_into_view_if_needed()
    overlap = host.evaluate("""() => {
      const bar = document.querySelector('#move-row');
      if (!bar || getComputedStyle(bar).position !== 'fixed') return [];
      const b = bar.getBoundingClientRect();
      return [...document.querySelectorAll('#hg-queue-list li, #hg-queue-list li button')].filter(el => {
        const r = el.getBoundingClientRect();
        return r.bottom > b.top && r.top < b.bottom && r.top < innerHeight;
      }).map(el => el.textContent.trim());
    }""")
    host.screenshot(path=str(ARTIFACTS / "phone-host-custom-queue.png"))
    assert not overlap, f"under the fixed bar: {overlap}"


def test_home_checkboxes_render_as_boxes(browser: Any, server: Server) -> None:
    """The "Charge network lag" checkbox (and every other on the home page) is a square box, not
    the small circle the text fields' padding and rounded corners made of it."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(server.url + "/")
    page.locator("#no-lag-comp").scroll_into_view_if_needed()
    boxes = page.eval_on_selector_all('input[type="checkbox"]', """els => els.filter(el => el.getClientRects().length)
        .map(el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
                     return [el.id, r.width, r.height, parseFloat(s.borderTopLeftRadius), parseFloat(s.paddingLeft)]; })""")
    assert any(b[0] == "no-lag-comp" for b in boxes)
    page.screenshot(path=str(ARTIFACTS / "home-checkbox-390x844.png"))
    for name, width, height, radius, padding in boxes:
        assert abs(width - height) < 1 and width >= 16 and radius < width / 4 and padding == 0, name
    page.context.close()


@pytest.mark.parametrize("link", ["seat", "host"])
def test_nothing_added_after_load_moves_the_page(link: str, browser: Any, start_match: StartMatch) -> None:
    """No layout shift from what the scripts add (issue 56): the page under the top bar starts where
    it does without JavaScript, so the Chat button chat.js puts in the bar has its room reserved."""
    match = start_match("grid-master")
    match.start()
    url = match.seats[1] if link == "seat" else match.host.url
    tops = []
    for scripts in (False, True):
        context = browser.new_context(viewport={"width": 412, "height": 823}, is_mobile=True, java_script_enabled=scripts)
        page = context.new_page()
        page.goto(url)
        if scripts:
            wait_connected(page)
            page.wait_for_selector(".chat-toggle", state="visible", timeout=TIMEOUT)
        tops.append(page.evaluate("document.querySelector('main').getBoundingClientRect().top"))
        context.close()
    assert tops[0] == tops[1], f"main moves from y={tops[0]} to y={tops[1]} once the scripts run"
    match.host.context.close()
