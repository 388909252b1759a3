"""Lance Assembly: the neutral tile, the placement limit, lances (the mover's, the opponent's, both),
and the stalemates (the third repetition, no legal turn).

The rules: howto.py (/rules/lance-assembly/); the rulings: rules.py's docstring.
Positions are built from 6-row diagrams (R red = seat 1, B blue = seat 2,
N neutral, . empty; A1 top-left).
"""

from __future__ import annotations

import json
import random

import pytest

from games.core import IllegalAction
from games.lance_assembly.notation import Neutral, Place
from games.lance_assembly.rules import WINDOWS
from tests.games.test_lance_assembly import GAME, MIDGAME, board, play, pos, rows, sq

EMPTY_BOARD = "\n".join(["......"] * 6)












def _with_empties(empty: int) -> str:
    """A lance-free board with exactly `empty` empty squares (the last ones in reading order)."""
    pattern = ["RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB"]
    flat = list("".join(pattern))
    for k in range(empty):
        flat[35 - k] = "."
    return "\n".join("".join(flat[r * 6 : r * 6 + 6]) for r in range(6))


SPARSE = rows(
    "R.....",
    "......",
    "......",
    "......",
    "......",
    ".....B",
)


#: four slides that bring back the board after "place A1", "place F6"
SHUTTLE = ["slide A1 right 1", "slide F6 left 1", "slide B1 left 1", "slide E6 right 1"]


# -- the neutral tile ----------------------------------------------------------------


def test_neutral_tile_belongs_to_the_player_who_moves_second() -> None:
    state = pos(MIDGAME, starting_seat=1)
    assert GAME.public_view(state)["neutral_owner"] == 2
    with pytest.raises(IllegalAction, match=r"only the player who moves second in the bout \(Blue\)"):
        play(state, 1, "place F6; neutral F5")
    state2 = pos(MIDGAME, starting_seat=2, to_move=1)
    assert GAME.public_view(state2)["neutral_owner"] == 1
    after = play(state2, 1, "place F6; neutral F5")
    assert after.cells[sq("F5")] == 3


@pytest.mark.parametrize(
    "text",
    [
        "neutral F1; place F6; slide A1 down 1",
        "place F6; neutral F1; slide A1 down 1",
        "place F6; slide A1 down 1; neutral F1",
        "neutral F1; place F6",
        "place F6; neutral F1",
        "neutral F1; slide A1 down 1",
        "slide A1 down 1; neutral F1",
    ],
)
def test_neutral_tile_may_be_placed_at_any_point_of_the_turn(text: str) -> None:
    state = play(pos(MIDGAME, to_move=2), 2, text)
    assert state.cells[sq("F1")] == 3
    assert state.neutral_available is False
    assert GAME.public_view(state)["neutral_available"] is False


def test_neutral_tile_does_not_count_as_the_placement_or_the_slide() -> None:
    state = play(pos(MIDGAME, to_move=2), 2, "neutral F1; place F6; slide B4 down 1")
    assert state.in_hand == (pos(MIDGAME).in_hand[0], pos(MIDGAME).in_hand[1] - 1)


def test_neutral_tile_alone_is_not_a_turn() -> None:
    with pytest.raises(IllegalAction, match="neutral tile alone is not a turn"):
        play(pos(MIDGAME, to_move=2), 2, "neutral F1")


def test_neutral_tile_is_used_once_per_bout() -> None:
    state = play(pos(MIDGAME, to_move=2), 2, "place F6; neutral F1")
    state = play(state, 1, "place E6")
    with pytest.raises(IllegalAction, match="already used the neutral tile"):
        play(state, 2, "place D6; neutral F2")


def test_only_one_neutral_tile_in_a_turn() -> None:
    with pytest.raises(IllegalAction, match="only one neutral tile"):
        play(pos(MIDGAME, to_move=2), 2, "neutral F1; place F6; neutral F2")


def test_neutral_tile_goes_on_an_empty_square() -> None:
    with pytest.raises(IllegalAction, match="C3 is not empty"):
        play(pos(MIDGAME, to_move=2), 2, "place F6; neutral C3")


