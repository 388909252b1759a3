"""Back to the Wall: independent acceptance tests.

Written from shared/DESIGN.md, RULINGS.md section 5 and the card only, and driven
exclusively through the Game interface (`get_game("back-to-the-wall")` and
new/parse/apply/format/legal_actions/to_act/result/view/dump/load).  Every board
position below is worked out by hand from the ruling; the comments show the work.

Default boards: Once 6x6 walls B3 E4 (corners 1 A1, 2 F1, 3 F6, 4 A6);
Twice 7x7 walls D3 D5 (1 A1, 3 G1, 2 G7, 4 A7); Thrice 8x8 walls C6 F3
(1 A1, 2 H1, 4 H8, 3 A8).
"""

from __future__ import annotations

import functools
import json
import random
from typing import TYPE_CHECKING, Any

import pytest

from games.core import HOST, SPECTATOR, Game, IllegalAction, NotationError, RuleError
from games.registry import get_game
from tests.games import playing

if TYPE_CHECKING:  # for the annotations only: the tests drive the game through its Game interface
    from games.back_to_the_wall.board import Action
    from games.back_to_the_wall.state import BackToTheWallState

G: Game[BackToTheWallState, Action] = get_game("back-to-the-wall")
play = functools.partial(playing.play, G)
SEATS = (1, 2, 3, 4)
BOARDS = ("once", "twice", "thrice")
POINTS = (6, 4, 2, 1)


# -- helpers ------------------------------------------------------------------------------
def resolve(state: BackToTheWallState) -> BackToTheWallState:
    return G.apply(state, HOST, G.parse(state, HOST, "resolve"))


def orders(rnd: int, **boards: list[str]) -> str:
    """A complete submission for round `rnd`: per board a list of clauses (without the
    board name); a board left out gets "piece n down up down" for each of its pieces."""
    parts: list[str] = []
    for name in BOARDS:
        clauses = boards.get(name)
        if clauses is None:
            clauses = [f"piece {n} down up down" for n in range(1, rnd + 1)]
        parts.extend(f"{name} {c}" for c in clauses)
    return "; ".join(parts)


def board_view(state: BackToTheWallState, name: str) -> dict[str, Any]:
    view: dict[str, Any] = G.view(state, SPECTATOR)["public"]["boards"][BOARDS.index(name)]
    return view


def owner(state: BackToTheWallState, name: str, square: str) -> int:
    col = ord(square[0].upper()) - ord("A")
    row = int(square[1:]) - 1
    seat: int = board_view(state, name)["owners"][row][col]
    return seat


def owners_of(state: BackToTheWallState, name: str, squares: str) -> list[int]:
    return [owner(state, name, sq) for sq in squares.split()]


def walls(state: BackToTheWallState, name: str) -> list[str]:
    return sorted(board_view(state, name)["walls"])


def captured(state: BackToTheWallState, name: str, seat: int) -> int:
    return sum(row.count(seat) for row in board_view(state, name)["owners"])


def pieces(state: BackToTheWallState, name: str, seat: int) -> dict[int, str]:
    return {p["number"]: p["square"] for p in board_view(state, name)["pieces"] if p["seat"] == seat}


def dump(state: BackToTheWallState) -> str:
    return json.dumps(G.dump(state), sort_keys=True)


def refused(
    state: BackToTheWallState, seat: int, text: str, *words: str, kind: type[Exception] = IllegalAction
) -> str:
    before = dump(state)
    with pytest.raises(kind) as info:
        play(state, seat, text)
    message = str(info.value).lower()
    for word in words:
        assert word.lower() in message, (word, message)
    assert dump(state) == before  # a rejected action changes nothing
    return message


def places(scores: dict[int, int]) -> dict[int, float]:
    """Ruling: 6/4/2/1, tied players share the average of the places they span."""
    out: dict[int, float] = {}
    order = sorted(scores, key=lambda s: -scores[s])
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        share = sum(POINTS[i : j + 1]) / (j + 1 - i)
        for s in order[i : j + 1]:
            out[s] = share
        i = j + 1
    return out


def expected_points(
    state: BackToTheWallState, bonus: dict[tuple[int, str], int] | None = None
) -> dict[int, list[float]]:
    """Per seat per board points from the public owners plus the garnet bonus."""
    bonus = bonus or {}
    per_board: dict[str, dict[int, float]] = {}
    for name in BOARDS:
        scores = {s: captured(state, name, s) + bonus.get((s, name), 0) for s in SEATS}
        per_board[name] = places(scores)
    return {s: [per_board[b][s] for b in BOARDS] for s in SEATS}


def expected_winners(points: dict[int, list[float]]) -> frozenset[int]:
    def key(s: int) -> tuple[float, float, float, float, float]:
        once, twice, thrice = points[s]
        return (once + twice + thrice, max(points[s]), thrice, twice, once)

    best = max(key(s) for s in SEATS)
    return frozenset(s for s in SEATS if key(s) == best)


def finish(state: BackToTheWallState) -> BackToTheWallState:
    while G.result(state) is None:
        state = resolve(state)
    return state


def at_round_three_with(captures: dict[str, dict[int, int]]) -> BackToTheWallState:
    """A state in round 3 (via dump/load) where each seat owns exactly captures[board][seat]
    squares; the host then resolves round 3 with no submissions, so nothing moves."""
    data = G.dump(G.new())
    data = json.loads(json.dumps(data))
    state = G.load(data)
    # find the owners list of each board in the dump and overwrite it
    for i, name in enumerate(BOARDS):
        size = board_view(state, name)["size"]
        wall_set = set(board_view(state, name)["walls"])
        free = [
            r * size + c for r in range(size) for c in range(size) if f"{chr(65 + c)}{r + 1}" not in wall_set
        ]
        cells = [0] * (size * size)
        k = 0
        for seat in SEATS:
            for _ in range(captures[name][seat]):
                cells[free[k]] = seat
                k += 1
        data["boards"][i]["owners"] = cells
    data["round"] = 3
    state = G.load(data)
    for name in BOARDS:
        for seat in SEATS:
            assert captured(state, name, seat) == captures[name][seat]
    return state


# -- identity, set-up, options --------------------------------------------------------------
def test_identity_and_start() -> None:
    state = G.new()
    assert (G.slug, G.seats) == ("back-to-the-wall", 4)
    assert G.to_act(state) == frozenset(SEATS)
    assert G.result(state) is None
    view = G.view(state, SPECTATOR)["public"]
    assert [b["size"] for b in view["boards"]] == [6, 7, 8]
    assert walls(state, "once") == ["B3", "E4"]
    assert walls(state, "twice") == ["D3", "D5"]
    assert walls(state, "thrice") == ["C6", "F3"]


