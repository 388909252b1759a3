"""Two Connect end to end in headless Chromium, by clicks only: Uli on a
desktop (1280x800), Vic on a phone (390x844, one board at a time behind
tabs), a spectator and the host following live.  The match covers ring
placements, ring moves with a jump that flips markers, two-board turns, the
turn bank closing Yinsh to Uli, Gomoku won and the match won on Squava.
Illegal clicks are explained in place, in the server's words, and change
nothing.  The standalone Squava, Gomoku and Yinsh boards are played by
clicking too.  Screenshots go to test-artifacts/ (tc-*.png)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, same_as_fresh, wait_connected, watch_errors

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

#: Every turn of the match as the points clicked, in order (board, coord).
#: Turns 1-10 place the rings; turn 15 jumps Uli's ring C2 over D2 (Vic) and
#: E2 (Uli) to F2; after turn 20 Uli has made 10 Yinsh moves and Yinsh is
#: closed to him; turn 21 wins Gomoku (D7-H7); turn 27 wins Squava (A2-D2).
TURNS: list[list[tuple[str, str]]] = [
    [("yinsh", "B2")],
    [("yinsh", "D2"), ("gomoku", "K2")],
    [("yinsh", "E2"), ("gomoku", "D7")],
    [("yinsh", "F9"), ("gomoku", "M5")],
    [("yinsh", "C5"), ("gomoku", "B12")],
    [("yinsh", "H5"), ("gomoku", "B4")],
    [("yinsh", "G6"), ("gomoku", "E7")],
    [("yinsh", "J9"), ("gomoku", "L11")],
    [("yinsh", "I8"), ("gomoku", "L3")],
    [("yinsh", "G10"), ("gomoku", "C13")],
    [("yinsh", "B2"), ("yinsh", "C2"), ("gomoku", "F7")],
    [("yinsh", "D2"), ("yinsh", "D4"), ("gomoku", "N1")],
    [("yinsh", "E2"), ("yinsh", "E4"), ("gomoku", "N10")],
    [("yinsh", "F9"), ("yinsh", "F7"), ("gomoku", "H12")],
    [("yinsh", "C2"), ("yinsh", "F2"), ("gomoku", "G7")],
    [("yinsh", "H5"), ("yinsh", "H7"), ("gomoku", "E10")],
    [("yinsh", "G6"), ("yinsh", "G8"), ("gomoku", "A14")],
    [("yinsh", "J9"), ("yinsh", "J7"), ("gomoku", "J4")],
    [("yinsh", "I8"), ("yinsh", "I6"), ("gomoku", "J13")],
    [("yinsh", "G10"), ("yinsh", "G9"), ("gomoku", "A9")],
    [("squava", "A2"), ("gomoku", "H7")],
    [("squava", "E5")],
    [("squava", "B2")],
    [("yinsh", "D4"), ("yinsh", "D6")],
    [("squava", "D2")],
    [("squava", "E4")],
    [("squava", "C2")],
]


def pt(board: str, coord: str) -> str:
    return f'#tc-root .pt[data-board="{board}"][data-coord="{coord}"]'


def notation(clicks: list[tuple[str, str]]) -> str:
    """What the clicks compose: a ring placement, a ring move (two Yinsh clicks) or a stone."""
    parts: list[str] = []
    i = 0
    while i < len(clicks):
        board, coord = clicks[i]
        if board == "yinsh" and i + 1 < len(clicks) and clicks[i + 1][0] == "yinsh":
            parts.append(f"yinsh {coord}-{clicks[i + 1][1]}")
            i += 2
            continue
        parts.append(f"yinsh ring {coord}" if board == "yinsh" else f"{board} {coord}")
        i += 1
    return "; ".join(parts)


def result_selector(clicks: list[tuple[str, str]], seat: int) -> str:
    """A piece the turn leaves on the board (its last click), once every page shows it."""
    board, coord = clicks[-1]
    kind = "r" if board == "yinsh" else "s"
    return pt(board, coord) + f".{kind}{seat}"


def show(page: Any, board: str) -> None:
    """On a phone only one board is drawn: pick its tab first."""
    tab = page.locator(f'#tc-root .tc-tab[data-tab="{board}"]')
    if tab.is_visible() and tab.get_attribute("aria-pressed") != "true":
        tab.click()


def click(page: Any, board: str, coord: str) -> None:
    show(page, board)
    page.click(pt(board, coord))


def said(page: Any, board: str) -> str:
    page.wait_for_selector(f"#tc-root .tc-{board} .tc-say:not([hidden])", timeout=TIMEOUT)
    return str(page.inner_text(f"#tc-root .tc-{board} .tc-say")).strip()


def play_turn(player: Any, seat: int, clicks: list[tuple[str, str]], watchers: list[Any]) -> None:
    player.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    for board, coord in clicks:
        click(player, board, coord)
    assert player.input_value("#move-text") == notation(clicks)
    submit(player, seat, clicks, watchers)


def submit(player: Any, seat: int, clicks: list[tuple[str, str]], watchers: list[Any]) -> None:
    player.click("#move-submit")
    for page in [player, *watchers]:
        page.wait_for_selector(result_selector(clicks, seat), state="attached", timeout=TIMEOUT)
    assert player.is_hidden("#move-error"), player.inner_text("#move-error")


def keep_board(page: Any) -> None:
    """Remember the page's drawn board: a delta swaps single points and facts and leaves it in place."""
    page.evaluate("window.dmBoard = document.getElementById('tc-root')")


