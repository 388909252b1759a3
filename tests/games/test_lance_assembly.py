"""Lance Assembly / Sliding Tic-Tac-Toe: every sentence of the card and every ruling.

Card: shared/rules/seeds/lance-assembly.txt; rulings: shared/rules/RULINGS.md §1.
Positions are built from 6-row diagrams (R red = seat 1, B blue = seat 2,
N neutral, . empty; A1 top-left).
"""

from __future__ import annotations

import functools
import json
import random
from functools import cache
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import HOST, SPECTATOR, IllegalAction, NotationError
from games.lance_assembly.board import slide_in_place
from games.lance_assembly.notation import Neutral, Part, Place, Slide, Turn, parse_turn
from games.lance_assembly.rules import WINDOWS, LanceAssembly, LanceState
from games.registry import get_game
from tests.games import playing

GAME = LanceAssembly()
play = functools.partial(playing.play, GAME)
EMPTY_BOARD = "\n".join(["......"] * 6)


def sq(name: str) -> int:
    col = "ABCDEF".index(name[0].upper())
    return (int(name[1:]) - 1) * 6 + col


def board(state: LanceState) -> str:
    return "\n".join(GAME.public_view(state)["rows"])


def pos(diagram: str, **kwargs: object) -> LanceState:
    return GAME.position(diagram, **kwargs)  # type: ignore[arg-type]


def rows(*lines: str) -> str:
    return "\n".join(lines)


MIDGAME = rows(
    "R.B...",
    ".RB...",
    "..R.B.",
    ".B....",
    "....R.",
    "......",
)


# -- identity, options, setup ---------------------------------------------------------


def test_registered_under_its_slug_with_two_seats() -> None:
    game = get_game("lance-assembly")
    assert isinstance(game, LanceAssembly)
    assert game.name == "Lance Assembly"
    assert game.seats == 2
    assert game.default_options["starting_seat"] == 1
    assert game.default_options["variant"] == "lance-assembly"


def test_new_bout_is_an_empty_6x6_board_with_18_tiles_each() -> None:
    state = GAME.new()
    view = GAME.public_view(state)
    assert view["size"] == 6
    assert view["cells"] == [[""] * 6 for _ in range(6)]
    assert view["in_hand"] == {"1": 18, "2": 18}
    assert view["empty_count"] == 36
    assert view["to_move"] == 1
    assert view["turn"] == 0
    assert view["first_turn"] is True
    assert GAME.to_act(state) == frozenset({1})
    assert GAME.result(state) is None


def test_seat_1_plays_red_and_seat_2_blue_whoever_starts() -> None:
    for start in (1, 2):
        state = GAME.new({"starting_seat": start})
        assert GAME.public_view(state)["colours"] == {"1": "red", "2": "blue"}
        state = play(state, start, "place A1")
        assert GAME.public_view(state)["cells"][0][0] == ("R" if start == 1 else "B")


def test_starting_seat_option_chooses_who_moves_first() -> None:
    state = GAME.new({"starting_seat": 2})
    assert GAME.to_act(state) == frozenset({2})
    assert GAME.public_view(state)["starting_seat"] == 2
    with pytest.raises(IllegalAction, match="not your turn"):
        play(state, 1, "place A1")


def test_starting_seat_option_must_be_1_or_2() -> None:
    with pytest.raises(IllegalAction, match="starting_seat must be 1 or 2"):
        GAME.new({"starting_seat": 3})


def test_unknown_option_is_refused() -> None:
    with pytest.raises(IllegalAction, match="no option"):
        GAME.new({"board_size": 7})


@pytest.mark.parametrize("given_name", ["sliding-tic-tac-toe", "Sliding Tic-Tac-Toe", "sliding_tic_tac_toe"])
def test_sliding_tic_tac_toe_variant_is_accepted_and_recorded(given_name: str) -> None:
    state = GAME.new({"variant": given_name})
    assert state.variant == "sliding-tic-tac-toe"
    assert GAME.public_view(state)["variant"] == "sliding-tic-tac-toe"
    assert GAME.load(GAME.dump(state)).variant == "sliding-tic-tac-toe"