def test_corners_per_board_and_one_piece_each_capturing_its_corner() -> None:
    state = G.new()
    expected = {
        "once": {1: "A1", 2: "F1", 3: "F6", 4: "A6"},
        "twice": {1: "A1", 3: "G1", 2: "G7", 4: "A7"},
        "thrice": {1: "A1", 2: "H1", 4: "H8", 3: "A8"},
    }
    for name, corners in expected.items():
        for seat, square in corners.items():
            assert pieces(state, name, seat) == {1: square}
            assert owner(state, name, square) == seat
            assert captured(state, name, seat) == 1


def test_each_player_faces_a_different_opponent_diagonally_on_each_board() -> None:
    state = G.new()
    diagonal = {}
    for name in BOARDS:
        size = board_view(state, name)["size"]
        last = f"{chr(64 + size)}{size}"
        tr = f"{chr(64 + size)}1"
        bl = f"A{size}"
        at = {sq: seat for seat in SEATS for sq in pieces(state, name, seat).values()}
        diagonal[name] = {frozenset((at["A1"], at[last])), frozenset((at[tr], at[bl]))}
    opponents_of_1: set[int] = set()
    for pairs in diagonal.values():
        for pair in pairs:
            if 1 in pair:
                opponents_of_1 |= pair - {1}
    assert opponents_of_1 == {2, 3, 4}


def test_options_change_sizes_and_walls_and_keep_defaults_for_boards_left_out() -> None:
    state = G.new({"boards": {"once": {"size": 5, "walls": ["B2", "D4"]}}})
    assert board_view(state, "once")["size"] == 5
    assert walls(state, "once") == ["B2", "D4"]
    assert pieces(state, "once", 3) == {1: "E5"}
    assert walls(state, "twice") == ["D3", "D5"]
    assert board_view(state, "thrice")["size"] == 8
    # the example of the ruling, as it would arrive from JSON
    options = json.loads(
        json.dumps(
            {"boards": {"once": {"size": 6, "walls": ["B3", "E4"]}, "thrice": {"size": 9, "walls": []}}}
        )
    )
    state = G.new(options)
    assert walls(state, "once") == ["B3", "E4"]
    assert board_view(state, "thrice")["size"] == 9
    assert walls(state, "thrice") == []
    assert pieces(state, "thrice", 4) == {1: "I9"}


def test_bad_options_are_refused_with_a_reason() -> None:
    with pytest.raises(RuleError, match=r"(?i)corner"):
        G.new({"boards": {"once": {"size": 6, "walls": ["A1"]}}})
    with pytest.raises(RuleError, match=r"Z9|z9"):
        G.new({"boards": {"once": {"size": 6, "walls": ["Z9"]}}})
    with pytest.raises(RuleError, match=r"(?i)fourth"):
        G.new({"boards": {"fourth": {"size": 6}}})


# -- notation -------------------------------------------------------------------------------
def test_canonical_notation_from_design_round_trips() -> None:
    state = G.new()
    text = "once wall C3; once piece 1 up right down; twice garnet"
    action = G.parse(state, 1, text)
    assert G.format(action) == text
    assert G.parse(state, 1, G.format(action)) == action


def test_natural_phrasings_parse_to_the_same_action() -> None:
    state = G.new()
    canonical = G.parse(state, 1, "once wall C3; once piece 1 up right down; twice garnet")
    for text in (
        "ONCE WALL c3; Once Piece 1 UP RIGHT DOWN;  twice   garnet",
        "once wall C3; once piece 1 U R D; twice garnet.",
        "once wall c3; once piece 1 up, right, down; twice garnet",
    ):
        assert G.parse(state, 1, text) == canonical, text


def test_resolve_parses_and_formats() -> None:
    state = G.new()
    assert G.format(G.parse(state, HOST, "resolve")) == "resolve"


@pytest.mark.parametrize(
    "text", ["", "   ", "hello", "wall C3", "once piece up", "once piece 1 sideways", "once banana"]
)
def test_unreadable_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError) as info:
        G.parse(G.new(), 1, text)
    assert str(info.value)


# -- refusals -------------------------------------------------------------------------------
def test_a_wall_outside_the_board_is_refused() -> None:
    state = G.new()
    refused(state, 1, orders(1, once=["wall G1", "piece 1 down up down"]), "G1", kind=RuleError)
    refused(state, 1, orders(1, once=["wall A7", "piece 1 down up down"]), "A7", kind=RuleError)
    refused(state, 1, orders(1, twice=["wall H2", "piece 1 down up down"]), "H2", kind=RuleError)
    play(state, 1, orders(1, thrice=["wall H2", "piece 1 down up down"]))  # 8x8: on the board


def test_more_walls_than_the_board_allows_is_refused() -> None:
    state = G.new()
    refused(state, 1, orders(1, once=["wall C1", "wall D2", "piece 1 down up down"]), "once")
    refused(state, 1, orders(1, twice=["wall C1", "wall D2", "wall F6", "piece 1 down up down"]), "twice")
    refused(
        state,
        1,
        orders(1, thrice=["wall C1", "wall D2", "wall F6", "wall G7", "piece 1 down up down"]),
        "thrice",
    )
    play(state, 1, orders(1, twice=["wall C1", "wall F6", "piece 1 down up down"]))
    play(state, 1, orders(1, thrice=["wall C1", "wall D2", "wall F6", "piece 1 down up down"]))


def test_exactly_three_directions_for_each_piece() -> None:
    state = G.new()
    refused(state, 1, orders(1, once=["piece 1 down up"]), "piece 1", "3")
    refused(state, 1, orders(1, once=["piece 1 down up down left"]), "piece 1", "3")
    refused(state, 1, orders(1, once=[]), "piece 1")
    refused(state, 1, orders(1, once=["piece 1 down up down", "piece 2 down up down"]), "piece 2")


def test_not_your_turn_and_host_only_resolve() -> None:
    state = G.new()
    text = orders(1)
    for seat in (5, SPECTATOR):
        refused(state, seat, text, "turn")
    refused(state, 2, "resolve", "host")


