"""Bidding 3D Tic-Tac-Toe: three controlled boards in a line win at once; without one (or with both)
boards, then tiles, then chips, then garnets, then the host's draw.
"""

from __future__ import annotations

import json

import pytest

from games.core import SPECTATOR, IllegalAction
from tests.games.test_bidding_ttt import controllers, game, owner, play_round

# -- winning -------------------------------------------------------------------


def test_three_controlled_boards_in_a_line_win_at_once_even_before_round_3() -> None:
    # Red's starting board D plus A and G: the left column of boards
    state = game.position(red="A1 A2 G1 G2", round=2)
    state = play_round(state, "A3 5; G3 5", "pass")
    result = game.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "line"
    assert "A, D, G" in result.detail
    assert game.to_act(state) == frozenset()


def test_blue_wins_with_a_line_through_its_starting_board() -> None:
    state = game.position(blue="C1 C5 I3 I5", round=3)
    state = play_round(state, "pass", "C9 1; I7 1")
    result = game.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "line"


def test_a_shared_board_counts_toward_each_players_line() -> None:
    state = game.position(red="A1 A2 G4 G5 G6", blue="A7 A8", round=3)
    state = play_round(state, "A3 1", "A9 1")
    assert controllers(state, "A") == {1, 2}
    result = game.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "line"


def test_a_line_wins_whoever_owns_more_tiles() -> None:
    # Red's A D G column on 6 tiles against Blue's 12 tiles on boards B, E and H (no line of boards)
    state = game.position(red="A1 A2 G1 G2", blue="B1 B2 B4 B5 H1 H2 H4 H5 E1 E2 E4 E5", round=2)
    state = play_round(state, "A3 1; G3 1", "pass")
    assert game.public_view(state)["tiles_owned"] == {"1": 6, "2": 12}
    result = game.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")


def test_no_line_after_rounds_1_and_2_plays_on() -> None:
    state = game.position(red="A1 A2 A3", round=2)  # A and D: two boards, no line
    state = play_round(state, "pass", "pass")
    assert game.result(state) is None
    assert state.round == 3


def test_both_lines_go_to_the_tie_breaks_boards_first() -> None:
    # Red: A D G column + B; Blue: C F I column
    state = game.position(red="A1 A2 G1 G2 B1 B2 B3", blue="C1 C2 I1 I2", round=2)
    state = play_round(state, "A3 1; G3 1", "C3 1; I3 1")
    result = game.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "boards"
    assert "both control three boards in a line" in result.detail
    assert "(4 to 3)" in result.detail


def test_after_round_3_without_a_line_more_boards_win() -> None:
    state = game.position(red="A1 A2 A3 B1 B2 B3", blue="I1 I2 I3", round=3)
    state = play_round(state, "pass", "pass")
    result = game.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "boards"


def test_equal_boards_then_more_tiles_win() -> None:
    state = game.position(red="A1 A2 A3 E1", blue="C1 C2 C3", round=3)
    state = play_round(state, "pass", "pass")
    result = game.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "tiles"
    assert "(4 to 3)" in result.detail


def test_equal_boards_and_tiles_then_more_chips_win_without_revealing_the_numbers() -> None:
    state = game.position(red="A1", blue="C1", round=3, chips=(41, 47))
    state = play_round(state, "pass", "pass")
    result = game.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "chips"
    assert "Blue has more chips left" in result.detail
    assert "41" not in result.detail and "47" not in result.detail
    assert result.scores is None
    assert "41" not in json.dumps(game.view(state, SPECTATOR))


def test_chips_paid_on_a_lost_auction_count_in_the_chips_tie_break() -> None:
    state = game.position(red="A1", round=3)
    state = play_round(state, "E5 6", "E5 7")  # Blue wins E5: one tile each
    result = game.result(state)
    assert owner(state, "E5") == 2
    assert result is not None
    assert result.winners == {1}  # Red paid 6 for nothing but kept more chips (74 to 73)
    assert result.reason == "chips"


def test_equal_boards_tiles_and_chips_then_more_garnets_win() -> None:
    state = game.new({"garnets": {1: 3, 2: 5}})
    state = play_round(state, "pass", "pass")
    state = play_round(state, "pass", "pass")
    state = play_round(state, "pass", "pass")
    result = game.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "garnets"
    assert "(5 to 3)" in result.detail


def test_all_equal_is_a_draw_for_the_host() -> None:
    state = play_round(game.position(round=3), "E5 3", "E5 3")
    result = game.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "tie"
    assert "host" in result.detail


def test_garnets_option_accepts_int_or_string_keys() -> None:
    assert game.new({"garnets": {1: 3, 2: 5}}).garnets == (3, 5)
    assert game.new({"garnets": {"1": 3, "2": 5}}).garnets == (3, 5)
    assert game.new({"garnets": {"2": 4}}).garnets == (0, 4)
    assert game.public_view(game.new({"garnets": {"1": 2}}))["garnets"] == {"1": 2, "2": 0}


@pytest.mark.parametrize(
    "garnets, message",
    [
        ({3: 1}, "there is no seat 3"),
        ({"x": 1}, "there is no seat 'x'"),
        ({1: -2}, "needs a whole number >= 0"),
        ({1: "many"}, "needs a whole number >= 0"),
        ([1, 2], "must map seats to garnets"),
    ],
)
def test_bad_garnets_options_are_refused(garnets: object, message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        game.new({"garnets": garnets})
