"""Gomoku (14x14), alone and as the rules of the Two Connect board.

The rules (gomoku.py): any empty intersection, 5 in a row (overlines count)
wins, a full board is drawn.  Points A1..N14, A1 top-left.
"""

from __future__ import annotations

import functools

import pytest

from games.core import SPECTATOR, IllegalAction, NotationError
from games.registry import get_game
from games.two_connect.board import GridBoard, SoloState
from games.two_connect.gomoku import GomokuRules
from tests.games import playing

GAME = get_game("gomoku")
play = functools.partial(playing.play, GAME)
RULES = GomokuRules()
N = 14


def idx(name: str) -> int:
    return RULES.parse_move(name)


def position(stones: dict[str, int], to_move: int = 1) -> SoloState[GridBoard]:
    cells = [0] * (N * N)
    for name, seat in stones.items():
        cells[idx(name)] = seat
    return SoloState(board=GridBoard(cells=tuple(cells)), to_move=to_move)


def test_board_is_fourteen_by_fourteen() -> None:
    state = GAME.new()
    assert GAME.public_view(state)["size"] == 14
    assert len(list(GAME.legal_actions(state, 1))) == 196


@pytest.mark.parametrize(("text", "index"), [("A1", 0), ("N1", 13), ("A14", 182), ("N14", 195), ("h7", 6 * 14 + 7)])
def test_points_a1_to_n14_a1_top_left(text: str, index: int) -> None:
    assert GAME.parse(GAME.new(), 1, text) == index


@pytest.mark.parametrize("text", ["O1", "A15", "A0", "Z9"])
def test_points_outside_the_board_are_notation_errors(text: str) -> None:
    with pytest.raises(NotationError, match="expected a Gomoku square from A1 to N14"):
        GAME.parse(GAME.new(), 1, text)


def test_an_occupied_intersection_is_refused() -> None:
    state = play(GAME.new(), 1, "H7")
    with pytest.raises(IllegalAction, match="H7 is not empty"):
        play(state, 2, "H7")


@pytest.mark.parametrize(
    ("stones", "move"),
    [
        (["A1", "B1", "C1", "D1"], "E1"),  # row
        (["N10", "N11", "N12", "N13"], "N14"),  # column, bottom edge
        (["C3", "D4", "F6", "G7"], "E5"),  # diagonal, completed in the middle
        (["J2", "I3", "H4", "G5"], "F6"),  # other diagonal
    ],
)
def test_five_in_a_row_wins(stones: list[str], move: str) -> None:
    state = position({**dict.fromkeys(stones, 1), "A10": 2, "C10": 2, "E10": 2, "G10": 2})
    state = play(state, 1, move)
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "line"


def test_an_overline_of_six_counts() -> None:
    state = position({**dict.fromkeys(["A5", "B5", "C5", "E5", "F5"], 2), "A1": 1, "C1": 1}, to_move=2)
    state = play(state, 2, "D5")
    outcome = GAME.result(state)
    assert outcome is not None
    assert outcome.winners == {2}
    assert outcome.reason == "line"


def test_four_in_a_row_does_not_win() -> None:
    state = position(dict.fromkeys(["A1", "B1", "C1"], 1))
    state = play(state, 1, "D1")
    assert GAME.result(state) is None


def test_three_in_a_row_does_not_lose_in_gomoku() -> None:
    state = play(position(dict.fromkeys(["A1", "B1"], 1)), 1, "C1")
    assert GAME.result(state) is None


def test_a_full_board_is_drawn() -> None:
    # columns in pairs alternate colour, shifted one per row: no line longer than 2;
    # one seat-2 point (C1) left empty, seat 2 to move (98 stones against 97)
    cells = [1 + ((c // 2 + r) % 2) for r in range(N) for c in range(N)]
    cells[idx("C1")] = 0
    assert cells.count(1) == 98 and cells.count(2) == 97
    state = SoloState(board=GridBoard(cells=tuple(cells)), to_move=2)
    state = play(state, 2, "C1")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "full"


def test_players_alternate_and_wrong_seat_is_refused() -> None:
    state = play(GAME.new(), 1, "H7")
    with pytest.raises(IllegalAction, match="not your turn"):
        play(state, 1, "H8")


@pytest.mark.parametrize("text", ["gomoku H7", "h7", "I play on h7.", "GOMOKU  h7"])
def test_notation_with_or_without_the_board_word(text: str) -> None:
    assert GAME.parse(GAME.new(), 1, text) == idx("H7")


def test_view_and_round_trip() -> None:
    state = play(play(GAME.new(), 1, "H7"), 2, "N14")
    public = GAME.view(state, SPECTATOR)["public"]
    assert public["last"] == "N14"
    assert public["cells"][13][13] == 2
    assert GAME.load(GAME.dump(state)) == state
