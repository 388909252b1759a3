"""Squava (5x5), alone and as the rules of the Two Connect board.

Walks Squava's rules (squava.py): any empty square; 4 in a row wins even
with a simultaneous 3; 3 (and not 4) loses; a full board is drawn.
"""

from __future__ import annotations

import functools

import pytest

from games.core import HOST, SPECTATOR, IllegalAction, NotationError
from games.registry import get_game
from games.two_connect.board import GridBoard, SoloState
from games.two_connect.squava import SquavaRules
from tests.games import playing

GAME = get_game("squava")
play = functools.partial(playing.play, GAME)
RULES = SquavaRules()


def position(rows: str, to_move: int = 1) -> SoloState[GridBoard]:
    return SoloState(board=RULES.from_rows(rows), to_move=to_move)


# -- board and squares ---------------------------------------------------------


def test_board_is_five_by_five_and_starts_empty() -> None:
    state = GAME.new()
    view = GAME.public_view(state)
    assert view["size"] == 5
    assert view["cells"] == [[0] * 5 for _ in range(5)]
    assert len(list(GAME.legal_actions(state, 1))) == 25


def test_a1_is_top_left_and_numbers_grow_downward() -> None:
    state = play(GAME.new(), 1, "B3")
    assert GAME.public_view(state)["cells"][2][1] == 1  # row 3, column B
    assert GAME.parse(state, 2, "E5") == 24


def test_any_empty_square_may_be_played() -> None:
    state = play(GAME.new(), 1, "E5")
    state = play(state, 2, "A1")
    assert GAME.public_view(state)["cells"][0][0] == 2


def test_an_occupied_square_is_refused() -> None:
    state = play(GAME.new(), 1, "C3")
    with pytest.raises(IllegalAction, match="C3 is not empty"):
        play(state, 2, "C3")


def test_players_alternate_seat_one_first() -> None:
    state = GAME.new()
    assert GAME.to_act(state) == {1}
    with pytest.raises(IllegalAction, match="not your turn"):
        play(state, 2, "C3")
    state = play(state, 1, "C3")
    assert GAME.to_act(state) == {2}


def test_starting_seat_option() -> None:
    state = GAME.new({"starting_seat": 2})
    assert GAME.to_act(state) == {2}


# -- four wins, three loses ----------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "move"),
    [
        ("xx.x. ..... o.... .o... ..o..", "C1"),  # row
        ("x.... x.... ..... x.... oo.o.", "A3"),  # column
        ("x.... .x... ..... ...x. o.o.o", "C3"),  # diagonal
        ("...x. ..x.. ..... x.... o.o.o", "B3"),  # other diagonal
    ],
)
def test_four_in_a_row_wins_the_board(rows: str, move: str) -> None:
    state = play(position(rows), 1, move)
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "line"


def test_four_wins_even_if_the_same_stone_makes_three() -> None:
    # C1 completes A1-D1 (four) and C1-C3 (three): the four wins
    state = play(position("xx.x. ..x.. ..x.. o.o.o .o.o."), 1, "C1")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "line"


def test_five_in_a_row_is_four_or_more_and_wins() -> None:
    state = play(position("xx.xx o.o.o ..... o.... ....."), 1, "C1")
    outcome = GAME.result(state)
    assert outcome is not None
    assert outcome.winners == {1}
    assert outcome.reason == "line"


@pytest.mark.parametrize(
    ("rows", "move"),
    [
        ("xx... ..... o.o.. ..... .....", "C1"),  # row
        ("x.... x.... ..... o.o.. .....", "A3"),  # column
        ("x.... .x... ..... o.o.. .....", "C3"),  # diagonal
        ("..x.. .x... ..... ...o. o....", "A3"),  # other diagonal
    ],
)
def test_three_in_a_row_without_four_loses_the_board(rows: str, move: str) -> None:
    state = play(position(rows), 1, move)
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "three"


def test_three_separated_by_a_gap_is_not_a_line() -> None:
    state = play(position("x.x.. ..... o.o.. ..... ....."), 1, "E1")
    assert GAME.result(state) is None


def test_the_player_who_makes_three_loses_even_as_seat_two() -> None:
    state = play(position("x.x.. oo... ..... ..x.. .....", to_move=2), 2, "C2")
    outcome = GAME.result(state)
    assert outcome is not None
    assert outcome.winners == {1}
    assert outcome.reason == "three"


def test_a_full_board_without_a_result_is_drawn() -> None:
    # a full 5x5 filling with no three in a row for either colour; E5 (an x) left empty
    rows = "xxoox ooxxo xxoox ooxxo xxoo."
    state = play(position(rows), 1, "E5")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "full"
    assert GAME.public_view(state)["status"] == "drawn"


def test_no_move_after_the_board_is_finished() -> None:
    state = play(position("xx... ..... o.o.. ..... ....."), 1, "C1")
    assert GAME.to_act(state) == frozenset()
    assert list(GAME.legal_actions(state, 2)) == []
    with pytest.raises(IllegalAction, match="over"):
        play(state, 2, "E5")
    with pytest.raises(IllegalAction, match="Squava board is finished"):
        RULES.play(state.board, 2, 24)


# -- notation ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["C3", "c3", "squava C3", "Squava c3.", "squava,c3", "I place a stone on c3", "  on  C3 "])
def test_notation_with_or_without_the_board_word(text: str) -> None:
    assert GAME.parse(GAME.new(), 1, text) == 12


def test_format_is_canonical_and_round_trips() -> None:
    state = GAME.new()
    for action in GAME.legal_actions(state, 1):
        assert GAME.parse(state, 1, GAME.format(action)) == action
    assert GAME.format(12) == "C3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("F6", "expected a Squava square from A1 to E5, got 'F6'"),
        ("A0", "A1 to E5"),
        ("", "got nothing"),
        ("squava", "after the board word"),
        ("C3 D4", "expected one Squava square"),
        ("gomoku C3", "this is a Squava game"),
    ],
)
def test_bad_notation_says_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        GAME.parse(GAME.new(), 1, text)


# -- views and storage ---------------------------------------------------------


def test_view_shows_cells_status_and_last_square() -> None:
    state = play(GAME.new(), 1, "C3")
    view = GAME.view(state, SPECTATOR)
    public = view["public"]
    assert public["last"] == "C3"
    assert public["last_squares"] == ["C3"]
    assert public["status"] == "open"
    assert public["to_move"] == 2
    assert public["stones"] == {"1": 1, "2": 0}
    assert GAME.view(state, HOST)["public"] == public


def test_dump_load_round_trip() -> None:
    state = play(play(GAME.new(), 1, "C3"), 2, "A1")
    assert GAME.load(GAME.dump(state)) == state