def test_garnet_at_most_once_per_board_per_match() -> None:
    state = G.new()
    state = play(state, 1, orders(1, twice=["garnet", "piece 1 down up down"]))
    state = resolve(state)
    refused(
        state,
        1,
        orders(2, twice=["garnet", "piece 1 down up down", "piece 2 down up down"]),
        "garnet",
        "twice",
    )
    state = play(state, 1, orders(2, once=["garnet", "piece 1 down up down", "piece 2 down up down"]))


def test_pieces_are_numbered_by_spawn_order() -> None:
    state = resolve(G.new())
    # round 2: two pieces per board; piece 3 does not exist yet
    refused(state, 1, orders(1), "piece 2")
    refused(state, 1, orders(3), "piece 3")
    state = play(state, 1, orders(2))
    state = resolve(state)
    for name in BOARDS:
        assert sorted(pieces(state, name, 2)) == [1, 2, 3]
    play(state, 1, orders(3))


# -- sealed rounds ---------------------------------------------------------------------------
def test_round_resolves_when_every_seat_has_submitted() -> None:
    state = G.new()
    for seat in (1, 2, 3):
        state = play(state, seat, orders(1))
        assert G.view(state, SPECTATOR)["public"]["round"] == 1
        assert G.to_act(state) == frozenset(SEATS)
    state = play(state, 4, orders(1))
    assert G.view(state, SPECTATOR)["public"]["round"] == 2
    for name in BOARDS:
        assert sorted(pieces(state, name, 1)) == [1, 2]


def test_resubmitting_replaces_the_submission() -> None:
    state = G.new()
    state = play(state, 1, orders(1, once=["wall D2", "piece 1 right up up"]))
    state = play(state, 1, orders(1, once=["piece 1 down up down"]))
    state = resolve(state)
    assert "D2" not in walls(state, "once")
    # the replacement moved down the A column (A2..A6) and back: B1 untouched
    assert owner(state, "once", "A3") == 1
    assert owner(state, "once", "B1") == 0


def test_missing_submission_no_walls_pieces_stay_no_garnet() -> None:
    state = G.new()
    state = play(state, 1, orders(1, once=["piece 1 right up up"]))
    state = resolve(state)
    for seat in (2, 3, 4):
        for name in BOARDS:
            # piece 1 stayed on its corner (piece 2 spawned there too)
            corner = pieces(state, name, seat)[2]
            assert pieces(state, name, seat)[1] == corner


def test_host_resolves_with_no_submission_at_all() -> None:
    state = resolve(G.new())
    assert G.view(state, SPECTATOR)["public"]["round"] == 2
    for name in BOARDS:
        for seat in SEATS:
            assert captured(state, name, seat) == 1


def test_host_does_not_submit_orders_itself_but_the_seat_does() -> None:
    state = G.new()
    with pytest.raises(IllegalAction):
        play(state, HOST, orders(1))


def test_apply_never_mutates_and_dump_load_round_trips() -> None:
    state = G.new()
    for rnd in (1, 2, 3):
        for seat in SEATS:
            before = dump(state)
            after = play(
                state, seat, orders(rnd, once=[f"piece {n} right down left" for n in range(1, rnd + 1)])
            )
            assert dump(state) == before
            again = G.load(json.loads(json.dumps(G.dump(after))))
            assert dump(again) == dump(after)
            assert G.view(again, HOST) == G.view(after, HOST)
            state = after
    assert G.result(state) is not None
    assert G.to_act(state) == frozenset()
    assert G.result(G.load(json.loads(dump(state)))) == G.result(state)


def test_actions_after_the_end_are_refused() -> None:
    state = finish(G.new())
    refused(state, 1, orders(3), "over")
    with pytest.raises(IllegalAction):
        resolve(state)
    assert list(G.legal_actions(state, 1)) == []


def test_listed_actions_are_accepted() -> None:
    state = G.new()
    for seat in (1, HOST):
        for count, action in enumerate(G.legal_actions(state, seat)):
            G.apply(state, seat, action)
            assert G.parse(state, seat, G.format(action)) == action
            if count > 50:
                break


# -- walls -----------------------------------------------------------------------------------
def test_once_walls_dropped_on_existing_wall_corner_and_adjacency_chain() -> None:
    state = G.new()
    # seat 1 C2: diagonal to B3 -> dropped.  seat 2 D2: orthogonal to C2, which was not
    # dropped "for the reasons before" (corner/wall/piece) -> dropped too.
    # seat 3 A6: a corner -> dropped (and so does not count against B5).
    # seat 4 B5: diagonal to the dropped corner wall A6 only -> placed.
    state = play(state, 1, orders(1, once=["wall C2", "piece 1 down up down"]))
    state = play(state, 2, orders(1, once=["wall D2", "piece 1 down up down"]))
    state = play(state, 3, orders(1, once=["wall A6", "piece 1 up down up"]))
    state = play(state, 4, orders(1, once=["wall B5", "piece 1 up down up"]))
    assert walls(state, "once") == ["B3", "B5", "E4"]


def test_once_diagonal_pair_submitted_together_both_dropped() -> None:
    state = G.new()
    # C5 and D6 are diagonal neighbours (neither touches B3 or E4): both dropped.
    # D2 touches nothing: placed.  B3 is already a wall: dropped, changes nothing.
    state = play(state, 1, orders(1, once=["wall C5", "piece 1 down up down"]))
    state = play(state, 2, orders(1, once=["wall D6", "piece 1 down up down"]))
    state = play(state, 3, orders(1, once=["wall D2", "piece 1 up down up"]))
    state = play(state, 4, orders(1, once=["wall B3", "piece 1 up down up"]))
    assert walls(state, "once") == ["B3", "D2", "E4"]


def test_twice_only_orthogonal_adjacency_drops() -> None:
    state = G.new()
    # E4: diagonal to D3 and D5 only -> placed.  C3: orthogonal to D3 -> dropped.
    # B6 (seat 2) and B7 (seat 3): an orthogonal pair -> both dropped.
    # B2: diagonal to C3 (a candidate) only -> placed on Twice.
    state = play(state, 1, orders(1, twice=["wall E4", "wall C3", "piece 1 right left right"]))
    state = play(state, 2, orders(1, twice=["wall B6", "piece 1 up down up"]))
    state = play(state, 3, orders(1, twice=["wall B7", "piece 1 down up down"]))
    state = play(state, 4, orders(1, twice=["wall B2", "piece 1 up down up"]))
    assert walls(state, "twice") == ["B2", "D3", "D5", "E4"]


