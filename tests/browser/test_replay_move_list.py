"""The replay's move list keeps the current move in view (issue 41): a long Gomoku bout (36
moves, more than the list shows at once), replayed by the host on a desktop and on a phone.  The
page opens on the last move; Home, the arrow keys, and the First / Next / Last buttons step through
it (Next one step at a time on the phone), and after each the current entry lies inside the
list's visible box.  Screenshots:
test-artifacts/replay-list-<device>.png."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, replay_at, wait_connected

pytestmark = pytest.mark.browser

DEVICES: dict[str, dict[str, Any]] = {"desktop": {"viewport": {"width": 1280, "height": 900}},
           "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}
#: rows 1, 3 and 5 filled from the left, the seats alternating: no five in a row anywhere
MOVES = [f"{column}{row}" for row in (1, 3, 5) for column in "ABCDEFGHIJKLMN"][:36]

#: the current entry's box lies inside the list's visible box (and the list is shorter than its
#: entries: there is something to keep in view)
IN_VIEW_JS = """() => {
    const list = document.getElementById('replay-moves');
    const here = list.querySelector('a[aria-current]');
    const box = list.getBoundingClientRect(), at = here.getBoundingClientRect();
    return {scrolls: list.scrollHeight > list.clientHeight + 50, step: +here.dataset.step,
            inside: at.top >= box.top - 1 && at.bottom <= box.bottom + 1};
}"""


def _at(page: Any, step: int) -> None:
    replay_at(page, step)
    shown = page.evaluate(IN_VIEW_JS)
    assert shown == {"scrolls": True, "step": step, "inside": True}, (page.viewport_size, shown)


def test_the_current_move_stays_in_view_of_the_replay_list(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    match = start_match("gomoku", ["Ann", "Bob"])
    seats = {n: browser.new_context().new_page() for n in (1, 2)}
    for n, page in seats.items():
        page.goto(match.seats[n])
    wait_connected(*seats.values())
    match.start()
    for n, move in enumerate(MOVES):
        player = seats[1 + n % 2]
        player.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
        player.fill("#move-text", f"gomoku {move}")
        player.click("#move-submit")
        player.wait_for_selector("#status:not(.your-turn)", timeout=TIMEOUT)
    replay_url = match.host.url.split("#")[0].rstrip("/") + "/bouts/1/"
    last = len(MOVES)

    for device, screen in DEVICES.items():
        page = browser.new_context(**screen).new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(replay_url)
        _at(page, last)  # the replay opens on the last move: its entry is shown, not the list's top
        page.keyboard.press("Home")
        _at(page, 0)
        for _ in range(30):  # keys pressed while a step loads add up
            page.keyboard.press("ArrowRight")
        _at(page, 30)
        page.screenshot(path=str(ARTIFACTS / f"replay-list-{device}.png"))
        page.click("#replay-first")
        _at(page, 0)
        # by the Next button, one step at a time: on the phone, whose list shows fewer moves (the
        # same script keeps either list in view, as the keys above show on both)
        for step in range(1, 26 if device == "phone" else 1):
            page.click("#replay-next")
            _at(page, step)
        if device == "phone":
            page.keyboard.press("ArrowLeft")
            _at(page, 24)
        page.click("#replay-last")
        _at(page, last)
        page.context.close()
    assert not errors, errors
