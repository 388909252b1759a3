"""While a Host's game round's answers wait for the host to reveal them, every audience is told
so (issue 56): never "No round is open" to the host or "Waiting for the host to open a round"
to the others, as if nothing had happened."""

from __future__ import annotations

import functools
from typing import Any

from games.core import HOST, SPECTATOR
from games.custom.page import CustomPage
from games.custom.rules import CustomGame, CustomState
from tests.games import playing

game = CustomGame()
play = functools.partial(playing.play, game)
page = CustomPage()
NAMES = {1: "Ann", 2: "Bob", 3: "Cy"}


def _context(state: CustomState, viewer: int) -> dict[str, Any]:
    view = game.view(state, viewer)
    return page.context(view, {"viewer": viewer, "names": NAMES, "my_turn": viewer in view["to_act"]})


def _answered() -> CustomState:
    """Round 1 asked seats 1 and 2 (seat 3 not asked); both answered, so it closed."""
    return play(game.new({"seats": 3}), (HOST, 'round "Pick" number 1-10 seats 1,2'), (1, "3"), (2, "5"))


def test_answers_waiting_for_the_reveal_are_said_to_every_audience() -> None:
    state = _answered()
    words = {viewer: _context(state, viewer) for viewer in (HOST, 1, 3, SPECTATOR)}
    assert words[HOST]["status"] == "All answers to round 1 are in: reveal them when ready (Reveal round 1 below)."
    assert words[1]["status"] == "Round 1: your answer is in; the host will reveal the answers."
    assert words[3]["status"] == words[SPECTATOR]["status"] == "All answers to round 1 are in; the host will reveal them."
    for viewer, ctx in words.items():
        assert ctx["hg"]["awaiting"] == ctx["status"], viewer
        assert "No round is open" not in ctx["status"] and "open a round" not in ctx["status"]


def test_once_revealed_the_pages_wait_for_the_next_round_again() -> None:
    state = play(_answered(), (HOST, "reveal round 1 seat 1"))
    assert _context(state, SPECTATOR)["hg"]["awaiting"]  # seat 2's answer still waits
    state = play(state, (HOST, "reveal round 1 seat 2"))
    assert _context(state, HOST)["status"] == "No round is open: open one below."
    assert _context(state, SPECTATOR)["status"] == "Waiting for the host to open a round."
    assert _context(state, 1)["hg"]["awaiting"] == ""


def test_a_round_only_the_host_sees_has_nothing_to_reveal() -> None:
    state = play(game.new({"seats": 2}), (HOST, 'round "Secret" number 1-10 reveal host'), (1, "3"), (2, "5"))
    assert _context(state, SPECTATOR)["status"] == "Waiting for the host to open a round."
    assert _context(state, HOST)["hg"]["awaiting"] == ""
