"""Acceptance tests for Grid Master, written only from DESIGN.md, RULINGS.md §2 and the card.

Everything goes through `get_game("grid-master")` and its public interface; positions are
reached by playing real turns from `new()`.  Squares: A1 top-left, letters to the right,
numbers down.  Seat 1 is X (moves first), seat 2 is O.
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

G = get_game("grid-master")
mover = functools.partial(playing.mover, G)
play = functools.partial(playing.play, G)
SQUARES = [f"{c}{r}" for r in "123" for c in "ABC"]
CORNERS = {"A1", "C1", "A3", "C3"}


def dumped(state: object) -> str:
    return json.dumps(G.dump(state), sort_keys=True)


def run(texts: list[str], state: object | None = None) -> object:
    state = G.new() if state is None else state
    for text in texts:
        assert G.result(state) is None, f"game ended before {text!r}"
        state = play(state, mover(state), text)
    return state


def refused(state: object, seat: int, text: str, *words: str | tuple[str, ...], exc: type = IllegalAction) -> str:
    before = dumped(state)
    with pytest.raises(exc) as info:
        G.apply(state, seat, G.parse(state, seat, text))
    message = str(info.value)
    low = message.lower()
    for word in words:
        options = word if isinstance(word, tuple) else (word,)
        assert any(w.lower() in low for w in options), f"{message!r} does not mention {options}"
    assert dumped(state) == before, "a refused action changed the state"
    return message


def cell(state: object, square: str) -> str:
    cells = G.view(state, SPECTATOR)["public"]["cells"]
    value = cells[int(square[1]) - 1][" ABC".index(square[0]) - 1]
    return "" if value in ("", ".", None) else str(value).upper()


def board(state: object) -> dict[str, str]:
    return {sq: cell(state, sq) for sq in SQUARES}


def assert_over(state: object, winners: set[int], reasons: set[str]) -> None:
    result = G.result(state)
    assert result is not None
    assert result.winners == frozenset(winners)
    assert result.reason in reasons, result.reason
    assert G.to_act(state) == frozenset()
    assert list(G.legal_actions(state, 1)) == [] and list(G.legal_actions(state, 2)) == []
    for seat in (1, 2):
        empty = [sq for sq in SQUARES if cell(state, sq) == ""]
        refused(state, seat, f"place {empty[0] if empty else 'A1'}", ("over", "ended", "finished"))


# -- identity, seats ------------------------------------------------------------------------------------


def test_identity() -> None:
    assert G.slug == "grid-master"
    assert G.seats == 2
    assert isinstance(G.name, str) and G.name


@pytest.mark.parametrize("options", [None, {}, json.loads("{}")])
def test_x_seat_one_moves_first(options: dict[str, Any] | None) -> None:
    state = G.new(options)
    assert G.to_act(state) == frozenset({1})
    assert G.result(state) is None
    refused(state, 2, "place A1", "not your turn")
    state = play(state, 1, "place A1")
    assert cell(state, "A1") == "X"
    assert G.to_act(state) == frozenset({2})
    state = play(state, 2, "place B2")
    assert cell(state, "B2") == "O"


def test_strangers_may_not_act() -> None:
    state = G.new()
    for seat in (HOST, SPECTATOR, 3):
        with pytest.raises(IllegalAction):
            G.apply(state, seat, G.parse(state, 1, "place A1"))


# -- moves 1 and 2 --------------------------------------------------------------------------------------


def test_first_move_only_on_a_corner() -> None:
    state = G.new()
    assert {G.format(a) for a in G.legal_actions(state, 1)} == {f"place {c}" for c in CORNERS}
    assert list(G.legal_actions(state, 2)) == []
    for square in ("B1", "A2", "B2", "C2", "B3"):
        refused(state, 1, f"place {square}", "corner")
    for square in CORNERS:
        assert cell(play(state, 1, f"place {square}"), square) == "X"


def test_first_turn_is_a_placement_only() -> None:
    state = G.new()
    refused(state, 1, "place A1; move A1 right 1", ("first", "reposition", "place"))
    refused(state, 1, "move A1 right 1", ("place", "first"))


def test_second_move_anywhere_empty() -> None:
    state = run(["place A1"])
    listed = {G.format(a) for a in G.legal_actions(state, 2)}
    assert listed == {f"place {sq}" for sq in SQUARES if sq != "A1"}
    refused(state, 2, "place A1", "A1", "empty")
    for square in SQUARES[1:]:
        assert cell(play(state, 2, f"place {square}"), square) == "O"
    refused(state, 2, "place B2; move A1 right 1", ("first", "reposition", "opponent"))


# -- the second turn: place, then reposition the first symbol ----------------------------------------------


def test_second_turn_place_then_move_the_first_symbol() -> None:
    state = run(["place A1", "place B2"])
    after = play(state, 1, "place C3; move A1 right 2")
    assert board(after) == {**{sq: "" for sq in SQUARES}, "C1": "X", "B2": "O", "C3": "X"}
    assert G.to_act(after) == frozenset({2})
    listed = {G.format(a) for a in G.legal_actions(state, 1)}
    assert "place C3; move A1 right 2" in listed
    assert all(";" in t and "move A1" in t for t in listed)


def test_second_turn_reposition_is_mandatory() -> None:
    state = run(["place A1", "place B2"])
    refused(state, 1, "place C3", ("must", "reposition"))


def test_second_turn_must_move_the_first_symbol() -> None:
    state = run(["place A1", "place B2", "place C3; move A1 right 2"])  # X: C1, C3; O: B2
    # O's second turn: the symbol O placed first (B2) must move
    refused(state, 2, "place A1; move A1 down 1", ("B2", "first"))
    after = play(state, 2, "place A1; move B2 down 1")
    assert cell(after, "B3") == "O" and cell(after, "A1") == "O" and cell(after, "B2") == ""
    listed = {G.format(a) for a in G.legal_actions(state, 2)}
    assert listed and all("move B2" in t for t in listed)


def test_the_just_placed_symbol_may_not_move_on_the_second_turn() -> None:
    state = run(["place A1", "place B2"])
    refused(state, 1, "place C3; move C3 up 1", ("A1", "first", "just placed"))


def test_placement_comes_before_the_reposition() -> None:
    state = run(["place A1", "place B2"])
    with pytest.raises(RuleError) as info:
        G.apply(state, 1, G.parse(state, 1, "move A1 down 1; place C3"))
    assert any(w in str(info.value).lower() for w in ("first", "before", "after"))
    refused(state, 1, "move A1 down 1", ("place", "must"))


def test_reposition_of_the_opponents_symbol_is_refused() -> None:
    state = run(["place A1", "place B2"])
    refused(state, 1, "place C3; move B2 down 1", ("opponent", "your own", "own"))


# -- reposition geometry ------------------------------------------------------------------------------------


def test_reposition_one_or_two_squares_orthogonally() -> None:
    state = run(["place A1", "place C3"])
    assert cell(play(state, 1, "place B2; move A1 right 1"), "B1") == "X"
    assert cell(play(state, 1, "place B2; move A1 right 2"), "C1") == "X"
    assert cell(play(state, 1, "place B2; move A1 down 1"), "A2") == "X"
    assert cell(play(state, 1, "place B2; move A1 down 2"), "A3") == "X"
    listed = {G.format(a) for a in G.legal_actions(state, 1)}
    assert "place B2; move A1 right 2" in listed
    assert not any("move A1 right 3" in t for t in listed)


def test_reposition_diagonal_is_not_permitted() -> None:
    state = run(["place A1", "place C3"])
    with pytest.raises(RuleError) as info:
        G.apply(state, 1, G.parse(state, 1, "place C1; move A1 to B2"))
    message = str(info.value).lower()
    assert "diagonal" in message or ("up" in message and "down" in message)


def test_reposition_off_the_board_or_too_far() -> None:
    state = run(["place A1", "place C3"])
    refused(state, 1, "place B2; move A1 left 1", "board")
    refused(state, 1, "place B2; move A1 up 2", "board")
    with pytest.raises(RuleError):
        G.apply(state, 1, G.parse(state, 1, "place B2; move A1 right 3"))


def test_reposition_onto_an_occupied_square() -> None:
    state = run(["place A1", "place B1"])
    refused(state, 1, "place C3; move A1 right 1", "B1", "empty")


def test_reposition_may_not_jump_an_opponent() -> None:
    state = run(["place A1", "place B1"])
    refused(state, 1, "place C3; move A1 right 2", "B1", ("opponent", "jump", "way"))
    state = run(["place A1", "place A2"])
    refused(state, 1, "place C3; move A1 down 2", "A2", ("opponent", "jump", "way"))


def test_reposition_may_pass_over_its_own_symbol() -> None:
    state = run(["place A1", "place C3"])
    after = play(state, 1, "place A2; move A1 down 2")
    assert board(after) == {**{sq: "" for sq in SQUARES}, "A2": "X", "A3": "X", "C3": "O"}
    after = play(state, 1, "place B1; move A1 right 2")
    assert cell(after, "C1") == "X" and cell(after, "B1") == "X" and cell(after, "A1") == ""


def test_third_turn_any_own_symbol_but_the_one_just_placed() -> None:
    # X: A2, C3 (after X's second turn); O: A1, C1 (after O's second turn)
    state = run(["place A1", "place B1", "place C3; move A1 down 1", "place C1; move B1 left 1"])
    assert board(state) == {**{sq: "" for sq in SQUARES}, "A1": "O", "A2": "X", "C1": "O", "C3": "X"}
    refused(state, 1, "place B3; move B3 up 1", ("just placed", "placed"))
    assert cell(play(state, 1, "place B3; move C3 up 1"), "C2") == "X"
    assert cell(play(state, 1, "place B3; move A2 right 1"), "B2") == "X"
    listed = {G.format(a) for a in G.legal_actions(state, 1)}
    assert not any(t.startswith("place B3; move B3") for t in listed)
    assert any(t.startswith("place B3; move C3") for t in listed)
    assert any(t.startswith("place B3; move A2") for t in listed)


# -- turns without a reposition, draws ---------------------------------------------------------------------

# 9 placements, no winner: O's 4th turn and X's 5th turn have no legal reposition.
DRAW = [
    "place C3",
    "place A1",
    "place B3; move C3 up 2",
    "place C2; move A1 down 1",
    "place B1; move B3 right 1",
    "place B3; move C2 left 1",
    "place C2; move C1 left 2",
]


def test_placement_without_a_legal_reposition_ends_the_turn() -> None:
    state = run(DRAW)
    assert board(state) == {"A1": "X", "B1": "X", "C1": "", "A2": "O", "B2": "O", "C2": "X",
                            "A3": "", "B3": "O", "C3": "X"}
    assert G.to_act(state) == frozenset({2})
    # O places on A3: only C1 stays empty and no O symbol can reach it
    listed = {G.format(a) for a in G.legal_actions(state, 2)}
    assert "place A3" in listed
    after = play(state, 2, "place A3")
    assert G.result(after) is None and G.to_act(after) == frozenset({1})
    # O could also place on C1 and then reposition into A3
    refused(state, 2, "place C1", ("must", "reposition"))


def test_a_placement_only_turn_cannot_win_and_full_board_is_a_draw() -> None:
    state = run([*DRAW, "place A3"])
    # X fills C1: A1-B1-C1 is three in a row, but there is no reposition, so no win
    state = play(state, 1, "place C1")
    assert all(board(state).values())
    # O has a symbol in hand but faces a full board: no legal action, a draw
    assert_over(state, set(), {"stalemate", "draw", "full"})


def test_line_that_exists_only_before_the_reposition_does_not_win() -> None:
    state = run(DRAW[:6])
    # X places C2 (C1-C2-C3 in a row) and then moves C1 away: no win
    state = play(state, 1, "place C2; move C1 left 2")
    assert G.result(state) is None
    assert G.to_act(state) == frozenset({2})


# -- winning -----------------------------------------------------------------------------------------------


def test_win_with_the_reposition() -> None:
    state = run(["place A3", "place C2", "place B2; move A3 up 2", "place B1; move C2 up 1"])
    assert G.result(state) is None
    state = play(state, 1, "place A3; move B2 left 1")
    assert board(state)["A1"] == board(state)["A2"] == board(state)["A3"] == "X"
    assert_over(state, {1}, {"line", "three"})


def test_line_made_by_the_placement_and_kept_through_the_reposition_wins() -> None:
    state = run(["place C1", "place B1", "place B2; move C1 down 1", "place C1; move B1 left 1",
                 "place B3; move C2 left 2", "place A3; move C1 down 2"])
    assert G.result(state) is None
    state = play(state, 1, "place C2; move B3 up 2")
    assert_over(state, {1}, {"line", "three"})


def test_o_wins() -> None:
    state = run(["place C1", "place B3", "place C3; move C1 left 2", "place B1; move B3 up 1",
                 "place A3; move C3 up 1", "place A2; move B1 down 2", "place C3; move C2 up 1"])
    assert G.result(state) is None
    state = play(state, 2, "place C2; move B3 up 2")
    assert_over(state, {2}, {"line", "three"})


# -- notation ------------------------------------------------------------------------------------------------


def test_canonical_notation() -> None:
    state = run(["place A1", "place C3"])
    action = G.parse(state, 1, "place B2; move A1 right 2")
    assert G.format(action) == "place B2; move A1 right 2"
    assert G.parse(state, 1, G.format(action)) == action


@pytest.mark.parametrize(
    "text",
    ["PLACE b2;   MOVE a1 RIGHT 2", "place b2; move a1 r 2", "  place B2 ; move A1 right 2 .",
     "place B2, move A1 right 2", "I place B2 and move A1 right 2",
     "place B2, then move A1 two squares right", "place B2; move A1 to C1"],
)
def test_notation_variants(text: str) -> None:
    state = run(["place A1", "place C3"])
    assert G.format(G.parse(state, 1, text)) == "place B2; move A1 right 2"


@pytest.mark.parametrize("letter,word", [("U", "up"), ("D", "down"), ("L", "left"), ("R", "right")])
def test_single_letter_directions(letter: str, word: str) -> None:
    state = run(["place A1", "place C3"])
    assert G.format(G.parse(state, 1, f"place B2; move B2 {letter} 1")) == f"place B2; move B2 {word} 1"


@pytest.mark.parametrize("text,words", [("place D4", ("D4",)), ("place A9", ("A9",)), ("", ("expected",)),
                                        ("hello", ("expected",)), ("place", ("square",))])
def test_notation_errors(text: str, words: tuple[str, ...]) -> None:
    state = G.new()
    with pytest.raises(NotationError) as info:
        G.parse(state, 1, text)
    message = str(info.value).lower()
    assert any(w.lower() in message for w in words), message


@pytest.mark.parametrize("text", ["place B2; move A1 right \u00b2", "move A1 right \u00b3", "place B2; move A1 r \u00bd",
                                  "place B2; move A1 right \u0661"])
def test_unicode_digits_are_notation_errors(text: str) -> None:
    # str.isdigit() accepts '\u00b2' but int() does not: parse must still raise NotationError only
    with pytest.raises(NotationError):
        G.parse(G.new(), 1, text)


def test_parser_raises_only_notation_error() -> None:
    rng = random.Random(5)
    state = run(["place A1", "place C3"])
    alphabet = "abcd0123456789 ;,-.>placemoverightleftupdown\u00e9\t\u00b2\u00b3\u0661\u00bd\u2013"
    words = ["place", "move", "A1", "B2", "C3", "D4", "right", "up", "2", "3", "9", ";", ",", "to", "-", "and",
             "pass", "resolve", "->"]
    for _ in range(3000):
        if rng.random() < 0.5:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 25)))
        else:
            text = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 7)))
        try:
            action = G.parse(state, 1, text)
        except NotationError:
            continue
        assert G.parse(state, 1, G.format(action)) == action
        with contextlib.suppress(IllegalAction):
            G.apply(state, 1, action)


def test_listed_actions_are_exactly_the_legal_ones() -> None:
    state = run(["place A1", "place B1", "place C3; move A1 down 1", "place C1; move B1 left 1"])
    moves = [f"move {sq} {d} {n}" for sq in SQUARES for d in ("up", "down", "left", "right") for n in (1, 2)]
    candidates = [f"place {p}" for p in SQUARES] + [f"place {p}; {m}" for p in SQUARES for m in moves] + moves
    accepted = set()
    for text in candidates:
        try:
            G.apply(state, 1, G.parse(state, 1, text))
        except IllegalAction:
            continue
        accepted.add(G.format(G.parse(state, 1, text)))
    assert accepted == {G.format(a) for a in G.legal_actions(state, 1)}
    assert accepted


# -- storage, views, purity, speed ---------------------------------------------------------------------------


def playouts(count: int, options: dict[str, Any] | None = None) -> list[list[object]]:
    rng = random.Random(2)
    games = []
    for _ in range(count):
        state = G.new(options)
        states = [state]
        while G.result(state) is None:
            seat = mover(state)
            actions = list(G.legal_actions(state, seat))
            assert actions
            state = G.apply(state, seat, rng.choice(actions))
            states.append(state)
            assert len(states) < 200
        games.append(states)
    return games


def test_random_games_end_with_a_proper_result() -> None:
    for states in playouts(60):
        result = G.result(states[-1])
        assert result is not None
        if result.winners:
            assert len(result.winners) == 1 and result.reason in {"line", "three"}
        else:
            assert result.reason


@pytest.mark.parametrize("options", [None, {"symbols": 3} if "symbols" in G.default_options else None])
def test_dump_load_round_trip(options: dict[str, Any] | None) -> None:
    for states in playouts(10, options):
        for state in states:
            again = G.load(json.loads(json.dumps(G.dump(state))))
            assert dumped(again) == dumped(state)
            assert G.result(again) == G.result(state)
            assert G.to_act(again) == G.to_act(state)
            assert G.view(again, HOST) == G.view(state, HOST)
            if G.result(state) is None:
                seat = mover(state)
                assert [G.format(a) for a in G.legal_actions(again, seat)] == [
                    G.format(a) for a in G.legal_actions(state, seat)
                ]


def test_views() -> None:
    state = run(["place A1", "place B2"])
    views = {v: G.view(state, v) for v in (1, 2, SPECTATOR, HOST)}
    for view in views.values():
        json.dumps(view)
    assert len({json.dumps(v["public"], sort_keys=True) for v in views.values()}) == 1
    assert "private" not in views[SPECTATOR] and "hidden" not in views[SPECTATOR]


def test_apply_never_mutates_its_input() -> None:
    rng = random.Random(4)
    for states in playouts(5):
        for state in states[:-1]:
            seat = mover(state)
            snapshot = copy.deepcopy(state)
            before = dumped(state)
            G.apply(state, seat, rng.choice(list(G.legal_actions(state, seat))))
            assert dumped(state) == before and state == snapshot


def test_second_turn_with_the_first_symbol_boxed_in_is_a_placement_only() -> None:
    # O's first symbol on C1 is boxed in by X on B1 and C2 (no jumping over them)
    state = run(["place A1", "place C1", "place C2; move A1 right 1"])
    assert board(state) == {**{sq: "" for sq in SQUARES}, "B1": "X", "C1": "O", "C2": "X"}
    listed = {G.format(a) for a in G.legal_actions(state, 2)}
    assert listed == {f"place {sq}" for sq in ("A1", "A2", "B2", "A3", "B3", "C3")}
    refused(state, 2, "place A1; move C1 down 2", ("C2", "opponent", "jump", "way"))
    refused(state, 2, "place A2; move C1 left 1", "B1", "empty")
    # the second-turn restriction holds even though the new symbol could move
    refused(state, 2, "place A1; move A1 down 1", ("C1", "first", "just placed"))
    after = play(state, 2, "place A1")
    assert G.result(after) is None and G.to_act(after) == frozenset({1})
    # from O's third turn on, any O symbol but the one just placed may move
    after = play(after, 1, "place B3; move C2 down 1")
    assert {G.format(a) for a in G.legal_actions(after, 2)} >= {"place B2; move A1 down 1"}


# RULINGS' reposition-only turns and the repetition draw cannot arise with 5 symbols each
# (the ninth placement fills the board); the module offers fewer symbols as an option.
SMALL = {"symbols": 3}
REPOSITION_ONLY = ["place A1", "place C1", "place C3; move A1 right 1", "place A1; move C1 down 1",
                   "place A3; move B1 down 1", "place B1; move A1 down 1"]


@pytest.mark.skipif("symbols" not in G.default_options, reason="no option for fewer symbols")
def test_no_symbols_in_hand_means_reposition_only_turns() -> None:
    state = run(REPOSITION_ONLY, G.new(SMALL))
    assert G.result(state) is None and G.to_act(state) == frozenset({1})
    refused(state, 1, "place A1", ("no symbols", "left", "reposition only"))
    refused(state, 1, "place A1; move A3 right 1", ("no symbols", "left", "reposition only"))
    listed = {G.format(a) for a in G.legal_actions(state, 1)}
    assert listed and all(t.startswith("move") and ";" not in t for t in listed)
    assert "move A3 right 1" in listed
    refused(state, 1, "move B1 left 1", ("opponent", "own"))


@pytest.mark.skipif("symbols" not in G.default_options, reason="no option for fewer symbols")
def test_third_repetition_is_a_draw() -> None:
    state = run(REPOSITION_ONLY, G.new(SMALL))
    loop = ["move A3 right 1", "move B1 right 1", "move B3 left 1", "move C1 left 1",
            "move C3 left 1", "move B1 right 1", "move B3 right 1"]
    state = run(loop, state)
    assert G.result(state) is None
    state = play(state, 2, "move C1 left 1")  # the position after move 6 arises for the third time
    assert_over(state, set(), {"repetition", "draw", "stalemate"})


@pytest.mark.skipif("symbols" not in G.default_options, reason="no option for fewer symbols")
def test_options_as_json() -> None:
    state = G.new(json.loads('{"symbols": 3}'))
    assert G.to_act(state) == frozenset({1})
    with pytest.raises(ValueError):
        G.new({"symbols": 9})
    with pytest.raises(ValueError):
        G.new({"no_such_option": 1})