def drawn_in_place(page: Any, *points: tuple[str, str]) -> bool:
    """The board was updated by parts (the same #tc-root), and each of these points is a drawn SVG
    group holding its piece: htmx parses a live update as HTML, and a <g> left in the HTML
    namespace sits in the page but is never drawn (static/js/live.js rebuilds it as SVG)."""
    return bool(page.evaluate(
        """(sels) => document.getElementById('tc-root') === window.dmBoard && sels.every((sel) => {
             const g = document.querySelector(sel);
             return g instanceof SVGGElement && g.querySelector(':scope > use') instanceof SVGUseElement
               && g.querySelector(':scope > circle') instanceof SVGCircleElement
               && g.querySelector(':scope > text') instanceof SVGTextElement
               && g.getBoundingClientRect().width > 0;
           })""", [pt(board, coord) for board, coord in points]))


def create(browser: Any, start_match: StartMatch, slug: str, errors: list[str],
           pages: tuple[Any, Any, Any, Any] | None = None) -> tuple[Any, Any, Any, Any]:
    """The host creates and starts a match; Uli (desktop), Vic (phone) and a spectator open
    their links (in new browser contexts, or in the `pages` of an earlier match)."""
    if pages is None:
        host = browser.new_context(viewport=DESKTOP).new_page()
        uli = browser.new_context(viewport=DESKTOP).new_page()
        vic = browser.new_context(**PHONE).new_page()
        spectator = browser.new_context(viewport=DESKTOP).new_page()
        for page in (host, uli, vic, spectator):
            watch_errors(page, errors)
    else:
        host, uli, vic, spectator = pages
    match = start_match(slug, ["Uli", "Vic"], host=host)
    links = [match.seats[1], match.seats[2], match.watch]
    for page, url in zip((uli, vic, spectator), links, strict=True):
        page.goto(url)
    wait_connected(uli, vic, spectator, host)
    host.click("#host-start")
    for page in (uli, vic, spectator, host):
        page.wait_for_selector("#tc-root", timeout=TIMEOUT)
    return host, uli, vic, spectator