def test_sliding_tic_tac_toe_plays_by_identical_rules() -> None:
    lance = GAME.new({"variant": "lance-assembly"})
    sliding = GAME.new({"variant": "sliding-tic-tac-toe"})
    for text, seat in [("place C3", 1), ("place D4; neutral E5", 2), ("place B2; slide C3 up 1", 1)]:
        lance, sliding = play(lance, seat, text), play(sliding, seat, text)
        assert board(lance) == board(sliding)
    assert list(GAME.legal_actions(lance, 2)) == list(GAME.legal_actions(sliding, 2))


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(IllegalAction, match="variant must be one of"):
        GAME.new({"variant": "chess"})


# -- the first turn -------------------------------------------------------------------


def test_first_turn_the_starting_player_places_one_tile_anywhere() -> None:
    state = play(GAME.new(), 1, "place F6")
    assert board(state).splitlines()[5] == ".....R"
    assert state.in_hand == (17, 18)
    assert GAME.to_act(state) == frozenset({2})


def test_first_turn_offers_exactly_the_36_placements() -> None:
    actions = list(GAME.legal_actions(GAME.new(), 1))
    assert len(actions) == 36
    assert all(a.parts == (Place(a.parts[0].square),) for a in actions)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    ["slide A1 right 1", "place A1; slide A1 right 1", "place A1; neutral B1", "neutral B1"],
)
def test_first_turn_allows_nothing_but_one_placement(text: str) -> None:
    state = pos(rows("R.....", *["......"] * 5), turn=0)
    with pytest.raises(IllegalAction, match="first turn of a bout the starting player only places one tile"):
        play(state, 1, text)


def test_starter_never_holds_the_neutral_tile_so_not_on_the_first_turn_either() -> None:
    state = GAME.new({"starting_seat": 2})
    assert GAME.public_view(state)["neutral_owner"] == 1
    with pytest.raises(IllegalAction, match="first turn"):
        play(state, 2, "place A1; neutral B1")


def test_second_player_may_use_the_neutral_tile_on_their_very_first_turn() -> None:
    state = play(GAME.new(), 1, "place A1")
    state = play(state, 2, "neutral B1; place C1")
    assert board(state).splitlines()[0] == "RNB..."


# -- turn shapes ---------------------------------------------------------------------


def test_a_later_turn_may_be_a_placement_only() -> None:
    state = play(pos(MIDGAME, to_move=2), 2, "place F6")
    assert board(state).splitlines()[5] == ".....B"


def test_a_later_turn_may_be_a_slide_only() -> None:
    state = play(pos(MIDGAME, to_move=2), 2, "slide B4 down 2")
    assert board(state).splitlines()[5] == ".B...."
    assert state.in_hand == pos(MIDGAME).in_hand


def test_a_later_turn_may_place_then_slide() -> None:
    state = play(pos(MIDGAME), 1, "place F1; slide F1 down 2")
    assert board(state).splitlines()[2] == "..R.BR"


def test_you_may_not_pass_your_turn() -> None:
    with pytest.raises(IllegalAction, match="may not pass"):
        GAME.apply(pos(MIDGAME), 1, Turn(()))
    with pytest.raises(NotationError, match="may not pass"):
        parse_turn("pass")


def test_sliding_before_placing_in_the_same_turn_is_illegal() -> None:
    with pytest.raises(IllegalAction, match="placing your tile must come before sliding"):
        play(pos(MIDGAME), 1, "slide B4 down 1; place F6")


def test_at_most_one_placement_per_turn() -> None:
    with pytest.raises(IllegalAction, match="at most one of your tiles"):
        play(pos(MIDGAME), 1, "place F6; place F5")


