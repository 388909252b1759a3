"""Issue 56: a player opening a seat link on a phone sees the board in the first screen.

Every registered game's practice page (where a bot plays the other seats) on a first visit (a fresh
browser context: the turn-sound offer is shown) at 360x640: the top of the board sits in the upper
60 % of the screen, every clickable board point is at least 24x24 CSS px (WCAG 2.2 target size, AA),
and nothing fixed or sticky covers the board.  Each game's seat page is measured the same way by
test_every_game_page.py (`first_screen`, on the match it plays).  360x640 bounds the larger phones
(390x844): no style changes between the two widths, and every measure is harder on the smaller
screen.  The host's game's console: its "To send" list is clear of the fixed Play bar once scrolled
to.  Screenshots per game (test-artifacts/phone-<slug>-360x640.png) for a person to look at."""

from __future__ import annotations

from typing import Any

import pytest

from games.registry import get_game, slugs

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, wait_connected

pytestmark = pytest.mark.browser

#: the smallest common phone screen
PHONE = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True}

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


def first_screen(page: Any, label: str, points_optional: bool = False) -> None:
    """The board starts in the upper 60 % of `page`, its clickable points are 24x24 px or more, none covered."""
    found = page.evaluate(MEASURE_JS)
    assert found["points"] or points_optional, f"{label}: no clickable board point"
    assert found["top"] <= 0.6 * found["height"], f"{label}: the board starts at y={found['top']:.0f} of {found['height']}"
    small = [p for p in found["points"] if p[1] < 24 or p[2] < 24]
    assert not small, f"{label}: board points under 24x24 px: {small[:5]}"
    assert not found["covered"], f"{label}: board points covered: {found['covered'][:5]}"


def _games() -> list[str]:
    return list(slugs())


@pytest.mark.parametrize("slug", [s for s in _games() if not get_game(s).host_moves])
def test_practice_page_board_in_first_screen(slug: str, browser: Any, server: Server) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    started = browser.new_context(**PHONE).new_page()
    started.goto(server.url + "/")
    started.select_option("#practice-game", slug)
    started.click("#practice-start")
    started.wait_for_url("**/p/**")
    started.context.close()
    context = browser.new_context(**PHONE)  # the seat link opened on a first visit
    page = context.new_page()
    page.goto(started.url)
    wait_connected(page)
    page.wait_for_selector("#board [data-coord]", timeout=TIMEOUT)
    page.wait_for_selector("#sound-offer:not([hidden])", timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / f"phone-practice-{slug}-360x640.png"))
    first_screen(page, f"{slug} practice 360x640")
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


def test_nothing_added_after_load_moves_the_page(browser: Any, start_match: StartMatch) -> None:
    """No layout shift from what the scripts add (issue 56), on a seat's page and the host's: the
    page under the top bar starts where it does without JavaScript, so the Chat button chat.js puts
    in the bar has its room reserved."""
    match = start_match("grid-master")
    match.start()
    for link, url in (("seat", match.seats[1]), ("host", match.host.url)):
        tops = []
        for scripts in (False, True):
            context = browser.new_context(viewport={"width": 412, "height": 823}, is_mobile=True,
                                          java_script_enabled=scripts)
            page = context.new_page()
            page.goto(url)
            if scripts:
                wait_connected(page)
                page.wait_for_selector(".chat-toggle", state="visible", timeout=TIMEOUT)
            tops.append(page.evaluate("document.querySelector('main').getBoundingClientRect().top"))
            context.close()
        assert tops[0] == tops[1], f"{link}: main moves from y={tops[0]} to y={tops[1]} once the scripts run"
    match.host.context.close()
