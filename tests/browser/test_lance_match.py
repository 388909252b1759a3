"""End to end in headless Chromium: a real daphne (http + websockets) on a
free port with its own SQLite file; the host, two players (separate browser
contexts, one phone-sized) and a spectator.  Lance Assembly is played to a
lance by clicking; the host undoes a move; every page follows live, without
reload.  Screenshots go to test-artifacts/.  How long a move takes to show on
the other pages is bench/browser_moves.py's figure: no test times it.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, cell, same_as_fresh, type_move, wait_connected

pytestmark = pytest.mark.browser


def _play(player: Any, others: dict[str, Any], clicks: list[str], expect: str, value: str) -> None:
    """Compose a move by clicking, submit it, and wait until every page shows it."""
    for click in clicks:
        if click.startswith("dir:"):
            player.click(f'button.dir[data-dir="{click[4:]}"]')
        else:
            player.click(f'#board .cell[data-coord="{click}"]')
    player.click("#move-submit")
    for page in [player, *others.values()]:
        page.wait_for_selector(cell(expect, value), timeout=TIMEOUT)


#: where the host page's Links card is: before the board and the side ("top") or after them
LINKS_AT = """(() => { const grid = document.querySelector('.match-grid'), links = document.getElementById('links');
  return grid.compareDocumentPosition(links) & Node.DOCUMENT_POSITION_FOLLOWING ? 'under' : 'top'; })()"""


def test_lance_assembly_bout_played_by_clicking_with_live_pages(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    host = host_ctx.new_page()
    errors: list[str] = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))

    # the host creates the match on the home page
    host.goto(server.url + "/")
    host.select_option("#game-select", "lance-assembly")
    assert host.input_value("#per_move") == "60" and host.input_value("#bouts") == "3"
    host.select_option('select[name="opt-lance-assembly-variant"]', "sliding-tic-tac-toe")
    assert host.input_value("#per_move") == "120" and not host.is_checked("#refill")
    host.select_option('select[name="opt-lance-assembly-variant"]', "lance-assembly")
    assert host.input_value("#per_move") == "60" and host.is_checked("#refill")
    host.fill('input[name="seat1"]', "Ann")
    host.fill('input[name="seat2"]', "Bob")
    host.screenshot(path=str(ARTIFACTS / "home.png"), full_page=True)
    host.click("button[type=submit]")
    host.wait_for_url("**/h/**")
    links = {n: host.input_value(f"#seat-link-{n}") for n in (1, 2)}
    watch_link = host.input_value("#watch-link")

    # two players in separate contexts (Bob on a phone-sized screen) and a spectator
    ann = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    bob = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    spectator = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    for page, url in ((ann, links[1]), (bob, links[2]), (spectator, watch_link)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    wait_connected(ann, bob, spectator, host)
    host.wait_for_selector("#presence li.on >> text=Bob (seat 2)", timeout=TIMEOUT)

    # the host starts the match: every page shows the board without reload
    assert host.evaluate(LINKS_AT) == "top"  # while the match is set up, the links lead the page
    host.click("#host-start")
    for page in (ann, bob, spectator, host):
        page.wait_for_selector(cell("A1"), timeout=TIMEOUT)
    # once it has started they sit under the board, as a fresh host page draws them
    host.wait_for_function(f"({LINKS_AT}) === 'under'", timeout=TIMEOUT)
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    # the clock counts down locally from the server deadline (no per-second messages)
    before = ann.inner_text(".clock.seat-1 .clock-time")
    ann.wait_for_function(f"document.querySelector('.clock.seat-1 .clock-time').textContent !== {before!r}",
                          timeout=TIMEOUT)

    pages = {"ann": ann, "bob": bob, "spectator": spectator, "host": host}

    def others(*names: str) -> dict[str, Any]:
        return {k: v for k, v in pages.items() if k not in names}

    _play(ann, others("ann"), ["A1"], "A1", "R")
    assert ann.input_value("#move-text") == ""  # composing starts afresh after the board changed
    _play(bob, others("bob"), ["F1"], "F1", "B")
    _play(ann, others("ann"), ["A2"], "A2", "R")
    _play(bob, others("bob"), ["F2"], "F2", "B")
    _play(ann, others("ann"), ["A3"], "A3", "R")
    _play(bob, others("bob"), ["F3"], "F3", "B")

    # the spectator's page, built from deltas (cells and clocks sent as patches of their changed
    # attributes, without their unchanged children), is the page a fresh load draws
    same_as_fresh(browser, spectator, watch_link, clocks=2)

    # an illegal click-move is refused inline, in plain words, and changes nothing
    ann.click('#board .cell[data-coord="F3"]')
    ann.click('#board .cell[data-coord="F3"]')
    ann.click('button.dir[data-dir="up"]')
    assert ann.input_value("#move-text") == "slide F3 up 1"
    ann.click("#move-submit")
    ann.wait_for_selector("#move-error:not([hidden])", timeout=TIMEOUT)
    assert ann.inner_text("#move-error").strip()
    ann.click("#move-clear")

    # place and slide, composed by clicking: place A5; slide A1-A3 down 1
    ann.click('#board .cell[data-coord="A5"]')
    ann.click('#board .cell[data-coord="A1"]')
    ann.click('#board .cell[data-coord="A3"]')
    ann.click('button.dir[data-dir="down"]')
    assert ann.input_value("#move-text") == "place A5; slide A1-A3 down 1"
    # what a page's script wrote on a cell (a saved label, a class, a changed label) is not kept
    # when a patch of that cell arrives: the patch applies to the cell as the server drew it
    spectator.evaluate("""() => { const a1 = document.getElementById('sq-A1');
        a1.dataset.label = 'saved'; a1.classList.add('scribbled'); a1.setAttribute('aria-label', 'scribbled'); }""")
    _play(ann, others("ann"), [], "A4", "R")
    for page in pages.values():
        page.wait_for_selector(cell("A1", ""), timeout=TIMEOUT)
    same_as_fresh(browser, spectator, watch_link, clocks=2)

    # a pending placement shows as a ghost tile; clicking the ghost selects it (it may slide, issue
    # 25), once more makes it a one-tile run, once more takes it back
    bob.click('#board .cell[data-coord="E4"]')
    assert bob.input_value("#move-text") == "place E4"
    bob.wait_for_selector('#board .cell.ghost.ghost-p2[data-coord="E4"]')
    for _ in range(3):
        bob.click('#board .cell[data-coord="E4"]')
    assert bob.input_value("#move-text") == ""
    assert bob.locator("#board .cell.ghost").count() == 0
    _play(bob, others("bob"), ["E4"], "E4", "B")
    ann.screenshot(path=str(ARTIFACTS / "player.png"), full_page=True)

    # the host undoes Bob's move: every board follows
    host.fill('form:has(#host-undo) input[name="count"]', "1")
    host.click("#host-undo")
    for page in pages.values():
        page.wait_for_selector(cell("E4", ""), timeout=TIMEOUT)
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    host.wait_for_selector("#log li.undone", timeout=TIMEOUT)

    _play(bob, others("bob"), ["F4"], "F4", "B")
    # Ann completes A1-A5: a lance wins the bout
    _play(ann, others("ann"), ["A1"], "A1", "R")
    for page in pages.values():
        page.wait_for_selector("#banner.banner-bout >> text=bout 1 — five in a row", timeout=TIMEOUT)
        page.wait_for_selector("#board .cell.win", timeout=TIMEOUT)
    assert "1" in ann.inner_text(".score-seat.seat-1")

    spectator.screenshot(path=str(ARTIFACTS / "spectator.png"), full_page=True)
    bob.screenshot(path=str(ARTIFACTS / "player-phone.png"), full_page=True)
    host.screenshot(path=str(ARTIFACTS / "host.png"), full_page=True)

    assert not errors, errors


def test_best_of_three_match_typed_with_a_host_correction(start_match: StartMatch, browser: Any) -> None:
    """A whole match by typed notation: the host corrects a logged turn (the
    bout is replayed), starts the next bout (the starter alternates), and
    the match ends 2-0 on every page."""
    host = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    match = start_match("lance-assembly", ["Cleo", "Dan"], host=host)
    links = [match.seats[1], match.seats[2], match.watch]
    cleo, dan, spectator = (browser.new_context().new_page() for _ in links)
    for page, url in zip((cleo, dan, spectator), links, strict=True):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    everyone = [cleo, dan, spectator, host]
    wait_connected(*everyone)
    host.click("#host-start")
    cleo.wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    def rest(*skip: Any) -> list[Any]:
        return [p for p in everyone if p not in skip]

    # bout 1, Cleo starts
    type_move(cleo, "place A1", [cleo, *rest(cleo)], cell("A1", "R"))
    type_move(dan, "place F1", [dan, *rest(dan)], cell("F1", "B"))
    type_move(cleo, "I place tile on A2.", [cleo, *rest(cleo)], cell("A2", "R"))
    type_move(dan, "place F2", [dan, *rest(dan)], cell("F2", "B"))
    # the host corrects Dan's last turn from the log: F2 becomes E2 on every board
    entry = host.locator("#log li", has_text="place F2")
    entry.locator("summary").click()
    entry.locator('input[name="text"]').fill("place E2")
    entry.locator("button[type=submit]").click()
    for page in everyone:
        page.wait_for_selector(cell("E2", "B"), timeout=TIMEOUT)
        page.wait_for_selector(cell("F2", ""), timeout=TIMEOUT)
    host.wait_for_selector("#log li.corrected", timeout=TIMEOUT)
    cleo.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    type_move(cleo, "place A3", [cleo, *rest(cleo)], cell("A3", "R"))
    type_move(dan, "place F3", [dan, *rest(dan)], cell("F3", "B"))
    type_move(cleo, "place a4", [cleo, *rest(cleo)], cell("A4", "R"))
    type_move(dan, "place F4", [dan, *rest(dan)], cell("F4", "B"))
    type_move(cleo, "place A5", [cleo, *rest(cleo)], cell("A5", "R"))
    for page in everyone:
        page.wait_for_selector("#banner.banner-bout >> text=bout 1 — five in a row", timeout=TIMEOUT)

    # bout 2: the host starts it and Dan (the other seat) begins
    host.click("#host-next-bout")
    dan.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    for page in everyone:
        page.wait_for_selector(cell("A1", ""), timeout=TIMEOUT)
    type_move(dan, "place F6", [dan, *rest(dan)], cell("F6", "B"))
    for n in range(1, 5):
        type_move(cleo, f"place B{n}", [cleo, *rest(cleo)], cell(f"B{n}", "R"))
        type_move(dan, f"place E{n}", [dan, *rest(dan)], cell(f"E{n}", "B"))
    type_move(cleo, "place B5", [cleo, *rest(cleo)], cell("B5", "R"))
    for page in everyone:
        page.wait_for_selector("#banner.banner-match >> text=the match — won 2 bouts of a best of 3", timeout=TIMEOUT)
    assert "Cleo wins the match" in spectator.inner_text("#banner")
    assert "2" in spectator.inner_text(".score-seat.seat-1")
    assert not errors, errors