def test_at_most_one_slide_per_turn() -> None:
    with pytest.raises(IllegalAction, match="at most one slide per turn"):
        play(pos(MIDGAME), 1, "slide B4 down 1; slide E5 down 1")


def test_placing_on_an_occupied_square_is_illegal() -> None:
    with pytest.raises(IllegalAction, match="C3 is not empty"):
        play(pos(MIDGAME), 1, "place C3")


def test_placed_tile_need_not_be_the_one_slid() -> None:
    # the card's correction: red plays C2 (not C3) and slides an unrelated run
    state = pos(rows(
        "......",
        "......",
        "......",
        ".RB...",
        "......",
        "......",
    ))
    after = play(state, 1, "place C2; slide B4-C4 right 2")
    assert board(after).splitlines()[1] == "..R..."
    assert board(after).splitlines()[3] == "...RB."


def test_the_tile_just_placed_may_itself_be_slid() -> None:
    state = play(pos(MIDGAME), 1, "place A6; slide A6 right 3")
    assert board(state).splitlines()[5] == "...R.."


def test_it_is_not_your_turn_when_the_other_seat_moves() -> None:
    with pytest.raises(IllegalAction, match="not your turn"):
        play(pos(MIDGAME, to_move=1), 2, "place F6")


def test_a_rejected_turn_changes_nothing() -> None:
    state = pos(MIDGAME)
    before = GAME.dump(state)
    with pytest.raises(IllegalAction):
        play(state, 1, "place F6; slide A1 up 1")
    assert GAME.dump(state) == before


# -- slide rules 1-7 -----------------------------------------------------------------

TOP_ROW = rows(
    "RR....",
    "......",
    "......",
    "......",
    "......",
    "......",
)


def test_slide_a_run_one_square() -> None:
    state = play(pos(rows("..RB..", *["......"] * 5), to_move=2), 2, "slide C1-D1 left 1")
    assert board(state).splitlines()[0] == ".RB..."


def test_card_example_two_top_tiles_slide_one_or_two_squares_left() -> None:
    state = pos(rows("..RR..", *["......"] * 5))
    assert board(play(state, 1, "slide C1-D1 left 1")).splitlines()[0] == ".RR..."
    assert board(play(state, 1, "slide C1-D1 left 2")).splitlines()[0] == "RR...."


def test_slide_as_far_as_you_like_while_tiles_stay_on_the_board() -> None:
    state = pos(TOP_ROW)
    assert board(play(state, 1, "slide A1-B1 right 4")).splitlines()[0] == "....RR"
    with pytest.raises(IllegalAction, match="would leave the board"):
        play(state, 1, "slide A1-B1 right 5")
    with pytest.raises(IllegalAction, match="would leave the board"):
        play(state, 1, "slide A1-B1 left 1")


def test_slide_must_move_at_least_one_square() -> None:
    with pytest.raises(IllegalAction, match="at least 1 square"):
        play(pos(TOP_ROW), 1, "slide A1-B1 right 0")


def test_card_example_slide_the_top_four_right_to_win() -> None:
    state = pos(rows(
        "RRRR.R",
        "BBB...",
        "B.....",
        "......",
        "......",
        "......",
    ))
    after = play(state, 1, "slide A1-D1 right 1")
    assert board(after).splitlines()[0] == ".RRRRR"
    result = GAME.result(after)
    assert result is not None and result.winners == frozenset({1}) and result.reason == "lance"


def test_card_example_a_tile_slides_up_to_a_blue_tile_and_stops_there() -> None:
    state = pos(rows(
        "......",
        ".....B",
        "......",
        "......",
        ".....R",
        "......",
    ))
    after = play(state, 1, "slide F5 up 2")
    assert board(after).splitlines()[2] == ".....R"
    with pytest.raises(IllegalAction, match=r"F2 is not empty.*cannot push"):
        play(state, 1, "slide F5 up 3")
    assert not any(
        s.direction == "up" and s.distance >= 3 and s.start == sq("F5") for s in GAME.legal_slides(state)
    )


