"""Bidding 3D Tic-Tac-Toe end to end in headless Chromium, by clicks only.

Ann (Red) bids at a desktop (1280x800), Bob (Blue) on a phone (390x844), a
spectator and the host watch.  Three rounds to a result: a round-1 bid that
would make three in a line is refused in place; Ann resubmits (the new bid
replaces the old); Bob meets the round-2 two-board limit; the host resolves
round 2 before Bob submits; Ann's line of boards A, D, G wins in round 3.
Ann bids a distinctive 37 chips: neither it nor what she has left ever
reaches Bob's or the spectator's page, nor their websocket frames.
Screenshots go to test-artifacts/bidding-*.png.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, same_as_fresh, wait_connected

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: Ann's amounts and chips left after each round (200 - 46, - 4, - 3): Blue never sees them
ANN_SECRETS = ("37", "154", "150", "147")


def tile(coord: str) -> str:
    return f'#bt .bt-tile[data-board="bidding"][data-coord="{coord}"]'


def owned(coord: str, seat: int) -> str:
    return f'{tile(coord)}[data-owner="{seat}"]'


def _visible(html: str) -> str:
    """Markup and text without attribute values (tokens, timestamps, data) and clock times."""
    return re.sub(r"\d+:\d\d(:\d\d)?", "", re.sub(r'"[^"]*"', '""', html))


def _leaks(text: str) -> list[str]:
    return [n for n in ANN_SECRETS if re.search(rf"(?<![\w.-]){n}(?![\w.-])", _visible(text))]


def _fits_phone(page: Any) -> None:
    width, height = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert width <= PHONE["width"], f"the phone page scrolls sideways ({width} px wide)"
    assert height < 3000, f"the phone page is {height} px tall"


def _submit(page: Any, expect: str) -> None:
    page.click("#move-submit")
    page.wait_for_selector(f"#status >> text={expect}", timeout=TIMEOUT)


def test_a_bidding_match_played_by_clicks_keeps_each_sides_bids_secret(browser: Any,
                                                                     start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    host = browser.new_context(viewport=DESKTOP).new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    match = start_match("bidding-ttt", ["Ann", "Bob"], fields={'input[name="opt-bidding-ttt-chips"]': "200"}, host=host)
    links, watch_link = match.seats, match.watch

    ann = browser.new_context(viewport=DESKTOP).new_page()
    bob = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    spectator = browser.new_context(viewport=DESKTOP).new_page()
    frames: dict[str, list[str]] = {"bob": [], "spectator": []}
    for name, page, url in (("ann", ann, links[1]), ("bob", bob, links[2]), ("spectator", spectator, watch_link)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        if name in frames:
            sink = frames[name]
            page.on("websocket", lambda ws, sink=sink: ws.on(
                "framereceived", lambda payload, sink=sink: sink.append(payload if isinstance(payload, str) else "")))
        page.goto(url)
    everyone = (ann, bob, spectator, host)
    wait_connected(*everyone)
    host.click("#host-start")
    for page in everyone:
        page.wait_for_selector(tile("E5"), timeout=TIMEOUT)
    assert ann.locator('#bt [data-board="bidding"][data-coord]').count() == 81
    assert ann.inner_text("#move-submit") == "Submit sealed bid"
    # D and F are shaded from the start
    for page in everyone:
        assert page.locator("#bt .bt-board.ctl-1").count() == 1 and page.locator("#bt .bt-board.ctl-2").count() == 1
    ann.wait_for_selector("#status >> text=place your sealed bid", timeout=TIMEOUT)

    # -- round 1 ----------------------------------------------------------------------
    # a third tile in a line on board E is refused in place, with the reason
    ann.click(tile("E1"))
    ann.click(tile("E2"))
    assert ann.input_value("#move-text") == "E1 1; E2 1"
    assert "nope" in (ann.get_attribute(tile("E3"), "class") or "")  # greyed before it is even tried
    ann.click(tile("E3"))
    assert "three in a line" in ann.inner_text("#bt-note") and "E3" in ann.inner_text("#bt-note")
    assert ann.input_value("#move-text") == "E1 1; E2 1"
    assert "drafted" not in (ann.get_attribute(tile("E3"), "class") or "")
    ann.screenshot(path=str(ARTIFACTS / "bidding-desktop-refused.png"), full_page=True)
    _submit(ann, "your bid is in. Waiting for Bob (Blue)")
    for page in (bob, spectator):
        page.wait_for_selector("#status >> text=Ann (Red)'s bid is in", timeout=TIMEOUT)
    host.wait_for_selector("#bt-host-h", timeout=TIMEOUT)
    assert "E1 1" in host.inner_text(".bt-host")

    # Bob starts composing; Ann changes her mind: the builder starts from her sealed bid, she resubmits
    bob.click(tile("A1"))
    bob_version = bob.get_attribute("#live-meta", "data-version")
    assert ann.input_value("#move-text") == "E1 1; E2 1"
    ann.click('#bt-list li[data-tile="E1"] button.rm')
    ann.click('#bt-list li[data-tile="E2"] button.rm')
    for coord in ("A1", "A2", "G1", "G2"):
        ann.click(tile(coord))
    ann.fill('#bt-list input[data-tile="A1"]', "37")
    for coord in ("A2", "G1", "G2"):
        ann.click(f'#bt-list li[data-tile="{coord}"] button.step[data-step="1"]')
        ann.click(f'#bt-list li[data-tile="{coord}"] button.step[data-step="1"]')
    assert ann.input_value("#move-text") == "A1 37; A2 3; G1 3; G2 3"
    assert "Total 46 of your 200 chips" in ann.inner_text("#bt-total")
    assert ann.inner_text(f"{tile('A1')} .amt") == "37"
    _submit(ann, "your bid is in")
    host.wait_for_selector(".bt-host >> text=A1 37", timeout=TIMEOUT)
    assert "E1 1" not in host.inner_text(".bt-host")  # replaced, not added

    # Bob's page took Ann's resubmission live and kept his unsent draft: A1 at 5 (stepper), C1 at 1
    bob.wait_for_function(f"document.querySelector('#live-meta').dataset.version !== {bob_version!r}",
                          timeout=TIMEOUT)
    assert bob.input_value("#move-text") == "A1 1"
    for _ in range(4):
        bob.click('#bt-list li[data-tile="A1"] button.step[data-step="1"]')
    bob.click(tile("C1"))
    assert bob.input_value("#move-text") == "A1 5; C1 1"
    assert "Ann" in bob.inner_text("#status") and "37" not in bob.inner_text("#status")
    bob.click("#move-submit")
    for page in everyone:
        page.wait_for_selector(owned("A1", 1), timeout=TIMEOUT)
        page.wait_for_selector(owned("C1", 2), timeout=TIMEOUT)
        page.wait_for_selector(".bt-news >> text=Round 1 result", timeout=TIMEOUT)
    assert "Ann (Red) won A1, A2, G1 and G2." in spectator.inner_text(".bt-news")
    assert "You won C1." in bob.inner_text(".bt-news")
    assert re.search(r"A1\s+lost", bob.inner_text(".bt-yours")) and re.search(r"C1\s+won", bob.inner_text(".bt-yours"))
    assert re.search(r"A1\s+won", ann.inner_text(".bt-yours"))
    assert "154" in ann.inner_text("#bt-chips-left")
    bob.wait_for_selector("#status >> text=Round 2 of 3", timeout=TIMEOUT)
    _fits_phone(bob)
    bob.screenshot(path=str(ARTIFACTS / "bidding-phone-round1.png"), full_page=True)

    # -- round 2: at most two boards; the host closes the round before Bob bids ---------------
    ann.click(tile("A3"))
    ann.click(tile("B5"))
    ann.click('#bt-list li[data-tile="A3"] button.step[data-step="1"]')
    ann.click('#bt-list li[data-tile="B5"] button.step[data-step="1"]')
    assert ann.input_value("#move-text") == "A3 2; B5 2"
    _submit(ann, "your bid is in")
    bob.click(tile("C2"))
    bob.click(tile("I1"))
    bob.click(tile("E5"))
    assert "third board" in bob.inner_text("#bt-note")
    assert bob.input_value("#move-text") == "C2 1; I1 1"
    host.screenshot(path=str(ARTIFACTS / "bidding-host-round2.png"), full_page=True)
    # the confirmation names the consequence (issue 25)
    host.once("dialog", lambda dialog: dialog.accept())
    host.click("#host-panel button:has-text('Resolve round now')")
    for page in everyone:
        page.wait_for_selector(owned("A3", 1), timeout=TIMEOUT)
        page.wait_for_selector("#bt .bt-board.ctl-1 >> nth=1", timeout=TIMEOUT)
    for page in everyone:
        assert page.locator("#bt .bt-tile.line").count() == 3  # A1 A2 A3 gave Red board A
    assert "Ann (Red) won A3 and B5 and now controls board A." in spectator.inner_text(".bt-news")
    assert bob.input_value("#move-text") == ""  # a new round: Bob's unsent draft is gone
    bob.wait_for_selector("#status >> text=Round 3 of 3", timeout=TIMEOUT)
    spectator.screenshot(path=str(ARTIFACTS / "bidding-spectator-round2.png"), full_page=True)
    same_as_fresh(browser, spectator, watch_link, clocks=2)

    # -- round 3: G3 gives Red board G, and with A and D a column ------------------------------
    bob.click(tile("G3"))
    bob.click('#bt-list li[data-tile="G3"] button.step[data-step="1"]')
    _submit(bob, "your bid is in")
    ann.click(tile("G3"))
    for _ in range(2):
        ann.click('#bt-list li[data-tile="G3"] button.step[data-step="1"]')
    ann.click("#move-submit")
    for page in everyone:
        page.wait_for_selector("#bt-result >> text=A, D, G (a column)", timeout=TIMEOUT)
        page.wait_for_selector("#banner >> text=three boards in a line", timeout=TIMEOUT)
    assert "You win: you control A, D, G (a column)." in ann.inner_text("#bt-result")
    assert "Ann (Red) wins: controls A, D, G (a column)." in bob.inner_text("#banner")
    assert ann.is_hidden("#move-card") and ann.input_value("#move-text") == ""  # nothing left to bid on
    # the host saw both sides' bids, round by round
    table = host.inner_text(".bt-host")
    assert "A1 37" in table and "A1 5" in table and "G3 3" in table and "G3 2" in table

    _fits_phone(bob)
    bob.screenshot(path=str(ARTIFACTS / "bidding-phone-final.png"), full_page=True)
    ann.screenshot(path=str(ARTIFACTS / "bidding-desktop-final.png"), full_page=True)
    host.screenshot(path=str(ARTIFACTS / "bidding-host-final.png"), full_page=True)
    phone_spectator = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    phone_spectator.goto(watch_link)
    phone_spectator.wait_for_selector("#bt-result", timeout=TIMEOUT)
    _fits_phone(phone_spectator)
    phone_spectator.screenshot(path=str(ARTIFACTS / "bidding-phone-spectator-final.png"), full_page=True)

    # the bout's replay draws the same board (round by round) and keeps the same secrets
    phone_spectator.goto(watch_link.rstrip("/") + "/bouts/1/?step=1")
    phone_spectator.wait_for_selector(tile("A1"), timeout=TIMEOUT)
    assert phone_spectator.locator(owned("A1", 1)).count() == 1 and phone_spectator.locator(owned("G3", 1)).count() == 0
    assert phone_spectator.locator("#bt .bt-tile[data-blocked]").count() == 0
    _fits_phone(phone_spectator)
    phone_spectator.screenshot(path=str(ARTIFACTS / "bidding-phone-replay.png"), full_page=True)

    # Ann's amounts and chips never reached Bob or the spectator: pages or frames
    assert frames["bob"] and frames["spectator"]
    for name, page in (("bob", bob), ("spectator", spectator), ("phone spectator", phone_spectator)):
        assert not _leaks(page.content()), name
    for name, got in frames.items():
        leaked = [f for f in got if _leaks(f)]
        assert not leaked, (name, [_leaks(f) for f in leaked])
        assert not any("tied" in f for f in got), name
    assert re.search(r"\b37\b", _visible(ann.content()))  # Ann herself does see them
    assert not errors, errors
