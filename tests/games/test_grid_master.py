"""Grid Master's moves: every sentence of its rules (howto.py, rules.py's docstring) on placing and
repositioning (the endings: test_grid_master_endings.py; notation, views and storage:
test_grid_master_notation.py).

Positions are built from diagrams (`GridState.from_diagram`: rows top to bottom, A1 top-left)
rather than long move sequences where that is clearer.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import pytest
from hypothesis import strategies as st

from games.core import HOST, SPECTATOR, IllegalAction, NotationError
from games.grid_master.rules import (
    CELLS,
    NAMES,
    GridMaster,
    GridState,
    Reposition,
    Turn,
)
from tests.games import playing

GAME = playing.registered("grid-master", GridMaster)
play = functools.partial(playing.play, GAME)
SQ = {name: i for i, name in enumerate(NAMES)}


def pos(diagram: str, **kwargs: object) -> GridState:
    return GridState.from_diagram(diagram, **kwargs)  # type: ignore[arg-type]


def cells(state: GridState) -> list[str]:
    rows: list[str] = GAME.public_view(state)["cells"]
    return rows


def legal_texts(state: GridState) -> set[str]:
    return {GAME.format(a) for a in GAME.legal_actions(state, state.to_move)}


def refused(state: GridState, text: str, match: str, seat: int | None = None) -> None:
    """The action is an IllegalAction naming `match`, and the state is untouched."""
    before = GAME.dump(state)
    with pytest.raises(IllegalAction, match=match):
        GAME.play(state, state.to_move if seat is None else seat, text)
    assert GAME.dump(state) == before


# X A1, O B2: X's second turn
OPENING = ("place A1", "place B2")
MID = ("X.. / .O. / ...",)  # X A1, O B2, X's later turn (turns default to 2)


# X has all 4 of its symbols (symbols=4) on the board: A1, B2, C2, A3; O has C1, A2, B3
EMPTY_HAND = "X.O / OXX / XO."
STALEMATE_GAME = (
    "place C3",
    "place B3",
    "place B1; move C3 up 1",
    "place C1; move B3 left 1",
    "place B3; move B1 left 1",
    "place A2; move C1 left 1",
    "place C3; move C2 up 1",
    "place B2; move A2 right 2",
    "place A2",
)
squares = st.integers(0, CELLS - 1)
moves = st.builds(Reposition, squares, st.sampled_from(["up", "down", "left", "right"]), st.integers(0, 99))


# -- identity, players, board ------------------------------------------------


def test_registered_under_its_slug_with_two_seats() -> None:
    assert GAME.slug == "grid-master"
    assert GAME.name == "Grid Master"
    assert GAME.seats == 2


def test_card_rule_1_two_players_seat_1_is_x_and_moves_first() -> None:
    state = GAME.new()
    assert GAME.to_act(state) == frozenset({1})
    assert GAME.public_view(state)["symbols"] == {"1": "X", "2": "O"}
    state = play(state, "place A1")
    assert cells(state)[0] == "X.."
    assert GAME.to_act(state) == frozenset({2})
    state = play(state, "place B2")
    assert cells(state)[1] == ".O."
    assert GAME.to_act(state) == frozenset({1})


def test_seat_2_cannot_move_first() -> None:
    refused(GAME.new(), "place A1", "it is not your turn", seat=2)


@pytest.mark.parametrize("seat", [HOST, SPECTATOR, 3])
def test_only_the_seat_to_move_may_act(seat: int) -> None:
    refused(GAME.new(), "place A1", "it is not your turn", seat=seat)


def test_card_rules_2_and_3_a_3x3_board_and_5_symbols_each() -> None:
    state = GAME.new()
    view = GAME.public_view(state)
    assert view["size"] == 3
    assert view["cells"] == ["...", "...", "..."]
    assert view["in_hand"] == {"1": 5, "2": 5}
    state = play(state, *OPENING)
    assert GAME.public_view(state)["in_hand"] == {"1": 4, "2": 4}


def test_squares_beyond_c3_are_not_on_the_board() -> None:
    for text in ("place D1", "place A4", "place C0", "move A1 to A4"):
        with pytest.raises(NotationError, match="expected a square from A1 to C3"):
            GAME.parse(GAME.new(), 1, text)


def test_a_player_never_places_more_than_5_symbols() -> None:
    # the stalemate game below: X places its 5th symbol on move 9, filling the board
    state = play(GAME.new(), *STALEMATE_GAME)
    assert GAME.public_view(state)["in_hand"] == {"1": 0, "2": 1}


def test_symbols_option_and_its_bounds() -> None:
    assert GAME.default_options == {"symbols": 5}
    assert GAME.public_view(GAME.new({"symbols": 3}))["in_hand"] == {"1": 3, "2": 3}
    with pytest.raises(IllegalAction, match="symbols must be 3, 4 or 5"):
        GAME.new({"symbols": 6})
    with pytest.raises(IllegalAction, match="symbols must be 3, 4 or 5"):
        GAME.new({"symbols": "5"})
    with pytest.raises(IllegalAction, match="no option 'clock'"):
        GAME.new({"clock": 5})


# -- move 1 and move 2 ---------------------------------------------------------


@pytest.mark.parametrize("corner", ["A1", "C1", "A3", "C3"])
def test_move_1_x_places_on_any_corner(corner: str) -> None:
    state = play(GAME.new(), f"place {corner}")
    assert state.board[SQ[corner]] == 1
    assert GAME.public_view(state)["last_action"] == f"place {corner}"


@pytest.mark.parametrize("square", ["B1", "A2", "B2", "C2", "B3"])
def test_point_1_the_first_move_is_only_allowed_on_a_corner(square: str) -> None:
    refused(GAME.new(), f"place {square}", f"first move of the game must be on a corner .*not {square}")


def test_move_1_lists_exactly_the_four_corners() -> None:
    assert legal_texts(GAME.new()) == {"place A1", "place C1", "place A3", "place C3"}


def test_move_1_is_a_placement_only() -> None:
    refused(GAME.new(), "place A1; move A1 right 1", "no reposition on your first turn")


def test_move_2_o_places_on_any_of_the_remaining_8_squares() -> None:
    state = play(GAME.new(), "place A1")
    assert legal_texts(state) == {f"place {n}" for n in NAMES if n != "A1"}
    for name in NAMES[1:]:
        after = play(state, f"place {name}")
        assert after.board[SQ[name]] == 2
        assert GAME.result(after) is None


def test_move_2_o_cannot_place_on_the_x() -> None:
    refused(play(GAME.new(), "place A1"), "place A1", "A1 is not empty")


def test_move_2_has_no_reposition() -> None:
    state = play(GAME.new(), "place A1")
    refused(state, "place B2; move B2 down 1", "no reposition on your first turn")
    refused(state, "place B2; move A1 right 1", "no reposition on your first turn")


def test_a_turn_must_place_or_move_something() -> None:
    with pytest.raises(IllegalAction, match="a turn must place or reposition a symbol"):
        GAME.apply(GAME.new(), 1, Turn())


# -- move 3 and move 4: the previous symbol must be repositioned ----------------


def test_move_3_x_places_on_any_of_the_remaining_7_then_repositions_its_first_symbol() -> None:
    state = play(GAME.new(), *OPENING, "place C3; move A1 right 2")
    assert cells(state) == ["..X", ".O.", "..X"]
    assert GAME.to_act(state) == frozenset({2})
    assert {a.place for a in GAME.legal_actions(play(GAME.new(), *OPENING), 1)} == {
        SQ[n] for n in ("B1", "C1", "A2", "C2", "A3", "B3", "C3")
    }


def test_move_3_lists_every_placement_with_every_reposition_of_the_first_symbol() -> None:
    # A1 can go right 1/2 and down 1/2; a placement in its way removes the moves it blocks
    # (B1: right 1 only; C1: right 2; A2: down 1; A3: down 2) -> 4 * 3 + 3 * 4 = 24
    state = play(GAME.new(), *OPENING)
    actions = list(GAME.legal_actions(state, 1))
    assert len(actions) == 24
    assert all(a.move is not None and a.move.square == SQ["A1"] for a in actions)
    assert "place B1; move A1 right 2" in legal_texts(state)  # passes over its own symbol
    assert "place B1; move A1 right 1" not in legal_texts(state)


def test_move_3_the_reposition_is_blocked_by_the_opponent() -> None:
    # O on B1 blocks A1 to the right: only down 1 / down 2 remain -> 5 * 2 + 1 + 1 = 12
    state = play(GAME.new(), "place A1", "place B1")
    actions = list(GAME.legal_actions(state, 1))
    assert len(actions) == 12
    assert {a.move.direction for a in actions if a.move} == {"down"}


def test_move_3_must_reposition_the_symbol_from_the_first_turn_not_the_new_one() -> None:
    state = play(GAME.new(), *OPENING)
    refused(state, "place C3; move C3 up 1", "second turn you must reposition the symbol you placed on your first turn .on A1.")


def test_move_3_public_view_names_the_symbol_that_must_move() -> None:
    state = play(GAME.new(), *OPENING)
    view = GAME.public_view(state)
    assert view["must_reposition"] == "A1"
    assert view["turn_kind"] == "place+move"
    assert GAME.public_view(play(GAME.new(), "place A1"))["must_reposition"] is None
    assert GAME.public_view(GAME.new())["turn_kind"] == "place"


def test_move_4_o_places_then_must_reposition_its_first_symbol() -> None:
    state = play(GAME.new(), *OPENING, "place C3; move A1 right 2")
    assert GAME.public_view(state)["must_reposition"] == "B2"
    refused(state, "place A3; move A3 up 1", "must reposition the symbol you placed on your first turn .on B2.")
    refused(state, "place A3; move C1 left 1", "the symbol on C1 is your opponent's")
    after = play(state, "place A3; move B2 left 1")
    assert cells(after) == ["..X", "O..", "O.X"]
    assert GAME.public_view(after)["must_reposition"] is None


def test_move_5_any_previous_symbol_may_be_repositioned_but_not_the_new_one() -> None:
    state = play(GAME.new(), *OPENING, "place C3; move A1 right 2", "place A3; move B2 left 1")
    # X has C1 and C3 (C3 was placed on X's second turn, C1 is the first symbol moved)
    assert GAME.public_view(state)["must_reposition"] is None
    after = play(state, "place B2; move C3 left 1")
    assert cells(after) == ["..X", "OX.", "OX."]
    after = play(state, "place B2; move C1 left 1")
    assert cells(after) == [".X.", "OX.", "O.X"]
    refused(state, "place B2; move B2 right 1", "you may not reposition the symbol you have just placed")
    sources = {a.move.square for a in GAME.legal_actions(state, 1) if a.move}
    assert sources == {SQ["C1"], SQ["C3"]}
    assert all(a.move.square != a.place for a in GAME.legal_actions(state, 1) if a.move)


# -- point 2: orthogonal, 1 or 2 squares -----------------------------------------


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ("place C3; move A1 right 1", [".X.", ".O.", "..X"]),
        ("place C3; move A1 right 2", ["..X", ".O.", "..X"]),
        ("place C3; move A1 down 1", ["...", "XO.", "..X"]),
        ("place C3; move A1 down 2", ["...", ".O.", "X.X"]),
        ("place C2; move A1 to C1", ["..X", ".OX", "..."]),
    ],
)
def test_point_2_reposition_up_to_2_squares_horizontally_or_vertically(text: str, after: list[str]) -> None:
    state = play(pos(*MID), text)
    assert cells(state) == after


@pytest.mark.parametrize("target", ["B2", "C3", "B3", "C2"])
def test_point_2_diagonal_and_crooked_repositions_are_not_permitted(target: str) -> None:
    with pytest.raises(NotationError, match="a reposition goes up, down, left or right only"):
        GAME.parse(pos(*MID), 1, f"place C1; move A1 to {target}")
    with pytest.raises(NotationError, match="diagonal"):
        GAME.parse(pos(*MID), 1, "move A1 to B2")


def test_point_2_no_diagonal_move_is_ever_listed() -> None:
    for action in GAME.legal_actions(pos("X.X / .O. / X.."), 1):
        assert action.move is None or action.move.direction in {"up", "down", "left", "right"}


def test_point_2_not_more_than_2_squares() -> None:
    state = pos("X.. / ... / ...")
    refused(state, "place C3; move A1 right 3", "a reposition moves 1 or 2 squares, not 3")
    refused(state, "place C3; move A1 right 0", "a reposition moves 1 or 2 squares, not 0")


def test_a_reposition_cannot_leave_the_board() -> None:
    refused(pos(*MID), "place C3; move A1 up 1", "A1 cannot move up 1: it would leave the board")
    refused(pos("..X / .O. / ..."), "place A3; move C1 right 2", "C1 cannot move right 2: it would leave the board")


def test_a_reposition_must_end_on_an_empty_square() -> None:
    refused(pos("X.. / O.. / ..."), "place C3; move A1 down 1", "A1 cannot move down 1: A2 is not empty")
    refused(pos("X.. / ... / O.."), "place C3; move A1 down 2", "A1 cannot move down 2: A3 is not empty")
    refused(pos("XX. / ... / ..O"), "place B3; move A1 right 1", "A1 cannot move right 1: B1 is not empty")


# -- point 3: no jumping over an opponent; own symbols may be passed --------------


def test_point_3_cannot_jump_over_an_opponent_symbol() -> None:
    refused(
        pos("XO. / ... / ..."),
        "place C3; move A1 right 2",
        "A1 cannot move right 2: your opponent's symbol on B1 is in the way",
    )
    state = pos("XO. / O.. / ...")  # both ways out of A1 blocked by O
    actions = list(GAME.legal_actions(state, 1))
    assert actions and all(a.move is None for a in actions)


def test_ruling_a_reposition_may_pass_over_its_own_symbol() -> None:
    state = play(pos("XX. / ... / ..O"), "place A3; move A1 right 2")
    assert cells(state) == [".XX", "...", "X.O"]
    state = play(pos("X.. / X.. / ..O"), "place C1; move A1 down 2")
    assert cells(state) == ["..X", "X..", "X.O"]


def test_the_second_turn_reposition_may_pass_over_the_symbol_just_placed() -> None:
    state = play(GAME.new(), *OPENING, "place B1; move A1 right 2")
    assert cells(state) == [".XX", ".O.", "..."]


# -- point 4: the reposition comes after the placement ---------------------------


def test_point_4_a_reposition_cannot_come_before_the_placement() -> None:
    state = pos(*MID)
    action = GAME.parse(state, 1, "move A1 right 1; place C3")
    assert action.reposition_first
    refused(state, "move A1 right 1; place C3", "place your new symbol first: a reposition comes after the placement")
    refused(state, "move A1 right 1 then place C3", "place your new symbol first")


def test_point_4_no_reposition_without_a_placement_while_one_is_possible() -> None:
    refused(pos(*MID), "move A1 right 1", "you must place a new symbol before repositioning")


# -- point 5: only one's own symbol ---------------------------------------------


def test_point_5_the_opponent_symbol_cannot_be_repositioned() -> None:
    refused(pos(*MID), "place C3; move B2 down 1", "the symbol on B2 is your opponent's: you may only reposition your own")


def test_there_must_be_a_symbol_to_reposition() -> None:
    refused(pos(*MID), "place C3; move B1 down 1", "there is no symbol on B1 to reposition")


# -- point 6: the play ends only after the reposition ----------------------------


def test_point_6_a_placement_alone_is_refused_when_a_reposition_is_possible() -> None:
    refused(pos(*MID), "place C3", "you must reposition a symbol after placing")
    refused(play(GAME.new(), *OPENING), "place C3", "you must reposition a symbol after placing")


def test_point_6_the_winning_play_includes_the_reposition() -> None:
    # X places C1 making A1-B1-C1, but must still reposition, and A2 is its only symbol free
    state = pos("XX. / X.. / O.O")
    refused(state, "place C1", "you must reposition a symbol after placing")
    after = play(state, "place C1; move A2 right 1")
    outcome = GAME.result(after)
    assert outcome is not None
    assert outcome.winners == frozenset({1})


# -- rulings: no legal reposition after the placement -----------------------------


def test_ruling_placement_alone_when_no_reposition_exists_after_it() -> None:
    state = pos("XO. / O.. / ...")  # A1 is boxed in by O
    assert legal_texts(state) == {f"place {n}" for n in ("C1", "B2", "C2", "A3", "B3", "C3")}
    after = play(state, "place C3")
    assert cells(after) == ["XO.", "O..", "..X"]
    assert GAME.to_act(after) == frozenset({2})
    assert GAME.public_view(after)["last_squares"] == ["C3"]


def test_ruling_a_placement_that_leaves_no_reposition_is_legal_even_if_another_would_not() -> None:
    # A1's only way out is right 1 (C1 and A2 are O's): placing on B1 takes it away
    state = pos("X.O / O.. / ...")
    assert "place B1" in legal_texts(state)  # B1 takes A1's only way out: placement alone
    assert "place C3" not in legal_texts(state)  # A1 can move right 1 after placing C3
    after = play(state, "place B1")
    assert cells(after) == ["XXO", "O..", "..."]


def test_ruling_repositioning_when_none_is_possible_names_the_block() -> None:
    refused(pos("XO. / O.. / ..."), "place C3; move A1 right 1", "A1 cannot move right 1: B1 is not empty")


def test_ruling_a_placement_only_turn_cannot_win() -> None:
    # X places B1 completing A1-B1-C1, but neither A1 nor C1 can move: no reposition, no win
    state = pos("X.X / O.O / ...")
    assert legal_texts(state) >= {"place B1"}
    after = play(state, "place B1")
    assert cells(after) == ["XXX", "O.O", "..."]
    assert GAME.result(after) is None
    assert GAME.to_act(after) == frozenset({2})


def test_second_turn_placement_only_when_the_first_symbol_is_boxed_in() -> None:
    # X's second turn, its first symbol A1 boxed in by O: every placement stands alone
    state = pos("XO. / O.. / ...", turns=(1, 2), first=(SQ["A1"], SQ["B1"]))
    assert legal_texts(state) == {f"place {n}" for n in ("C1", "B2", "C2", "A3", "B3", "C3")}
    after = play(state, "place C1")
    assert GAME.public_view(after)["turns"] == {"1": 2, "2": 2}


# -- rulings: reposition-only turns -------------------------------------------------


def test_ruling_no_symbols_in_hand_means_a_reposition_only_turn() -> None:
    state = pos(EMPTY_HAND, symbols=4)
    assert GAME.public_view(state)["in_hand"] == {"1": 0, "2": 1}
    assert GAME.public_view(state)["turn_kind"] == "move"
    refused(state, "place B1", "you have no symbols left to place: this turn is a reposition only")
    refused(state, "place B1; move B2 up 1", "you have no symbols left to place")
    # A1 right 1; B2 up 1; C2 down 1 (A3 is boxed in by O)
    assert legal_texts(state) == {"move A1 right 1", "move B2 up 1", "move C2 down 1"}
    after = play(state, "move B2 up 1")
    assert cells(after) == ["XXO", "O.X", "XO."]
    assert GAME.result(after) is None


def test_ruling_any_own_symbol_may_move_on_a_reposition_only_turn() -> None:
    # C2 was the last symbol X placed (last turn); nothing was placed this turn, so it may move
    state = pos(EMPTY_HAND, symbols=4)
    state = replace(state, last=Turn(place=SQ["C2"], move=Reposition(SQ["A1"], "right", 1)))
    assert "move C2 down 1" in legal_texts(state)


def test_ruling_the_second_turn_restriction_also_holds_on_a_reposition_only_turn() -> None:
    # only reachable through a constructed position: X on its second turn with an empty hand
    state = pos("X.X / ... / ..O", turns=(1, 2), in_hand=(0, 3), first=(SQ["A1"], -1))
    assert legal_texts(state) == {"move A1 right 1", "move A1 down 1", "move A1 down 2"}
    refused(state, "move C1 down 1", "must reposition the symbol you placed on your first turn .on A1.")


def test_ruling_a_reposition_only_turn_can_win() -> None:
    after = play(pos(EMPTY_HAND, symbols=4), "move C2 down 1")
    result = GAME.result(after)
    assert result is not None
    assert result.winners == frozenset({1})
    assert result.reason == "line"
    assert GAME.public_view(after)["winning_line"] == ["A1", "B2", "C3"]


def test_ruling_a_full_board_leaves_no_reposition_so_the_game_is_drawn() -> None:
    # X fills the last square; no square is empty, so no reposition follows, and O, facing a
    # full board, has no legal action
    state = pos("XOX / XOO / OX.", to_move=1)
    assert legal_texts(state) == {"place C3"}
    after = play(state, "place C3")
    result = GAME.result(after)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "stalemate"
    assert GAME.to_act(after) == frozenset()
    assert list(GAME.legal_actions(after, 2)) == []


def test_ruling_reposition_only_turn_with_no_reposition_is_a_stalemate() -> None:
    # symbols=4, both hands empty: after X moves C3 up, the empty C3 is walled off by X's C2
    # and B3, so O (to move) has no reposition
    state = pos("XOX / OO. / OXX", symbols=4)
    assert GAME.public_view(state)["in_hand"] == {"1": 0, "2": 0}
    after = play(state, "move C3 up 1")
    assert cells(after) == ["XOX", "OOX", "OX."]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset(), "stalemate")
