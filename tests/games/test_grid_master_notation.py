"""Grid Master's notation (natural phrasings to one canonical text, errors that say what was
expected), its conventions (A1 top-left), the listed actions against the accepted ones, views and storage.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core import HOST, SPECTATOR, IllegalAction, NotationError
from games.grid_master.rules import (
    NAMES,
    GridState,
    Reposition,
    Turn,
    format_turn,
    parse_turn,
)
from tests.games.test_grid_master import (
    GAME,
    OPENING,
    STALEMATE_GAME,
    cells,
    legal_texts,
    moves,
    play,
    pos,
    squares,
)

# X A1, O B2: X's second turn
X_WINS_ON_MOVE_5 = (
    "place A3",
    "place A1",
    "place B1; move A3 right 2",
    "place B3; move A1 down 2",
    "place A1; move C3 up 2",
)


# -- notation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("place B2; move A1 right 2", "place B2; move A1 right 2"),
        ("I place on B2 and move A1 right 2", "place B2; move A1 right 2"),
        ("place b2, move a1 r 2", "place B2; move A1 right 2"),
        ("  PLACE   b2 ;  MOVE a1 R 2. ", "place B2; move A1 right 2"),
        ("place B2; move A1 to C1", "place B2; move A1 right 2"),
        ("place B2 and reposition A1 right 2", "place B2; move A1 right 2"),
        ("I'll put an X on b2, then move my symbol from a1 to the right 2 squares.", "place B2; move A1 right 2"),
        ("place B2; move A1 right", "place B2; move A1 right 1"),
        ("place B2; move A1 right two", "place B2; move A1 right 2"),
        ("B2; A1 right 2", "place B2; move A1 right 2"),
        ("B2, A1-C1", "place B2; move A1 right 2"),
        ("place B2; A1 -> A3", "place B2; move A1 down 2"),
        ("place c2; move c3 up 1", "place C2; move C3 up 1"),
        ("place c2; move c3 u", "place C2; move C3 up 1"),
        ("place a2; move c1 l 1", "place A2; move C1 left 1"),
        ("place a2; move a1 d 1", "place A2; move A1 down 1"),
        ("place a2; move C3 to A3", "place A2; move C3 left 2"),
        ("place a2; move A3 to A1", "place A2; move A3 up 2"),
        ("move A1 right 2", "move A1 right 2"),
        ("reposition A1 right 2", "move A1 right 2"),
        ("move A1 to C1", "move A1 right 2"),
        ("place B2", "place B2"),
        ("b2", "place B2"),
        ("place O on b2.", "place B2"),
        ("move A1 right 1; place B2", "move A1 right 1; place B2"),
        ("place B2, then move A1 two squares right", "place B2; move A1 right 2"),
        ("  place B2 ; move A1 right 2 .", "place B2; move A1 right 2"),
        ("place B2, move A1 right 2", "place B2; move A1 right 2"),
        ("place b2; move b2 R 1", "place B2; move B2 right 1"),
    ],
)
def test_natural_phrasings_parse_to_the_canonical_action(text: str, canonical: str) -> None:
    state = GAME.new()
    action = GAME.parse(state, 1, text)
    assert GAME.format(action) == canonical
    assert GAME.parse(state, 1, canonical) == action


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "expected a turn like 'place B2; move A1 right 2', got nothing"),
        ("   .", "got nothing"),
        ("i will, then", "got 'i will, then'"),
        ("pass", "expected a turn like 'place B2; move A1 right 2', got 'pass'"),
        ("place", "expected a square after 'place'"),
        ("place here", "expected a square after 'place', like 'place B2', got 'here'"),
        ("place D4", "expected a square from A1 to C3, got 'D4'"),
        ("move", "expected a square after 'move'"),
        ("move A1", "expected a direction and distance or a destination after 'move A1'"),
        ("move A1 sideways", "expected a direction .* or a destination after 'move A1', got 'sideways'"),
        ("move A1 right 100", "expected a distance of 1 or 2, got '100'"),
        ("move A1 to A1", "A1 to A1 does not move the symbol"),
        ("move A1 to B2", "A1 to B2 is a diagonal move"),
        ("move A1 to B3", "A1 to B3 is not in one row or column"),
        ("place B2; place C3", "a turn places only one new symbol"),
        ("place B2; move A1 right 1; move C1 down 1", "a turn repositions only one symbol"),
        ("place B2 # move", "got '#'"),
    ],
)
def test_notation_errors_say_what_was_expected(text: str, match: str) -> None:
    with pytest.raises(NotationError, match=match):
        GAME.parse(GAME.new(), 1, text)


@pytest.mark.parametrize("text", ["place B2; move A1 right \u00b2", "move A1 right \u00b3", "place B2; move A1 r \u00bd",
                                  "place B2; move A1 right \u0661"])
def test_unicode_digits_are_notation_errors(text: str) -> None:
    # str.isdigit() accepts '\u00b2' but int() does not: parse must still raise NotationError only
    with pytest.raises(NotationError):
        GAME.parse(GAME.new(), 1, text)


def test_parse_needs_text() -> None:
    with pytest.raises(NotationError, match="expected text"):
        GAME.parse(GAME.new(), 1, None)  # type: ignore[arg-type]


def test_format_is_canonical() -> None:
    assert format_turn(Turn(place=4, move=Reposition(0, "right", 2))) == "place B2; move A1 right 2"
    assert format_turn(Turn(move=Reposition(0, "down", 1))) == "move A1 down 1"
    assert format_turn(Turn(place=8)) == "place C3"
    assert format_turn(Turn(place=4, move=Reposition(0, "up", 1), reposition_first=True)) == (
        "move A1 up 1; place B2"
    )


def test_every_listed_action_round_trips_through_notation() -> None:
    for seed in range(25):
        rng = random.Random(seed)
        state = GAME.new({"symbols": 3 + seed % 3})
        while GAME.result(state) is None:
            for action in GAME.legal_actions(state, state.to_move):
                assert GAME.parse(state, state.to_move, GAME.format(action)) == action
            chosen = GAME.random_action(state, state.to_move, rng)
            assert chosen is not None
            state = GAME.apply(state, state.to_move, chosen)


@given(st.one_of(squares, st.none()), st.one_of(moves, st.none()), st.booleans())
def test_any_turn_round_trips(place: int | None, move: Reposition | None, first: bool) -> None:
    if place is None and move is None:
        return
    action = Turn(place=place, move=move, reposition_first=first and place is not None and move is not None)
    assert parse_turn(format_turn(action)) == action


# -- conventions --------------------------------------------------------------------


def test_a1_is_top_left_letters_go_right_numbers_go_down() -> None:
    state = play(GAME.new(), "place C1", "place A3")
    assert cells(state) == ["..X", "...", "O.."]
    state = play(pos("... / .X. / ..O"), "place A1; move B2 right 1")
    assert cells(state) == ["X..", "..X", "..O"]
    state = play(pos("... / .X. / ..O"), "place A1; move B2 down 1")
    assert cells(state) == ["X..", "...", ".XO"]


def test_the_listed_actions_are_exactly_the_accepted_ones() -> None:
    # every text a player could write at X's third turn (X A2, C3; O A1, C1): accepted iff listed
    state = play(GAME.new(), "place A1", "place B1", "place C3; move A1 down 1", "place C1; move B1 left 1")
    moves = [f"move {sq} {d} {n}" for sq in NAMES for d in ("up", "down", "left", "right") for n in (1, 2)]
    candidates = [f"place {p}" for p in NAMES] + [f"place {p}; {m}" for p in NAMES for m in moves] + moves
    accepted = set()
    for text in candidates:
        try:
            GAME.apply(state, 1, GAME.parse(state, 1, text))
        except IllegalAction:
            continue
        accepted.add(GAME.format(GAME.parse(state, 1, text)))
    assert accepted and accepted == legal_texts(state)


def test_apply_never_mutates_and_a_rejected_action_changes_nothing() -> None:
    state = play(GAME.new(), *OPENING)
    before = GAME.dump(state)
    GAME.play(state, 1, "place C3; move A1 right 2")
    assert GAME.dump(state) == before
    with pytest.raises(IllegalAction):
        GAME.play(state, 1, "place C3")
    assert GAME.dump(state) == before
    assert GAME.to_act(state) == frozenset({1})


# -- views and storage --------------------------------------------------------------


def test_public_view_has_what_a_board_needs() -> None:
    state = play(GAME.new(), *OPENING, "place C3; move A1 right 2")
    view = GAME.public_view(state)
    assert view == {
        "size": 3,
        "cells": ["..X", ".O.", "..X"],
        "symbols": {"1": "X", "2": "O"},
        "to_move": 2,
        "turn_number": 4,
        "turns": {"1": 2, "2": 1},
        "in_hand": {"1": 3, "2": 4},
        "turn_kind": "place+move",
        "must_reposition": "B2",
        "last_action": "place C3; move A1 right 2",
        "last_squares": ["C3", "A1", "C1"],
        "winning_line": [],
    }
    json.dumps(view)


def test_every_audience_sees_the_same_view_and_nothing_is_hidden() -> None:
    state = play(GAME.new(), *OPENING)
    views = [GAME.view(state, v) for v in (1, 2, SPECTATOR, HOST)]
    assert all(v["public"] == views[0]["public"] for v in views)
    assert GAME.hidden(state, 1) == {}
    assert views[3]["hidden"] == {"1": {}, "2": {}}


def test_dump_and_load_round_trip() -> None:
    for texts in (OPENING, X_WINS_ON_MOVE_5, STALEMATE_GAME, ()):
        state = play(GAME.new(), *texts)
        data = json.loads(json.dumps(GAME.dump(state)))
        assert data["v"] == 1
        again = GAME.load(data)
        assert again == state
        assert GAME.result(again) == GAME.result(state)
    with pytest.raises(ValueError, match="unknown Grid Master state version"):
        GAME.load({"v": 2})


def test_diagram_constructor_checks_its_size() -> None:
    with pytest.raises(ValueError, match="9 cells"):
        GridState.from_diagram("XO")
