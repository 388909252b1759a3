"""Back to the Wall, resolution steps 2-4: movement, fallback, capture (rules.py, resolve.py)."""

from __future__ import annotations

from games.back_to_the_wall.board import Board, BoardLog, BoardOrders, Orders, make_board, parse_action
from games.back_to_the_wall.resolve import resolve_board


def bo(text: str) -> BoardOrders:
    action = parse_action("once " + text)
    assert isinstance(action, Orders)
    return action.boards[0]


def run(
    name: str, rows: list[str], pieces: dict[tuple[int, int], str], orders: dict[int, str]
) -> tuple[Board, Board, BoardLog]:
    board = make_board(name, rows, pieces)
    new, log, _placed = resolve_board(board, {s: bo(t) for s, t in orders.items()}, None)
    return board, new, log


def owners(board: Board) -> list[str]:
    n = board.size
    cells: list[str] = []
    for i, owner in enumerate(board.owners):
        cells.append("#" if i in board.walls else (str(owner) if owner else "."))
    return ["".join(cells[r * n : (r + 1) * n]) for r in range(n)]


def where(board: Board) -> dict[tuple[int, int], str]:
    return {(p.seat, p.number): board.square(p.square) for p in board.pieces}


def phase_paths(board: Board, log: BoardLog, seat: int, number: int = 1) -> list[tuple[str | None, str]]:
    for m in log.moves:
        if (m.seat, m.number) == (seat, number):
            return [(p.taken, "".join(board.square(x) + " " for x in p.path).strip()) for p in m.phases]
    raise AssertionError("no such piece")


EMPTY6 = ["......"] * 6


# -- movement ---------------------------------------------------------------------
def test_a_piece_slides_each_direction_until_the_border_and_captures_every_square_it_enters() -> None:
    _b, new, _log = run("once", EMPTY6, {(1, 1): "A1"}, {1: "piece 1 right down left"})
    assert owners(new) == [".11111", ".....1", ".....1", ".....1", ".....1", "111111"]
    assert where(new) == {(1, 1): "A6"}


def test_a_piece_stops_before_a_wall() -> None:
    rows = ["...#..", "......", "......", "......", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "A1"}, {1: "piece 1 right down down"})
    # phase 3: down is blocked by the border at C6; right (D6 E6 F6) has more unowned squares
    # than left (B6 A6) or up (all captured by now)
    assert phase_paths(new, log, 1) == [("right", "B1 C1"), ("down", "C2 C3 C4 C5 C6"), ("right", "D6 E6 F6")]
    assert where(new) == {(1, 1): "F6"}


def test_the_start_square_is_not_captured_by_leaving_it() -> None:
    rows = ["......", "......", "..2...", "......", "......", "......"]
    _b, new, _log = run("once", rows, {(1, 1): "C3"}, {1: "piece 1 right up left"})
    assert new.owners[2 * 6 + 2] == 2


def test_pieces_never_block_each_other_and_pass_through_each_other() -> None:
    _b, new, log = run(
        "once",
        EMPTY6,
        {(1, 1): "A1", (2, 1): "F1"},
        {1: "piece 1 right down down", 2: "piece 1 left down down"},
    )
    assert phase_paths(new, log, 1)[0] == ("right", "B1 C1 D1 E1 F1")
    assert phase_paths(new, log, 2)[0] == ("left", "E1 D1 C1 B1 A1")
    # later ticks win: seat 2 entered B1, C1 after seat 1; seat 1 entered D1, E1 after seat 2
    assert owners(new)[0] == "222111"


def test_pieces_move_one_square_per_tick_at_the_same_time() -> None:
    # seat 2 enters C1 on tick 1, seat 1 on tick 2: seat 1 owns it at the end
    _b, new, _log = run(
        "once",
        EMPTY6,
        {(1, 1): "A1", (2, 1): "C2"},
        {1: "piece 1 right down left", 2: "piece 1 up down down"},
    )
    assert new.owners[2] == 1
    # from C3 seat 2 needs two ticks to reach C1: both enter it on tick 2, so it stays unowned
    _b, new, log = run(
        "once",
        EMPTY6,
        {(1, 1): "A1", (2, 1): "C3"},
        {1: "piece 1 right down left", 2: "piece 1 up down down"},
    )
    assert new.owners[2] == 0 and (1, 2, 2) in log.contested