def test_thrice_has_no_adjacency_rule() -> None:
    state = G.new()
    state = play(state, 1, orders(1, thrice=["wall C5", "wall C4", "wall D4", "piece 1 right left right"]))
    state = resolve(state)
    assert walls(state, "thrice") == ["C4", "C5", "C6", "D4", "F3"]


@pytest.mark.parametrize(
    ("seat1", "seat2", "placed", "dropped"),
    [
        (["wall B1"], ["wall A2"], "B1", "A2"),
        (["wall A2"], ["wall B1"], "A2", "B1"),
        (["wall B1", "wall A2"], [], "B1", "A2"),
        (["wall A2", "wall B1"], [], "A2", "B1"),
    ],
)
def test_connectivity_drops_in_seat_order_then_each_players_order(
    seat1: list[str], seat2: list[str], placed: str, dropped: str
) -> None:
    # B1 and A2 together would cut corner A1 off from every other corner
    state = G.new()
    state = play(state, 1, orders(1, thrice=[*seat1, "piece 1 down up down"]))
    if seat2:
        state = play(state, 2, orders(1, thrice=[*seat2, "piece 1 down up down"]))
    state = resolve(state)
    assert placed in walls(state, "thrice")
    assert dropped not in walls(state, "thrice")


def test_splitting_the_board_into_halves_with_two_corners_each_is_allowed() -> None:
    state = G.new()
    state = play(state, 1, orders(1, thrice=["wall A4", "wall B4", "wall C4", "piece 1 right left right"]))
    state = play(state, 2, orders(1, thrice=["wall D4", "wall E4", "wall F4", "piece 1 left right left"]))
    state = play(state, 3, orders(1, thrice=["wall G4", "wall H4", "piece 1 right left right"]))
    state = resolve(state)
    assert walls(state, "thrice") == sorted(["A4", "B4", "C4", "D4", "E4", "F4", "G4", "H4", "C6", "F3"])


def test_same_square_from_several_players_is_one_wall_placed_for_each() -> None:
    state = G.new()
    state = play(state, 1, orders(1, once=["wall D2", "garnet", "piece 1 down up down"]))
    state = play(state, 2, orders(1, once=["wall D2", "garnet", "piece 1 down up down"]))
    state = play(
        state, 3, orders(1, once=["wall C5", "garnet", "piece 1 up down up"])
    )  # dropped (adjacent to D6)
    state = play(state, 4, orders(1, once=["wall D6", "piece 1 up down up"]))
    assert walls(state, "once") == ["B3", "D2", "E4"]
    state = finish(state)
    bonus = {(1, "once"): 1, (2, "once"): 1}  # seat 3's wall was dropped: bonus 0
    points = expected_points(state, bonus)
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert result.reason
    assert {s: pytest.approx(sum(points[s])) for s in SEATS} == dict(result.scores)
    assert result.winners == expected_winners(points)


def test_a_wall_on_a_piece_is_dropped_and_a_piece_that_cannot_move_stays() -> None:
    state = G.new()
    # round 1, Thrice: seat 1 walls E1; piece 1 right (B1 C1 D1, stops before E1),
    # left (C1 B1 A1), right (B1 C1 D1): it ends on D1.
    state = play(state, 1, orders(1, thrice=["wall E1", "piece 1 right left right"]))
    state = resolve(state)
    assert pieces(state, "thrice", 1) == {1: "D1", 2: "A1"}
    # round 2: seat 2 submits a wall on D1 (a piece stands there) -> dropped;
    # seat 1 boxes its own piece in with C1 and D2 (no adjacency rule on Thrice).
    state = play(state, 2, orders(2, thrice=["wall D1", "piece 1 down up down", "piece 2 down up down"]))
    state = play(
        state, 1, orders(2, thrice=["wall C1", "wall D2", "piece 1 left up right", "piece 2 down up up"])
    )
    state = resolve(state)
    assert walls(state, "thrice") == ["C1", "C6", "D2", "E1", "F3"]
    # piece 1 is walled in on three sides and the border on the fourth: it stays
    assert pieces(state, "thrice", 1)[1] == "D1"


def test_walls_placed_this_round_stop_pieces_this_round() -> None:
    state = G.new()
    # D1 is clear of B3 and E4: placed; piece 1 right stops on C1.
    state = play(state, 1, orders(1, once=["wall D1", "piece 1 right down up"]))
    state = resolve(state)
    assert "D1" in walls(state, "once")
    # right: B1 C1; down: C2..C6; up: C5..C1
    assert owners_of(state, "once", "A1 B1 C1 D1 E1") == [1, 1, 1, 0, 0]
    assert owners_of(state, "once", "C2 C3 C4 C5 C6") == [1] * 5
    assert pieces(state, "once", 1) == {1: "C1", 2: "A1"}


# -- movement ---------------------------------------------------------------------------------
def test_solo_run_captures_every_square_entered_and_spawns_recapture_corners() -> None:
    state = G.new()
    # Once: right B1..F1, down F2..F6, left E6..A6 (16 squares for seat 1);
    # then pieces 2 spawn on F1, F6, A6 and take them back.
    state = play(state, 1, orders(1, once=["piece 1 right down left"]))
    state = resolve(state)
    assert owners_of(state, "once", "A1 B1 C1 D1 E1 F1") == [1, 1, 1, 1, 1, 2]
    assert owners_of(state, "once", "F2 F3 F4 F5 F6") == [1, 1, 1, 1, 3]
    assert owners_of(state, "once", "A6 B6 C6 D6 E6") == [4, 1, 1, 1, 1]
    assert captured(state, "once", 1) == 13
    assert pieces(state, "once", 1) == {1: "A6", 2: "A1"}
    assert pieces(state, "once", 2) == {1: "F1", 2: "F1"}


def test_wall_stop_then_continues() -> None:
    state = G.new({"boards": {"once": {"size": 6, "walls": ["D1", "E4"]}}})
    # right: B1 C1 (D1 wall); down: C2..C6; right: D6 E6 F6
    state = play(state, 1, orders(1, once=["piece 1 right down right"]))
    state = resolve(state)
    assert owners_of(state, "once", "A1 B1 C1 D1") == [1, 1, 1, 0]
    assert owners_of(state, "once", "C2 C3 C4 C5 C6 D6 E6") == [1] * 7
    assert owner(state, "once", "F6") == 3  # recaptured by the spawn of seat 3's piece 2
    assert pieces(state, "once", 1)[1] == "F6"


