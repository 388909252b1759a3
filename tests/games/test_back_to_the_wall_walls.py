"""Back to the Wall, resolution step 1: walls (rules.py, resolve.py)."""

from __future__ import annotations

from collections.abc import Mapping

from games.back_to_the_wall.board import Board, BoardOrders, Orders, make_board, parse_action
from games.back_to_the_wall.resolve import resolve_board, resolve_walls
from games.core.grid import parse_index

CORNER_PIECES = {(1, 1): "A1", (2, 1): "F1", (3, 1): "F6", (4, 1): "A6"}


def bo(text: str) -> BoardOrders:
    """One board's orders from notation without the board word."""
    action = parse_action("once " + text)
    assert isinstance(action, Orders)
    return action.boards[0]


def empty(
    name: str, size: int, walls: tuple[str, ...] = (), pieces: dict[tuple[int, int], str] | None = None
) -> Board:
    rows = [["."] * size for _ in range(size)]
    for w in walls:
        i = parse_index(w, size, size)
        rows[i // size][i % size] = "#"
    return make_board(name, ["".join(r) for r in rows], pieces)


def outcomes(board: Board, orders: Mapping[int, BoardOrders | None]) -> list[tuple[int, str, str]]:
    _walls, notes, _placed = resolve_walls(board, orders)
    return [(n.seat, board.square(n.square), n.outcome) for n in notes]


def wall_names(board: Board, orders: Mapping[int, BoardOrders | None]) -> list[str]:
    walls, _notes, _placed = resolve_walls(board, orders)
    return sorted(board.square(w) for w in walls)


# -- drops for the square itself ---------------------------------------------------
def test_wall_on_any_corner_is_dropped() -> None:
    board = empty("thrice", 8, pieces={(1, 1): "C3"})
    result = outcomes(board, {1: bo("wall A1"), 2: bo("wall H8"), 3: bo("wall H1 A8")})
    assert result == [(1, "A1", "corner"), (2, "H8", "corner"), (3, "H1", "corner"), (3, "A8", "corner")]
    assert wall_names(board, {1: bo("wall A1")}) == []


def test_wall_on_an_existing_wall_is_dropped() -> None:
    board = empty("thrice", 8, walls=("D4",))
    assert outcomes(board, {2: bo("wall D4")}) == [(2, "D4", "wall")]


def test_wall_on_a_piece_is_dropped_whoever_owns_the_piece() -> None:
    board = empty("thrice", 8, pieces={(2, 1): "C3", (1, 1): "E5"})
    assert outcomes(board, {1: bo("wall C3"), 3: bo("wall E5")}) == [(1, "C3", "piece"), (3, "E5", "piece")]


def test_wall_on_a_free_square_is_placed() -> None:
    board = empty("thrice", 8)
    walls, notes, placed = resolve_walls(board, {1: bo("wall D4")})
    assert [board.square(w) for w in walls] == ["D4"]
    assert notes[0].outcome == "placed"
    assert placed == {1: 1, 2: 0, 3: 0, 4: 0}


def test_missing_orders_place_no_walls() -> None:
    board = empty("twice", 7, walls=("D3",))
    walls, notes, placed = resolve_walls(board, {1: None, 2: None, 3: None, 4: None})
    assert walls == board.walls and notes == () and set(placed.values()) == {0}


# -- adjacency on Once -----------------------------------------------------------------
def test_once_drops_a_wall_diagonally_adjacent_to_an_existing_wall() -> None:
    board = empty("once", 6, walls=("B3",))
    assert outcomes(board, {1: bo("wall C4")}) == [(1, "C4", "adjacent")]


def test_once_drops_a_wall_orthogonally_adjacent_to_an_existing_wall() -> None:
    board = empty("once", 6, walls=("B3",))
    assert outcomes(board, {1: bo("wall B4")}) == [(1, "B4", "adjacent")]


def test_once_drops_both_walls_of_a_diagonal_pair_submitted_together() -> None:
    board = empty("once", 6)
    assert outcomes(board, {1: bo("wall C3"), 2: bo("wall D4")}) == [
        (1, "C3", "adjacent"),
        (2, "D4", "adjacent"),
    ]


def test_once_drops_both_walls_of_an_orthogonal_pair_submitted_together() -> None:
    board = empty("once", 6)
    assert outcomes(board, {3: bo("wall C3"), 4: bo("wall C4")}) == [
        (3, "C3", "adjacent"),
        (4, "C4", "adjacent"),
    ]


def test_once_keeps_walls_two_squares_apart() -> None:
    board = empty("once", 6, walls=("B3",))
    assert outcomes(board, {1: bo("wall D3"), 2: bo("wall D5")}) == [(1, "D3", "placed"), (2, "D5", "placed")]


def test_adjacency_ignores_walls_already_dropped_for_corner_wall_or_piece() -> None:
    # C3 is dropped for the piece on it, B1 for... nothing: its neighbour A1 is a dropped corner wall
    board = empty("once", 6, pieces={(4, 1): "C3"})
    result = outcomes(board, {1: bo("wall C3"), 2: bo("wall D4"), 3: bo("wall A1"), 4: bo("wall B1")})
    assert result == [(1, "C3", "piece"), (2, "D4", "placed"), (3, "A1", "corner"), (4, "B1", "placed")]


def test_adjacency_ignores_a_wall_dropped_for_standing_on_a_wall() -> None:
    board = empty("once", 6, walls=("E5",))
    # E5 is dropped (already a wall) but the existing wall at E5 still counts for D4
    assert outcomes(board, {1: bo("wall E5"), 2: bo("wall C2")}) == [(1, "E5", "wall"), (2, "C2", "placed")]
    assert outcomes(board, {2: bo("wall D4")}) == [(2, "D4", "adjacent")]


# -- adjacency on Twice and Thrice ------------------------------------------------------------
def test_twice_drops_orthogonally_adjacent_walls() -> None:
    board = empty("twice", 7, walls=("D4",))
    assert outcomes(board, {1: bo("wall D3")}) == [(1, "D3", "adjacent")]
    assert outcomes(board, {1: bo("wall B2"), 2: bo("wall C2")}) == [
        (1, "B2", "adjacent"),
        (2, "C2", "adjacent"),
    ]


def test_twice_allows_diagonally_adjacent_walls() -> None:
    board = empty("twice", 7, walls=("D4",))
    assert outcomes(board, {1: bo("wall C3"), 2: bo("wall E5 B6")}) == [
        (1, "C3", "placed"),
        (2, "E5", "placed"),
        (2, "B6", "placed"),
    ]


def test_twice_one_players_own_two_adjacent_walls_are_both_dropped() -> None:
    board = empty("twice", 7)
    assert outcomes(board, {2: bo("wall C3 C4")}) == [(2, "C3", "adjacent"), (2, "C4", "adjacent")]


def test_a_chain_of_adjacent_walls_is_dropped_entirely() -> None:
    board = empty("twice", 7)
    result = outcomes(board, {1: bo("wall C3"), 2: bo("wall C4"), 3: bo("wall C5")})
    assert [r[2] for r in result] == ["adjacent"] * 3


def test_thrice_has_no_adjacency_rule() -> None:
    board = empty("thrice", 8, walls=("D4",))
    result = outcomes(board, {1: bo("wall D3 C3 D5"), 2: bo("wall E5")})
    assert [r[2] for r in result] == ["placed"] * 4


# -- one square from several players ------------------------------------------------------------
def test_same_square_from_several_players_is_one_wall_placed_for_each() -> None:
    board = empty("once", 6)
    walls, notes, placed = resolve_walls(board, {1: bo("wall C3"), 3: bo("wall C3"), 4: bo("wall C3")})
    assert [board.square(w) for w in walls] == ["C3"]
    assert [(n.seat, n.outcome) for n in notes] == [(1, "placed"), (3, "placed"), (4, "placed")]
    assert placed == {1: 1, 2: 0, 3: 1, 4: 1}


def test_same_square_from_several_players_is_not_adjacent_to_itself_but_drops_together() -> None:
    board = empty("once", 6)
    result = outcomes(board, {1: bo("wall C3"), 2: bo("wall C3"), 3: bo("wall D3")})
    assert result == [(1, "C3", "adjacent"), (2, "C3", "adjacent"), (3, "D3", "adjacent")]


# -- connectivity, in seat order then each player's order ------------------------------------------
def test_a_wall_that_cuts_a_corner_off_from_every_other_corner_is_dropped() -> None:
    board = empty("thrice", 8, walls=("B1",))
    assert outcomes(board, {2: bo("wall A2")}) == [(2, "A2", "isolates")]


def test_connectivity_is_checked_one_wall_at_a_time_in_seat_order() -> None:
    board = empty("thrice", 8)
    assert outcomes(board, {1: bo("wall B1"), 2: bo("wall A2")}) == [
        (1, "B1", "placed"),
        (2, "A2", "isolates"),
    ]
    assert outcomes(board, {1: bo("wall A2"), 2: bo("wall B1")}) == [
        (1, "A2", "placed"),
        (2, "B1", "isolates"),
    ]


def test_connectivity_follows_each_players_own_order() -> None:
    board = empty("thrice", 8)
    assert outcomes(board, {3: bo("wall A2 B1")}) == [(3, "A2", "placed"), (3, "B1", "isolates")]
    assert outcomes(board, {3: bo("wall B1 A2")}) == [(3, "B1", "placed"), (3, "A2", "isolates")]


def test_an_isolating_wall_from_several_players_is_dropped_for_each() -> None:
    board = empty("thrice", 8, walls=("B1",))
    walls, notes, placed = resolve_walls(board, {2: bo("wall A2"), 4: bo("wall A2")})
    assert [(n.seat, n.outcome) for n in notes] == [(2, "isolates"), (4, "isolates")]
    assert walls == board.walls and placed[2] == placed[4] == 0


def test_cutting_a_corner_off_with_a_larger_enclosure_is_dropped() -> None:
    # walls C1 C2 B3 A3 would shut A1-B2 in: the last one completing the box is dropped
    board = empty("thrice", 8, walls=("C1", "C2", "B3"))
    assert outcomes(board, {1: bo("wall A3")}) == [(1, "A3", "isolates")]


def test_splitting_the_board_into_two_halves_with_two_corners_each_is_allowed() -> None:
    # "leave any corner unconnected to every other corner": A1 still reaches H1, A8 reaches H8
    board = empty("thrice", 8, walls=("B4", "C4", "D4", "E4", "F4", "G4", "H4"))
    assert outcomes(board, {1: bo("wall A4")}) == [(1, "A4", "placed")]


def test_a_wall_that_would_isolate_a_pair_of_corners_from_each_other_only_is_fine_but_a_lone_corner_is_not() -> None:
    # after A4 splits the board, cutting H1 off from A1 leaves H1 alone: dropped
    board = empty("thrice", 8, walls=("A4", "B4", "C4", "D4", "E4", "F4", "G4", "H4", "E1", "E2"))
    assert outcomes(board, {1: bo("wall E3")}) == [(1, "E3", "isolates")]


def test_resolve_board_applies_the_surviving_walls_before_movement() -> None:
    board = empty("thrice", 8, pieces={(1, 1): "A1"})
    new, log, placed = resolve_board(board, {1: bo("wall D1; piece 1 right down down")}, None)
    # the new wall at D1 stops the piece moving right at C1
    assert log.moves[0].phases[0].path == (parse_index("B1", 8, 8), parse_index("C1", 8, 8))
    assert placed[1] == 1 and parse_index("D1", 8, 8) in new.walls


def test_pieces_block_walls_where_they_stand_when_the_round_starts() -> None:
    # the piece on C3 leaves it this round: the wall on C3 is still dropped; the wall on F3,
    # where the piece is heading, is placed and stops it at E3
    board = empty("thrice", 8, pieces={(2, 1): "C3"})
    _new, log, _placed = resolve_board(board, {1: bo("wall C3 F3"), 2: bo("piece 1 right down left")}, None)
    assert [(n.seat, board.square(n.square), n.outcome) for n in log.walls] == [
        (1, "C3", "piece"),
        (1, "F3", "placed"),
    ]
    assert [board.square(x) for x in log.moves[0].phases[0].path] == ["D3", "E3"]