def test_same_tick_entry_by_different_players_does_not_change_hands() -> None:
    rows = ["...3...", ".......", ".......", ".......", ".......", ".......", "......."]
    _b, new, log = run(
        "twice",
        rows,
        {(1, 1): "A1", (2, 1): "G1"},
        {1: "piece 1 right down down", 2: "piece 1 left down down"},
    )
    # both enter D1 on tick 3: it stays seat 3's; other squares go to the later visitor
    assert owners(new)[0] == "2223111"
    assert (1, 3, 3) in log.contested


def test_a_contested_square_can_change_hands_later() -> None:
    rows = ["......."] * 7
    _b, new, _log = run(
        "twice", rows, {(1, 1): "A1", (2, 1): "G1"}, {1: "piece 1 right left down", 2: "piece 1 left down up"}
    )
    # phase 1: D1 contested; phase 2: seat 1 (now at G1) moves left alone over D1 and takes it
    assert new.owners[3] == 1


def test_two_pieces_of_one_player_on_one_square_in_one_tick_capture_it() -> None:
    rows = ["......."] * 7
    _b, new, log = run(
        "twice", rows, {(1, 1): "A1", (1, 2): "G1"}, {1: "piece 1 right down down; piece 2 left down down"}
    )
    assert new.owners[3] == 1 and not log.contested


def test_recapture_is_allowed() -> None:
    rows = ["222222"] + ["......"] * 5
    _b, new, _log = run("once", rows, {(1, 1): "A1"}, {1: "piece 1 right down down"})
    assert owners(new)[0] == "211111"


def test_a_missing_submission_leaves_pieces_in_place() -> None:
    board = make_board("once", EMPTY6, {(1, 1): "C3", (2, 1): "D4"})
    new, log, _ = resolve_board(board, {1: bo("piece 1 up up up"), 2: None}, None)
    assert where(new)[(2, 1)] == "D4"
    assert [p.taken for p in log.moves[1].phases] == [None, None, None]


# -- the blocked-direction fallback -----------------------------------------------------
def test_blocked_piece_takes_the_direction_with_most_unowned_squares() -> None:
    # at A1, up is blocked; right crosses 3 unowned squares, down (the opposite) 5
    rows = ["..22..", "......", "......", "......", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "A1"}, {1: "piece 1 up up up"})
    assert phase_paths(new, log, 1)[0] == ("down", "A2 A3 A4 A5 A6")


def test_fallback_counts_unowned_squares_not_path_length() -> None:
    # right: 5 squares, all owned; down: 2 squares (wall at A4), both unowned
    rows = [".33333", "......", "......", "#.....", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "A1"}, {1: "piece 1 left up up"})
    assert phase_paths(new, log, 1)[0] == ("down", "A2 A3")


def test_fallback_counts_squares_owned_by_the_mover_as_owned() -> None:
    rows = [".11111", "......", "......", "#.....", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "A1"}, {1: "piece 1 left up up"})
    assert phase_paths(new, log, 1)[0] == ("down", "A2 A3")


def test_fallback_tie_goes_to_a_perpendicular_before_the_opposite() -> None:
    # at A1 intended up: right is perpendicular, down is opposite; both 5 unowned squares
    _b, new, log = run("once", EMPTY6, {(1, 1): "A1"}, {1: "piece 1 up up up"})
    assert phase_paths(new, log, 1)[0] == ("right", "B1 C1 D1 E1 F1")


def test_fallback_tie_between_perpendiculars_goes_toward_the_own_corner() -> None:
    # at C1 intended up (blocked); down blocked by a wall; left: B1 A1 (2 unowned),
    # right: D1 E1 F1 with D1 owned (2 unowned).  Seat 1 (corner A1) goes left, seat 2 (F1) right.
    rows = ["...4..", "..#...", "......", "......", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "C1"}, {1: "piece 1 up up up"})
    assert phase_paths(new, log, 1)[0] == ("left", "B1 A1")
    _b, new, log = run("once", rows, {(2, 1): "C1"}, {2: "piece 1 up up up"})
    assert phase_paths(new, log, 2)[0] == ("right", "D1 E1 F1")


