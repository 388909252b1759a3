"""Lance Assembly / Sliding Tic-Tac-Toe: setup, the first turn, the shapes of a turn and the seven
slide rules, sentence by sentence (the neutral tile, the placement limit and the endings:
test_lance_assembly_endings.py; legal actions, notation and storage: test_lance_assembly_notation.py).

The rules: howto.py (/rules/lance-assembly/); the rulings: rules.py's docstring.
Positions are built from 6-row diagrams (R red = seat 1, B blue = seat 2,
N neutral, . empty; A1 top-left).
"""

from __future__ import annotations

import functools

import pytest

from games.core import IllegalAction, NotationError
from games.lance_assembly.notation import Place, Slide, Turn, parse_turn
from games.lance_assembly.rules import LanceAssembly, LanceState
from games.registry import get_game
from tests.games import playing

GAME = LanceAssembly()
play = functools.partial(playing.play, GAME)


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
TOP_ROW = rows(
    "RR....",
    "......",
    "......",
    "......",
    "......",
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
