"""Back to the Wall for the planner: one board's round resolved quickly.

The planner judges thousands of trial orders a move.  Through `game.apply` a round costs ~3 ms
(checks, logs and notes of every tick, a new state), so normal judged ~250 trials in its 0.8 s.
`board_owners` resolves one board's movement as resolve.py does (the same rays, the same
fallback rule, the same ticks: a square changes hands unless pieces of different seats enter it
on one tick) but keeps only the owners; the walls come from resolve.py's own `resolve_walls`.
A test checks both against `resolve_board` on random orders of every seat, round after round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import product

from games.back_to_the_wall.board import DELTAS, DIRECTIONS, SEATS, Board, BoardOrders
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
    if spawn:
        for seat in SEATS:
            owners[board.corner(seat)] = seat
    return owners


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
