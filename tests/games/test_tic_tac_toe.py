"""The toy game's rules (tests/games/toy/): a game added for the tests of
issue 38 is held to what every game is held to."""

from __future__ import annotations

import pytest

from games.core import IllegalAction, NotationError
from games.registry import registered
from tests.games.test_conformance import _playout
from tests.games.test_structure import lacks
from tests.games.toy.page import TicTacToePage
from tests.games.toy.rules import TicTacToe, ToyState

GAME = TicTacToe()


def _play(*squares: str) -> ToyState:
    state = GAME.new()
    for square in squares:
        state = GAME.play(state, state.to_move, square)
    return state


def test_three_in_a_row_wins_and_a_full_board_is_drawn() -> None:
    won = GAME.result(_play("A1", "A2", "B1", "B2", "C1"))
    assert won is not None and won.winners == {1} and won.reason == "line"
    full = GAME.result(_play("A1", "B1", "C1", "B2", "A2", "C2", "B3", "A3", "C3"))
    assert full is not None and full.is_draw and full.reason == "full"


def test_a_taken_square_and_bad_text_are_refused_in_words() -> None:
    with pytest.raises(IllegalAction, match="B2 is not empty"):
        _play("B2", "B2")
    with pytest.raises(NotationError, match="expected a square from A1 to C3"):
        _play("D4")


def test_it_conforms_and_lacks_nothing_once_registered() -> None:
    for seed in range(20):
        _playout(GAME, seed)
    with registered(GAME, TicTacToePage(), app="toy_ttt"):
        assert lacks("tic-tac-toe") == []
