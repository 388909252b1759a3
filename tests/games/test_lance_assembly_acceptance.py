"""Acceptance tests for Lance Assembly, written only from DESIGN.md, RULINGS.md §1 and the card.

Everything goes through the public interface (`get_game("lance-assembly")` and its
new/parse/apply/format/legal_actions/to_act/result/view/dump/load); positions are reached
by playing real turns from `new()`.  Squares: A1 top-left, letters to the right, numbers down.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import random
from typing import Any

import pytest

from games.core import HOST, SPECTATOR, IllegalAction, NotationError, RuleError
from games.registry import get_game
from tests.games import playing

G = get_game("lance-assembly")
mover = functools.partial(playing.mover, G)
play = functools.partial(playing.play, G)

# A full 6x6 board with 18 red and 18 blue tiles and no five in a row for anybody.
FILL = ["RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB", "RRBBRR", "BBRRBB"]


def name(row: int, col: int) -> str:
    return f"{'ABCDEF'[col]}{row + 1}"


RED_SQUARES = [name(r, c) for r in range(6) for c in range(6) if FILL[r][c] == "R"]
BLUE_SQUARES = [name(r, c) for r in range(6) for c in range(6) if FILL[r][c] == "B"]


def dumped(state: object) -> str:
    return json.dumps(G.dump(state), sort_keys=True)


def run(texts: list[str], options: dict[str, Any] | None = None, state: object | None = None) -> object:
    """Play `texts` in turn order from `state` (or a new bout); each turn must be legal."""
    if state is None:
        state = G.new(options if options is not None else {"starting_seat": 1})
    for text in texts:
        assert G.result(state) is None, f"bout ended before {text!r}"
        state = play(state, mover(state), text)
    return state


def refused(state: object, seat: int, text: str, *words: str | tuple[str, ...], exc: type = IllegalAction) -> str:
    """`text` by `seat` is refused with `exc`; the message names every word (a tuple: any of them)."""
    before = dumped(state)
    with pytest.raises(exc) as info:
        G.apply(state, seat, G.parse(state, seat, text))
    message = str(info.value)
    assert message.strip(), "empty error message"
    low = message.lower()
    for word in words:
        options = word if isinstance(word, tuple) else (word,)
        assert any(w.lower() in low for w in options), f"{message!r} does not mention {options}"
    assert dumped(state) == before, "a refused action changed the state"
    return message


def cell(state: object, square: str) -> str:
    """'R', 'B', 'N' or '' read from the spectator view."""
    cells = G.view(state, SPECTATOR)["public"]["cells"]
    col = "ABCDEF".index(square[0])
    row = int(square[1:]) - 1
    value = cells[row][col]
    return "" if value in ("", ".", None) else str(value).upper()[0]


def assert_board(state: object, **squares: str) -> None:
    for square, value in squares.items():
        assert cell(state, square) == value, f"{square}: {cell(state, square)!r} != {value!r}"


def count_empty(state: object) -> int:
    return sum(cell(state, name(r, c)) == "" for r in range(6) for c in range(6))


def assert_over(state: object, winners: set[int], reason: str) -> None:
    result = G.result(state)
    assert result is not None
    assert result.winners == frozenset(winners)
    assert result.reason == reason
    assert G.to_act(state) == frozenset()
    assert list(G.legal_actions(state, 1)) == [] and list(G.legal_actions(state, 2)) == []
    for seat in (1, 2):
        refused(state, seat, "place F6", ("over", "ended", "finished"), exc=IllegalAction)


# -- identity, options, seats --------------------------------------------------------------------


def test_identity() -> None:
    assert G.slug == "lance-assembly"
    assert G.seats == 2
    assert isinstance(G.name, str) and G.name
    assert "starting_seat" in G.default_options


def test_unknown_slug_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        get_game("lance-assembly-deluxe")


@pytest.mark.parametrize("options", [{"starting_seat": 1}, None, {}, json.loads('{"starting_seat": 1}')])
def test_seat_one_starts_by_default_and_by_option(options: dict[str, Any] | None) -> None:
    state = G.new(options)
    assert G.to_act(state) == frozenset({1})
    assert G.result(state) is None


@pytest.mark.parametrize("options", [{"starting_seat": 2}, json.loads('{"starting_seat": 2}')])
def test_starting_seat_two(options: dict[str, Any]) -> None:
    state = G.new(options)
    assert G.to_act(state) == frozenset({2})
    refused(state, 1, "place A1", "not your turn")
    state = play(state, 2, "place A1")
    assert G.to_act(state) == frozenset({1})
    # the starting player of the bout is a per-bout fact: seat 2 still plays blue
    assert_board(state, A1="B")


def test_seat_one_is_red_and_seat_two_is_blue() -> None:
    state = run(["place A1", "place B2"])
    assert_board(state, A1="R", B2="B")


def test_not_your_turn_and_strangers() -> None:
    state = G.new({"starting_seat": 1})
    refused(state, 2, "place A1", "not your turn")
    for seat in (HOST, SPECTATOR, 3):
        with pytest.raises(IllegalAction):
            G.apply(state, seat, G.parse(state, 1, "place A1"))


def test_turns_alternate() -> None:
    state = G.new({"starting_seat": 1})
    expected = 1
    for text in ["place A1", "place B2", "place C3; slide C3 down 1", "slide B2 right 1", "place A6"]:
        assert G.to_act(state) == frozenset({expected})
        state = play(state, expected, text)
        expected = 3 - expected
    assert G.to_act(state) == frozenset({expected})


# -- the first turn ------------------------------------------------------------------------------


def test_first_turn_is_exactly_one_placement() -> None:
    state = G.new({"starting_seat": 1})
    actions = list(G.legal_actions(state, 1))
    assert len(actions) == 36
    assert sorted(G.format(a) for a in actions) == sorted(f"place {name(r, c)}" for r in range(6) for c in range(6))
    assert list(G.legal_actions(state, 2)) == []
    refused(state, 1, "place C3; slide C3 down 1", "first")
    state = play(state, 1, "place C3")
    assert_board(state, C3="R")
    assert count_empty(state) == 35


def test_first_turn_may_not_slide_or_use_neutral() -> None:
    state = G.new({"starting_seat": 2})
    refused(state, 2, "place C3; neutral D4", ("first", "neutral"))
    state1 = G.new({"starting_seat": 1})
    refused(state1, 1, "place C3; neutral D4", ("first", "neutral"))


# -- the three kinds of turn, no passing -------------------------------------------------------------


def test_place_slide_and_place_then_slide_are_turns() -> None:
    state = run(["place A1", "place B2"])
    placed = play(state, 1, "place C3")
    assert_board(placed, C3="R", A1="R", B2="B")
    slid = play(state, 1, "slide B2 down 2")
    assert_board(slid, B2="", B4="B")
    both = play(state, 1, "place C3; slide C3 right 3")
    assert_board(both, C3="", F3="R")


def test_no_passing() -> None:
    state = run(["place A1", "place B2"])
    with pytest.raises(RuleError) as info:
        G.apply(state, 1, G.parse(state, 1, "pass"))
    assert "pass" in str(info.value).lower()
    with pytest.raises(NotationError):
        G.parse(state, 1, "")
    with pytest.raises(NotationError):
        G.parse(state, 1, "   ")


def test_sliding_before_placing_is_illegal() -> None:
    state = run(["place A1", "place B2"])
    refused(state, 1, "slide A1 down 1; place C3", "before", ("place", "placing"))


def test_at_most_one_placement_and_one_slide() -> None:
    state = run(["place A1", "place B2"])
    refused(state, 1, "place C3; place D4", ("one", "once", "at most"))
    refused(state, 1, "slide A1 down 1; slide B2 down 1", ("one slide", "at most one", "once"))


# -- slides ------------------------------------------------------------------------------------------

# Row 1 holds A1 R, B1 B, C1 R, D1 B (a mixed run); red to move.
ROW = ["place A1", "place B1", "place C1", "place D1"]


def test_slide_a_mixed_sub_run_of_a_longer_line() -> None:
    state = run(ROW)
    after = play(state, 1, "slide C1-D1 right 2")
    assert_board(after, A1="R", B1="B", C1="", D1="", E1="R", F1="B")


def test_slide_a_single_tile_out_of_a_line() -> None:
    state = run(ROW)
    after = play(state, 1, "slide D1 right 2")
    assert_board(after, A1="R", B1="B", C1="R", D1="", E1="", F1="B")
    after = play(state, 1, "slide B1 down 5")
    assert_board(after, B1="", B6="B", A1="R", C1="R")


def test_slide_whole_run_and_any_distance() -> None:
    state = run(ROW)
    after = play(state, 1, "slide A1-D1 right 2")
    assert_board(after, A1="", B1="", C1="R", D1="B", E1="R", F1="B")
    after = play(state, 1, "slide A1-D1 right 1")
    assert_board(after, A1="", B1="R", E1="B")


def test_no_pushing() -> None:
    state = run(ROW)
    refused(state, 1, "slide A1-B1 right 1", "C1", ("empty", "push"))
    refused(state, 1, "slide A1 right 1", "B1", ("empty", "push"))
    refused(state, 1, "slide B1-C1 left 1", "A1", ("empty", "push"))


def test_slide_stays_on_the_board() -> None:
    state = run(ROW)
    refused(state, 1, "slide A1-D1 right 3", "board")
    refused(state, 1, "slide A1 down 6", "board")
    refused(state, 1, "slide A1 up 1", "board")
    refused(state, 1, "slide A1-D1 left 1", "board")


def test_slide_only_along_its_row_or_column() -> None:
    state = run(ROW)
    refused(state, 1, "slide B1-C1 down 1", ("row", "along", "sideways"))
    refused(state, 1, "slide A1-D1 up 1", ("row", "along", "sideways", "board"))


def test_slide_run_must_be_contiguous() -> None:
    state = run(["place A1", "place B1", "place D1", "place F6"])  # C1 empty
    refused(state, 1, "slide A1-D1 right 1", "C1", ("connected", "empty", "contiguous"))


def test_slide_needs_tiles() -> None:
    state = run(ROW)
    refused(state, 1, "slide E4 down 1", "E4")


def test_slide_distance_at_least_one() -> None:
    state = run(ROW)
    with pytest.raises(RuleError):
        G.apply(state, 1, G.parse(state, 1, "slide A1 down 0"))


def test_vertical_slides() -> None:
    # column B: B2 B, B3 R; B4 empty
    state = run(["place B3", "place B2", "place F6"])
    assert G.to_act(state) == frozenset({2})
    after = play(state, 2, "slide B2-B3 down 3")
    assert_board(after, B2="", B3="", B5="B", B6="R")
    refused(state, 2, "slide B2 down 1", "B3", ("empty", "push"))
    after = play(state, 2, "slide B2-B3 up 1")
    assert_board(after, B1="B", B2="R", B3="")


def test_slid_tiles_need_not_include_the_placed_tile() -> None:
    state = run(ROW)
    after = play(state, 1, "place F6; slide C1-D1 right 1")
    assert_board(after, F6="R", C1="", D1="R", E1="B")
    refused(state, 1, "place E1; slide A1-E1 down 1", ("row", "along", "sideways"))


def test_place_then_slide_a_run_that_includes_the_new_tile() -> None:
    state = run(ROW)
    after = play(state, 1, "place E1; slide A1-E1 right 1")
    assert_board(after, A1="", B1="R", C1="B", D1="R", E1="B", F1="R")


def test_the_slide_is_checked_after_the_placement() -> None:
    state = run(ROW)
    # placing E1 blocks the slide of D1 to the right
    refused(state, 1, "place E1; slide D1 right 1", "E1")
    # placing E1 makes C1-E1 a connected run
    after = play(state, 1, "place E1; slide C1-E1 right 1")
    assert_board(after, C1="", D1="R", E1="B", F1="R")


# -- the neutral tile ------------------------------------------------------------------------------

AFTER_OPENING = ["place A1"]  # red opened; blue (moves second, holds the neutral tile) to move


@pytest.mark.parametrize(
    "text",
    [
        "neutral C3; place D4; slide D4 down 1",
        "place D4; neutral C3; slide D4 down 1",
        "place D4; slide D4 down 1; neutral C3",
        "neutral C3; place D4",
        "place D4; neutral C3",
        "neutral C3; slide A1 right 1",
        "slide A1 right 1; neutral C3",
    ],
)
def test_neutral_tile_at_any_point_of_the_turn(text: str) -> None:
    state = run(AFTER_OPENING)
    after = play(state, 2, text)
    assert cell(after, "C3") == "N"
    assert G.to_act(after) == frozenset({1})


def test_neutral_tile_alone_is_not_a_turn() -> None:
    state = run(AFTER_OPENING)
    refused(state, 2, "neutral C3", "neutral")


def test_neutral_tile_belongs_to_the_second_player() -> None:
    state = run(["place A1", "place B2"])
    refused(state, 1, "place C3; neutral D4", "neutral")
    # with seat 2 starting, seat 1 holds it
    state = run(["place A1"], {"starting_seat": 2})
    after = play(state, 1, "place B2; neutral C3")
    assert_board(after, A1="B", B2="R", C3="N")
    state = run(["place A1", "place B2"], {"starting_seat": 2})
    refused(state, 2, "place C3; neutral D4", "neutral")


def test_neutral_tile_once_per_bout() -> None:
    state = run(["place A1", "place B2; neutral C3", "place D4"])
    refused(state, 2, "place E5; neutral F6", ("already", "once"), "neutral")
    refused(run(AFTER_OPENING), 2, "neutral C3; place D4; neutral E5", ("already", "once", "one"), "neutral")


def test_neutral_tile_needs_an_empty_square() -> None:
    state = run(AFTER_OPENING)
    refused(state, 2, "place B2; neutral A1", "A1", "empty")
    refused(state, 2, "place B2; neutral B2", "B2", "empty")


def test_neutral_tile_slides_as_part_of_a_run() -> None:
    # row 1: A1-D1 red, E1 neutral
    state = run(["place A1", "place A6", "place B1", "place B6", "place C1", "place C6", "place D1",
                 "place F5; neutral E1"])
    assert G.result(state) is None
    after = play(state, 1, "slide A1-E1 right 1")
    assert_board(after, A1="", B1="R", E1="R", F1="N")
    assert G.result(after) is None


def test_neutral_tile_never_counts_toward_a_lance() -> None:
    state = run(["place A1", "place A6", "place B1", "place B6", "place C1", "place C6", "place D1",
                 "place F5; neutral E1"])
    assert G.result(state) is None  # RRRRN is no lance
    state = run(["place F1"], state=state)  # RRRRNR is no lance either
    assert G.result(state) is None
    # blue tiles around the neutral tile: BBBN B is no lance
    state = run(["place A1", "place A6", "place F1", "place B6", "place F2", "place C6; neutral D6",
                 "place F3", "place E6"])
    assert G.result(state) is None


# -- the placement limit and tiles in hand --------------------------------------------------------------


def interleaved(n: int) -> list[str]:
    """The first n placements of the FILL board, red and blue alternating (red first)."""
    order = [sq for pair in zip(RED_SQUARES, BLUE_SQUARES, strict=True) for sq in pair]
    return [f"place {sq}" for sq in order[:n]]


def empties(state: object) -> list[str]:
    return [name(r, c) for r in range(6) for c in range(6) if cell(state, name(r, c)) == ""]


def test_placement_limit_more_than_four_empty() -> None:
    state = run(interleaved(31))
    assert G.result(state) is None
    assert count_empty(state) == 5
    assert G.to_act(state) == frozenset({2})
    spare_blue = BLUE_SQUARES[15:]
    spare_red = RED_SQUARES[16:]
    # five empty: one placement is allowed, a second one (the neutral tile) is not
    refused(state, 2, f"place {spare_blue[0]}; neutral {spare_blue[1]}", ("4", "four", "empty"))
    refused(state, 2, f"neutral {spare_blue[1]}; place {spare_blue[0]}", ("4", "four", "empty"))
    after = play(state, 2, f"place {spare_blue[0]}")
    assert count_empty(after) == 4
    # four empty: slides only
    refused(after, 1, f"place {spare_red[0]}", ("4", "four", "empty"))
    listed = [G.format(a) for a in G.legal_actions(after, 1)]
    assert listed and all("place" not in t and "neutral" not in t for t in listed)
    slid = G.apply(after, 1, G.parse(after, 1, listed[0]))
    assert G.result(slid) is None and count_empty(slid) == 4
    # the neutral tile is a placement too: blue may not use it now
    hole = empties(slid)[0]
    refused(slid, 2, f"place {hole}", ("4", "four", "empty"))
    blue_slide = G.format(next(iter(G.legal_actions(slid, 2))))
    refused(slid, 2, f"neutral {hole}; {blue_slide}", ("4", "four", "empty"))
    refused(slid, 2, f"{blue_slide}; neutral {hole}", ("4", "four", "empty", "not empty"))
    assert all("neutral" not in G.format(a) for a in G.legal_actions(slid, 2))


def test_neutral_tile_with_five_empty_then_slide() -> None:
    state = run(interleaved(31))
    # neutral then a slide is a legal turn while more than 4 squares are empty
    for action in G.legal_actions(state, 2):
        text = G.format(action)
        if text.startswith("neutral") and "slide" in text and "place" not in text:
            after = play(state, 2, text)
            assert count_empty(after) == 4
            break
    else:
        pytest.fail("no neutral-then-slide turn was listed")


def test_no_tiles_left_in_hand() -> None:
    # red places all 18 tiles while blue only slides its single tile between F6 and E6
    texts = ["place A1", "place F6"]
    reds = [sq for sq in RED_SQUARES if sq != "A1"]
    shuttle = ["slide F6 left 1", "slide E6 right 1"]
    for k, sq in enumerate(reds):
        texts += [f"place {sq}", shuttle[k % 2]]
    state = run(texts)
    assert G.result(state) is None
    assert G.to_act(state) == frozenset({1})
    assert count_empty(state) == 36 - 19
    refused(state, 1, f"place {empties(state)[0]}", ("no tiles", "left", "hand"))
    assert all("place" not in G.format(a) for a in G.legal_actions(state, 1))
    # red may still slide
    first_slide = next(iter(G.legal_actions(state, 1)))
    G.apply(state, 1, first_slide)


# -- winning ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reds",
    [
        ["A1", "B1", "C1", "D1", "E1"],  # row
        ["B1", "B2", "B3", "B4", "B5"],  # column
        ["A1", "B2", "C3", "D4", "E5"],  # diagonal
        ["F1", "E2", "D3", "C4", "B5"],  # the other diagonal
        ["B6", "C5", "D4", "E3", "F2"],
    ],
)
def test_red_lance_by_placement(reds: list[str]) -> None:
    blues = [sq for sq in ["A6", "C6", "E6", "F4", "F5", "A3"] if sq not in reds][:4]
    texts = [t for pair in zip(reds, [*blues, None], strict=True) for t in pair if t]
    state = run([f"place {t}" for t in texts[:-1]])
    assert G.result(state) is None
    state = play(state, 1, f"place {texts[-1]}")
    assert_over(state, {1}, "lance")


def test_blue_lance_by_placement() -> None:
    state = run(["place A1", "place A2", "place C1", "place B2", "place E1", "place C2", "place A6",
                 "place D2", "place F6"])
    assert G.result(state) is None
    state = play(state, 2, "place E2")
    assert_over(state, {2}, "lance")


def test_overline_counts() -> None:
    state = run(["place A1", "place A6", "place B1", "place B6", "place C1", "place C6", "place D1",
                 "place A5", "place F1", "place B5"])
    assert G.result(state) is None
    state = play(state, 1, "place E1")
    assert_over(state, {1}, "lance")


def test_lance_by_slide() -> None:
    state = run(["place A1", "place A6", "place B1", "place B6", "place C1", "place C6", "place D1",
                 "place F5", "place E2", "place F4"])
    state = play(state, 1, "slide E2 up 1")
    assert_over(state, {1}, "lance")


def test_win_is_checked_at_the_end_of_the_turn_only() -> None:
    state = run(["place A1", "place A6", "place B1", "place B6", "place C1", "place C6", "place D1",
                 "place D6"])
    # the placement makes a lance, the slide breaks it: no win
    state = play(state, 1, "place E1; slide E1 down 1")
    assert G.result(state) is None
    assert G.to_act(state) == frozenset({2})
    state = play(state, 2, "place E6")
    assert_over(state, {2}, "lance")


def test_neutral_after_the_lance_still_wins() -> None:
    state = run(["place A6", "place A1", "place B6", "place B1", "place C6", "place C1", "place F3",
                 "place D1", "place F4"], {"starting_seat": 1})
    assert G.to_act(state) == frozenset({2})
    state = play(state, 2, "place E1; neutral F1")
    assert_over(state, {2}, "lance")


def test_opponents_lance_wins_for_the_opponent() -> None:
    state = run(["place A1", "place A2", "place F6", "place B2", "place F5", "place C2", "place F3",
                 "place D2", "place F1", "place E3"])
    assert G.result(state) is None
    state = play(state, 1, "slide E3 up 1")
    assert_over(state, {2}, "lance")


def test_opponents_lance_wins_even_after_own_placement() -> None:
    state = run(["place A1", "place A2", "place F6", "place B2", "place F5", "place C2", "place F3",
                 "place D2", "place F1", "place E3"])
    state = play(state, 1, "place C4; slide E3 up 1")
    assert_over(state, {2}, "lance")


BOTH = ["place A1", "place A2", "place B1", "place B2", "place C1", "place C2", "place D1", "place D2",
        "place E2", "place E3"]


def test_both_lances_red_mover_wins() -> None:
    state = run(BOTH)
    assert G.result(state) is None and G.to_act(state) == frozenset({1})
    state = play(state, 1, "slide E2-E3 up 1")
    assert_board(state, E1="R", E2="B")
    assert_over(state, {1}, "lance")


def test_both_lances_blue_mover_wins() -> None:
    state = run([*BOTH, "place F6"])
    assert G.to_act(state) == frozenset({2})
    state = play(state, 2, "slide E2-E3 up 1")
    assert_over(state, {2}, "lance")


# -- stalemate -------------------------------------------------------------------------------------------

SHUTTLE = ["slide A1 right 1", "slide F6 left 1", "slide B1 left 1", "slide E6 right 1"]


def test_third_repetition_is_a_stalemate() -> None:
    state = run(["place A1", "place F6"])
    for k in range(7):
        state = play(state, mover(state), SHUTTLE[k % 4])
        assert G.result(state) is None, k
    state = play(state, mover(state), SHUTTLE[7 % 4])
    assert_over(state, set(), "stalemate")


def test_repetition_survives_dump_and_load() -> None:
    state = run(["place A1", "place F6"])
    for k in range(7):
        state = play(state, mover(state), SHUTTLE[k % 4])
        state = G.load(json.loads(json.dumps(G.dump(state))))
    state = play(state, mover(state), SHUTTLE[3])
    assert_over(state, set(), "stalemate")


def test_positions_right_after_a_placement_turn_count() -> None:
    state = run(["place A1", "place F6"])
    for k in range(4):
        state = play(state, mover(state), SHUTTLE[k])
    # the start position has occurred twice; a placement changes the board for good
    state = play(state, 1, "place C3; slide C3 down 1")  # (A1, C4, F6; blue to move): 1st time
    loop = ["slide C4 up 1", "slide A1 right 1", "slide C3 down 1", "slide B1 left 1"]
    for k in range(7):
        assert G.result(state) is None, k
        state = play(state, mover(state), loop[k % 4])
    # (A1, C4, F6; blue to move) arose after the placement turn, after move 4 and after move 8
    assert G.result(state) is None
    state = play(state, mover(state), loop[7 % 4])
    assert_over(state, set(), "stalemate")


# -- notation ------------------------------------------------------------------------------------------


def test_canonical_notation_round_trips() -> None:
    state = run(["place B2", "place B3", "place F6"])
    text = "place C3; slide B2-B3 down 1; neutral D4"
    action = G.parse(state, 2, text)
    assert G.format(action) == text
    after = G.apply(state, 2, action)
    assert_board(after, C3="B", B2="", B3="R", B4="B", D4="N")


def test_natural_notation() -> None:
    state = run(["place B2", "place B3", "place F6"])
    natural = G.parse(state, 2, "I place tile on A1, and slide tiles on B2 and B3 down 1.")
    assert natural == G.parse(state, 2, "place A1; slide B2-B3 down 1")
    assert G.format(natural) == "place A1; slide B2-B3 down 1"
    after = G.apply(state, 2, natural)
    assert_board(after, A1="B", B2="", B3="R", B4="B")


@pytest.mark.parametrize(
    "text",
    ["PLACE c3;  SLIDE b2-b3   DOWN 1", "place c3; slide b2-b3 d 1", "  place C3 ;slide B2-B3 down 1  ",
     "place C3; slide B3-B2 down 1"],
)
def test_case_spacing_and_short_directions(text: str) -> None:
    state = run(["place B2", "place B3", "place F6"])
    assert G.format(G.parse(state, 2, text)) == "place C3; slide B2-B3 down 1"


@pytest.mark.parametrize("letter,word", [("U", "up"), ("D", "down"), ("L", "left"), ("R", "right")])
def test_single_letter_directions(letter: str, word: str) -> None:
    state = G.new({"starting_seat": 1})
    assert G.format(G.parse(state, 1, f"slide C3 {letter} 1")) == f"slide C3 {word} 1"


@pytest.mark.parametrize(
    "text,words",
    [
        ("place C9", ("C9",)),
        ("place G1", ("G1",)),
        ("place", ("square",)),
        ("slide B2 down", ("far", "distance", "number")),
        ("slide B2 1", ("direction",)),
        ("hello there", ("expected",)),
        ("place C3; slide B2-B3 sideways 1", ("expected", "direction", "sideways")),
    ],
)
def test_notation_errors_say_what_was_expected(text: str, words: tuple[str, ...]) -> None:
    state = run(["place B2", "place B3"])
    with pytest.raises(NotationError) as info:
        G.parse(state, 2, text)
    message = str(info.value).lower()
    assert any(w.lower() in message for w in words), message


@pytest.mark.parametrize("text", ["slide A1 down \u00b2", "slide A1 \u00b3 down", "place A1; slide A1 d\u00b2",
                                  "slide A1 down \u00bd", "slide A1 down \u0661"])
def test_unicode_digits_are_notation_errors(text: str) -> None:
    # str.isdigit() accepts '\u00b2' but int() does not: parse must still raise NotationError only
    with pytest.raises(NotationError):
        G.parse(G.new(), 1, text)


def test_parser_raises_only_notation_error() -> None:
    rng = random.Random(7)
    state = run(["place B2", "place B3"])
    alphabet = "abcdefgh0123456789 ;,-.placeslideneutralupdownleftright\u00e9\t\n\u00b2\u00b3\u0661\u00bd\u2013"
    words = ["place", "slide", "neutral", "A1", "F6", "G7", "B2-B3", "down", "up", "0", "99", ";", ",", "and",
             "-", "to", "tile", "pass", "resolve"]
    for _ in range(3000):
        if rng.random() < 0.5:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        else:
            text = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 8)))
        try:
            action = G.parse(state, 2, text)
        except NotationError:
            continue
        assert G.parse(state, 2, G.format(action)) == action
        with contextlib.suppress(IllegalAction):
            G.apply(state, 2, action)


def test_every_listed_action_formats_parses_and_applies() -> None:
    state = run(["place A1", "place B1", "place C1", "place B2", "place C2"])
    rng = random.Random(3)
    actions = list(G.legal_actions(state, 2))
    assert len(actions) == len(set(actions))
    for action in rng.sample(actions, 300):
        text = G.format(action)
        assert G.parse(state, 2, text) == action
        G.apply(state, 2, action)
    listed = {G.format(a) for a in actions}
    assert "slide B1-B2 down 4" in listed
    assert "place F6; slide A1-C1 right 1" in listed
    assert "slide A1-B1 right 1" not in listed  # would push C1
    assert "neutral D4" not in listed  # the neutral tile alone is no turn
    assert "neutral D4; slide A1 down 1" in listed


# -- storage, views, purity, speed ---------------------------------------------------------------------


def random_playout(seed: int) -> list[object]:
    rng = random.Random(seed)
    state = G.new({"starting_seat": 1 + seed % 2})
    states = [state]
    for _ in range(300):
        if G.result(state) is not None:
            break
        seat = mover(state)
        action = G.random_action(state, seat, rng)
        assert action is not None
        state = G.apply(state, seat, action)
        states.append(state)
    return states


def test_dump_load_round_trip_and_identical_play() -> None:
    for seed in range(4):
        states = random_playout(seed)
        for state in states:
            data = json.loads(json.dumps(G.dump(state)))
            again = G.load(data)
            assert dumped(again) == dumped(state)
            assert G.result(again) == G.result(state)
            assert G.to_act(again) == G.to_act(state)
            assert G.view(again, HOST) == G.view(state, HOST)


def test_views_are_json_safe_and_alike() -> None:
    state = run(["place A1", "place B2; neutral C3"])
    views = {v: G.view(state, v) for v in (1, 2, SPECTATOR, HOST)}
    for view in views.values():
        json.dumps(view)
    public = [json.dumps(v["public"], sort_keys=True) for v in views.values()]
    assert len(set(public)) == 1  # no hidden information in Lance Assembly
    assert "private" not in views[SPECTATOR] and "hidden" not in views[SPECTATOR]
    assert "hidden" not in views[1] and "hidden" not in views[2]


def test_apply_never_mutates_its_input() -> None:
    for state in random_playout(11)[:-1]:
        seat = mover(state)
        snapshot = copy.deepcopy(state)
        before = dumped(state)
        action = G.random_action(state, seat, random.Random(1))
        G.apply(state, seat, action)
        assert dumped(state) == before and state == snapshot


def accepted(state: object, seat: int, texts: list[str]) -> set[str]:
    out = set()
    for text in texts:
        try:
            G.apply(state, seat, G.parse(state, seat, text))
        except IllegalAction:
            continue
        out.add(G.format(G.parse(state, seat, text)))
    return out


def all_slide_texts() -> list[str]:
    runs = set()
    for r in range(6):
        for a in range(6):
            for b in range(a, 6):
                runs.add(name(r, a) if a == b else f"{name(r, a)}-{name(r, b)}")
                runs.add(name(a, r) if a == b else f"{name(a, r)}-{name(b, r)}")
    return [f"slide {run} {d} {n}" for run in sorted(runs) for d in ("up", "down", "left", "right")
            for n in range(1, 6)]


def test_listed_slides_and_placements_are_exactly_the_legal_ones() -> None:
    state = run(["place A1", "place B1", "place C1", "place B2", "place C2", "place E5", "place C3",
                 "place F1", "place D3"])
    assert G.to_act(state) == frozenset({2})
    listed = {G.format(a) for a in G.legal_actions(state, 2)}
    slides = all_slide_texts()
    assert accepted(state, 2, slides) == {t for t in listed if t.startswith("slide") and ";" not in t}
    places = [f"place {name(r, c)}" for r in range(6) for c in range(6)]
    assert accepted(state, 2, places) == {t for t in listed if t.startswith("place") and ";" not in t}
    for p in ("place A2", "place D1"):
        combos = [f"{p}; {s}" for s in slides]
        assert accepted(state, 2, combos) == {t for t in listed if t.startswith(p + "; slide") and t.count(";") == 1}
    neutral = [f"neutral D4; {s}" for s in slides]
    assert accepted(state, 2, neutral) == {t for t in listed if t.startswith("neutral D4; slide") and t.count(";") == 1}


@pytest.mark.parametrize("options", [{"starting_seat": 3}, {"starting_seat": 0}, {"no_such_option": 1}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        G.new(options)


@pytest.mark.parametrize("placed", [29, 31])
def test_listed_neutral_turns_are_exactly_the_legal_ones(placed: int) -> None:
    state = run(interleaved(placed))
    assert G.to_act(state) == frozenset({2})
    holes = empties(state)
    assert len(holes) == 36 - placed
    listed = {G.format(a) for a in G.legal_actions(state, 2)}
    two = [f"place {p}; neutral {n}" for p in holes for n in holes] + [
        f"neutral {n}; place {p}" for p in holes for n in holes
    ]
    assert accepted(state, 2, two) == {t for t in listed if "place" in t and "neutral" in t and t.count(";") == 1}
    p, n = holes[0], holes[1]
    slides = all_slide_texts()
    three = [f"place {p}; neutral {n}; {s}" for s in slides] + [f"neutral {n}; place {p}; {s}" for s in slides]
    three += [f"place {p}; {s}; neutral {m}" for s in slides for m in holes[1:3]]
    got = accepted(state, 2, three)
    want = {t for t in listed if t.count(";") == 2 and f"place {p}" in t
            and (f"neutral {n}" in t or (t.startswith(f"place {p}; slide") and t.split("; ")[2] in
                                         (f"neutral {holes[1]}", f"neutral {holes[2]}")))}
    assert got == want
    if placed == 31:
        assert not any("place" in t and "neutral" in t for t in listed)
    else:
        assert got