def test_fallback_most_unowned_squares_beats_a_perpendicular() -> None:
    state = G.new()
    # right: B1..F1.  up is blocked at F1: left E1..A1 holds 0 unowned squares,
    # down F2..F6 holds 4 (F6 is seat 3's) -> down, even though it is the opposite.
    # right is blocked at F6: up F5..F1 holds 0, left E6..A6 holds 4 -> left.
    state = play(state, 1, orders(1, once=["piece 1 right up right"]))
    state = resolve(state)
    assert owners_of(state, "once", "B1 C1 D1 E1 F2 F3 F4 F5 B6 C6 D6 E6") == [1] * 12
    assert captured(state, "once", 1) == 13
    assert pieces(state, "once", 1)[1] == "A6"


def test_fallback_tie_goes_to_the_perpendicular_before_the_opposite() -> None:
    state = G.new()
    # up is blocked at A1: right B1..F1 and down A2..A6 both hold 4 unowned squares
    # -> the perpendicular (right).  left: E1..A1.  left blocked at A1: right holds 0,
    # down holds 4 -> down to A6.
    state = play(state, 1, orders(1, once=["piece 1 up left left"]))
    state = resolve(state)
    assert owners_of(state, "once", "B1 C1 D1 E1") == [1] * 4
    assert owners_of(state, "once", "A2 A3 A4 A5") == [1] * 4
    assert owner(state, "once", "F1") == 2 and owner(state, "once", "A6") == 4  # respawned
    assert pieces(state, "once", 1)[1] == "A6"


def test_fallback_tie_goes_toward_the_own_corner_top() -> None:
    state = G.new({"boards": {"twice": {"size": 7, "walls": ["A5", "E4"]}}})
    # down A2 A3 A4; right B4 C4 D4; right blocked: up D3 D2 D1 and down D5 D6 D7
    # both hold 3 unowned squares, left holds 0 -> toward A1: up.
    state = play(state, 1, orders(1, twice=["piece 1 down right right"]))
    state = resolve(state)
    assert owners_of(state, "twice", "A2 A3 A4 B4 C4 D4 D3 D2 D1") == [1] * 9
    assert owners_of(state, "twice", "D5 D6 D7") == [0, 0, 0]
    assert pieces(state, "twice", 1)[1] == "D1"


def test_fallback_tie_goes_toward_the_own_corner_bottom() -> None:
    state = G.new({"boards": {"twice": {"size": 7, "walls": ["A3", "E4"]}}})
    # seat 4 starts on A7: up A6 A5 A4; right B4 C4 D4; right blocked: 3 and 3 -> toward A7: down.
    state = play(state, 4, orders(1, twice=["piece 1 up right right"]))
    state = resolve(state)
    assert owners_of(state, "twice", "A6 A5 A4 B4 C4 D4 D5 D6 D7") == [4] * 9
    assert owners_of(state, "twice", "D1 D2 D3") == [0, 0, 0]
    assert pieces(state, "twice", 4)[1] == "D7"


def test_fallback_more_unowned_beats_the_corner() -> None:
    state = G.new({"boards": {"twice": {"size": 7, "walls": ["A5", "E4", "D1"]}}})
    # as above, but up holds only D3 D2 (2) against D5 D6 D7 (3): down, away from A1
    state = play(state, 1, orders(1, twice=["piece 1 down right right"]))
    state = resolve(state)
    assert owners_of(state, "twice", "D5 D6 D7") == [1, 1, 1]
    assert owners_of(state, "twice", "D2 D3") == [0, 0]
    assert pieces(state, "twice", 1)[1] == "D7"


def test_pieces_pass_through_each_other() -> None:
    state = G.new()
    # Once row 1: seat 1 A1 -> right, seat 2 F1 -> left, one square per tick:
    # t1 B1=1 E1=2, t2 C1=1 D1=2, t3 D1=1 C1=2, t4 E1=1 B1=2, t5 F1=1 A1=2.
    # Then down and up their columns (A and F) without touching B1..E1.
    state = play(state, 1, orders(1, once=["piece 1 right down up"]))
    state = play(state, 2, orders(1, once=["piece 1 left down up"]))
    state = resolve(state)
    assert owners_of(state, "once", "B1 C1 D1 E1") == [2, 2, 1, 1]
    assert pieces(state, "once", 1)[1] == "F1"
    assert pieces(state, "once", 2)[1] == "A1"
    # corners are taken back by the spawns of piece 2
    assert owners_of(state, "once", "A1 F1") == [1, 2]
    assert owners_of(state, "once", "A2 A3 A4 A5") == [2] * 4
    assert owners_of(state, "once", "F2 F3 F4 F5") == [1] * 4


def test_same_tick_contest_leaves_the_square_unchanged() -> None:
    state = G.new()
    # Twice (7 wide), phase 1: seat 1 A1 right, seat 3 G1 left: both enter D1 on tick 3
    # -> D1 stays unowned.  Result row 1: B1 C1 = 3, D1 = 0, E1 F1 = 1.
    # phase 2: seat 1 G1 down (G2..G7), seat 3 A1 down (A2..A7).
    # phase 3: seat 1 G7 left, seat 3 A7 right: both enter D7 on tick 3 -> stays unowned;
    # row 7: B7 C7 = 1 (entered later by seat 1), E7 F7 = 3.
    state = play(state, 1, orders(1, twice=["piece 1 right down left"]))
    state = play(state, 3, orders(1, twice=["piece 1 left down right"]))
    state = resolve(state)
    assert owners_of(state, "twice", "B1 C1 D1 E1 F1") == [3, 3, 0, 1, 1]
    assert owners_of(state, "twice", "B7 C7 D7 E7 F7") == [1, 1, 0, 3, 3]
    # spawns take every corner back
    assert owners_of(state, "twice", "A1 G1 G7 A7") == [1, 3, 2, 4]


def test_same_tick_contest_keeps_the_previous_owner() -> None:
    state = G.new()
    # Twice. phase 1: seat 1 right (B1..G1), seat 3 down (G2..G7): G column is seat 3's.
    # phase 2: seat 1 down from G1, seat 3 up from G7: both enter G4 on tick 3 -> G4 stays 3.
    # ticks: G2=1 G6=3 | G3=1 G5=3 | G4 contested | G5=1 G3=3 | G6=1 G2=3 | G7=1 G1=3
    # phase 3: seat 1 left along row 7 (F7..A7), seat 3 left along row 1 (F1..A1).
    state = play(state, 1, orders(1, twice=["piece 1 right down left"]))
    state = play(state, 3, orders(1, twice=["piece 1 down up left"]))
    state = resolve(state)
    assert owners_of(state, "twice", "G2 G3 G4 G5 G6") == [3, 3, 3, 1, 1]


