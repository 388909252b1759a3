"""Back to the Wall: set-up, options, sealed submissions, refusals, the garnet bonus through a match.

Hidden information, listing, notation and held garnets: test_back_to_the_wall_notation.py; walls,
movement and scoring: test_back_to_the_wall_{walls,movement,scoring}.py; random rounds against a
reference model of the ruling: test_back_to_the_wall_reference.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.back_to_the_wall.board import Action, Board, Orders, Resolve
from games.back_to_the_wall.rules import BackToTheWall
from games.back_to_the_wall.state import BackToTheWallState
from games.core import HOST, SPECTATOR, IllegalAction
from games.registry import get_game

game = BackToTheWall()
BOARDS = ("once", "twice", "thrice")


def full(state: BackToTheWallState, seat: int, dirs: str = "up up up", extra: str = "") -> str:
    """A complete order for `seat`: `dirs` for every piece on every board, after `extra` parts."""
    parts = [f"{b.name} piece {p.number} {dirs}" for b in state.boards for p in b.pieces_of(seat)]
    return "; ".join(([extra] if extra else []) + parts)


def squares(board: Board, seat: int) -> list[str]:
    return sorted(board.square(p.square) for p in board.pieces_of(seat))


def orders(action: Action | None) -> Orders:
    """`action` as a seat's orders (a seat's parse, listing or draw mid-match is never Resolve or None)."""
    assert isinstance(action, Orders)
    return action


def play_round(state: BackToTheWallState, texts: dict[int, str] | None = None) -> BackToTheWallState:
    texts = texts or {}
    for seat in (1, 2, 3, 4):
        state = game.play(state, seat, texts.get(seat, full(state, seat)))
    return state


# -- identity and set-up ---------------------------------------------------------------


def test_registered_identity() -> None:
    g = get_game("back-to-the-wall")
    assert (g.slug, g.name, g.seats, g.sealed) == ("back-to-the-wall", "Back to the Wall", 4, True)


def test_default_boards_are_6_7_8_with_two_symmetric_walls_off_the_corners() -> None:
    view = game.public_view(game.new())
    assert [(b["name"], b["size"], b["walls"]) for b in view["boards"]] == [
        ("once", 6, ["B3", "E4"]),
        ("twice", 7, ["D3", "D5"]),
        ("thrice", 8, ["C6", "F3"]),
    ]
    assert [b["wall_limit"] for b in view["boards"]] == [1, 2, 3]


def test_corner_assignments_per_board() -> None:
    view = game.public_view(game.new())
    corners = {b["name"]: b["corners"] for b in view["boards"]}
    assert corners["once"] == {"1": "A1", "2": "F1", "3": "F6", "4": "A6"}
    assert corners["twice"] == {"1": "A1", "3": "G1", "2": "G7", "4": "A7"}
    assert corners["thrice"] == {"1": "A1", "2": "H1", "4": "H8", "3": "A8"}


def test_each_player_faces_a_different_opponent_diagonally_on_each_board() -> None:
    state = game.new()
    opposite = []
    for b in state.boards:
        far = b.size * b.size - 1
        opposite.append(next(s for s in (1, 2, 3, 4) if b.corner(s) == far - b.corner(1)))
    assert opposite == [3, 2, 4]


def test_round_one_starts_with_piece_1_on_each_corner_having_captured_it() -> None:
    state = game.new()
    assert state.round == 1
    for b in state.boards:
        assert [(p.seat, p.number, p.square) for p in b.pieces] == [(s, 1, b.corner(s)) for s in (1, 2, 3, 4)]
        assert {s: b.captured(s) for s in (1, 2, 3, 4)} == {1: 1, 2: 1, 3: 1, 4: 1}


# -- options -------------------------------------------------------------------------


def test_options_set_sizes_and_walls_and_a_board_left_out_keeps_its_default() -> None:
    state = game.new({"boards": {"once": {"size": 5, "walls": ["c3"]}, "thrice": {"size": 10}}})
    view = game.public_view(state)["boards"]
    assert (view[0]["size"], view[0]["walls"]) == (5, ["C3"])
    assert (view[1]["size"], view[1]["walls"]) == (7, ["D3", "D5"])
    # size alone: the default pattern for that size (D8, G3 on 10x10)
    assert (view[2]["size"], view[2]["walls"]) == (10, ["D8", "G3"])
    assert view[0]["corners"]["3"] == "E5"


def test_options_walls_alone_keep_the_default_size_and_may_be_empty() -> None:
    view = game.public_view(game.new({"boards": {"twice": {"walls": []}}}))["boards"]
    assert (view[1]["size"], view[1]["walls"]) == (7, [])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"boards": {"once": {"size": 3}}}, "Once: the size must be a whole number from 4 to 12, got 3"),
        ({"boards": {"once": {"size": 13}}}, "from 4 to 12"),
        ({"boards": {"once": {"size": True}}}, "whole number"),
        ({"boards": {"once": {"size": "6"}}}, "whole number"),
        ({"boards": {"twice": {"walls": ["H1"]}}}, "Twice: wall 'H1' is not on the board"),
        ({"boards": {"twice": {"walls": ["X"]}}}, "not on the board"),
        ({"boards": {"twice": {"walls": [3]}}}, "walls must be a list of squares"),
        ({"boards": {"twice": {"walls": "D3"}}}, "walls must be a list of squares"),
        (
            {"boards": {"thrice": {"walls": ["H8"]}}},
            "Thrice: a pre-placed wall cannot stand on the corner H8",
        ),
        ({"boards": {"thrice": {"walls": ["C3", "c3"]}}}, "the wall C3 is listed twice"),
        ({"boards": {"once": {"walls": ["B1", "A2"]}}}, "cut a corner off from every other corner"),
        ({"boards": {"fource": {}}}, "there is no board 'fource'"),
        ({"boards": {"once": {"colour": 1}}}, "unknown board option 'colour'"),
        ({"boards": {"once": 6}}, "Once: expected"),
        ({"boards": ["once"]}, "the boards option must map"),
        ({"speed": 2}, "has no option 'speed'"),
    ],
)
def test_bad_options_are_refused_with_a_message(options: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalAction, match=message.replace("(", r"\(").replace(")", r"\)")):
        game.new(options)


@pytest.mark.parametrize("size", range(4, 13))
def test_every_allowed_size_has_valid_default_walls_on_every_board(size: int) -> None:
    state = game.new({"boards": {name: {"size": size} for name in BOARDS}})
    for board in state.boards:
        assert board.size == size and len(board.walls) == 2
        assert not board.walls & {board.corner(s) for s in (1, 2, 3, 4)}
        # symmetric through the centre
        assert {size * size - 1 - w for w in board.walls} == set(board.walls)


def test_options_may_split_the_board_in_two_halves() -> None:
    walls = ["A4", "B4", "C4", "D4", "E4", "F4", "G4"]
    game.new({"boards": {"twice": {"walls": walls}}})  # every corner still reaches another


# -- sealed rounds -----------------------------------------------------------------------


def test_every_seat_acts_in_a_round_and_pending_shrinks_as_they_submit() -> None:
    state = game.new()
    assert game.to_act(state) == {1, 2, 3, 4} and game.pending(state) == {1, 2, 3, 4}
    state = game.play(state, 2, full(state, 2))
    assert game.to_act(state) == {1, 2, 3, 4} and game.pending(state) == {1, 3, 4}
    assert game.public_view(state)["submitted"] == {"1": False, "2": True, "3": False, "4": False}


def test_resubmitting_replaces_the_submission() -> None:
    state = game.new()
    state = game.play(state, 1, full(state, 1, "down down down"))
    state = game.play(state, 1, full(state, 1, "right right right"))
    assert game.hidden(state, 1)["submission"] == full(state, 1, "right right right")
    state = play_round(state, {1: full(state, 1, "right right right")})
    assert state.last_log[0].moves[0].phases[0].taken == "right"


def test_the_round_resolves_when_the_fourth_seat_submits() -> None:
    state = game.new()
    for seat in (1, 2, 3):
        state = game.play(state, seat, full(state, seat))
        assert state.round == 1
    state = game.play(state, 4, full(state, 4))
    assert state.round == 2 and game.pending(state) == {1, 2, 3, 4}
    assert game.public_view(state)["last_round"]["round"] == 1


def test_round_two_spawns_piece_2_on_each_corner_capturing_it() -> None:
    state = game.new()
    # seat 3 (bottom-left on Thrice) runs up column A into seat 1's corner A1 and captures it
    state = play_round(state)
    thrice = state.boards[2]
    assert [(p.seat, p.number) for p in thrice.pieces_of(1)] == [(1, 1), (1, 2)]
    assert thrice.owners[thrice.corner(1)] == 1  # recaptured by the spawned piece
    assert {p.square for p in thrice.pieces if p.number == 2} == {thrice.corner(s) for s in (1, 2, 3, 4)}
    log = game.public_view(state)["last_round"]["boards"][2]
    assert {(x["seat"], x["number"], x["square"]) for x in log["spawned"]} == {
        (1, 2, "A1"),
        (2, 2, "H1"),
        (3, 2, "A8"),
        (4, 2, "H8"),
    }


def test_three_rounds_then_the_match_ends_with_three_pieces_each() -> None:
    state = play_round(play_round(game.new()))
    assert state.round == 3 and all(len(b.pieces_of(2)) == 3 for b in state.boards)
    state = play_round(state)
    assert state.finished and game.to_act(state) == frozenset() and game.pending(state) == frozenset()
    result = game.result(state)
    assert result is not None
    assert result.reason == "points" and result.winners
    assert all(len(b.pieces_of(2)) == 3 for b in state.boards)  # no spawn after round 3


def test_host_resolve_closes_the_round_with_missing_submissions_doing_nothing() -> None:
    state = game.new()
    state = game.play(state, 1, full(state, 1, "right right right", "once wall D2; once garnet"))
    state = game.play(state, HOST, "resolve")
    assert state.round == 2
    once = state.boards[0]
    assert [once.square(x) for x in state.last_log[0].moves[0].phases[0].path] == [
        "B1",
        "C1",
        "D1",
        "E1",
        "F1",
    ]
    for seat in (2, 3, 4):
        assert once.pieces_of(seat)[0].square == once.corner(seat)  # stayed put
    assert sorted(once.square(w) for w in once.walls) == ["B3", "D2", "E4"]
    assert state.spends[0] == (2 - 1, 0, 0) and state.spends[1:] == ((0, 0, 0),) * 3


def test_host_resolve_with_nobody_submitted_moves_nothing() -> None:
    state = game.play(game.new(), HOST, "resolve")
    assert state.round == 2 and all(len(log.walls) == 0 for log in state.last_log)


def test_only_the_host_may_resolve() -> None:
    with pytest.raises(IllegalAction, match="only the host may resolve the round"):
        game.play(game.new(), 3, "resolve")


def test_the_host_enters_orders_by_acting_for_a_seat() -> None:
    state = game.new()
    with pytest.raises(IllegalAction, match="acting for that seat"):
        game.play(state, HOST, full(state, 1))
    assert game.legal_actions(state, HOST).__next__() == Resolve()


def test_nothing_is_accepted_after_the_match_ends() -> None:
    state = play_round(play_round(play_round(game.new())))
    with pytest.raises(IllegalAction, match="the bout is over"):
        game.play(state, 1, "once piece 1 up up up")
    with pytest.raises(IllegalAction, match="the bout is over"):
        game.play(state, HOST, "resolve")
    assert list(game.legal_actions(state, 1)) == [] and game.random_action(state, 1, random.Random(1)) is None


def test_spectators_and_strangers_cannot_submit() -> None:
    state = game.new()
    with pytest.raises(IllegalAction, match="it is not your turn"):
        game.play(state, SPECTATOR, full(state, 1))
    with pytest.raises(IllegalAction, match="it is not your turn"):
        game.play(state, 5, full(state, 1))


# -- refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("once wall C2 D5", "you may submit at most 1 wall on Once, got 2"),
        ("twice walls C2 D6 B4", "you may submit at most 2 walls on Twice, got 3"),
        ("thrice walls C2 D6 B4 E4", "you may submit at most 3 walls on Thrice, got 4"),
        ("once wall G1", r"G1 is not on Once \(A1 to F6\)"),
        ("twice wall A8", r"A8 is not on Twice \(A1 to G7\)"),
        ("thrice wall Z9", "Z9 is not on Thrice"),
        ("thrice walls C2 C2", "you submitted the wall C2 twice on Thrice"),
        ("once piece 2 up up up", "you have no piece 2 on Once"),
        ("once piece 1 down down down", "piece 1 on Once is given directions twice"),
    ],
)
def test_bad_submissions_are_refused(extra: str, message: str) -> None:
    state = game.new()
    with pytest.raises(IllegalAction, match=message):
        game.play(state, 1, full(state, 1, extra=extra))
    assert game.pending(state) == {1, 2, 3, 4}


def test_walls_that_will_be_dropped_are_still_accepted_at_submission() -> None:
    # corner, existing wall and piece squares, and adjacent pairs are drops at resolution, not refusals
    state = game.new()
    state = game.play(
        state, 1, full(state, 1, extra="once wall A1; twice walls D3 C3; thrice walls H1 C4 C5")
    )
    assert game.pending(state) == {2, 3, 4}
    state = play_round(state, {1: game.format(orders(state.submission(1)))})
    outcomes = [
        [(w["square"], w["outcome"]) for w in b["walls"]]
        for b in game.public_view(state)["last_round"]["boards"]
    ]
    assert outcomes == [
        [("A1", "corner")],
        [("D3", "wall"), ("C3", "adjacent")],
        [("H1", "corner"), ("C4", "placed"), ("C5", "placed")],
    ]


def test_every_piece_needs_exactly_three_directions() -> None:
    state = game.new()
    with pytest.raises(IllegalAction, match="piece 1 on Twice needs exactly 3 directions, got 2"):
        game.play(state, 1, "once piece 1 up up up; twice piece 1 up up; thrice piece 1 up up up")
    with pytest.raises(IllegalAction, match="needs exactly 3 directions, got 4"):
        game.play(state, 1, "once piece 1 up up up up; twice piece 1 up up up; thrice piece 1 up up up")
    with pytest.raises(IllegalAction, match="you must give 3 directions for piece 1 on Thrice"):
        game.play(state, 1, "once piece 1 up up up; twice piece 1 up up up")


def test_a_submission_must_cover_the_new_pieces_too() -> None:
    state = play_round(game.new())
    with pytest.raises(IllegalAction, match="you must give 3 directions for piece 2 on Once"):
        game.play(state, 1, "; ".join(f"{b} piece 1 up up up" for b in BOARDS))


def test_garnet_at_most_once_per_board_per_match() -> None:
    state = game.new()
    state = play_round(state, {1: full(state, 1, extra="twice garnet")})
    with pytest.raises(IllegalAction, match="you have already spent a garnet on Twice"):
        game.play(state, 1, full(state, 1, extra="twice garnet"))
    state = game.play(state, 1, full(state, 1, extra="once garnet; thrice garnet"))  # other boards are fine
    assert game.hidden(state, 1)["garnet_spends"] == {"twice": 1}


def test_a_garnet_in_a_replaced_submission_is_not_spent() -> None:
    state = game.new()
    state = game.play(state, 1, full(state, 1, extra="once garnet"))
    state = play_round(state, {1: full(state, 1)})
    assert state.spends[0] == (0, 0, 0)


def test_a_rejected_submission_changes_nothing() -> None:
    state = game.new()
    before = game.dump(state)
    with pytest.raises(IllegalAction):
        game.play(state, 1, "once piece 1 up")
    assert game.dump(state) == before


# -- garnet bonus through a match ---------------------------------------------------------------


def test_garnet_bonus_is_the_walls_actually_placed_that_round() -> None:
    state = game.new()
    # seat 1 spends on Thrice and submits 3 walls: A8 is a corner (dropped), C3 and E5 are placed
    state = play_round(state, {1: full(state, 1, extra="thrice walls A8 C3 E5; thrice garnet")})
    assert game.hidden(state, 1)["garnet_bonus"] == {"thrice": 2}
    # spending with no wall placed gives nothing
    state = play_round(state, {2: full(state, 2, extra="once garnet")})
    assert game.hidden(state, 2)["garnet_bonus"] == {"once": 0}
    state = play_round(state)
    thrice = game.public_view(state)["final"]["boards"][2]
    assert thrice["garnet_bonus"]["1"] == 2
    assert thrice["scores"]["1"] == thrice["captured"]["1"] + 2


def test_a_shared_wall_counts_toward_each_submitters_garnet_bonus() -> None:
    state = game.new()
    state = play_round(
        state,
        {
            1: full(state, 1, extra="twice wall C2; twice garnet"),
            2: full(state, 2, extra="twice wall C2; twice garnet"),
        },
    )
    assert game.hidden(state, 1)["garnet_bonus"] == {"twice": 1}
    assert game.hidden(state, 2)["garnet_bonus"] == {"twice": 1}
