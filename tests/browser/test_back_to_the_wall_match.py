"""Back to the Wall end to end in headless Chromium: four players (two on phone-sized
screens), the host and a spectator on a live daphne.

Three rounds of orders are built by clicks only (walls on squares, three
arrows per piece, a garnet toggle); in round 2 the host enters one seat's
orders with the same builder.  After every round each page steps through
the round's replay, and its last frame must be the board the server shows.
The final standings must match Result.scores of the same orders replayed by
the rules.  Every page's HTML and every websocket frame is checked: no
seat's orders reach another audience before their round resolves, and no
garnet spend before the match ends.  Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.back_to_the_wall.rules import BackToTheWall
from games.core import HOST

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, same_as_fresh, wait_connected

pytestmark = pytest.mark.browser

BOARDS = ("once", "twice", "thrice")
DIRS = ("up", "right", "down", "left")
ARROWS = {"up": "↑", "right": "→", "down": "↓", "left": "←"}
NAMES = ("Ann", "Bob", "Cy", "Di")
PHONE = {2, 4}
#: who spends a garnet where (round, seat) -> board
SPENDS = {(1, 1): "twice", (3, 3): "thrice"}


def _collect(page: Any, frames: list[str], errors: list[str]) -> None:
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console", lambda m: errors.append(m.text) if m.type == "error" and "favicon" not in m.text else None
    )
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))


def _pick_walls(page: Any, board: str, count: int, rng: random.Random) -> list[str]:
    """Squares the page offers for a wall (no data-why), not adjacent to each other."""
    offered = page.evaluate(
        """(b) => Array.from(document.querySelectorAll(`#bttw .sq[data-board="${b}"]:not([data-why])`))
                 .map(q => [q.dataset.coord, (q.dataset.near || '').split(' ')])""",
        board,
    )
    rng.shuffle(offered)
    chosen: list[str] = []
    for coord, near in offered:
        if len(chosen) == count:
            break
        if not any(c in near for c in chosen):
            chosen.append(coord)
    return chosen


def _build(page: Any, seat: int, round_no: int, rng: random.Random, phone: bool, box: str) -> str:
    """Click a whole order for `seat` together; return the notation the builder composed."""
    parts: list[str] = []
    for index, board in enumerate(BOARDS):
        if phone:
            page.click(f"#bttw-tab-{board}")
        walls = _pick_walls(page, board, rng.randint(0, index + 1), rng)
        for coord in walls:
            page.click(f'#bttw .sq[data-board="{board}"][data-coord="{coord}"]')
            parts.append(f"{board} wall {coord}")
        for number in range(1, round_no + 1):
            dirs = [rng.choice(DIRS) for _ in range(3)]
            row = f'.bttw-build[data-for="{board}"] .bttw-piece[data-seat="{seat}"][data-number="{number}"]'
            for d in dirs:
                page.click(f'{row} .bttw-arrow[data-dir="{d}"]')
            assert page.inner_text(f"{row} .bttw-dirs") == " ".join(ARROWS[d] for d in dirs)
            parts.append(f"{board} piece {number} {' '.join(dirs)}")
        if SPENDS.get((round_no, seat)) == board:
            page.click(f'.bttw-garnet[data-for="{board}"]')
            parts.append(f"{board} garnet")
    text = "; ".join(parts)
    assert page.input_value(box) == text
    return text


def _wait_all(pages: dict[str, Any], selector: str) -> None:
    for page in pages.values():
        page.wait_for_selector(selector, timeout=TIMEOUT, state="attached")


def _step_through_replay(page: Any, round_no: int) -> None:
    """Play the round's replay step by step; its end must be the board the server draws now."""
    live = page.evaluate("""() => Array.from(document.querySelectorAll('#bttw .sq')).map(q =>
        q.dataset.board + q.dataset.coord + ':' + q.className.replace(/ (ghost|flagged|pv\\w*)/g, '') +
        ':' + q.querySelectorAll('.tok').length)""")
    page.select_option("#bttw-replay-round", str(round_no))
    page.click("#bttw-replay-first")
    assert page.inner_text("#bttw-tick").startswith(f"Round {round_no}: the boards as the round started")
    page.click("#bttw-replay-next")
    assert "walls added" in page.inner_text("#bttw-tick")
    page.click("#bttw-replay-next")
    assert "phase 1 (first directions), tick 1" in page.inner_text("#bttw-tick")
    assert page.locator(".bttw-why li.now").count() > 0
    page.click("#bttw-replay-last")
    end = page.evaluate("""() => Array.from(document.querySelectorAll('#bttw .sq')).map(q =>
        q.dataset.board + q.dataset.coord + ':' + q.className.replace(/ (cap|contest|dropped)/g, '') +
        ':' + q.querySelectorAll('.tok').length)""")
    assert end == live
    page.click("#bttw-replay-close")