def test_neutral_tile_never_counts_toward_a_lance() -> None:
    state = pos(rows(
        "RRNRR.",
        "BB....",
        "B.....",
        "......",
        "......",
        "......",
    ), neutral_available=False)
    after = play(state, 1, "place F1")
    assert GAME.result(after) is None


def test_card_example_the_neutral_tile_blocks_a_line_into_two_short_ones() -> None:
    state = pos(rows(
        "RR.RR.",
        "BBB...",
        "......",
        "......",
        "......",
        "......",
    ), to_move=2)
    after = play(state, 2, "neutral C1; place F6")
    after = play(after, 1, "place F1")
    assert board(after).splitlines()[0] == "RRNRRR"
    assert GAME.result(after) is None


def test_the_neutral_tile_can_be_slid_like_any_tile() -> None:
    state = pos(rows("N.....", *["......"] * 5), neutral_available=False)
    after = play(state, 1, "slide A1 down 5")
    assert after.cells[sq("A6")] == 3


# -- the placement limit ---------------------------------------------------------------


def test_lance_free_helper_board_has_no_lance() -> None:
    state = pos(_with_empties(0), in_hand=(5, 5))
    assert not any(len({state.cells[i] for i in w}) == 1 and state.cells[w[0]] for w in WINDOWS)


def test_placement_allowed_while_more_than_four_squares_are_empty() -> None:
    state = pos(_with_empties(5), in_hand=(5, 5))
    assert GAME.public_view(state)["can_place"] is True
    after = play(state, 1, "place F6")
    assert after.empty_count == 4


def test_no_placement_once_four_squares_are_empty_only_slides() -> None:
    state = pos(_with_empties(4), in_hand=(5, 5))
    assert GAME.public_view(state)["can_place"] is False
    with pytest.raises(IllegalAction, match=r"only 4 squares are empty.*may only slide"):
        play(state, 1, "place F6")
    after = play(state, 1, "slide B6 right 1")
    assert after.empty_count == 4
    assert all(Place not in {type(p) for p in a.parts} for a in GAME.legal_actions(state, 1))


def test_placement_limit_counts_at_the_moment_of_each_placement_own_then_neutral() -> None:
    state = pos(_with_empties(5), in_hand=(5, 5), to_move=2)
    with pytest.raises(IllegalAction, match="cannot place the neutral tile: only 4 squares are empty"):
        play(state, 2, "place F6; neutral E6")
    with pytest.raises(IllegalAction, match="cannot place your tile: only 4 squares are empty"):
        play(state, 2, "neutral E6; place F6")
    assert board(play(state, 2, "neutral E6; slide D5 down 1")).splitlines()[5] == "B..BN."
    assert board(play(state, 2, "place F6; slide D5 down 1")).splitlines()[5] == "B..B.B"


def test_neutral_tile_cannot_be_placed_at_four_empty_squares() -> None:
    state = pos(_with_empties(4), in_hand=(5, 5), to_move=2)
    with pytest.raises(IllegalAction, match="cannot place the neutral tile: only 4 squares are empty"):
        play(state, 2, "slide D5 down 1; neutral F6")


def test_a_player_with_no_tiles_in_hand_cannot_place() -> None:
    state = pos(MIDGAME, in_hand=(0, 12))
    assert GAME.public_view(state)["can_place"] is False
    with pytest.raises(IllegalAction, match="no tiles left in hand"):
        play(state, 1, "place F6")
    assert all(not isinstance(a.parts[0], Place) for a in GAME.legal_actions(state, 1))


# -- winning -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("diagram", "move", "lance"),
    [
        (rows("RRRR..", "BBB...", "B.....", "......", "......", "......"), "place E1",
         ["A1", "B1", "C1", "D1", "E1"]),
        (rows("R.BB..", "R.B...", "R.....", "R.....", "......", "......"), "place A5",
         ["A1", "A2", "A3", "A4", "A5"]),
        (rows("R.BB..", ".R.B..", "..R...", "...R..", "......", "......"), "place E5",
         ["A1", "B2", "C3", "D4", "E5"]),
        (rows(".....R", "BB..R.", "BB.R..", "..R...", "......", "......"), "place B5",
         ["B5", "C4", "D3", "E2", "F1"]),
    ],
    ids=["row", "column", "diagonal", "anti-diagonal"],
)
def test_five_in_a_row_in_any_direction_is_a_lance(diagram: str, move: str, lance: list[str]) -> None:
    after = play(pos(diagram), 1, move)
    result = GAME.result(after)
    assert result is not None
    assert result.winners == frozenset({1})
    assert result.reason == "lance"
    assert GAME.public_view(after)["lance"] == sorted(lance, key=sq)
    assert GAME.to_act(after) == frozenset()
    assert GAME.public_view(after)["to_move"] is None