# -- scoring ------------------------------------------------------------------------------------
def test_nobody_moves_all_tied_everywhere() -> None:
    state = finish(G.new())
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert result.winners == frozenset(SEATS)
    assert dict(result.scores) == {s: pytest.approx(3 * 13 / 4) for s in SEATS}
    assert result.reason


def test_solo_runner_wins_and_the_others_share_second_to_fourth() -> None:
    state = G.new()
    # every board: down, down (blocked: fallback right), down (blocked: fallback up)
    state = play(
        state,
        1,
        orders(
            1,
            once=["piece 1 down down down"],
            twice=["piece 1 down down down"],
            thrice=["piece 1 down down down"],
        ),
    )
    state = finish(state)
    # Once 16 - 3 respawned corners = 13, Twice 19 - 3 = 16, Thrice 22 - 3 = 19
    assert [captured(state, b, 1) for b in BOARDS] == [13, 16, 19]
    for b in BOARDS:
        assert [captured(state, b, s) for s in (2, 3, 4)] == [1, 1, 1]
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert result.winners == frozenset({1})
    assert result.scores[1] == pytest.approx(18)
    for s in (2, 3, 4):
        assert result.scores[s] == pytest.approx(3 * 7 / 3)
    # a sole first place on a board earns a garnet: seat 1 earns 3
    final = G.view(state, SPECTATOR)["public"]["final"]
    assert final["garnets_earned"] == {"1": 3, "2": 0, "3": 0, "4": 0}


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ({1: 9, 2: 9, 3: 5, 4: 2}, {1: 5, 2: 5, 3: 2, 4: 1}),  # 2 tied for first
        ({1: 9, 2: 5, 3: 5, 4: 2}, {1: 6, 2: 3, 3: 3, 4: 1}),  # 2 tied for second
        ({1: 9, 2: 5, 3: 2, 4: 2}, {1: 6, 2: 4, 3: 1.5, 4: 1.5}),  # 2 tied for third
        ({1: 9, 2: 9, 3: 9, 4: 2}, {1: 4, 2: 4, 3: 4, 4: 1}),  # 3 tied for first
        ({1: 3, 2: 9, 3: 3, 4: 3}, {1: 7 / 3, 2: 6, 3: 7 / 3, 4: 7 / 3}),
    ],
)
def test_place_points_with_averaged_ties(counts: dict[int, int], expected: dict[int, float]) -> None:
    other = {1: 1, 2: 1, 3: 1, 4: 1}  # all tied on the other boards: 3.25 each
    state = at_round_three_with({"once": counts, "twice": other, "thrice": other})
    state = resolve(state)
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert dict(result.scores) == {s: pytest.approx(expected[s] + 6.5) for s in SEATS}


def test_tie_on_total_broken_by_best_single_board() -> None:
    # card: "4, 4, 1 is worse than 6, 2, 1".  seat 2: 1 + 6 + 2 = 9, seat 1: 4 + 1 + 4 = 9.
    # seat 3: 6 + 4 + 1 = 11 wins; seat 4: 2 + 2 + 6 = 10.
    state = at_round_three_with(
        {
            "once": {2: 1, 1: 5, 3: 9, 4: 3},  # 3: 6, 1: 4, 4: 2, 2: 1
            "twice": {2: 9, 1: 1, 3: 5, 4: 3},  # 2: 6, 3: 4, 4: 2, 1: 1
            "thrice": {2: 3, 1: 5, 3: 1, 4: 9},  # 4: 6, 1: 4, 2: 2, 3: 1
        }
    )
    state = resolve(state)
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert dict(result.scores) == {1: 9, 2: 9, 3: 11, 4: 10}
    assert result.winners == frozenset({3})
    # seat 1 (4,1,4) ranks below seat 2 (1,6,2): the public ranking puts it last
    final = G.view(state, SPECTATOR)["public"]["final"]
    assert final["ranking"][-1] == [1]


def test_equal_total_and_best_board_broken_by_thrice() -> None:
    # seat 2: 6 + 2 + 4 = 12, seat 1: 4 + 6 + 2 = 12; best 6 each; Thrice 4 > 2 -> seat 2 first
    state = at_round_three_with(
        {
            "once": {2: 9, 1: 7, 3: 5, 4: 3},  # 2: 6, 1: 4, 3: 2, 4: 1
            "twice": {2: 5, 1: 9, 3: 3, 4: 7},  # 1: 6, 4: 4, 2: 2, 3: 1
            "thrice": {2: 7, 1: 5, 3: 9, 4: 3},  # 3: 6, 2: 4, 1: 2, 4: 1
        }
    )
    state = resolve(state)
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert dict(result.scores) == {1: 12, 2: 12, 3: 9, 4: 6}
    assert result.winners == frozenset({2})


def test_equal_total_best_and_thrice_broken_by_twice() -> None:
    # seat 1: 6 + 4 + 3 = 13, seat 2: 4 + 6 + 3 = 13 (tied 2nd-3rd on Thrice): Twice decides -> seat 2
    state = at_round_three_with(
        {
            "once": {1: 9, 2: 7, 3: 5, 4: 3},  # 1: 6, 2: 4, 3: 2, 4: 1
            "twice": {1: 7, 2: 9, 3: 5, 4: 3},  # 2: 6, 1: 4, 3: 2, 4: 1
            "thrice": {1: 5, 2: 5, 3: 9, 4: 3},  # 3: 6, 1 2: 3, 4: 1
        }
    )
    state = resolve(state)
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert dict(result.scores) == {1: 13, 2: 13, 3: 10, 4: 3}
    assert result.winners == frozenset({2})


def test_garnet_bonus_counts_walls_actually_placed_in_the_round_of_the_spend() -> None:
    state = G.new()
    # Twice: B5 placed, C3 dropped (orthogonal to D3): bonus 1 for seat 1
    state = play(state, 1, orders(1, twice=["wall B5", "wall C3", "garnet", "piece 1 right left right"]))
    state = resolve(state)
    assert "B5" in walls(state, "twice") and "C3" not in walls(state, "twice")
    # round 2: more walls on Twice do not add to the bonus (spent in round 1)
    state = play(state, 1, orders(2, twice=["wall F2", "piece 1 down up down", "piece 2 down up down"]))
    state = finish(state)
    assert "F2" in walls(state, "twice")
    points = expected_points(state, {(1, "twice"): 1})
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert dict(result.scores) == {s: pytest.approx(sum(points[s])) for s in SEATS}