def test_card_example_tiles_that_are_not_connected_cannot_slide_together() -> None:
    state = pos(rows(
        "......",
        "......",
        ".....B",
        "......",
        ".....R",
        "......",
    ))
    with pytest.raises(IllegalAction, match=r"not connected.*F4 is empty"):
        play(state, 1, "slide F3-F5 up 1")
    with pytest.raises(NotationError, match="not connected"):
        parse_turn("slide tiles on F3 and F5 up 1")


def test_rule_2_a_single_tile_may_always_slide_alone() -> None:
    state = pos(rows("R.R...", *["......"] * 5))
    assert board(play(state, 1, "slide C1 right 3")).splitlines()[0] == "R....R"


def test_rule_3_a_run_must_lie_in_one_row_or_column() -> None:
    state = pos(rows("R.....", ".R....", *["......"] * 4))
    with pytest.raises(IllegalAction, match="not in one row or column"):
        GAME.apply(state, 1, Turn((Slide(sq("A1"), sq("B2"), "down", 1),)))


def test_rule_3_a_run_slides_along_its_line_never_sideways() -> None:
    state = pos(rows("RB....", *["......"] * 5))
    with pytest.raises(IllegalAction, match="can only slide along it \\(left or right\\), not down"):
        play(state, 1, "slide A1-B1 down 1")
    column = pos(rows("R.....", "B.....", *["......"] * 4))
    with pytest.raises(IllegalAction, match="can only slide along it \\(up or down\\), not right"):
        play(column, 1, "slide A1-A2 right 1")


def test_rule_4_tiles_cannot_push_tiles_outside_the_run() -> None:
    state = pos(rows("RRB...", *["......"] * 5))
    with pytest.raises(IllegalAction, match=r"B1 is not empty.*cannot push"):
        play(state, 1, "slide A1 right 1")
    with pytest.raises(IllegalAction, match=r"C1 is not empty.*cannot push"):
        play(state, 1, "slide A1-B1 right 1")


def test_rule_4_a_sub_run_of_a_longer_line_may_slide_when_the_way_ahead_is_empty() -> None:
    state = pos(rows("BRRR..", *["......"] * 5))
    after = play(state, 1, "slide C1-D1 right 2")
    assert board(after).splitlines()[0] == "BR..RR"
    after = play(state, 1, "slide D1 right 1")
    assert board(after).splitlines()[0] == "BRR.R."


def test_rule_4_every_square_passed_into_must_be_empty() -> None:
    state = pos(rows("R..B..", *["......"] * 5))
    with pytest.raises(IllegalAction, match="D1 is not empty"):
        play(state, 1, "slide A1 right 4")
    assert board(play(state, 1, "slide A1 right 2")).splitlines()[0] == "..RB.."


def test_rule_5_only_orthogonal_directions() -> None:
    with pytest.raises(NotationError):
        parse_turn("slide A1 diagonally 1")
    with pytest.raises(IllegalAction, match="only up, down, left or right, not 'up-right'"):
        GAME.apply(pos(TOP_ROW), 1, Turn((Slide(0, 0, "up-right", 1),)))


@pytest.mark.parametrize("direction", ["up", "down", "left", "right"])
def test_rule_5_a_single_tile_slides_in_all_four_directions(direction: str) -> None:
    state = pos(rows("......", "......", "..R...", *["......"] * 3))
    after = play(state, 1, f"slide C3 {direction} 1")
    assert after.cells.count(1) == 1 and after.cells[sq("C3")] == 0


def test_any_tiles_may_slide_opponents_and_neutral_included() -> None:
    state = pos(rows("BNR...", *["......"] * 5), neutral_available=False)
    after = play(state, 1, "slide A1-C1 right 3")
    assert board(after).splitlines()[0] == "...BNR"


