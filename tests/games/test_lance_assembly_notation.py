"""Lance Assembly: legal actions against brute force, random actions and playouts, the notation
(natural phrasings, canonical text, errors), views and storage.

The rules: howto.py (/rules/lance-assembly/); the rulings: rules.py's docstring.
Positions are built from 6-row diagrams (R red = seat 1, B blue = seat 2,
N neutral, . empty; A1 top-left).
"""

from __future__ import annotations

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
from games.lance_assembly.rules import LanceState
from tests.games.test_lance_assembly import GAME, MIDGAME, play, pos, rows, sq


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


@cache
def _midgame_turns() -> frozenset[Turn]:
    return frozenset(GAME.legal_actions(pos(MIDGAME, to_move=2), 2))


# -- legal actions ---------------------------------------------------------------------------


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


@pytest.mark.parametrize("text", ["slide A1 down \u00b2", "slide A1 \u00b3 down", "place A1; slide A1 d\u00b2",
                                  "slide A1 down \u00bd", "slide A1 down \u0661"])
def test_unicode_digits_are_notation_errors(text: str) -> None:
    # str.isdigit() accepts '\u00b2' but int() does not: parse must still raise NotationError only
    with pytest.raises(NotationError):
        GAME.parse(GAME.new(), 1, text)


def test_every_listed_action_round_trips_through_its_text() -> None:
    for state in _sample_states(25, seed=9):
        for count, action in enumerate(GAME.legal_actions(state, state.to_move)):
            assert GAME.parse(state, state.to_move, GAME.format(action)) == action
            if count > 300:
                break


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
