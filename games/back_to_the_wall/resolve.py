"""Back to the Wall: resolving one board for one round, scoring, and the JSON forms of boards and logs.

Follows RULINGS.md section 5 step by step: walls (drops for corner / wall /
piece, adjacency, then seat-order connectivity), three movement phases with
the blocked-direction fallback, capture with same-tick contests, spawning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .board import (
    DELTAS,
    DIRECTIONS,
    OPPOSITE,
    PHASES,
    SEATS,
    Board,
    BoardLog,
    BoardOrders,
    MoveNote,
    PhaseNote,
    Piece,
    WallNote,
    corners_connected,
)

#: Points for places 1st-4th.
PLACE_POINTS: tuple[int, int, int, int] = (6, 4, 2, 1)


# -- walls ---------------------------------------------------------------------
def _adjacent(a: int, b: int, size: int, diagonal: bool) -> bool:
    ra, ca = divmod(a, size)
    rb, cb = divmod(b, size)
    dr, dc = abs(ra - rb), abs(ca - cb)
    if diagonal:
        return max(dr, dc) == 1
    return dr + dc == 1


def resolve_walls(
    board: Board, orders: Mapping[int, BoardOrders | None]
) -> tuple[frozenset[int], tuple[WallNote, ...], dict[int, int]]:
    """New wall set, one note per submitted wall (seat order, then each seat's order), walls placed per seat."""
    size = board.size
    corners = {board.corner(seat) for seat in SEATS}
    occupied = {p.square for p in board.pieces}
    submitted: list[tuple[int, int]] = []  # (seat, square) in seat order then the seat's order
    for seat in SEATS:
        mine = orders.get(seat)
        if mine is None:
            continue
        for col, row in mine.walls:
            submitted.append((seat, row * size + col))
    outcome: dict[int, str] = {}
    for _seat, sq in submitted:
        if sq in outcome:
            continue  # the same square from several players is one wall
        if sq in corners:
            outcome[sq] = "corner"
        elif sq in board.walls:
            outcome[sq] = "wall"
        elif sq in occupied:
            outcome[sq] = "piece"
        else:
            outcome[sq] = ""
    candidates = [sq for sq, why in outcome.items() if not why]
    if board.index < 2:
        diagonal = board.index == 0
        others = set(board.walls) | set(candidates)
        for sq in candidates:
            if any(o != sq and _adjacent(sq, o, size, diagonal) for o in others):
                outcome[sq] = "adjacent"
    walls = set(board.walls)
    for _seat, sq in submitted:
        if outcome[sq]:
            continue
        walls.add(sq)
        if corners_connected(size, walls):
            outcome[sq] = "placed"
        else:
            walls.discard(sq)
            outcome[sq] = "isolates"
    notes = tuple(WallNote(seat, sq, outcome[sq]) for seat, sq in submitted)
    placed = {seat: 0 for seat in SEATS}
    for note in notes:
        if note.outcome == "placed":
            placed[note.seat] += 1
    return frozenset(walls), notes, placed


# -- movement ------------------------------------------------------------------
def ray(square: int, direction: str, size: int, walls: frozenset[int]) -> tuple[int, ...]:
    """Every square a piece at `square` enters moving `direction` until a wall or the border."""
    dc, dr = DELTAS[direction]
    row, col = divmod(square, size)
    path = []
    while True:
        col += dc
        row += dr
        if not (0 <= col < size and 0 <= row < size):
            break
        nxt = row * size + col
        if nxt in walls:
            break
        path.append(nxt)
    return tuple(path)


def fallback(
    square: int,
    intended: str,
    corner: int,
    size: int,
    walls: frozenset[int],
    owners: Sequence[int],
) -> tuple[str | None, tuple[int, ...]]:
    """The direction a blocked piece takes instead, and its path (None, () if it cannot move).

    Most squares owned by no one on the path; then a perpendicular before the
    opposite; then the perpendicular pointing toward the piece's own corner
    (the one that brings it nearer that corner's column or row).  Corners lie
    on the border, so when both perpendiculars are open exactly one of them
    points toward the corner; the final clockwise order is only a guard.
    """
    row, col = divmod(square, size)
    crow, ccol = divmod(corner, size)
    start = DIRECTIONS.index(intended)
    best: tuple[tuple[int, int, int, int], str, tuple[int, ...]] | None = None
    for turn in (1, 2, 3):
        direction = DIRECTIONS[(start + turn) % 4]
        path = ray(square, direction, size, walls)
        if not path:
            continue
        free = sum(1 for sq in path if owners[sq] == 0)
        dc, dr = DELTAS[direction]
        toward = dc * (ccol - col) + dr * (crow - row) > 0
        nearness = 2 if direction == OPPOSITE[intended] else 1
        key = (-free, nearness, 0 if toward else 1, turn)
        if best is None or key < best[0]:
            best = (key, direction, path)
    if best is None:
        return None, ()
    return best[1], best[2]


@dataclass
class _Mover:
    seat: int
    number: int
    start: int
    square: int
    directions: tuple[str, ...] | None
    phases: list[PhaseNote]


def resolve_moves(
    board: Board, walls: frozenset[int], orders: Mapping[int, BoardOrders | None]
) -> tuple[tuple[int, ...], tuple[Piece, ...], tuple[MoveNote, ...], tuple[tuple[int, int, int], ...]]:
    """Three movement phases: new owners, pieces, notes and contested squares."""
    size = board.size
    owners = list(board.owners)
    movers = []
    for piece in board.pieces:
        mine = orders.get(piece.seat)
        dirs = None if mine is None else mine.directions(piece.number)
        movers.append(_Mover(piece.seat, piece.number, piece.square, piece.square, dirs, []))
    contested: list[tuple[int, int, int]] = []
    for phase in range(PHASES):
        # every direction (and fallback) is fixed from the owners at the start of the phase
        paths: list[tuple[int, tuple[int, ...]]] = []
        for m in movers:
            if m.directions is None or phase >= len(m.directions):
                m.phases.append(PhaseNote(None, None, ()))
                continue
            wanted = m.directions[phase]
            path = ray(m.square, wanted, size, walls)
            taken: str | None = wanted
            if not path:
                taken, path = fallback(m.square, wanted, board.corner(m.seat), size, walls, owners)
            m.phases.append(PhaseNote(wanted, taken, path))
            if path:
                paths.append((m.seat, path))
                m.square = path[-1]
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
                        entered[sq] = -1  # different players on one square: no change this tick
            for sq, seat in entered.items():
                if seat == -1:
                    contested.append((phase + 1, tick + 1, sq))
                else:
                    owners[sq] = seat
    pieces = tuple(sorted(Piece(m.seat, m.number, m.square) for m in movers))
    notes = tuple(MoveNote(m.seat, m.number, m.start, tuple(m.phases)) for m in movers)
    return tuple(owners), pieces, notes, tuple(contested)


def resolve_board(
    board: Board, orders: Mapping[int, BoardOrders | None], spawn_number: int | None
) -> tuple[Board, BoardLog, dict[int, int]]:
    """Walls then movement; then spawn piece `spawn_number` (if any) on every corner.

    Returns the new board, the log and the walls each seat actually placed.
    """
    walls, wall_notes, placed = resolve_walls(board, orders)
    owners, pieces, move_notes, contested = resolve_moves(board, walls, orders)
    spawned: tuple[Piece, ...] = ()
    if spawn_number is not None:
        spawned = tuple(Piece(seat, spawn_number, board.corner(seat)) for seat in SEATS)
        cells = list(owners)
        for piece in spawned:
            cells[piece.square] = piece.seat  # a spawned piece captures its corner
        owners = tuple(cells)
        pieces = tuple(sorted(pieces + spawned))
    new_board = Board(board.index, board.size, walls, owners, pieces)
    return new_board, BoardLog(wall_notes, move_notes, contested, spawned), placed


# -- scoring -------------------------------------------------------------------
def place_points(scores: Mapping[int, float]) -> dict[int, float]:
    """6/4/2/1 for places 1st-4th; tied players share the average of the places they span."""
    order = sorted(scores, key=lambda s: -scores[s])
    out: dict[int, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        spanned = PLACE_POINTS[i : j + 1]
        share = sum(spanned) / len(spanned)
        for seat in order[i : j + 1]:
            out[seat] = share
        i = j + 1
    return out


def sole_first(scores: Mapping[int, float]) -> int | None:
    """The seat alone in first place, if any."""
    top = max(scores.values())
    leaders = [s for s, v in scores.items() if v == top]
    return leaders[0] if len(leaders) == 1 else None


def ranking_key(board_points: Sequence[float]) -> tuple[float, float, float, float, float]:
    """Final order: total, best single board, then Thrice, Twice, Once (higher is better)."""
    once, twice, thrice = board_points
    return (once + twice + thrice, max(board_points), thrice, twice, once)


def final_ranking(points: Mapping[int, Sequence[float]]) -> list[list[int]]:
    """Seats grouped by rank, best first (a group holds seats equal on every tie-break)."""
    keys = {seat: ranking_key(pts) for seat, pts in points.items()}
    groups: list[list[int]] = []
    for seat in sorted(points, key=lambda s: (tuple(-k for k in keys[s]), s)):
        if groups and keys[groups[-1][0]] == keys[seat]:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return groups


# -- JSON forms ------------------------------------------------------------------------
def board_view(b: Board) -> dict[str, Any]:
    n = b.size
    return {
        "name": b.name,
        "title": b.title,
        "size": n,
        "wall_limit": b.wall_limit,
        "walls": sorted(b.square(w) for w in b.walls),
        "owners": [list(b.owners[r * n : (r + 1) * n]) for r in range(n)],
        "pieces": [{"seat": p.seat, "number": p.number, "square": b.square(p.square)} for p in b.pieces],
        "corners": {str(s): b.square(b.corner(s)) for s in SEATS},
        "captured": {str(s): b.captured(s) for s in SEATS},
    }


def log_view(b: Board, log: BoardLog) -> dict[str, Any]:
    sq = b.square
    return {
        "name": b.name,
        "walls": [{"seat": w.seat, "square": sq(w.square), "outcome": w.outcome} for w in log.walls],
        "moves": [
            {
                "seat": m.seat,
                "number": m.number,
                "start": sq(m.start),
                "phases": [
                    {"submitted": p.submitted, "taken": p.taken, "path": [sq(x) for x in p.path]}
                    for p in m.phases
                ],
            }
            for m in log.moves
        ],
        "contested": [{"phase": ph, "tick": t, "square": sq(x)} for ph, t, x in log.contested],
        "spawned": [{"seat": p.seat, "number": p.number, "square": sq(p.square)} for p in log.spawned],
    }


def dump_log(log: BoardLog) -> dict[str, Any]:
    return {
        "walls": [[w.seat, w.square, w.outcome] for w in log.walls],
        "moves": [
            [m.seat, m.number, m.start, [[p.submitted, p.taken, list(p.path)] for p in m.phases]]
            for m in log.moves
        ],
        "contested": [list(c) for c in log.contested],
        "spawned": [[p.seat, p.number, p.square] for p in log.spawned],
    }


def load_log(data: Mapping[str, Any]) -> BoardLog:
    return BoardLog(
        walls=tuple(WallNote(int(s), int(q), str(o)) for s, q, o in data["walls"]),
        moves=tuple(
            MoveNote(
                int(s),
                int(n),
                int(start),
                tuple(PhaseNote(sub, taken, tuple(int(x) for x in path)) for sub, taken, path in phases),
            )
            for s, n, start, phases in data["moves"]
        ),
        contested=tuple((int(a), int(b), int(c)) for a, b, c in data["contested"]),
        spawned=tuple(Piece(int(s), int(n), int(q)) for s, n, q in data["spawned"]),
    )
