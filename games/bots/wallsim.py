"""Back to the Wall for the planner: one board's round resolved quickly, and a cheap model of a seat.

The planner judges thousands of trial orders a move.  Through `game.apply` a round costs ~3 ms
(checks, logs and notes of every tick, a new state), so normal judged ~250 trials in its 0.8 s.
`board_owners` resolves one board's movement as resolve.py does (the same `ray` and `fallback`,
the same ticks: a square changes hands unless pieces of different seats enter it on one tick)
but keeps only the owners; the walls come from resolve.py's own `resolve_walls`.  A test checks
both against `resolve_board` on random orders.

`greedy_moves` is what a seat that plans its own pieces and ignores the others would order: per
piece, the three directions whose path captures the most squares it does not own.  Normal and
strong judge their orders against such opponents (a random player's orders say little about a
seat that plans); `slack` lets the model pick among nearly best triples, so samples differ.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from itertools import product

from games.back_to_the_wall.board import DIRECTIONS, SEATS, Board, BoardOrders
from games.back_to_the_wall.resolve import fallback, ray, resolve_walls

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
            path = rays(squares[i], wanted)
            if not path:
                path = fallback(squares[i], wanted, corners[i], size, walls, owners, rays).path
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


def greedy_moves(board: Board, seat: int, rng: random.Random, slack: int = 1) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """`seat`'s directions on `board` if it planned its pieces alone on today's walls: per piece, a
    triple among those capturing at least the most squares not yet its own less `slack`."""
    size = board.size
    walls = board.walls
    rays = ray_cache(size, walls)
    owners = list(board.owners)
    corner = board.corner(seat)
    out: list[tuple[int, tuple[str, ...]]] = []
    for piece in board.pieces_of(seat):
        scored: list[tuple[int, tuple[str, ...], set[int]]] = []
        for triple in TRIPLES:
            square = piece.square
            gained: set[int] = set()
            seen = owners[:]  # the owners as each phase starts: a fallback counts the free squares
            for direction in triple:
                path = rays(square, direction) or fallback(square, direction, corner, size, walls, seen, rays).path
                for sq in path:
                    if owners[sq] != seat:
                        gained.add(sq)
                    seen[sq] = seat
                if path:
                    square = path[-1]
            scored.append((len(gained), triple, gained))
        best = max(s[0] for s in scored)
        _n, triple, gained = rng.choice([s for s in scored if s[0] >= best - slack])
        out.append((piece.number, triple))
        for sq in gained:
            owners[sq] = seat  # the next piece plans around what this one takes
    return tuple(out)
