"""A whole season in headless Chromium against a real daphne: the host opens
a season with a webhook (a local recording server), adds four players and a
garnet, creates a Back to the Wall main match from the manage page; the four
players type their orders on their own pages for three rounds (a spend
without a garnet is refused on the page); the season page shows the ledger,
the Token of Life and the Elimination Candidate (as the pure rules compute
them for the same orders); the host creates the elimination match, the two
players type their moves, and the season page shows the elimination.  The
channel heard each step, never a secret link.  Screenshots (desktop and
phone) go to test-artifacts/."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest

from games.core import SPECTATOR
from games.registry import get_game
from tests.hookserver import Hook

from .conftest import ARTIFACTS, TIMEOUT, Server, axe_violations, season_act, version, wait_connected

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Bob", "Cy", "Di"]
DIRS = ["up", "down", "left", "right"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _orders(rnd: int, rng: random.Random, garnet: tuple[str, ...] = ()) -> str:
    parts = []
    for board in ("once", "twice", "thrice"):
        parts += [f"{board} piece {p} " + " ".join(rng.choice(DIRS) for _ in range(3)) for p in range(1, rnd + 1)]
        parts += [f"{board} garnet"] if board in garnet else []
    return "; ".join(parts)


def _final(rounds: list[list[str]]) -> dict[str, Any]:
    game = get_game("back-to-the-wall")
    state = game.new()
    for row in rounds:
        for seat, text in enumerate(row, start=1):
            state = game.play(state, seat, text)
    result: dict[str, Any] = game.view(state, SPECTATOR)["public"]["final"]
    return result


def _submit(page: Any, text: str, version: int) -> None:
    """Type orders on a seat's page once it shows `version`, and send them."""
    page.wait_for_selector(f'#live-meta[data-version="{version}"]', state="attached", timeout=TIMEOUT)
    page.fill("#move-text", text)
    page.click("#move-submit")


def _row(page: Any, name: str) -> dict[str, str]:
    cells = page.locator(f'#standings tr[data-player="{name}"] td').all_inner_texts()
    return dict(zip(["garnets", "tokens", "played", "won", "status"], [c.strip() for c in cells], strict=True))


