"""Back to the Wall: the resolution trace every page replays (walls kept or dropped and why,
each tick's positions, fallbacks with their reason, contested squares, captures).

The trace is part of the public view once a round has resolved; these tests
replay it square by square and compare with the board the engine ends on.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from games.back_to_the_wall.board import Board, BoardOrders, Orders, make_board, parse_action
from games.back_to_the_wall.resolve import log_view, resolve_board
from games.back_to_the_wall.rules import BackToTheWall
from games.back_to_the_wall.state import BackToTheWallState
from games.core import HOST, SPECTATOR

game = BackToTheWall()
PLAYOUTS = int(os.environ.get("CONFORMANCE_PLAYOUTS", "4")) * 5
EMPTY6 = ["......"] * 6
EMPTY7 = ["......."] * 7
EMPTY8 = ["........"] * 8


def bo(text: str) -> BoardOrders:
    action = parse_action("once " + text)
    assert isinstance(action, Orders)
    return action.boards[0]


def trace_of(
    name: str, rows: list[str], pieces: dict[tuple[int, int], str], orders: dict[int, str]
) -> tuple[Board, dict[str, Any]]:
    board = make_board(name, rows, pieces)
    new, log, _placed = resolve_board(board, {s: bo(t) for s, t in orders.items()}, None)
    return new, log_view(new, log)


def names_to_rows(owners_rows: list[list[int]]) -> list[list[int]]:
    return [list(row) for row in owners_rows]


def replay(trace: dict[str, Any], size: int) -> tuple[list[list[int]], list[str], list[str]]:
    """The board a trace describes, rebuilt from its start and its captures alone."""
    owners = names_to_rows(trace["before"]["owners"])
    walls = set(trace["before"]["walls"])
    for note in trace["walls"]:
        if note["outcome"] == "placed":
            walls.add(note["square"])
    pieces = [p["square"] for p in trace["before"]["pieces"]]
    for tick in trace["ticks"]:
        for square, seat in tick["captured"]:
            col, row = ord(square[0]) - 65, int(square[1:]) - 1
            owners[row][col] = seat
        assert not set(tick["contested"]) & {sq for sq, _s in tick["captured"]}
        pieces = list(tick["positions"])
    for spawned in trace["spawned"]:
        col, row = ord(spawned["square"][0]) - 65, int(spawned["square"][1:]) - 1
        owners[row][col] = spawned["seat"]
    return owners, sorted(walls), pieces


def _random_playout(seed: int) -> list[tuple[BackToTheWallState, BackToTheWallState]]:
    """(state before, state after) for every round of one random game."""
    rng = random.Random(seed)
    options: dict[str, Any] = {}
    if seed % 3 == 1:  # smaller and larger boards, fewer walls: more contests and cut corners
        options = {"boards": {"once": {"size": 4, "walls": []}, "twice": {"size": 5}, "thrice": {"size": 9}}}
    state = game.new(options)
    rounds = []
    while not state.finished:
        before = state
        for seat in (1, 2, 3, 4):
            if seed % 5 == 0 and seat == 3:
                continue  # a missing submission: its pieces stay
            action = game.random_action(state, seat, rng)
            assert action is not None
            state = game.apply(state, seat, action)
        if len(state.logs) == len(before.logs):
            state = game.apply(state, HOST, parse_action("resolve"))
        rounds.append((before, state))
    return rounds


@pytest.mark.parametrize("seed", range(PLAYOUTS))
def test_replaying_the_trace_captures_gives_exactly_the_board_the_engine_ends_on(seed: int) -> None:
    rounds = _random_playout(seed)
    final = rounds[-1][1]
    view = game.public_view(final)
    traces = [*view["earlier_rounds"], view["last_round"]]
    assert [t["round"] for t in traces] == [1, 2, 3]
    for (before, after), trace in zip(rounds, traces, strict=True):
        for b_before, b_after, board_trace in zip(before.boards, after.boards, trace["boards"], strict=True):
            # the trace starts from the board as the round started
            start = game.public_view(before)["boards"][b_before.index]
            assert board_trace["before"]["owners"] == start["owners"]
            assert board_trace["before"]["walls"] == start["walls"]
            assert board_trace["before"]["pieces"] == start["pieces"]
            # and its captures, replayed tick by tick, end on the engine's board
            owners, walls, pieces = replay(board_trace, b_after.size)
            end = game.public_view(after)["boards"][b_after.index]
            assert owners == end["owners"], (seed, trace["round"], b_after.name)
            assert walls == end["walls"]
            # and the last tick's positions are where the pieces stopped (before the next ones spawn)
            spawned = {(p["seat"], p["number"]) for p in board_trace["spawned"]}
            assert pieces == [
                b_after.square(p.square) for p in b_after.pieces if (p.seat, p.number) not in spawned
            ]
    json.dumps(view)


def test_the_trace_appears_only_once_the_round_has_resolved() -> None:
    state = game.new()
    for seat in (1, 2, 3):
        state = game.play(state, seat, f"once wall C5; {_dirs(state, seat, 'right down left')}")
    for viewer in (1, 2, 3, 4, SPECTATOR, HOST):
        view = game.view(state, viewer)
        assert view["public"]["last_round"] is None and view["public"]["earlier_rounds"] == []
    state = game.play(state, 4, _dirs(state, 4, "up up up"))
    trace = game.public_view(state)["last_round"]
    assert trace["round"] == 1
    assert trace["boards"][0]["walls"][0]["square"] == "C5"


def _dirs(state: BackToTheWallState, seat: int, dirs: str) -> str:
    return "; ".join(f"{b.name} piece {p.number} {dirs}" for b in state.boards for p in b.pieces_of(seat))


# -- walls -----------------------------------------------------------------------------------
def test_an_adjacent_pair_on_once_is_dropped_both_ways_with_the_reason() -> None:
    _new, trace = trace_of("once", EMPTY6, {}, {1: "wall C3", 2: "wall D4"})
    assert [(w["seat"], w["square"], w["outcome"], w["against"]) for w in trace["walls"]] == [
        (1, "C3", "adjacent", ["D4"]),
        (2, "D4", "adjacent", ["C3"]),
    ]
    assert trace["walls"][0]["why"] == "C3 dropped: orthogonally or diagonally adjacent to D4 on Once"
    assert trace["before"]["walls"] == []


def test_on_twice_only_an_orthogonal_pair_is_dropped() -> None:
    _new, trace = trace_of("twice", EMPTY7, {}, {1: "wall C3 D4", 3: "wall F5 F6"})
    outcome = {w["square"]: (w["outcome"], w["against"]) for w in trace["walls"]}
    assert outcome == {
        "C3": ("placed", []),
        "D4": ("placed", []),
        "F5": ("adjacent", ["F6"]),
        "F6": ("adjacent", ["F5"]),
    }
    assert trace["walls"][2]["why"] == "F5 dropped: orthogonally adjacent to F6 on Twice"


def test_a_wall_next_to_a_standing_wall_names_it() -> None:
    rows = ["......", "......", "..#...", "......", "......", "......"]
    _new, trace = trace_of("once", rows, {}, {4: "wall D2"})
    assert trace["walls"] == [
        {
            "seat": 4,
            "square": "D2",
            "outcome": "adjacent",
            "against": ["C3"],
            "why": "D2 dropped: orthogonally or diagonally adjacent to C3 on Once",
        }
    ]


def test_a_wall_that_would_cut_a_corner_off_is_dropped_and_names_the_corner() -> None:
    new, trace = trace_of("thrice", EMPTY8, {}, {2: "wall B1 A2"})
    assert [(w["square"], w["outcome"], w["against"]) for w in trace["walls"]] == [
        ("B1", "placed", []),
        ("A2", "isolates", ["A1"]),
    ]
    assert trace["walls"][1]["why"] == "A2 dropped: it would cut the corner A1 off from every other corner"
    assert sorted(new.square(w) for w in new.walls) == ["B1"]


def test_corner_occupied_and_existing_wall_drops_say_why() -> None:
    rows = ["......", "......", "......", "....#.", "......", "......"]
    _new, trace = trace_of("once", rows, {(3, 1): "C5"}, {1: "wall A1", 2: "wall E4", 3: "wall C5"})
    assert [w["why"] for w in trace["walls"]] == [
        "A1 dropped: it is a corner",
        "E4 dropped: there is a wall there already",
        "C5 dropped: a piece stood there when the round started",
    ]


# -- movement ----------------------------------------------------------------------------------
def _phase(trace: dict[str, Any], seat: int, number: int = 1, phase: int = 1) -> dict[str, Any]:
    move = next(m for m in trace["moves"] if (m["seat"], m["number"]) == (seat, number))
    note: dict[str, Any] = move["phases"][phase - 1]
    return note


def test_a_fallback_where_free_squares_tie_goes_to_the_perpendicular_before_the_opposite() -> None:
    # seat 1 at A3 on Once, told left (the border): right B3..F3 has 5 free squares, down A4..A6
    # and up A2..A1 -- A1 captured, so up has 1 free; make right equal to down by owning D3-F3
    rows = ["1.....", "......", "...111", "......", "......", "......"]
    _new, trace = trace_of("once", rows, {(1, 1): "A3"}, {1: "piece 1 left left left"})
    first = _phase(trace, 1)
    # up (A2 A1: 1 free), right (B3 C3 D3 E3 F3: 2 free), down (A4 A5 A6: 3 free) -- down wins outright
    assert (first["submitted"], first["taken"], first["rule"]) == ("left", "down", "free")
    assert first["options"] == [
        {"direction": "up", "free": 1},
        {"direction": "down", "free": 3},
        {"direction": "right", "free": 2},
    ]
    assert (
        first["why"]
        == "left is blocked; down crosses the most squares owned by no one (up 1, down 3, right 2)"
    )


def test_a_fallback_tie_between_a_perpendicular_and_the_opposite_goes_to_the_perpendicular() -> None:
    # seat 2 at C1, told up (border); left B1 A1 (A1 owned: 1 free), right blocked by a wall at D1,
    # down C2 (wall at C3): 1 free -- left and down tie; left is perpendicular to up, down is opposite
    rows = ["2..#..", "......", "..#...", "......", "......", "......"]
    _new, trace = trace_of("once", rows, {(2, 1): "C1"}, {2: "piece 1 up up up"})
    first = _phase(trace, 2)
    assert (first["taken"], first["rule"], first["path"]) == ("left", "nearer", ["B1", "A1"])
    assert first["why"] == (
        "up is blocked; left and down tie on squares owned by no one (1); "
        "left is nearer the intended up (a perpendicular before the opposite)"
    )


def test_a_fallback_tie_between_the_perpendiculars_goes_toward_the_own_corner() -> None:
    # seat 3's corner on Once is F6 (bottom right); its piece at C1 is told up (border);
    # left B1 A1 and right D1 E1 (F1 a wall) both cross 2 free squares: right points toward F6
    rows = [".....#", "......", "..#...", "......", "......", "......"]
    _new, trace = trace_of("once", rows, {(3, 1): "C1"}, {3: "piece 1 up up up"})
    first = _phase(trace, 3)
    assert (first["taken"], first["rule"], first["path"]) == ("right", "corner", ["D1", "E1"])
    assert first["options"] == [
        {"direction": "right", "free": 2},
        {"direction": "left", "free": 2},
        {"direction": "down", "free": 1},
    ]
    assert first["why"] == (
        "up is blocked; right and left tie on squares owned by no one (2) and are both perpendicular; "
        "right points toward its own corner"
    )
    # seat 1's corner is A1 (top left): the same position goes left
    rows = [".....#", "......", "..#...", "......", "......", "......"]
    _new, trace = trace_of("once", rows, {(1, 1): "C1"}, {1: "piece 1 up up up"})
    assert (_phase(trace, 1)["taken"], _phase(trace, 1)["rule"]) == ("left", "corner")


def test_a_piece_with_no_open_direction_stays_and_says_so() -> None:
    rows = ["......", "..#...", ".#.#..", "..#...", "......", "......"]
    _new, trace = trace_of("once", rows, {(4, 1): "C3"}, {4: "piece 1 up down left"})
    first = _phase(trace, 4)
    assert (first["taken"], first["rule"], first["path"]) == (None, "stuck", [])
    assert first["why"] == "up is blocked and so is every other direction: it stays"


def test_a_same_tick_contest_leaves_the_square_and_shows_on_its_tick() -> None:
    # seat 1 from A1 and seat 2 from F1 on Once, both along row 1: they meet... C1/D1 are entered
    # on different ticks (6 wide); on a 7-wide board, D1 is entered by both on tick 3
    new, trace = trace_of(
        "twice",
        EMPTY7,
        {(1, 1): "A1", (3, 1): "G1"},
        {1: "piece 1 right down down", 3: "piece 1 left down down"},
    )
    tick3 = next(t for t in trace["ticks"] if (t["phase"], t["tick"]) == (1, 3))
    assert tick3["contested"] == ["D1"]
    assert tick3["positions"] == ["D1", "D1"]
    assert sorted(tick3["captured"]) == []
    tick2 = next(t for t in trace["ticks"] if (t["phase"], t["tick"]) == (1, 2))
    assert sorted(tick2["captured"]) == [["C1", 1], ["E1", 3]]
    assert {"phase": 1, "tick": 3, "square": "D1"} in trace["contested"]
    assert new.owners[3] == 0  # D1 stays owned by no one
    # later ticks: they pass through each other and capture what they enter alone
    tick4 = next(t for t in trace["ticks"] if (t["phase"], t["tick"]) == (1, 4))
    assert sorted(tick4["captured"]) == [["C1", 3], ["E1", 1]]


def test_the_ticks_of_a_phase_wait_for_the_longest_path_and_keep_short_movers_in_place() -> None:
    _new, trace = trace_of(
        "once",
        EMPTY6,
        {(1, 1): "A1", (2, 1): "E2"},
        {1: "piece 1 right down left", 2: "piece 1 right down left"},
    )
    phase1 = [t for t in trace["ticks"] if t["phase"] == 1]
    assert [t["positions"] for t in phase1] == [
        ["B1", "F2"],
        ["C1", "F2"],
        ["D1", "F2"],
        ["E1", "F2"],
        ["F1", "F2"],
    ]


def test_the_round_start_and_missing_orders_are_in_the_trace() -> None:
    state = game.new()
    for seat in (1, 2, 4):
        state = game.play(state, seat, _dirs(state, seat, "down right up"))
    state = game.apply(state, HOST, parse_action("resolve"))
    once = game.public_view(state)["last_round"]["boards"][0]
    assert once["before"]["pieces"] == [
        {"seat": 1, "number": 1, "square": "A1"},
        {"seat": 2, "number": 1, "square": "F1"},
        {"seat": 3, "number": 1, "square": "F6"},
        {"seat": 4, "number": 1, "square": "A6"},
    ]
    seat3 = next(m for m in once["moves"] if m["seat"] == 3)
    assert [p["why"] for p in seat3["phases"]] == ["no orders: it stays"] * 3
    assert once["spawned"] == [
        {"seat": s, "number": 2, "square": sq} for s, sq in ((1, "A1"), (2, "F1"), (3, "F6"), (4, "A6"))
    ]


def test_states_stored_before_the_trace_existed_still_load() -> None:
    state = game.new()
    for seat in (1, 2, 3, 4):
        state = game.play(state, seat, _dirs(state, seat, "right down left"))
    data = json.loads(json.dumps(game.dump(state)))
    old = {k: v for k, v in data.items() if k not in ("logs", "garnets")}
    old["last_log"] = [
        {
            "walls": [w[:3] for w in log["walls"]],
            "moves": [[s, n, q, [p[:3] for p in ph]] for s, n, q, ph in log["moves"]],
            "contested": log["contested"],
            "spawned": log["spawned"],
        }
        for log in data["logs"][-1]
    ]
    loaded = game.load(old)
    trace = game.public_view(loaded)["last_round"]["boards"][0]
    assert trace["before"] is None and trace["ticks"]
    assert loaded.boards == state.boards