def test_garnet_bonus_can_break_a_tie_on_a_board() -> None:
    # round 3 from a loaded position: seats 1 and 2 own 5 squares each on Once.
    # Seat 1 spends a garnet with one placed wall -> 6 (first), seat 2 second.
    # Nobody else submits; seat 1's piece moves, so compute its captures from the view.
    state = at_round_three_with(
        {
            "once": {1: 5, 2: 5, 3: 1, 4: 1},
            "twice": {1: 1, 2: 1, 3: 1, 4: 1},
            "thrice": {1: 1, 2: 1, 3: 1, 4: 1},
        }
    )
    # (the loaded position keeps one piece per seat and board)
    state = play(state, 1, orders(1, once=["wall D2", "garnet", "piece 1 left left left"]))
    state = resolve(state)
    assert "D2" in walls(state, "once")
    points = expected_points(state, {(1, "once"): 1})
    result = G.result(state)
    assert result is not None and result.scores is not None
    assert dict(result.scores) == {s: pytest.approx(sum(points[s])) for s in SEATS}


# -- hidden information ------------------------------------------------------------------------
def _others(seat: int) -> list[int]:
    return [v for v in (*SEATS, SPECTATOR) if v != seat]


def test_sealed_submission_is_invisible_to_other_seats_and_spectators() -> None:
    state = G.new()
    a = play(state, 1, orders(1, once=["wall D2", "garnet", "piece 1 right down left"]))
    b = play(state, 1, orders(1, twice=["wall E4", "piece 1 down down down"]))
    for viewer in _others(1):
        assert G.view(a, viewer) == G.view(b, viewer)
        assert "D2" not in json.dumps(G.view(a, viewer))
    assert G.view(a, 1) != G.view(b, 1)
    assert "D2" in json.dumps(G.view(a, 1))
    assert G.view(a, HOST) != G.view(b, HOST)
    assert "D2" in json.dumps(G.view(a, HOST))


def test_garnet_spends_stay_hidden_after_the_round_until_the_end_of_the_match() -> None:
    state = G.new()
    texts = {s: orders(1) for s in SEATS}
    with_spend = dict(texts)
    with_spend[1] = orders(1, once=["garnet", "piece 1 down up down"])
    runs = []
    for chosen in (texts, with_spend):
        s = state
        for seat in SEATS:
            s = play(s, seat, chosen[seat])
        runs.append(s)
    plain, spent = runs
    assert G.view(plain, SPECTATOR)["public"]["round"] == 2
    for viewer in _others(1):
        assert G.view(plain, viewer) == G.view(spent, viewer), viewer
    assert G.view(plain, HOST) != G.view(spent, HOST)
    assert G.view(plain, 1) != G.view(spent, 1)
    # through round 2 (still hidden) to the end (revealed)
    plain, spent = resolve(plain), resolve(spent)
    for viewer in _others(1):
        assert G.view(plain, viewer) == G.view(spent, viewer), viewer
    plain, spent = resolve(plain), resolve(spent)
    assert G.result(plain) is not None
    assert G.view(plain, SPECTATOR) != G.view(spent, SPECTATOR)  # revealed at the end of the match


def test_submissions_are_revealed_after_resolution_walls_are_public() -> None:
    state = G.new()
    state = play(state, 1, orders(1, once=["wall D2", "piece 1 down up down"]))
    state = resolve(state)
    assert "D2" in walls(state, "once")
    for viewer in (*SEATS, SPECTATOR, HOST):
        assert "D2" in json.dumps(G.view(state, viewer)["public"])


def test_walls_of_earlier_rounds_count_as_existing_walls() -> None:
    state = G.new()
    # round 1: Twice E4 (diagonal to D3/D5 only) placed; Once B4 (orthogonal to B3) dropped
    state = play(state, 1, orders(1, twice=["wall E4", "piece 1 right left right"]))
    state = play(state, 2, orders(1, once=["wall B4", "piece 1 left right left"]))
    state = resolve(state)
    assert walls(state, "twice") == ["D3", "D5", "E4"]
    assert walls(state, "once") == ["B3", "E4"]
    # round 2: E5 is orthogonal to last round's E4 -> dropped; B2 placed
    state = play(state, 2, orders(2, twice=["wall E5", "piece 1 up down up", "piece 2 up down up"]))
    state = play(state, 3, orders(2, twice=["wall B2", "piece 1 down up down", "piece 2 down up down"]))
    state = resolve(state)
    assert walls(state, "twice") == ["B2", "D3", "D5", "E4"]


def test_two_pieces_of_one_seat_move_together_and_share_a_tick() -> None:
    state = resolve(G.new())  # seat 1 has pieces 1 and 2 on A1 of Once
    assert pieces(state, "once", 1) == {1: "A1", 2: "A1"}
    # piece 1: right B1..F1; right blocked: down F2..F6 (4 unowned) beats up (off board);
    #          right blocked at F6: up F5..F1 and left E6..A6 both 0 unowned at the start
    #          of phase 3 -> the perpendicular: up, ends F1.
    # piece 2: down A2..A6; down blocked: right B6..F6 (4 unowned) beats up (0);
    #          down blocked at F6: left and up both 0 -> the perpendicular: left, ends A6.
    # In phase 2 both enter F6 on tick 5: same player, captured.
    state = play(state, 1, orders(2, once=["piece 1 right right right", "piece 2 down down down"]))
    state = resolve(state)
    # the whole rim is seat 1's, except the three corners the spawns of round 3 took back
    rim = "B1 C1 D1 E1 F2 F3 F4 F5 B6 C6 D6 E6 A2 A3 A4 A5 A1"
    assert owners_of(state, "once", rim) == [1] * 17
    assert owners_of(state, "once", "F1 F6 A6") == [2, 3, 4]
    assert captured(state, "once", 1) == 17
    assert pieces(state, "once", 1) == {1: "F1", 2: "A6", 3: "A1"}