def test_a_season_from_roster_to_elimination(server: Server, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    hook = Hook()
    errors: list[str] = []

    def watch(page: Any) -> Any:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        return page

    try:
        host = watch(browser.new_context(viewport=DESKTOP).new_page())
        host.goto(server.url + "/seasons/")
        host.fill("#season-name", "Autumn League")
        host.fill("#season-webhook", hook.url)
        with host.expect_navigation():
            host.click("#create-season")
        assert "/s/" in host.url and "keep it to yourself" in host.inner_text(".season-messages")
        manage = host.url
        for name in NAMES:
            assert f"{name} added to the roster" in season_act(host, {"#add-name": name}, "#add-player")
        assert "Bob +1 garnet(s) recorded" in season_act(
            host, {"#garnets-player": "Bob", "#garnets-amount": "1", "#garnets-reason": "opening bonus"},
            "#garnets-submit")
        message = season_act(host, {"#match-game": "Back to the Wall (4 players)", "#match-seat1": "Ann",
                                       "#match-seat2": "Bob", "#match-seat3": "Cy", "#match-seat4": "Di"},
                       "#create-match")
        assert re.search(r"Match #\d+ created", message)
        host.screenshot(path=str(ARTIFACTS / "season-manage.png"), full_page=True)
        assert axe_violations(host) == []

        # the host dashboard of the new match, from the manage page
        host.click("#matches .host-link >> nth=0")
        host.wait_for_url("**/h/**")
        dashboard = host.url
        links = {n: host.input_value(f"#seat-link-{n}") for n in (1, 2, 3, 4)}
        seats = {}
        for n in (1, 2, 3, 4):
            context = browser.new_context(**PHONE) if n == 4 else browser.new_context(viewport=DESKTOP)
            seats[n] = watch(context.new_page())
            seats[n].goto(links[n])
        wait_connected(host, *seats.values())
        host.click("#host-start")
        for page in (host, *seats.values()):  # the host's page too: its version is read next
            page.wait_for_function("document.querySelector('#live-meta').dataset.bout === '1'", timeout=TIMEOUT)
        at = version(host)

        rng = random.Random(4)
        rounds = [[_orders(r, rng, ("once",) if (r, s) == (1, 2) else ()) for s in (1, 2, 3, 4)] for r in (1, 2, 3)]
        # Ann has no garnet: her spend is refused on her page and changes nothing
        _submit(seats[1], _orders(1, random.Random(0), ("thrice",)), at)
        seats[1].wait_for_selector("#move-error:not([hidden])", timeout=TIMEOUT)
        assert "you have no garnet to spend" in seats[1].inner_text("#move-error")
        seats[1].screenshot(path=str(ARTIFACTS / "season-garnet-refused.png"), full_page=True)
        for row in rounds:
            for seat, text in enumerate(row, start=1):
                _submit(seats[seat], text, at)
                at += 1
        final = _final(rounds)
        host.wait_for_selector(f'#live-meta[data-version="{at}"]', state="attached", timeout=TIMEOUT)

        # the season page: ledger, token and candidate as the rules have them
        public = watch(browser.new_context(viewport=DESKTOP).new_page())
        public.goto(server.url + "/seasons/autumn-league/")
        winner = NAMES[final["token_of_life"][0] - 1]
        candidate = NAMES[final["elimination_candidate"][0] - 1]
        for seat, name in enumerate(NAMES, start=1):
            standing = _row(public, name)
            earned = final["garnets_earned"][str(seat)]
            spent = len(final["garnet_spends"][str(seat)])
            assert int(standing["garnets"]) == (1 if name == "Bob" else 0) + earned - spent, name
            assert standing["tokens"] == ("1" if name == winner else "0") and standing["played"] == "1"
            assert standing["status"] == ("elimination candidate" if name == candidate else "active")
        ledger = public.inner_text("#ledger")
        assert "spent on Once" in ledger and "opening bonus" in ledger
        assert ("sole first on" in ledger) == any(final["garnets_earned"].values())
        public.screenshot(path=str(ARTIFACTS / "season-after-main-match.png"), full_page=True)

        # the elimination match: the candidate against another player, from the manage page
        opponent = winner if winner != candidate else next(n for n in NAMES if n != candidate)
        host.goto(manage)
        host.check("#match-elimination")
        message = season_act(host, {"#match-game": "Squava (2 players)", "#match-seat1": opponent,
                                       "#match-seat2": f"{candidate} (elimination candidate)",
                                       "#match-seat3": "—", "#match-seat4": "—"}, "#create-match")
        assert re.search(r"Elimination match #\d+ created", message)
        host.click("#matches li:has-text('elimination match') .host-link")
        host.wait_for_url("**/h/**")
        assert host.url != dashboard
        duel_links = {n: host.input_value(f"#seat-link-{n}") for n in (1, 2)}
        duel = {1: seats[1], 2: seats[4]}
        for n, page in duel.items():
            page.goto(duel_links[n])
        wait_connected(host, *duel.values())
        host.click("#host-start")
        duel[1].wait_for_function("document.querySelector('#live-meta').dataset.bout === '1'", timeout=TIMEOUT)
        at = version(duel[1])
        for seat, move in [(1, "A1"), (2, "A5"), (1, "B1"), (2, "B5"), (1, "D1"), (2, "E3"), (1, "C1")]:
            _submit(duel[seat], move, at)
            at += 1
        host.wait_for_selector(f'#live-meta[data-version="{at}"]', state="attached", timeout=TIMEOUT)

        # the season page shows the elimination, on a desktop and on a phone
        public.reload()
        assert _row(public, candidate)["status"] == "eliminated"
        assert "elimination match" in public.inner_text("#matches")
        public.screenshot(path=str(ARTIFACTS / "season-desktop.png"), full_page=True)
        assert axe_violations(public) == []
        phone = watch(browser.new_context(**PHONE).new_page())
        phone.goto(public.url)
        phone.screenshot(path=str(ARTIFACTS / "season-phone.png"), full_page=True)
        assert axe_violations(phone) == []
        phone.goto(manage)
        phone.screenshot(path=str(ARTIFACTS / "season-manage-phone.png"), full_page=True)
        host.goto(manage)
        host.screenshot(path=str(ARTIFACTS / "season-manage-end.png"), full_page=True)
        assert axe_violations(host) == []
        host.goto(server.url + "/seasons/")
        assert "Autumn League" in host.inner_text(".season-table") and axe_violations(host) == []

        # the channel heard every step (posted by the server's worker), never a secret link
        deadline = time.monotonic() + 20
        while not any("is eliminated" in t for t in hook.texts) and time.monotonic() < deadline:
            time.sleep(0.2)
        heard = "\n".join(hook.texts)
        for needle in ["Bob +1 garnet", "new match: Back to the Wall", "has started", "earns a Token of Life",
                       f"{candidate} finished last", "new elimination match: Squava",
                       f"{candidate} lost the elimination match and is eliminated"]:
            assert needle in heard, needle
        secrets = [manage.rstrip("/").rsplit("/", 1)[1], dashboard.rstrip("/").rsplit("/", 1)[1],
                   *[u.rstrip("/").rsplit("/", 1)[1] for u in [*links.values(), *duel_links.values()]]]
        assert [s for s in secrets if s in heard] == []
        assert errors == []
    finally:
        hook.close()