def test_sliding_an_empty_square_is_illegal() -> None:
    with pytest.raises(IllegalAction, match="no tile on F6 to slide"):
        play(pos(MIDGAME), 1, "slide F6 up 1")


def test_slides_may_make_or_break_nothing_else_tiles_outside_never_move() -> None:
    state = pos(MIDGAME)
    after = play(state, 1, "slide A1 down 5")
    changed = [i for i in range(36) if state.cells[i] != after.cells[i]]
    assert sorted(changed) == [sq("A1"), sq("A6")]
    assert GAME.public_view(after)["last_squares"] == ["A1", "A6"]


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


def _with_empties(empty: int) -> str:
    """A lance-free board with exactly `empty` empty squares (the last ones in reading order)."""
    pattern = ["RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB"]
    flat = list("".join(pattern))
    for k in range(empty):
        flat[35 - k] = "."
    return "\n".join("".join(flat[r * 6 : r * 6 + 6]) for r in range(6))


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

SPARSE = rows(
    "R.....",
    "......",
    "......",
    "......",
    "......",
    ".....B",
)


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


# -- legal actions ---------------------------------------------------------------------------


def _brute_slides(cells: tuple[int, ...]) -> set[Slide]:
    """Every (run, direction, distance) the slide rules accept, tried one by one."""
    found: set[Slide] = set()
    for start, end in product(range(36), repeat=2):
        if start > end or (start // 6 != end // 6 and start % 6 != end % 6):
            continue
        for direction, distance in product(("up", "down", "left", "right"), range(1, 6)):
            slide = Slide(start, end, direction, distance)
            try:
                slide_in_place(list(cells), slide)
            except IllegalAction:
                continue
            found.add(slide)
    return found


def _sample_states(count: int, seed: int = 7) -> list[LanceState]:
    rng = random.Random(seed)
    states: list[LanceState] = []
    while len(states) < count:
        state = GAME.new({"starting_seat": rng.choice((1, 2))})
        while GAME.result(state) is None:
            states.append(state)
            action = GAME.random_action(state, state.to_move, rng)
            assert action is not None
            state = GAME.apply(state, state.to_move, action)
    return rng.sample(states, count)


def test_legal_slides_match_a_brute_force_check_of_every_slide() -> None:
    for state in _sample_states(12):
        listed = GAME.legal_slides(state)
        assert len(listed) == len(set(listed)), "a slide is listed twice"
        assert set(listed) == _brute_slides(state.cells)


def test_legal_slides_include_sub_runs_of_longer_lines() -> None:
    state = pos(rows("RBR...", *["......"] * 5))
    slides = {GAME.format(Turn((s,))) for s in GAME.legal_slides(state)}
    assert {"slide A1-C1 right 1", "slide B1-C1 right 3", "slide C1 right 2"} <= slides
    assert "slide A1-B1 right 1" not in slides  # would push C1


def _brute_turns(state: LanceState, seat: int) -> set[Turn]:
    """Every turn of every shape, each part tried against the board as it is at that moment.

    The oracle is `apply` itself on each prefix (a prefix made of the neutral
    tile alone is not a turn, so its square is checked by hand).
    """
    shapes = ["P", "S", "PS", "NP", "PN", "NS", "SN", "NPS", "PNS", "PSN"]
    found: set[Turn] = set()

    def cells_after(parts: tuple[Place | Slide | Neutral, ...]) -> tuple[int, ...]:
        cells = list(state.cells)
        for part in parts:
            if isinstance(part, Slide):
                slide_in_place(cells, part)
            else:
                cells[part.square] = seat if isinstance(part, Place) else 3
        return tuple(cells)

    def accepted(parts: tuple[Place | Slide | Neutral, ...]) -> bool:
        if all(isinstance(p, Neutral) for p in parts):
            return (
                seat == state.neutral_owner
                and state.cells[parts[0].square] == 0  # type: ignore[union-attr]
                and state.cells.count(0) > 4
            )
        try:
            GAME.apply(state, seat, Turn(parts))
        except IllegalAction:
            return False
        return True

    def extend(parts: tuple[Place | Slide | Neutral, ...], rest: str) -> None:
        if not rest:
            found.add(Turn(parts))
            return
        candidates: list[Place | Slide | Neutral]
        if rest[0] == "S":
            candidates = list(_brute_slides(cells_after(parts)))
        elif rest[0] == "P":
            candidates = [Place(i) for i in range(36)]
        else:
            candidates = [Neutral(i) for i in range(36)]
        for part in candidates:
            if accepted((*parts, part)):
                extend((*parts, part), rest[1:])

    for shape in shapes:
        extend((), shape)
    return found


@pytest.mark.parametrize("empties", [4, 5, 6])
def test_legal_actions_match_a_brute_force_search_near_the_end_of_a_bout(empties: int) -> None:
    # 6 empty squares: the placement limit bites after one placement; 5: one placement only; 4: none
    diagram = _with_empties(empties)
    for seat, starting in [(2, 1), (1, 1)]:
        state = pos(diagram, in_hand=(3, 3), to_move=seat, starting_seat=starting)
        listed = list(GAME.legal_actions(state, seat))
        assert len(listed) == len(set(listed)), "a turn is listed twice"
        assert set(listed) == _brute_turns(state, seat)


def test_every_listed_turn_is_accepted_in_a_midgame_position() -> None:
    state = pos(MIDGAME, to_move=2)
    listed = list(GAME.legal_actions(state, 2))
    assert len(listed) == len(set(listed))
    rng = random.Random(3)
    for action in rng.sample(listed, 300):
        GAME.apply(state, 2, action)
    shapes = {"".join(type(p).__name__[0] for p in a.parts) for a in listed}
    assert shapes == {"P", "S", "PS", "NP", "PN", "NS", "SN", "NPS", "PNS", "PSN"}


def test_legal_actions_are_empty_for_the_seat_not_to_move() -> None:
    assert list(GAME.legal_actions(pos(MIDGAME), 2)) == []


def test_random_action_is_always_legal() -> None:
    rng = random.Random(11)
    for state in _sample_states(150, seed=5):
        action = GAME.random_action(state, state.to_move, rng)
        assert action is not None
        GAME.apply(state, state.to_move, action)


def test_random_playouts_end_within_4000_turns() -> None:
    rng = random.Random(2024)
    for _ in range(60):
        state = GAME.new({"starting_seat": rng.choice((1, 2))})
        for _turn in range(4000):
            if GAME.result(state) is not None:
                break
            action = GAME.random_action(state, state.to_move, rng)
            assert action is not None
            state = GAME.apply(state, state.to_move, action)
        result = GAME.result(state)
        assert result is not None
        assert result.reason in {"lance", "stalemate"}


def test_random_action_uses_the_neutral_tile_sometimes() -> None:
    rng = random.Random(1)
    state = pos(MIDGAME, to_move=2)
    used = [any(isinstance(p, Neutral) for p in GAME.random_action(state, 2, rng).parts) for _ in range(200)]  # type: ignore[union-attr]
    assert any(used) and not all(used)


# -- notation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("place C3", (Place(sq("C3")),)),
        ("place C3; slide B2-B3 down 1; neutral D4",
         (Place(sq("C3")), Slide(sq("B2"), sq("B3"), "down", 1), Neutral(sq("D4")))),
        ("slide B2 down 1", (Slide(sq("B2"), sq("B2"), "down", 1),)),
        ("I place tile on A1, and slide tiles on B2 and B3 down 1.",
         (Place(sq("A1")), Slide(sq("B2"), sq("B3"), "down", 1))),
        ("place a1 slide b2-b3 d 1", (Place(sq("A1")), Slide(sq("B2"), sq("B3"), "down", 1))),
        ("slide tiles on B2, B3 and B4 left 2", (Slide(sq("B2"), sq("B4"), "left", 2),)),
        ("place neutral on D4", (Neutral(sq("D4")),)),
        ("neutral tile D4", (Neutral(sq("D4")),)),
        ("place the neutral tile on D4, then slide E5 up 1",
         (Neutral(sq("D4")), Slide(sq("E5"), sq("E5"), "up", 1))),
        ("place A1 then slide A1 right 2", (Place(0), Slide(0, 0, "right", 2))),
        ("  PLACE   c3 ;  SLIDE  b3-b2  UP  2 ", (Place(sq("C3")), Slide(sq("B2"), sq("B3"), "up", 2))),
        ("slide B3 to B2 down 1", (Slide(sq("B2"), sq("B3"), "down", 1),)),
        ("move B2 to B5", (Slide(sq("B2"), sq("B2"), "down", 3),)),
        ("slide E4 to B4", (Slide(sq("E4"), sq("E4"), "left", 3),)),
        ("slide B2 down by two spaces", (Slide(sq("B2"), sq("B2"), "down", 2),)),
        ("slide B2 1 space right", (Slide(sq("B2"), sq("B2"), "right", 1),)),
        ("slide tiles on C1 and B1 r 1", (Slide(sq("B1"), sq("C1"), "right", 1),)),
        ("C3", (Place(sq("C3")),)),
        ("slide b2-b3 d1", (Slide(sq("B2"), sq("B3"), "down", 1),)),
        ("slide C4 left3; place F6", (Slide(sq("C4"), sq("C4"), "left", 3), Place(sq("F6")))),
        ("C3, B2-B3 down 1", (Place(sq("C3")), Slide(sq("B2"), sq("B3"), "down", 1))),
        ("slide the tile on A1 to the right by 2 spaces", (Slide(0, 0, "right", 2),)),
        ("slide B2 down one space, then place the neutral tile on F6",
         (Slide(sq("B2"), sq("B2"), "down", 1), Neutral(sq("F6")))),
        ("C3; B2-B3 down 1", (Place(sq("C3")), Slide(sq("B2"), sq("B3"), "down", 1))),
        ("place C3 and neutral D4", (Place(sq("C3")), Neutral(sq("D4")))),
        ("I'll place my tile at F6.", (Place(sq("F6")),)),
    ],
)
def test_notation_reads_canonical_and_natural_phrasings(text: str, parts: tuple[Part, ...]) -> None:
    assert parse_turn(text) == Turn(parts)
    assert GAME.parse(GAME.new(), 1, text) == Turn(parts)