def test_six_in_a_row_is_a_lance_too() -> None:
    after = play(pos(rows("RRR.RR", "BBB...", "BB....", *["......"] * 3)), 1, "place D1")
    result = GAME.result(after)
    assert result is not None and result.winners == frozenset({1}) and result.reason == "lance"
    assert len(GAME.public_view(after)["lance"]) == 6


def test_four_in_a_row_is_not_a_lance() -> None:
    after = play(pos(rows("RRR...", "BBB...", *["......"] * 4)), 1, "place D1")
    assert GAME.result(after) is None


def test_win_is_checked_only_at_the_end_of_the_turn() -> None:
    state = pos(rows("RRRR..", "BBB...", "BB....", *["......"] * 3))
    after = play(state, 1, "place E1; slide E1 down 2")
    assert GAME.result(after) is None


def test_win_is_checked_after_a_final_neutral_tile() -> None:
    state = pos(rows("BBBB..", "....B.", "RRR...", "RR....", *["......"] * 2), to_move=2)
    after = play(state, 2, "place F6; slide E2 up 1; neutral F1")
    assert board(after).splitlines()[0] == "BBBBBN"
    result = GAME.result(after)
    assert result is not None and result.winners == frozenset({2}) and result.reason == "lance"
    assert GAME.public_view(after)["lance"] == ["A1", "B1", "C1", "D1", "E1"]


def test_a_lance_for_the_opponent_only_wins_for_the_opponent() -> None:
    state = pos(rows(
        "RRRR..",
        "....R.",
        "BBB...",
        "BB....",
        "......",
        "......",
    ), to_move=2)
    after = play(state, 2, "slide E2 up 1")
    result = GAME.result(after)
    assert result is not None
    assert result.winners == frozenset({1})
    assert result.reason == "lance"


def test_a_lance_for_the_opponent_wins_for_the_opponent_even_after_the_movers_placement() -> None:
    # Blue's B1-F1 with E1 missing (E3 below it); Red places, then slides E3 up into E1's line
    state = play(GAME.new(), "place A1", "place A2", "place F6", "place B2", "place F5", "place C2",
                 "place F3", "place D2", "place F1", "place E3")
    after = play(state, 1, "place C4; slide E3 up 1")
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({2}), "lance")


@pytest.mark.parametrize("mover", [1, 2])
def test_lances_for_both_players_in_one_turn_win_for_the_mover(mover: int) -> None:
    state = pos(rows(
        "RRRR..",
        "BBBB..",
        "....R.",
        "....B.",
        "......",
        "......",
    ), to_move=mover)
    after = play(state, mover, "slide E3-E4 up 2")
    result = GAME.result(after)
    assert result is not None
    assert result.winners == frozenset({mover})
    assert result.reason == "lance"


def test_no_action_after_the_bout_is_over() -> None:
    state = play(pos(rows("RRRR..", "BBB...", "B.....", *["......"] * 3)), 1, "place E1")
    with pytest.raises(IllegalAction, match="bout is over"):
        play(state, 2, "place F6")
    assert list(GAME.legal_actions(state, 2)) == []
    assert GAME.random_action(state, 2, random.Random(0)) is None


# -- stalemate -------------------------------------------------------------------------------


def test_the_same_position_for_the_third_time_is_a_stalemate_counting_the_start() -> None:
    state = pos(SPARSE, turn=5)
    cycle = [(1, "slide A1 right 1"), (2, "slide F6 left 1"), (1, "slide B1 left 1"), (2, "slide E6 right 1")]
    for seat, text in cycle:
        state = play(state, seat, text)
        assert GAME.result(state) is None
    assert board(state) == board(pos(SPARSE))  # second occurrence: play goes on
    assert GAME.public_view(state)["repetitions"] == 2
    for seat, text in cycle[:3]:
        state = play(state, seat, text)
        assert GAME.result(state) is None
    state = play(state, 2, cycle[3][1])
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "stalemate"
    assert GAME.to_act(state) == frozenset()