def _leaks(text: str, markers: list[str]) -> list[str]:
    return [m for m in markers if m in text]


def test_four_players_click_three_rounds_watch_each_replay_and_read_the_standings(
    browser: Any, start_match: StartMatch
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    frames: dict[str, list[str]] = {}
    contexts: dict[str, dict[str, Any]] = {
        "host": {"viewport": {"width": 1280, "height": 800}},
        "watch": {"viewport": {"width": 1280, "height": 800}},
    }
    for seat in (1, 2, 3, 4):
        if seat in PHONE:
            contexts[str(seat)] = {
                "viewport": {"width": 390, "height": 844},
                "is_mobile": True,
                "has_touch": True,
            }
        else:
            contexts[str(seat)] = {"viewport": {"width": 1280, "height": 800}}
    pages = {}
    for name, options in contexts.items():
        pages[name] = browser.new_context(**options).new_page()
        frames[name] = []
        _collect(pages[name], frames[name], errors)
    host = pages["host"]
    garnets = {f'input[name="opt-back-to-the-wall-garnets-{n}"]': "1" for n in (1, 2, 3, 4)}  # one each to spend
    match = start_match("back-to-the-wall", NAMES, fields=garnets, host=host)
    links = {**{str(n): url for n, url in match.seats.items()}, "watch": match.watch}
    for name, url in links.items():
        pages[name].goto(url)
    wait_connected(*pages.values())
    host.click("#host-start")
    _wait_all(pages, '#bttw .sq[data-board="thrice"][data-coord="H8"]')
    # no page falls back to the generic grid renderer
    for page in pages.values():
        assert page.locator("#board .cell").count() == 0
        assert page.locator("#bttw .sq").count() == 36 + 49 + 64

    game = BackToTheWall()
    state = game.new({"garnets": {"1": 1, "2": 1, "3": 1, "4": 1}})
    rng = random.Random(9)
    orders: dict[int, dict[int, str]] = {}
    for round_no in (1, 2, 3):
        orders[round_no] = {}
        for seat in (1, 2, 3, 4):
            by_host = round_no == 2 and seat == 4
            page = host if by_host else pages[str(seat)]
            if by_host:
                host.select_option("#bttw-host-seat", "4")
                text = _build(host, 4, round_no, rng, False, "#bttw-host-text")
            else:
                text = _build(page, seat, round_no, rng, seat in PHONE, "#move-text")
            if round_no == 1 and seat == 1:
                page.screenshot(path=str(ARTIFACTS / "bttw-builder-desktop.png"), full_page=True)
            if round_no == 3 and seat == 2:
                page.screenshot(path=str(ARTIFACTS / "bttw-builder-phone.png"), full_page=True)
            if by_host:
                host.screenshot(path=str(ARTIFACTS / "bttw-host-enters-orders.png"), full_page=True)
                host.click("#bttw-host-submit")
            else:
                page.click("#move-submit")
            orders[round_no][seat] = text
            state = game.play(state, seat, text)
            if seat < 4:
                # the host sees the pending orders per board; the seat sees its own; everyone sees who is in
                host.wait_for_selector(
                    f'.bttw-pending tr[data-seat="{seat}"] td:not([colspan])', timeout=TIMEOUT
                )
                pages["watch"].wait_for_selector(
                    f".bttw-submitted li.done >> text={NAMES[seat - 1]}", timeout=TIMEOUT
                )
        if round_no < 3:
            _wait_all(pages, f'#bttw-replay-round option[value="{round_no}"]')
            _wait_all(pages, f".bttw-round >> text=Round {round_no + 1} of 3")
            if round_no == 1:  # the spectator's page, kept up by parts, is what a fresh load draws
                same_as_fresh(browser, pages["watch"], links["watch"], clocks=4)
        else:
            _wait_all(pages, "#bttw-standings")
        # every page steps through round 1; later rounds, a desktop and a phone page
        for name, page in pages.items():
            if round_no == 1 or name in ("watch", str(round_no + 1)):
                _step_through_replay(page, round_no)
        if round_no == 1:
            watch = pages["watch"]
            watch.select_option("#bttw-replay-round", "1")
            watch.click("#bttw-replay-first")
            for _ in range(4):
                watch.click("#bttw-replay-next")
            watch.evaluate("document.querySelectorAll('.bttw-why').forEach(d => d.open = true)")
            watch.screenshot(path=str(ARTIFACTS / "bttw-replay-desktop.png"), full_page=True)
            di = pages["4"]
            di.click("#bttw-tab-thrice")
            di.click("#bttw-replay-first")
            for _ in range(3):
                di.click("#bttw-replay-next")
            di.screenshot(path=str(ARTIFACTS / "bttw-replay-phone.png"), full_page=True)
            watch.click("#bttw-replay-close")
            di.click("#bttw-replay-close")

    # the final standings are the rules' result for the same orders
    result = game.result(state)
    assert result is not None
    for page in pages.values():
        shown = {
            int(r.get_attribute("data-seat")): float(r.locator("td.pts").get_attribute("data-points"))
            for r in page.locator(".bttw-totals tbody tr").all()
        }
        assert shown == result.scores
        first = [NAMES[s - 1] for s in sorted(result.winners)]
        assert page.inner_text(".award.token b") == " and ".join(first)
        for seat in (1, 2, 3, 4):
            header = page.inner_text(f"#score .score-seat.seat-{seat} b")
            assert header == f"{result.scores[seat]:g} pts"
    final = game.public_view(state)["final"]
    watch = pages["watch"]
    # garnet spends are revealed now, on every page
    assert "spent on Twice (round 1)" in watch.inner_text('.bttw-totals tr[data-seat="1"]')
    assert "spent on Thrice (round 3)" in watch.inner_text('.bttw-totals tr[data-seat="3"]')
    for board, data in zip(BOARDS, final["boards"], strict=True):
        for seat in (1, 2, 3, 4):
            cell = watch.locator(f'.bttw-per-board tr[data-seat="{seat}"] td[data-for="{board}"]')
            assert cell.get_attribute("data-captured") == str(data["captured"][str(seat)])
            assert float(cell.get_attribute("data-points")) == data["points"][str(seat)]
    watch.screenshot(path=str(ARTIFACTS / "bttw-final-desktop.png"), full_page=True)
    pages["2"].screenshot(path=str(ARTIFACTS / "bttw-final-phone.png"), full_page=True)
    host.screenshot(path=str(ARTIFACTS / "bttw-host-final.png"), full_page=True)

    # nothing sealed reached another audience early: orders before their round resolved, spends before the end
    for name, got in frames.items():
        viewer = HOST if name == "host" else 0 if name == "watch" else int(name)
        assert got, name
        # a part of the viewer's own orders (in any round) may be on its own page
        own = {part for by_seat in orders.values() for part in by_seat.get(viewer, "").split("; ")}
        own_text = " ".join(by_seat.get(viewer, "") for by_seat in orders.values())
        for frame in [*got, pages[name].content()]:
            finished = "bttw-standings" in frame
            for round_no, by_seat in orders.items():
                open_round = f"Round <b>{round_no}</b> of 3" in frame
                for seat, text in by_seat.items():
                    if viewer in (HOST, seat):
                        continue
                    if open_round:
                        assert not _leaks(frame, [p for p in text.split("; ") if p not in own]), (
                            name,
                            round_no,
                            seat,
                        )
                    spend = SPENDS.get((round_no, seat))
                    if spend and not finished and f"{spend} garnet" not in own_text:
                        assert not _leaks(
                            frame, [f"{spend} garnet", f'"spent": ["{spend}"]', f"{spend}: {round_no}"]
                        ), (
                            name,
                            seat,
                        )
    assert not errors, errors