@pytest.mark.parametrize(
    "text",
    ["place C3", "slide B2 down 1", "slide B2-B3 down 1", "place C3; slide B2-B3 down 1; neutral D4",
     "neutral D4; slide A1-A3 down 3", "slide A1-D1 right 2; neutral F6"],
)
def test_canonical_text_round_trips(text: str) -> None:
    assert GAME.format(parse_turn(text)) == text


def test_a_slide_names_its_run_lowest_square_first_whatever_the_order_given() -> None:
    assert Slide(sq("B3"), sq("B2"), "down", 1) == Slide(sq("B2"), sq("B3"), "down", 1)
    assert GAME.format(Turn((Slide(sq("B3"), sq("B2"), "down", 1),))) == "slide B2-B3 down 1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "got nothing"),
        ("place G7", "expected a square from A1 to F6, got 'G7'"),
        ("place C9", "expected a square from A1 to F6"),
        ("place", "expected a square like C3 after 'place'"),
        ("slide B2 down", "expected how far to slide B2"),
        ("slide B2 2", "expected a direction"),
        ("slide down 1", "expected the squares to slide"),
        ("slide B2 and C3 down 1", "not in one row or column"),
        ("slide B2, B4 right 1", "not connected \\(B3 is left out\\)"),
        ("move B2 to C3", "not in one row or column"),
        ("hello there", "unexpected 'hello'"),
        ("place C3 @ D4", "unexpected character '@'"),
        ("slide B2 down 99999", "expected a distance"),
        ("pass", "may not pass"),
    ],
)
def test_notation_errors_say_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        GAME.parse(GAME.new(), 1, text)


