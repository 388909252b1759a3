"""Back to the Wall for the planner: one board's round resolved quickly.

The planner judges thousands of trial orders a move.  Through `game.apply` a round costs ~3 ms
(checks, logs and notes of every tick, a new state), so normal judged ~250 trials in its 0.8 s.
`board_owners` resolves one board's movement as resolve.py does (the same rays, the same
fallback rule, the same ticks: a square changes hands unless pieces of different seats enter it
on one tick) but keeps only the owners; the walls come from resolve.py's own `resolve_walls`.
A test checks both against `resolve_board` on random orders of every seat, round after round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import product

from games.back_to_the_wall.board import DELTAS, DIRECTIONS, ROUNDS, SEATS, Board, BoardOrders, Piece
from games.back_to_the_wall.resolve import ray, resolve_walls

#: every piece's possible orders: three directions
TRIPLES: tuple[tuple[str, ...], ...] = tuple(product(DIRECTIONS, repeat=3))

Rays = Callable[[int, str], tuple[int, ...]]


def ray_cache(size: int, walls: frozenset[int]) -> Rays:
    """`ray` on one board's walls, each (square, direction) computed once."""
    cache: dict[tuple[int, str], tuple[int, ...]] = {}

    def rays(square: int, direction: str) -> tuple[int, ...]:
        key = (square, direction)
        path = cache.get(key)
        if path is None:
            path = cache[key] = ray(square, direction, size, walls)
        return path

    return rays


def board_walls(board: Board, orders: Mapping[int, BoardOrders | None]) -> tuple[frozenset[int], dict[int, int]]:
    """The walls after this round's submissions (resolve.py's rules) and the walls each seat placed."""
    walls, _notes, placed = resolve_walls(board, orders)
    return walls, placed


def board_owners(board: Board, walls: frozenset[int], orders: Mapping[int, BoardOrders | None],
                 rays: Rays, spawn: bool) -> list[int]:
    """Owners of `board`'s squares after the round's three movement phases (and the spawn)."""
    owners, _squares = board_moves(board, orders, rays)
    if spawn:
        for seat in SEATS:
            owners[board.corner(seat)] = seat
    return owners


def board_moves(board: Board, orders: Mapping[int, BoardOrders | None], rays: Rays) -> tuple[list[int], list[int]]:
    """Owners of `board`'s squares after the round's three movement phases (no spawn), and where
    each of `board.pieces` stands then."""
    size = board.size
    owners = list(board.owners)
    seats = [p.seat for p in board.pieces]
    squares = [p.square for p in board.pieces]
    corners = [board.corner(p.seat) for p in board.pieces]
    directions: list[tuple[str, ...] | None] = []
    for piece in board.pieces:
        mine = orders.get(piece.seat)
        directions.append(None if mine is None else mine.directions(piece.number))
    for phase in range(3):
        # every path (and fallback) is fixed from the owners at the start of the phase
        paths: list[tuple[int, tuple[int, ...]]] = []
        for i, dirs in enumerate(directions):
            if dirs is None or phase >= len(dirs):
                continue
            wanted = dirs[phase]
            path = rays(squares[i], wanted) or _fallback(squares[i], wanted, corners[i], size, owners, rays)
            if path:
                paths.append((seats[i], path))
                squares[i] = path[-1]
        longest = max((len(p) for _s, p in paths), default=0)
        for tick in range(longest):
            entered: dict[int, int] = {}
            for seat, path in paths:
                if tick < len(path):
                    sq = path[tick]
                    seen = entered.get(sq)
                    if seen is None:
                        entered[sq] = seat
                    elif seen != seat:
                        entered[sq] = -1  # different seats on one square: no change this tick
            for sq, seat in entered.items():
                if seat != -1:
                    owners[sq] = seat
    return owners, squares


def next_board(board: Board, walls: frozenset[int], owners: list[int], squares: list[int],
               spawn: int | None) -> Board:
    """The board after a round (`board_moves`' owners and squares), with piece number `spawn` (if
    any) on every corner, capturing it, as resolve_board leaves it."""
    pieces = [Piece(p.seat, p.number, sq) for p, sq in zip(board.pieces, squares, strict=True)]
    cells = list(owners)
    if spawn is not None:
        for seat in SEATS:
            cells[board.corner(seat)] = seat
            pieces.append(Piece(seat, spawn, board.corner(seat)))
    return Board(board.index, board.size, walls, tuple(cells), tuple(sorted(pieces)))


def quick_moves(board: Board, seat: int, rays: Rays) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """A fast plan of `seat`'s directions: each piece in turn, phase by phase, takes the direction
    whose path holds the most squares not yet its seat's (then the longest), as if alone on the
    board.  Squares its earlier pieces and phases cross count as its seat's."""
    mine = {sq for sq, owner in enumerate(board.owners) if owner == seat}
    moves: list[tuple[int, tuple[str, ...]]] = []
    for piece in board.pieces_of(seat):
        square = piece.square
        chosen: list[str] = []
        for _phase in range(3):
            best: tuple[int, int] = (-1, -1)
            taken, path = DIRECTIONS[0], ()
            for direction in DIRECTIONS:
                trial = rays(square, direction)
                key = (sum(1 for sq in trial if sq not in mine), len(trial))
                if key > best:
                    best, taken, path = key, direction, trial
            chosen.append(taken)
            if path:
                square = path[-1]
                mine.update(path)
        moves.append((piece.number, tuple(chosen)))
    return tuple(moves)


def play_out(board: Board, first_round: int, walls: Sequence[Mapping[int, tuple[tuple[int, int], ...]]]) -> Board:
    """The board at the end of the match from `board` at the start of round `first_round`: in each
    round left every seat submits its walls from `walls` (one map a round) and `quick_moves`, and the
    round resolves as resolve_board does."""
    for k, submitted in enumerate(walls):
        placed, _placed = board_walls(board, {s: BoardOrders(w) for s, w in submitted.items()})
        rays = ray_cache(board.size, placed)
        orders = {s: BoardOrders(submitted.get(s, ()), quick_moves(board, s, rays)) for s in SEATS}
        owners, squares = board_moves(board, orders, rays)
        number = first_round + k
        board = next_board(board, placed, owners, squares, number + 1 if number < ROUNDS else None)
    return board


def _fallback(square: int, intended: str, corner: int, size: int, owners: list[int], rays: Rays) -> tuple[int, ...]:
    """resolve.fallback's path without its report: the open direction with the most squares owned
    by no one, then a perpendicular before the opposite, then the one toward the piece's corner."""
    row, col = divmod(square, size)
    crow, ccol = divmod(corner, size)
    start = DIRECTIONS.index(intended)
    best: tuple[int, int, int, int] | None = None
    taken: tuple[int, ...] = ()
    for turn in (1, 3, 2):
        direction = DIRECTIONS[(start + turn) % 4]
        path = rays(square, direction)
        if not path:
            continue
        dc, dr = DELTAS[direction]
        toward = dc * (ccol - col) + dr * (crow - row) > 0
        key = (-sum(1 for sq in path if owners[sq] == 0), 2 if turn == 2 else 1, 0 if toward else 1, turn)
        if best is None or key < best:
            best, taken = key, path
    return taken