def test_fallback_toward_corner_uses_the_corner_of_that_board() -> None:
    # on Twice seat 3 starts top-right (G1) and seat 2 bottom-right: on a left edge square,
    # intended left (blocked), up/down tie: seat 3 goes up, seat 2 goes down
    rows = [".......", ".......", ".......", "#......", ".......", ".......", "......."]
    rows = ["......."] * 3 + ["......."] + ["......."] * 3
    rows[3] = ".#....."
    _b, new, log = run("twice", rows, {(3, 1): "A4"}, {3: "piece 1 left left left"})
    assert phase_paths(new, log, 3)[0] == ("up", "A3 A2 A1")
    _b, new, log = run("twice", rows, {(2, 1): "A4"}, {2: "piece 1 left left left"})
    assert phase_paths(new, log, 2)[0] == ("down", "A5 A6 A7")


def test_more_unowned_squares_beat_nearness_to_the_intended_direction() -> None:
    # at C1 intended up: left B1 A1 owned, right D1..F1 owned, down C2..C6 unowned -> down
    rows = ["22.222", "......", "......", "......", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "C1"}, {1: "piece 1 up up up"})
    assert phase_paths(new, log, 1)[0] == ("down", "C2 C3 C4 C5 C6")


def test_fallback_is_fixed_from_ownership_at_the_start_of_the_phase() -> None:
    # seat 1 at A1 is blocked going up: right has 5 unowned squares, down 4 (A6 is seat 4's).
    # Seat 2 sweeps row 1 in the same phase, but the choice was fixed before anyone moved.
    rows = ["......", "......", "......", "......", "......", "4....."]
    _b, new, log = run(
        "once",
        rows,
        {(1, 1): "A1", (2, 1): "F1"},
        {1: "piece 1 up down down", 2: "piece 1 left down down"},
    )
    assert phase_paths(new, log, 1)[0] == ("right", "B1 C1 D1 E1 F1")
    assert phase_paths(new, log, 2)[0] == ("left", "E1 D1 C1 B1 A1")


def test_a_boxed_in_piece_stays() -> None:
    rows = ["......", "..#...", ".#.#..", "..#...", "......", "......"]
    _b, new, log = run("once", rows, {(1, 1): "C3"}, {1: "piece 1 up left down"})
    assert where(new) == {(1, 1): "C3"}
    assert [(p.submitted, p.taken, p.path) for p in log.moves[0].phases] == [
        ("up", None, ()),
        ("left", None, ()),
        ("down", None, ()),
    ]


def test_fallback_is_used_only_when_the_submitted_direction_is_blocked() -> None:
    _b, new, log = run("once", EMPTY6, {(1, 1): "A2"}, {1: "piece 1 up right down"})
    assert phase_paths(new, log, 1) == [("up", "A1"), ("right", "B1 C1 D1 E1 F1"), ("down", "F2 F3 F4 F5 F6")]


def test_each_phase_starts_where_the_last_one_stopped() -> None:
    _b, new, log = run("once", EMPTY6, {(3, 1): "F6"}, {3: "piece 1 up left down"})
    assert phase_paths(new, log, 3) == [
        ("up", "F5 F4 F3 F2 F1"),
        ("left", "E1 D1 C1 B1 A1"),
        ("down", "A2 A3 A4 A5 A6"),
    ]
    assert where(new) == {(3, 1): "A6"}


def test_spawning_places_a_new_piece_on_every_corner_and_captures_it() -> None:
    rows = ["3....."] + ["......"] * 5
    board = make_board("once", rows, {(1, 1): "C3"})
    new, log, _ = resolve_board(board, {1: bo("piece 1 down down down")}, 2)
    assert where(new)[(1, 2)] == "A1" and new.owners[0] == 1
    assert {(p.seat, p.number): new.square(p.square) for p in log.spawned} == {
        (1, 2): "A1",
        (2, 2): "F1",
        (3, 2): "F6",
        (4, 2): "A6",
    }
    # capture on spawn happens after movement: piece 1 of seat 1 ended on C6, seat 3's corner F6
    assert new.owners[35] == 3