def test_every_listed_action_round_trips_through_its_text() -> None:
    for state in _sample_states(25, seed=9):
        for count, action in enumerate(GAME.legal_actions(state, state.to_move)):
            assert GAME.parse(state, state.to_move, GAME.format(action)) == action
            if count > 300:
                break


_PARTS = st.one_of(
    st.builds(Place, st.integers(-3, 40)),
    st.builds(Neutral, st.integers(-3, 40)),
    st.builds(
        Slide,
        st.integers(-3, 40),
        st.integers(-3, 40),
        st.sampled_from(["up", "down", "left", "right", "sideways"]),
        st.integers(-2, 8),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, max_size=4), st.sampled_from([1, 2]))
def test_apply_fuzz_any_turn_is_applied_or_refused_with_illegal_action(parts: list[Part], seat: int) -> None:
    state = pos(MIDGAME, to_move=2)
    turn = Turn(tuple(parts))
    try:
        after = GAME.apply(state, seat, turn)
    except IllegalAction:
        return
    assert seat == 2 and after.turn == state.turn + 1
    assert turn in _midgame_turns()  # whatever apply accepts, legal_actions lists


@cache
def _midgame_turns() -> frozenset[Turn]:
    return frozenset(GAME.legal_actions(pos(MIDGAME, to_move=2), 2))