def test_two_connect_match_played_by_clicks_on_desktop_and_phone(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host, uli, vic, spectator = create(browser, start_match, "two-connect", errors)
    players = {1: uli, 2: vic}

    def watchers(seat: int) -> list[Any]:
        return [players[3 - seat], spectator]

    # no page draws the generic board; the desktop shows three boards in a row, the phone one with tabs
    for page in (uli, vic, spectator, host):
        assert page.locator("#board .grid-set").count() == 0
        assert page.locator(f"{pt('yinsh', 'E5')}").count() == 1
        assert page.locator("#tc-root .pt[data-board=yinsh]").count() == 85
        assert page.locator("#tc-root .pt[data-board=gomoku]").count() == 196
        assert page.locator("#tc-root .pt[data-board=squava]").count() == 25
    boxes = [uli.locator(f"#tc-root .tc-{w} svg").bounding_box() for w in ("squava", "yinsh", "gomoku")]
    assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"] and boxes[2]["x"] + boxes[2]["width"] <= 1280
    assert abs(boxes[0]["y"] - boxes[2]["y"]) < 5  # one row
    assert uli.locator("#tc-root .tc-tabs").is_hidden()
    assert vic.locator("#tc-root .tc-tabs").is_visible()
    assert [vic.locator(f"#tc-root .tc-{w}").is_visible() for w in ("squava", "yinsh", "gomoku")].count(True) == 1
    # the Gomoku points are big enough to tap on the phone
    show(vic, "gomoku")
    a1, b1 = vic.locator(pt("gomoku", "A1")).bounding_box(), vic.locator(pt("gomoku", "B1")).bounding_box()
    assert b1["x"] - a1["x"] >= 24 and a1["width"] >= 24

    # turn 1 is one move on one board: a second board is refused in place and changes nothing
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    click(uli, "yinsh", "B2")
    uli.wait_for_selector(pt("yinsh", "B2") + ".pending .ghost")
    click(uli, "gomoku", "K2")
    assert said(uli, "gomoku") == "The first turn of the match is one move on one board."
    assert uli.input_value("#move-text") == "yinsh ring B2"
    # the waiting player is told it is not their turn
    click(vic, "yinsh", "E5")
    assert said(vic, "yinsh") == "It is not your turn."
    assert vic.input_value("#move-text") == ""
    submit(uli, 1, TURNS[0], watchers(1))

    # turn 2 on the phone: an occupied point is refused; a pending stone is taken back by clicking it
    click(vic, "yinsh", "B2")
    assert said(vic, "yinsh") == "Yinsh: B2 is not empty."
    click(vic, "yinsh", "D2")
    click(vic, "gomoku", "K2")
    assert vic.input_value("#move-text") == "yinsh ring D2; gomoku K2"
    assert vic.locator("#tc-root .tc-tab.has-pending").count() == 2
    click(vic, "gomoku", "K2")
    assert vic.input_value("#move-text") == "yinsh ring D2"
    click(vic, "gomoku", "K2")
    show(vic, "yinsh")
    vic.screenshot(path=str(ARTIFACTS / "tc-phone-yinsh-placing.png"), full_page=True)
    for page in (spectator, uli):
        keep_board(page)
    submit(vic, 2, TURNS[1], watchers(2))
    # the spectator and the other player got only the changed points, facts and #tc-turn, drawn as SVG
    # (the mover's page is redrawn by the reply to its move)
    for page in (spectator, uli):
        assert drawn_in_place(page, ("yinsh", "B2"), ("yinsh", "D2"), ("gomoku", "K2"))
    assert spectator.locator("#tc-root .pt.last").count() == 2
    # whose turn it is came with #tc-turn: the points are clickable for Uli only (a pointer)
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    cursor = "e => getComputedStyle(e).cursor"
    assert uli.eval_on_selector(pt("squava", "C3"), cursor) == "pointer"
    assert vic.eval_on_selector(pt("yinsh", "E5"), cursor) == "default"

    # turn 3: typing fills the same box (and previews it); a third board is refused
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    uli.fill("#move-text", "yinsh ring E2; gomoku D7")
    uli.wait_for_selector(pt("gomoku", "D7") + ".pending")
    uli.click("#move-clear")
    assert uli.locator("#tc-root .pt.pending").count() == 0
    click(uli, "yinsh", "E2")
    click(uli, "gomoku", "D7")
    click(uli, "squava", "C3")
    assert said(uli, "squava") == "A turn is at most two moves (on two different boards), got 3."
    assert uli.input_value("#move-text") == "yinsh ring E2; gomoku D7"
    submit(uli, 1, TURNS[2], watchers(1))
    # the spectator's board, built from parts (points, facts, clocks), is what a fresh load draws
    same_as_fresh(browser, spectator, host.input_value("#watch-link"), clocks=2)
    # D2 and K2 lost their "last move" mark: sent without children, which the page's are moved into
    spectator.wait_for_selector(pt("gomoku", "K2") + ":not(.last)", state="attached", timeout=TIMEOUT)
    assert drawn_in_place(spectator, ("yinsh", "D2"), ("gomoku", "K2"), ("yinsh", "E2"), ("gomoku", "D7"))
    assert spectator.locator("#tc-root .pt.last").count() == 2

    play_turn(vic, 2, TURNS[3], watchers(2))
    # turn 5 by keyboard: Enter on a focused point adds it once (and only once), arrows move the focus
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    click(uli, "yinsh", "C5")
    uli.locator(pt("gomoku", "B11")).focus()
    uli.keyboard.press("ArrowDown")
    assert uli.evaluate("document.activeElement.dataset.coord") == "B12"
    uli.keyboard.press("Enter")
    assert uli.input_value("#move-text") == "yinsh ring C5; gomoku B12"
    submit(uli, 1, TURNS[4], watchers(1))
    for n in range(6, 11):
        play_turn(players[2 - n % 2], 2 - n % 2, TURNS[n - 1], watchers(2 - n % 2))

    # turn 11: every ring is placed; a ring's destinations light up, a point off its lines is refused
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    click(uli, "yinsh", "B2")
    assert uli.locator("#tc-root .pt.dest").count() > 0
    assert uli.locator(pt("yinsh", "C2") + ".dest").count() == 1
    click(uli, "yinsh", "E7")
    assert said(uli, "yinsh") == "Yinsh: B2 and E7 are not on one line."
    click(uli, "yinsh", "C2")
    click(uli, "gomoku", "F7")
    assert uli.input_value("#move-text") == "yinsh B2-C2; gomoku F7"
    submit(uli, 1, TURNS[10], watchers(1))
    for page in (uli, vic, spectator):  # the ring left its marker behind
        page.wait_for_selector(pt("yinsh", "B2") + ".m1", state="attached", timeout=TIMEOUT)

    for n in range(12, 15):
        play_turn(players[2 - n % 2], 2 - n % 2, TURNS[n - 1], watchers(2 - n % 2))

    # turn 15: the ring on C2 jumps Vic's D2 and Uli's E2 markers; the page shows which flip
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    click(uli, "yinsh", "C2")
    uli.wait_for_selector(pt("yinsh", "F2") + ".dest")
    uli.locator("#board").screenshot(path=str(ARTIFACTS / "tc-desktop-ring-chosen.png"))
    click(uli, "yinsh", "F2")
    assert uli.input_value("#move-text") == "yinsh C2-F2"
    click(uli, "yinsh", "F2")  # the ghost ring: takes the pending ring move back
    assert uli.input_value("#move-text") == "" and uli.locator("#tc-root .pt.will-flip").count() == 0
    click(uli, "yinsh", "C2")
    click(uli, "yinsh", "F2")
    click(uli, "gomoku", "G7")
    assert uli.input_value("#move-text") == "yinsh C2-F2; gomoku G7"
    assert sorted(uli.eval_on_selector_all("#tc-root .pt.will-flip", "els => els.map(e => e.dataset.coord)")) == \
        ["D2", "E2"]
    uli.screenshot(path=str(ARTIFACTS / "tc-desktop-jump-pending.png"), full_page=True)
    for page in (spectator, vic):
        keep_board(page)
    submit(uli, 1, TURNS[14], watchers(1))
    for page in (uli, vic, spectator):
        page.wait_for_selector(pt("yinsh", "D2") + ".m1", state="attached", timeout=TIMEOUT)
        page.wait_for_selector(pt("yinsh", "E2") + ".m2", state="attached", timeout=TIMEOUT)
        page.wait_for_selector(pt("yinsh", "C2") + ".m1", state="attached", timeout=TIMEOUT)
    # the last turn is lit on its own boards only
    assert spectator.locator("#tc-root .tc-squava .pt.last").count() == 0
    assert spectator.locator("#tc-root .tc-yinsh .pt.last").count() == 2
    assert spectator.locator("#tc-root .tc-gomoku .pt.last").count() == 1
    assert drawn_in_place(spectator, ("yinsh", "D2"), ("yinsh", "E2"), ("yinsh", "F2"), ("gomoku", "G7"))
    assert drawn_in_place(vic, ("gomoku", "G7"))  # the phone still shows the Gomoku tab of Vic's last click
    spectator.screenshot(path=str(ARTIFACTS / "tc-spectator-jump-delta.png"), full_page=True)

    for n in range(16, 21):
        play_turn(players[2 - n % 2], 2 - n % 2, TURNS[n - 1], watchers(2 - n % 2))

    # turn 21: the turn bank closes Yinsh to Uli (10 moves) until Squava and Gomoku reach 10
    uli.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    assert "closed to you until you have played 10 on Squava and Gomoku" in uli.inner_text("#tc-root .tc-yinsh")
    assert uli.inner_text("#tc-root .tc-yinsh .tc-meter.seat-1 .tc-count").strip() == "10 / 10"
    click(uli, "yinsh", "E4")
    assert said(uli, "yinsh") == ("The turn bank closes the Yinsh board to you (10 moves) until you have "
                                   "also played 10 moves on Squava and Gomoku.")
    assert uli.input_value("#move-text") == ""
    uli.screenshot(path=str(ARTIFACTS / "tc-desktop-bank-closed.png"), full_page=True)
    # Vic's own bank closed Yinsh and Gomoku to him: his tabs say so
    assert "closed" in vic.inner_text('#tc-root .tc-tab[data-tab="yinsh"]')
    assert "closed" in vic.inner_text('#tc-root .tc-tab[data-tab="gomoku"]')
    assert "open" in vic.inner_text('#tc-root .tc-tab[data-tab="squava"]')
    vic.screenshot(path=str(ARTIFACTS / "tc-phone-bank-tabs.png"), full_page=True)
    click(uli, "squava", "A2")
    click(uli, "gomoku", "H7")
    submit(uli, 1, TURNS[20], watchers(1))

    # Gomoku is won: outlined, announced in the status bar and the log, on every page
    for page in (uli, vic, spectator):
        page.wait_for_selector("#tc-root .tc-gomoku.is-won", state="attached", timeout=TIMEOUT)
        page.wait_for_selector("#status >> text=Gomoku won by Uli", timeout=TIMEOUT)
        page.wait_for_selector("#log .note >> text=Gomoku won by Uli", timeout=TIMEOUT)
        assert page.locator("#tc-root .tc-gomoku .pt.win").count() == 5
        assert page.locator("#tc-root .tc-gomoku .tc-winline").count() == 1
    assert "won by Uli" in spectator.inner_text("#tc-root .tc-gomoku .tc-board-head")
    assert "Uli 1" in " ".join(spectator.inner_text("#tc-root .tc-won").split())
    spectator.screenshot(path=str(ARTIFACTS / "tc-spectator-gomoku-won.png"), full_page=True)
    show(vic, "gomoku")
    assert "won by Uli" in vic.inner_text('#tc-root .tc-tab[data-tab="gomoku"]')
    vic.screenshot(path=str(ARTIFACTS / "tc-phone-gomoku-won.png"), full_page=True)
    # a finished board is refused in place
    vic.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    click(vic, "gomoku", "C3")
    assert said(vic, "gomoku") == "The Gomoku board is finished."

    # one board a turn from now on; the banks were reset
    assert "0 / 10" in uli.inner_text("#tc-root .tc-yinsh .tc-meter.seat-1 .tc-count")
    for n in range(22, 27):
        play_turn(players[2 - n % 2], 2 - n % 2, TURNS[n - 1], watchers(2 - n % 2))

    # turn 27: A2-D2 wins Squava, Uli's second board: the match is won
    play_turn(uli, 1, TURNS[26], [vic, spectator, host])
    for page in (uli, vic, spectator, host):
        # the end banner takes the status line's place; the log says which board decided it
        page.wait_for_function("document.querySelector('#status').textContent.includes('the match —')",
                               timeout=TIMEOUT)
        assert "Squava won by Uli" in page.text_content("#status")
        page.wait_for_selector("#log .note >> text=Squava won by Uli", timeout=TIMEOUT)
        page.wait_for_selector("#tc-root .tc-squava.is-won", state="attached", timeout=TIMEOUT)
        assert page.locator("#tc-root .tc-squava .pt.win").count() == 4
    assert "Uli 2" in " ".join(spectator.inner_text("#tc-root .tc-won").split())
    uli.screenshot(path=str(ARTIFACTS / "tc-desktop-match-won.png"), full_page=True)
    spectator.screenshot(path=str(ARTIFACTS / "tc-spectator-match-won.png"), full_page=True)
    show(vic, "squava")
    vic.screenshot(path=str(ARTIFACTS / "tc-phone-match-won.png"), full_page=True)
    host.screenshot(path=str(ARTIFACTS / "tc-host-match-won.png"), full_page=True)
    assert not errors, errors


#: (slug, moves, what the board head says at the end)
SOLO = [
    # Uli makes A1-D1 (four in a row) while Vic stays clear of three
    ("squava", ["A1", "A5", "B1", "B5", "D1", "D5", "C1"], "won by Uli"),
    ("gomoku", ["H7", "G7", "H8", "G8"], "Uli may play here"),
    # five rings each, then a ring move that leaves a marker on E5
    ("yinsh", ["E5", "F6", "C3", "D7", "G4", "H8", "B6", "I5", "J8", "C7", "E5-E8"], "Vic may play here"),
]


def test_standalone_boards_are_played_by_clicks(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    pages = None
    for slug, moves, done in SOLO:
        pages = create(browser, start_match, slug, errors, pages)
        host, uli, vic, spectator = pages
        players = {1: uli, 2: vic}
        for page in (uli, vic, spectator, host):
            assert page.locator("#board .grid-set").count() == 0 and page.locator("#tc-root .tc-tabs").count() == 0
            assert page.locator(f"#tc-root .tc-{slug} .pt").count() == {"squava": 25, "gomoku": 196, "yinsh": 85}[slug]
        for n, move in enumerate(moves):
            seat = 1 if n % 2 == 0 else 2
            player = players[seat]
            player.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
            coords = move.split("-")
            for coord in coords:
                player.click(pt(slug, coord))
            if len(coords) == 2:
                expected = f"yinsh {move}"
            else:
                expected = f"yinsh ring {move}" if slug == "yinsh" else f"{slug} {move}"
            assert player.input_value("#move-text") == expected
            submit(player, seat, [(slug, coords[-1])], [players[3 - seat]])
        last, last_seat = moves[-1].split("-")[-1], 1 if len(moves) % 2 else 2
        spectator.wait_for_selector(pt(slug, last) + f".{'r' if slug == 'yinsh' else 's'}{last_seat}",
                                    state="attached", timeout=TIMEOUT)
        if slug == "yinsh":
            spectator.wait_for_selector(pt("yinsh", "E5") + ".m1", state="attached", timeout=TIMEOUT)
        assert done in spectator.inner_text(f"#tc-root .tc-{slug} .tc-board-head")
        vic.screenshot(path=str(ARTIFACTS / f"tc-solo-{slug}-phone.png"), full_page=True)
        uli.screenshot(path=str(ARTIFACTS / f"tc-solo-{slug}-desktop.png"), full_page=True)
    assert not errors, errors
