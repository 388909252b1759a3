"""Issue 41, item 1 in a real browser, by clicks, the players and the host on a desktop and then on a
phone (a spectator on a desktop): in a two-seat match the opponent answers.  Ann offers a draw and then moves: the
offer ends on Bob's page.  Ann asks for a takeback, Bob declines it, the host grants it anyway.  Ann
offers a draw and Bob accepts: the bout is drawn by agreement on every page.  A spectator never gets
the Accept and Decline buttons, nor does the offering seat.  Every page follows live, without
reload.  Screenshots in test-artifacts/ (issue41-*.png)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, cell, play_cells, serious_axe, wait_connected

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _shot(page: Any, name: str, *, top: bool = True) -> None:
    """A screenshot of what the page shows from its top (where the offers box is), or as scrolled."""
    ARTIFACTS.mkdir(exist_ok=True)
    if top:
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"issue41-{name}.png"))


def _offers_say(page: Any, text: str) -> None:
    page.wait_for_function("(t) => { const box = document.querySelector('#offers');"
                           " return box && !box.hidden && box.textContent.includes(t); }", arg=text, timeout=TIMEOUT)


def _no_offers(page: Any) -> None:
    page.wait_for_selector("#offers", state="hidden", timeout=TIMEOUT)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_opponent_answers_draws_and_takebacks_by_clicks(browser: Any, start_match: StartMatch,
                                                            device: str) -> None:
    errors: list[str] = []
    extra = {"is_mobile": True, "has_touch": True} if device == "phone" else {}
    host = browser.new_context(viewport=VIEWPORTS[device], **extra).new_page()  # the host on the same device
    match = start_match("lance-assembly", ["Ann", "Bob"], fields={"#bouts": "3"}, host=host)
    match.start()
    ann = browser.new_context(viewport=VIEWPORTS[device], **extra).new_page()
    bob = browser.new_context(viewport=VIEWPORTS[device], **extra).new_page()
    spectator = browser.new_context(viewport=VIEWPORTS["desktop"]).new_page()
    for page, url in ((ann, match.seats[1]), (bob, match.seats[2]), (spectator, match.watch)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    wait_connected(host, ann, bob, spectator)
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)

    # 1. Ann offers a draw on her turn: Bob may answer it, Ann sees it waiting; then Ann moves and it ends
    ann.click("#offer-draw")
    _offers_say(bob, "Ann offers a draw.")
    _offers_say(ann, "You offered a draw: waiting for Bob's answer")
    host.wait_for_selector('#host-requests form[data-request="draw"]', timeout=TIMEOUT)
    assert "Bob answers, or you overrule" in host.inner_text("#host-requests")
    assert bob.is_visible("#offer-accept-draw") and bob.is_visible("#offer-decline-draw")
    assert ann.locator("#offer-accept-draw").count() == 0  # the offering seat never gets the answer
    spectator.wait_for_selector("#log-list >> text=offers a draw", timeout=TIMEOUT)
    assert spectator.locator("#offers").count() == 0 and spectator.locator("text=Accept").count() == 0
    assert serious_axe(bob) == []  # the offers box with its buttons, as the opponent gets it
    _shot(bob, f"draw-offered-{device}-opponent")
    _shot(ann, f"draw-offered-{device}-offerer")
    play_cells(ann, "C3")
    _no_offers(bob)
    _no_offers(ann)
    bob.wait_for_selector("#log-list >> text=no longer offers a draw: they moved", timeout=TIMEOUT)
    host.wait_for_selector("#host-requests", state="detached", timeout=TIMEOUT)
    _shot(bob, f"draw-offer-ended-{device}")

    # 2. Ann asks to take C3 back on Bob's turn; Bob declines; the host grants it anyway
    bob.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    ann.click("#ask-takeback")
    _offers_say(bob, "Ann asks to take back their last move.")
    bob.click("#offer-decline-takeback")
    _offers_say(ann, "Bob declined your takeback request; the host may still grant it.")
    _offers_say(bob, "You declined the takeback request of Ann")
    assert bob.locator("#offer-accept-takeback").count() == 0
    host.wait_for_selector('#host-requests form[data-request="takeback"] >> text=Grant it anyway', timeout=TIMEOUT)
    host.wait_for_selector("#log-list >> text=declines the takeback request of seat 1 (Ann)", timeout=TIMEOUT)
    host.locator("#host-requests").scroll_into_view_if_needed()
    _shot(host, f"takeback-declined-host-{device}", top=False)
    _shot(ann, f"takeback-declined-{device}-offerer")
    host.click('#host-requests form[data-request="takeback"] button[value="accept"]')
    for page in (host, ann, bob, spectator):
        page.wait_for_selector(cell("C3", ""), timeout=TIMEOUT)
    ann.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    _no_offers(ann)
    _no_offers(bob)
    host.wait_for_selector("#log-list >> text=granted the takeback request of seat 1 (Ann)", timeout=TIMEOUT)

    # 3. Ann offers a draw, Bob accepts: drawn by agreement on every page
    ann.click("#offer-draw")
    _offers_say(bob, "Ann offers a draw.")
    bob.click("#offer-accept-draw")
    for page in (host, ann, bob, spectator):
        page.wait_for_selector("#banner-head >> text=Bout 1 is drawn", timeout=TIMEOUT)
        assert "agreed by the players" in page.inner_text("#banner")
    _no_offers(ann)
    _no_offers(bob)
    host.wait_for_selector("#log-list >> text=accepts the draw offer of seat 1 (Ann)", timeout=TIMEOUT)
    _shot(bob, f"draw-accepted-{device}")
    _shot(host, f"draw-accepted-host-{device}")
    assert not errors, errors