# -- views and storage ------------------------------------------------------------------------


def test_public_view_has_what_a_board_renderer_needs() -> None:
    state = play(pos(MIDGAME, to_move=2), 2, "place F6; slide B4 down 1; neutral F1")
    view = GAME.public_view(state)
    assert set(view) >= {
        "size", "cells", "to_move", "starting_seat", "in_hand", "neutral_owner", "neutral_available",
        "empty_count", "can_place", "last_action", "last_squares", "lance", "variant", "turn",
    }
    assert view["cells"][0][5] == "N"
    assert view["cells"][5][5] == "B"
    assert view["last_action"] == "place F6; slide B4 down 1; neutral F1"
    assert sorted(view["last_squares"]) == sorted(["F6", "B4", "B5", "F1"])
    assert view["to_move"] == 1
    json.dumps(view)


def test_every_audience_sees_the_same_view_and_nothing_is_hidden() -> None:
    state = play(pos(MIDGAME), 1, "place F6")
    public = GAME.view(state, SPECTATOR)["public"]
    for viewer in (1, 2, SPECTATOR, HOST):
        assert GAME.view(state, viewer)["public"] == public
    assert GAME.view(state, 1)["private"] == {}


def test_dump_and_load_round_trip_mid_bout_and_after_a_win() -> None:
    state = play(pos(SPARSE, turn=5), 1, "slide A1 right 1")
    state = play(state, 2, "neutral C3; place D4; slide F6 up 1")
    again = GAME.load(json.loads(json.dumps(GAME.dump(state))))
    assert again == state
    won = play(pos(rows("RRRR..", "BBB...", "B.....", *["......"] * 3)), 1, "place E1")
    assert GAME.load(json.loads(json.dumps(GAME.dump(won)))) == won
    assert GAME.dump(won)["v"] == 1


def test_load_refuses_an_unknown_version() -> None:
    data = GAME.dump(GAME.new())
    data["v"] = 99
    with pytest.raises(ValueError, match="version"):
        GAME.load(data)


def test_apply_never_mutates_its_input() -> None:
    state = pos(MIDGAME, to_move=2)
    before = GAME.dump(state)
    play(state, 2, "neutral F1; place F6; slide B4 down 1")
    assert GAME.dump(state) == before
