"""A Lance Assembly bout played in the browser with an undo and a host
correction, then replayed by a spectator: keyboard stepping, the move list,
autoplay, the board at several steps (drawn by the server from that step),
and the record downloaded.  Screenshots (desktop and phone) go to
test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import (
    ARTIFACTS,
    TIMEOUT,
    StartMatch,
    axe_violations,
    cell,
    replay_at,
    type_move,
    wait_connected,
)

#: the replay is held to WCAG 2 A and AA
WCAG = "{runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}"

pytestmark = pytest.mark.browser


def test_spectator_replays_a_bout_with_an_undo_and_a_correction(browser: Any,
                                                                start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []

    def watch(page: Any) -> Any:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        return page

    host = watch(browser.new_context(viewport={"width": 1280, "height": 900}).new_page())
    match = start_match("lance-assembly", ["Ann", "Bob"], fields={'input[name="bouts"]': "1"}, host=host)
    links = [match.seats[1], match.seats[2], match.watch]
    ann, bob = (watch(browser.new_context().new_page()) for _ in range(2))
    for page, url in ((ann, links[0]), (bob, links[1])):
        page.goto(url)
    players = [ann, bob, host]
    wait_connected(*players)
    host.click("#host-start")
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    type_move(ann, "place A1", players, cell("A1", "R"))
    type_move(bob, "place F1", players, cell("F1", "B"))
    type_move(ann, "place A2", players, cell("A2", "R"))
    type_move(bob, "place F2", players, cell("F2", "B"))
    type_move(ann, "place C3", players, cell("C3", "R"))
    host.click("#host-undo")  # C3 is taken back
    for page in players:
        page.wait_for_selector(cell("C3", ""), timeout=TIMEOUT)
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    type_move(ann, "place A3", players, cell("A3", "R"))
    type_move(bob, "place F3", players, cell("F3", "B"))
    entry = host.locator("#log li", has_text="place F3")  # the host corrects F3 to E3
    entry.locator("summary").click()
    entry.locator('input[name="text"]').fill("place E3")
    entry.locator("button[type=submit]").click()
    for page in players:
        page.wait_for_selector(cell("E3", "B"), timeout=TIMEOUT)
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    type_move(ann, "place A4", players, cell("A4", "R"))
    type_move(bob, "place F4", players, cell("F4", "B"))
    type_move(ann, "place A5", players, cell("A5", "R"))
    host.wait_for_selector("#banner-replays", timeout=TIMEOUT)

    # the spectator follows the end banner's link to the replay
    spectator = watch(browser.new_context(viewport={"width": 1280, "height": 900}).new_page())
    spectator.goto(links[2])
    spectator.click('#banner-replays a[href="bouts/1/"]')
    spectator.wait_for_url("**/w/*/bouts/1/")
    replay_at(spectator, 9)
    assert "Move 9 of 9" in spectator.inner_text("#replay-caption")
    moves = spectator.locator("#replay-moves")
    assert moves.locator("del", has_text="place C3").count() == 1  # undone: struck through, not a step
    assert moves.locator('a:has-text("place E3")', has_text="corrected from").count() == 1
    assert moves.locator("a[data-step]").count() == 10  # the start and nine moves
    assert moves.locator("li.kind-host", has_text="undo 1").count() == 1

    # keyboard: Home, → →, End, ←
    spectator.keyboard.press("Home")
    replay_at(spectator, 0)
    # (the caption can turn before the board is swapped: wait for the empty board, never just count)
    spectator.wait_for_function("!document.querySelector('#board .cell.p1, #board .cell.p2')")
    assert spectator.locator("#board .cell.p1, #board .cell.p2").count() == 0
    spectator.keyboard.press("ArrowRight")
    spectator.keyboard.press("ArrowRight")
    replay_at(spectator, 2)
    spectator.wait_for_selector(cell("A1", "R"))
    spectator.wait_for_selector(cell("F1", "B"))
    spectator.wait_for_selector(cell("A2", ""))
    assert spectator.get_attribute("#replay-prev", "href") == "?step=1"
    spectator.screenshot(path=str(ARTIFACTS / "replay-step-2.png"), full_page=True)
    spectator.keyboard.press("End")
    replay_at(spectator, 9)
    for coord, value in (("A5", "R"), ("E3", "B"), ("F3", ""), ("C3", "")):
        spectator.wait_for_selector(cell(coord, value))
    assert spectator.locator("#board .cell.win").count() == 5
    spectator.keyboard.press("ArrowLeft")
    replay_at(spectator, 8)
    spectator.wait_for_selector(cell("A5", ""))
    assert "Move 8 of 9" in spectator.inner_text("#replay-caption")
    assert spectator.url.endswith("?step=8")

    # the move list jumps; the current move is marked for assistive tech too
    moves.locator('a:has-text("place E3")').click()
    replay_at(spectator, 6)
    spectator.wait_for_selector(cell("E3", "B"))
    spectator.wait_for_selector(cell("A4", ""))
    assert moves.locator('a[aria-current="step"]').get_attribute("data-step") == "6"
    spectator.screenshot(path=str(ARTIFACTS / "replay-desktop.png"), full_page=True)
    assert axe_violations(spectator, WCAG) == []

    # autoplay, fast, from step 6 to the end; it stops by itself
    spectator.select_option("#replay-speed", "500")
    spectator.click("#replay-play")
    assert spectator.get_attribute("#replay-play", "aria-pressed") == "true"
    replay_at(spectator, 9)
    spectator.wait_for_selector('#replay-play[aria-pressed="false"]', timeout=TIMEOUT)

    # the record downloads: a header, every active move with its time, host actions as comments
    with spectator.expect_download() as download:
        spectator.click("#record-bout")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert download.value.suggested_filename.endswith("-bout-1.txt")
    assert "Game: lance-assembly" in text and "Seat 1: Ann" in text and "Result: Ann won (lance)" in text
    played = re.findall(r"^\d+\. seat (\d): (place \w+)(?: \{[\d.]+ s\})?", text, re.M)
    assert [m for _, m in played] == ["place A1", "place F1", "place A2", "place F2", "place A3", "place E3",
                                     "place A4", "place F4", "place A5"]
    assert re.search(r"^# undone: \d+\. seat 1: place C3", text, re.M)
    assert "{was: place F3}" in text and re.search(r"^# host: undo 1", text, re.M)

    # the same replay on a phone
    phone = watch(browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                  .new_page())
    phone.goto(spectator.url.split("?")[0] + "?step=5")
    replay_at(phone, 5)
    phone.wait_for_selector(cell("A3", "R"))
    phone.screenshot(path=str(ARTIFACTS / "replay-phone.png"), full_page=True)
    assert axe_violations(phone, WCAG) == []
    phone.locator("#replay-next").tap()
    replay_at(phone, 6)

    # the host's dashboard offers the records and the replay setting
    host.locator("#replay-host").screenshot(path=str(ARTIFACTS / "replay-host-panel.png"))
    assert host.get_attribute("#host-record-match", "href") == "record.txt"
    assert not errors, errors
