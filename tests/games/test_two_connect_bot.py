"""Two Connect's normal and strong computer players: their boards' own engines, and the boards that
matter most."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from games.bots import STRENGTHS, choose
from games.bots.connect import two_of_three
from games.core import Game
from games.registry import get_game
from games.two_connect.board import BoardGame, GridRules
from tests.games import playing

#: the decisions without a clock, on a small budget, so a seed fixes them
KNOBS = {name: replace(STRENGTHS[name], iterations=60, seconds=None) for name in ("normal", "strong")}
STRONG = KNOBS["strong"]

SQUAVA_WON_AT_C1 = """
1 1 . 1 .
. . . . .
2 . 2 . .
. . . . .
. 2 . . .
"""

GOMOKU_OPEN = """
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . 1 . . . . . . . .
. . . . . . 1 . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
"""

GOMOKU_FOUR = """
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . 1 . . . . . . . .
. . . . . . 1 . . . . . . .
. 1 2 2 2 2 . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . 1 . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
"""


def _match(squava: str, gomoku: str, turns: int = 6) -> tuple[Game[Any, Any], Any]:
    """A Two Connect position with these Squava and Gomoku boards, seat 1 to move."""
    game = get_game("two-connect")
    data = game.dump(game.new({}))
    for word, rows in (("squava", squava), ("gomoku", gomoku)):
        rules = playing.registered(word, BoardGame).rules
        assert isinstance(rules, GridRules), rules
        data["boards"][word] = rules.dump(rules.from_rows(rows))
    data["turns"] = turns
    return game, game.load(data)


def _moves(game: Game[Any, Any], action: Any) -> list[str]:
    return sorted(game.format(action).split("; "))


def test_chance_of_two_boards_of_three() -> None:
    assert two_of_three(1.0, 1.0, 0.0) == 1.0
    assert two_of_three(0.0, 0.0, 1.0) == 0.0
    assert two_of_three(0.5, 0.5, 0.5) == pytest.approx(0.5)
    # one board won: either of the others is enough
    assert two_of_three(1.0, 0.3, 0.4) == pytest.approx(1 - 0.7 * 0.6)


@pytest.mark.parametrize(("strength", "seed"), [("normal", 1), ("strong", 2), ("strong", 3)])
def test_the_bot_wins_the_board_it_can_and_stops_the_other_five(strength: str, seed: int) -> None:
    game, state = _match(SQUAVA_WON_AT_C1, GOMOKU_FOUR)
    action = choose(game, state, 1, KNOBS[strength], seed=seed)
    moves = _moves(game, action)
    assert "squava C1" in moves
    assert moves[0] == "gomoku G8"  # the open end of the other side's four


@pytest.mark.parametrize(("strength", "seed"), [("normal", 1), ("strong", 2)])
def test_the_bot_leaves_a_quiet_board_for_a_threat(strength: str, seed: int) -> None:
    # Squava is quiet, Yinsh has no ring yet; the other side's four on Gomoku must be answered
    game, state = _match("." * 25, GOMOKU_FOUR)
    moves = _moves(game, choose(game, state, 1, KNOBS[strength], seed=seed))
    assert moves[0] == "gomoku G8"


def test_strong_plays_one_move_when_the_turn_is_one() -> None:
    game = get_game("two-connect")
    state = game.new({})
    action = choose(game, state, 1, STRONG, seed=5)
    assert len(game.format(action).split("; ")) == 1
    game.apply(state, 1, action)


def test_strong_varies_with_its_seed() -> None:
    game, state = _match("." * 25, GOMOKU_OPEN)
    seen = {game.format(choose(game, state, 1, STRONG, seed=seed)) for seed in range(5)}
    assert len(seen) >= 2