# -- a reference model of one round, written from the ruling, against random play ----------------
Square = tuple[int, int]  # (column, row), from 0
Submitted = dict[str, Any]  # one seat's orders on one board: "walls" [Square], "moves" {number: [direction]}
_CORNERS = (
    {1: "tl", 2: "tr", 3: "br", 4: "bl"},
    {1: "tl", 3: "tr", 2: "br", 4: "bl"},
    {1: "tl", 2: "tr", 4: "br", 3: "bl"},
)
_STEP = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
_PERPENDICULAR = {
    "up": ("left", "right"),
    "down": ("left", "right"),
    "left": ("up", "down"),
    "right": ("up", "down"),
}
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _xy(name: str) -> Square:
    return (ord(name[0]) - 65, int(name[1:]) - 1)


def _name(c: int, r: int) -> str:
    return f"{chr(65 + c)}{r + 1}"


def _corner(board: int, n: int, seat: int) -> Square:
    where = _CORNERS[board][seat]
    return (0 if where in ("tl", "bl") else n - 1, 0 if where in ("tl", "tr") else n - 1)


def _corners_ok(n: int, wall_set: set[Square]) -> bool:
    corners = [(0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1)]
    for start in corners:
        seen, stack = {start}, [start]
        while stack:
            c, r = stack.pop()
            for dc, dr in _STEP.values():
                nxt = (c + dc, r + dr)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and nxt not in wall_set and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        if not any(other in seen for other in corners if other != start):
            return False
    return True


def _ray(p: Square, d: str, n: int, wall_set: set[Square]) -> list[Square]:
    out: list[Square] = []
    c, r = p
    while True:
        c, r = c + _STEP[d][0], r + _STEP[d][1]
        if not (0 <= c < n and 0 <= r < n) or (c, r) in wall_set:
            return out
        out.append((c, r))


def _reference_round(
    board: int, bv: dict[str, Any], subs: dict[int, list[Submitted]]
) -> tuple[set[Square], dict[Square, int], dict[tuple[int, int], Square]]:
    """The walls, owners and piece squares (by seat and number) after one round of `board`."""
    n = bv["size"]
    wall_set = {_xy(w) for w in bv["walls"]}
    own = {(c, r): bv["owners"][r][c] for r in range(n) for c in range(n)}
    pos = {(p["seat"], p["number"]): _xy(p["square"]) for p in bv["pieces"]}
    corners = {_corner(board, n, s) for s in SEATS}
    submitted = [(s, w) for s in SEATS if s in subs for w in subs[s][board]["walls"]]
    cand = []
    for _s, w in submitted:
        if w not in corners and w not in wall_set and w not in pos.values() and w not in cand:
            cand.append(w)
    if board < 2:

        def adjacent(a: Square, b: Square) -> bool:
            dc, dr = abs(a[0] - b[0]), abs(a[1] - b[1])
            return max(dc, dr) == 1 if board == 0 else dc + dr == 1

        others = wall_set | set(cand)
        bad = {w for w in cand if any(o != w and adjacent(w, o) for o in others)}
        cand = [w for w in cand if w not in bad]
    decided = set()
    for _s, w in submitted:
        if w in cand and w not in decided:
            decided.add(w)
            if _corners_ok(n, wall_set | {w}):
                wall_set.add(w)
    for phase in range(3):
        paths: list[tuple[int, list[Square]]] = []
        for (s, k), p in list(pos.items()):
            if s not in subs:
                continue
            d = subs[s][board]["moves"][k][phase]
            path = _ray(p, d, n, wall_set)
            if not path:
                cc = _corner(board, n, s)
                best: tuple[tuple[int, int, int], list[Square]] | None = None
                for i, alt in enumerate((*_PERPENDICULAR[d], _OPPOSITE[d])):
                    alt_path = _ray(p, alt, n, wall_set)
                    if not alt_path:
                        continue
                    free = sum(1 for x in alt_path if own[x] == 0)
                    toward = _STEP[alt][0] * (cc[0] - p[0]) + _STEP[alt][1] * (cc[1] - p[1]) > 0
                    key = (-free, 0 if i < 2 else 1, 0 if toward else 1)
                    if best is None or key < best[0]:
                        best = (key, alt_path)
                path = best[1] if best else []
            if path:
                pos[(s, k)] = path[-1]
                paths.append((s, path))
        for tick in range(max((len(p) for _s, p in paths), default=0)):
            entered: dict[Square, set[int]] = {}
            for s, run in paths:
                if tick < len(run):
                    entered.setdefault(run[tick], set()).add(s)
            for x, who in entered.items():
                if len(who) == 1:
                    own[x] = next(iter(who))
    return wall_set, own, pos


def test_random_rounds_match_a_reference_model_of_the_ruling() -> None:
    rng = random.Random(2026)
    directions = list(_STEP)
    for _ in range(40):
        options = {"boards": {b: {"size": rng.randint(4, 9)} for b in BOARDS}}
        state = G.new(options)
        for rnd in (1, 2, 3):
            before = G.view(state, SPECTATOR)["public"]
            subs = {}
            for seat in SEATS:
                if rng.random() < 0.2:
                    continue  # a missing submission
                per, parts = [], []
                for b, bv in enumerate(before["boards"]):
                    n = bv["size"]
                    ws = list(
                        dict.fromkeys(
                            (rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, b + 1))
                        )
                    )
                    mv = {
                        p["number"]: [rng.choice(directions) for _ in range(3)]
                        for p in bv["pieces"]
                        if p["seat"] == seat
                    }
                    per.append({"walls": ws, "moves": mv})
                    parts += [f"{BOARDS[b]} wall {_name(*w)}" for w in ws]
                    parts += [f"{BOARDS[b]} piece {k} {' '.join(v)}" for k, v in mv.items()]
                subs[seat] = per
                state = play(state, seat, "; ".join(parts))
            if len(subs) < 4:
                state = resolve(state)
            after = G.view(state, SPECTATOR)["public"]
            for b, bv in enumerate(before["boards"]):
                wall_set, own, pos = _reference_round(b, bv, subs)
                n = bv["size"]
                if rnd < 3:  # spawns for the next round
                    for s in SEATS:
                        own[_corner(b, n, s)] = s
                        pos[(s, rnd + 1)] = _corner(b, n, s)
                av = after["boards"][b]
                assert {_xy(w) for w in av["walls"]} == wall_set
                assert {(c, r): av["owners"][r][c] for r in range(n) for c in range(n)} == own
                assert {(p["seat"], p["number"]): _xy(p["square"]) for p in av["pieces"]} == pos