def test_the_repetition_count_survives_dump_and_load() -> None:
    state = play(GAME.new(), "place A1", "place F6")
    for k in range(7):
        state = GAME.load(json.loads(json.dumps(GAME.dump(play(state, SHUTTLE[k % 4])))))
        assert GAME.result(state) is None
    result = GAME.result(play(state, SHUTTLE[3]))
    assert result is not None and result.reason == "stalemate"


def test_a_position_right_after_a_placement_turn_counts_and_earlier_ones_never_come_back() -> None:
    state = play(GAME.new(), "place A1", "place F6", *SHUTTLE)  # the start position, twice
    state = play(state, 1, "place C3; slide C3 down 1")  # (A1, C4, F6; blue to move): 1st time
    loop = ["slide C4 up 1", "slide A1 right 1", "slide C3 down 1", "slide B1 left 1"]
    for k in range(7):
        assert GAME.result(state) is None, k
        state = play(state, loop[k % 4])
    # (A1, C4, F6; blue to move) arose after the placement turn, after move 4 and after move 8
    result = GAME.result(play(state, loop[3]))
    assert result is not None and result.reason == "stalemate"


def test_a_repeated_board_with_the_other_player_to_move_is_another_position() -> None:
    state = pos(SPARSE, turn=5)
    cycle = [(1, "slide A1 right 1"), (2, "slide B1 right 1"), (1, "slide C1 left 2")]
    seats = [1, 2, 1, 2, 1, 2, 1, 2, 1]
    texts = [t for _, t in cycle] * 3
    for seat, text in zip(seats, texts, strict=True):
        state = play(state, seat, text)
        assert GAME.result(state) is None
    # the board has now appeared four times (start, 3, 6, 9), twice with each player to move
    assert board(state) == board(pos(SPARSE))
    for seat, text in zip([2, 1, 2], texts[:3], strict=True):
        state = play(state, seat, text)
    result = GAME.result(state)
    assert result is not None and result.reason == "stalemate" and result.winners == frozenset()


def test_a_lance_made_by_a_repeating_turn_still_wins() -> None:
    state = pos(rows(
        "RRRR.R",
        "BBB...",
        "B.....",
        "......",
        "......",
        "......",
    ))
    # the lance check comes first, whatever the repetition count
    after = play(state, 1, "slide A1-D1 right 1")
    outcome = GAME.result(after)
    assert outcome is not None and outcome.reason == "lance"


def test_neutral_tile_availability_is_part_of_the_position() -> None:
    state = pos(SPARSE, to_move=2, turn=5)
    after = play(state, 2, "neutral C3; slide F6 left 1")
    # the neutral tile is now on the board and gone from hand: the history starts over
    assert after.history == ((after.cells, 1),)


def test_a_player_with_no_legal_turn_is_a_stalemate() -> None:
    full = rows("RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB", "RRBBRR", "BBRRBN")
    state = pos(full, in_hand=(1, 1))
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "stalemate"
    assert list(GAME.legal_actions(state, 1)) == []


def test_no_tiles_in_hand_and_an_empty_board_is_no_legal_turn() -> None:
    state = pos(EMPTY_BOARD, in_hand=(0, 0), turn=3, neutral_available=False)
    result = GAME.result(state)
    assert result is not None and result.reason == "stalemate"


def test_the_neutral_tile_then_a_slide_is_still_a_legal_turn() -> None:
    state = pos(EMPTY_BOARD, in_hand=(0, 0), turn=3, to_move=2)
    assert GAME.result(state) is None
    actions = list(GAME.legal_actions(state, 2))
    assert actions and all(isinstance(a.parts[0], Neutral) or isinstance(a.parts[1], Neutral) for a in actions)
    after = play(state, 2, "neutral A1; slide A1 right 2")
    assert after.cells[sq("C1")] == 3
