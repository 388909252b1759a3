"""Back to the Wall: resolving one board for one round, scoring, and the JSON forms of boards and logs.

Follows the rules (howto.py, rules.py's docstring) step by step: walls (drops for corner / wall /
piece, adjacency, then seat-order connectivity), three movement phases with
the blocked-direction fallback, capture with same-tick contests, spawning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    TickNote,
    WallNote,
    cut_corners,
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
    against: dict[int, tuple[int, ...]] = {}
    if board.index < 2:
        diagonal = board.index == 0
        others = sorted(set(board.walls) | set(candidates))
        for sq in candidates:
            touching = tuple(o for o in others if o != sq and _adjacent(sq, o, size, diagonal))
            if touching:
                outcome[sq] = "adjacent"
                against[sq] = touching
    walls = set(board.walls)
    for _seat, sq in submitted:
        if outcome[sq]:
            continue
        walls.add(sq)
        cut = cut_corners(size, walls)
        if not cut:
            outcome[sq] = "placed"
        else:
            walls.discard(sq)
            outcome[sq] = "isolates"
            against[sq] = cut
    notes = tuple(WallNote(seat, sq, outcome[sq], against.get(sq, ())) for seat, sq in submitted)
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


@dataclass(frozen=True)
class Fallback:
    """What a blocked piece does instead, with the reason: the open direction whose path holds the
    most unowned squares (ties: a perpendicular, then the opposite; then toward its own corner), or it
    stays when it cannot move at all."""

    taken: str | None  # None: it cannot move at all
    path: tuple[int, ...]
    rule: str  # board.FALLBACK_RULES: only, free, nearer, corner or stuck
    #: open directions (nearest the intended first) with the squares owned by no one on each
    options: tuple[tuple[str, int], ...]


def fallback(
    square: int,
    intended: str,
    corner: int,
    size: int,
    walls: frozenset[int],
    owners: Sequence[int],
    rays: Callable[[int, str], tuple[int, ...]] | None = None,
) -> Fallback:
    """The direction a blocked piece takes instead, its path, and which rule decided.

    Most squares owned by no one on the path; then a perpendicular before the
    opposite; then the perpendicular pointing toward the piece's own corner
    (the one that brings it nearer that corner's column or row).  Corners lie
    on the border, so when both perpendiculars are open exactly one of them
    points toward the corner; the final clockwise order is only a guard.
    `rays(square, direction)` may stand in for `ray` (a caller's cache).
    """
    row, col = divmod(square, size)
    crow, ccol = divmod(corner, size)
    start = DIRECTIONS.index(intended)
    scored: list[tuple[tuple[int, int, int, int], str, tuple[int, ...]]] = []
    for turn in (1, 3, 2):  # the perpendiculars, then the opposite: the order the options are reported in
        direction = DIRECTIONS[(start + turn) % 4]
        path = rays(square, direction) if rays is not None else ray(square, direction, size, walls)
        if not path:
            continue
        free = sum(1 for sq in path if owners[sq] == 0)
        dc, dr = DELTAS[direction]
        toward = dc * (ccol - col) + dr * (crow - row) > 0
        nearness = 2 if direction == OPPOSITE[intended] else 1
        scored.append(((-free, nearness, 0 if toward else 1, turn), direction, path))
    options = tuple((direction, -key[0]) for key, direction, _path in scored)
    if not scored:
        return Fallback(None, (), "stuck", ())
    key, direction, path = min(scored)
    if len(scored) == 1:
        rule = "only"
    elif sum(1 for k, _d, _p in scored if k[0] == key[0]) == 1:
        rule = "free"
    elif sum(1 for k, _d, _p in scored if k[:2] == key[:2]) == 1:
        rule = "nearer"
    else:
        rule = "corner"
    return Fallback(direction, path, rule, options)


@dataclass
class _Mover:
    seat: int
    number: int
    start: int
    square: int
    directions: tuple[str, ...] | None
    phases: list[PhaseNote]


def phase_ticks(phase: int, movers: Sequence[tuple[int, int, int, tuple[int, ...]]]) -> tuple[TickNote, ...]:
    """The ticks of one movement phase, from each piece's (seat, number, square, path) at its start.

    All pieces move at once, one square per tick; a piece whose path is
    shorter waits on its last square.  Each square a piece enters becomes its
    owner's, unless pieces of different players enter it on the same tick.
    """
    longest = max((len(path) for _s, _n, _q, path in movers), default=0)
    ticks: list[TickNote] = []
    for tick in range(longest):
        entered: dict[int, int] = {}
        positions = []
        for seat, number, square, path in movers:
            if tick < len(path):
                sq = path[tick]
                seen = entered.get(sq)
                if seen is None:
                    entered[sq] = seat
                elif seen != seat:
                    entered[sq] = -1  # different players on one square: no change this tick
                positions.append((seat, number, sq))
            else:
                positions.append((seat, number, path[-1] if path else square))
        ticks.append(
            TickNote(
                phase,
                tick + 1,
                tuple(positions),
                tuple((sq, seat) for sq, seat in entered.items() if seat != -1),
                tuple(sq for sq, seat in entered.items() if seat == -1),
            )
        )
    return tuple(ticks)


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
        moving: list[tuple[int, int, int, tuple[int, ...]]] = []
        for m in movers:
            if m.directions is None or phase >= len(m.directions):
                m.phases.append(PhaseNote(None, None, ()))
                moving.append((m.seat, m.number, m.square, ()))
                continue
            wanted = m.directions[phase]
            path = ray(m.square, wanted, size, walls)
            if path:
                m.phases.append(PhaseNote(wanted, wanted, path))
            else:
                alt = fallback(m.square, wanted, board.corner(m.seat), size, walls, owners)
                path = alt.path
                m.phases.append(PhaseNote(wanted, alt.taken, path, alt.rule, alt.options))
            moving.append((m.seat, m.number, m.square, path))
            if path:
                m.square = path[-1]
        for tick in phase_ticks(phase + 1, moving):
            for sq, seat in tick.captured:
                owners[sq] = seat
            contested.extend((tick.phase, tick.tick, sq) for sq in tick.contested)
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
    return new_board, BoardLog(wall_notes, move_notes, contested, spawned, board.owners), placed


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


def awards(ranking: Sequence[Sequence[int]]) -> dict[str, list[int]]:
    """The match's awards by its final ranking (rules.py's ruling on ties): the Token of Life to a
    sole first, Elimination Candidate to a sole last.  Seats equal on every tie-break for first
    (`tied_first`) or for last (`tied_last`) are left to the host to settle, as Bidding's tie is;
    no seat is ever both (four seats equal: both ties, no award)."""
    first, last = list(ranking[0]), list(ranking[-1])
    return {
        "token_of_life": first if len(first) == 1 else [],
        "elimination_candidate": last if len(last) == 1 and len(ranking) > 1 else [],
        "tied_first": first if len(first) > 1 else [],
        "tied_last": last if len(last) > 1 else [],
    }


def award_words(seats: Sequence[int], tied: Sequence[int]) -> str:
    """Who an award goes to, or the tie the host settles ("seat 1 and seat 2 tied: the host decides")."""
    if seats:
        return " and ".join(f"seat {s}" for s in seats)
    return " and ".join(f"seat {s}" for s in tied) + " tied: the host decides"


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


def log_view(b: Board, log: BoardLog, walls_after: frozenset[int] | None = None) -> dict[str, Any]:
    """The resolution trace of one board for one round (public once the round has resolved).

    Each wall kept or dropped and why; each piece's phases (intended and
    taken direction, the fallback's reason); every tick's positions (one
    square per piece, in the order of `moves`), captures ([square, seat])
    and contested squares; the board as the round started.  `b`
    is the board now (its size and names); `walls_after` the walls when this
    round ended (default: `b`'s).
    """
    sq = b.square
    placed = {w.square for w in log.walls if w.outcome == "placed"}
    before: dict[str, Any] | None = None
    if log.before:
        n = b.size
        before = {
            "owners": [list(log.before[r * n : (r + 1) * n]) for r in range(n)],
            "walls": sorted(sq(w) for w in (b.walls if walls_after is None else walls_after) - placed),
            "pieces": [{"seat": m.seat, "number": m.number, "square": sq(m.start)} for m in log.moves],
        }
    return {
        "name": b.name,
        "title": b.title,
        "size": b.size,
        "walls": [
            {
                "seat": w.seat,
                "square": sq(w.square),
                "outcome": w.outcome,
                "against": [sq(x) for x in w.against],
                "why": wall_reason(b, w),
            }
            for w in log.walls
        ],
        "moves": [
            {
                "seat": m.seat,
                "number": m.number,
                "start": sq(m.start),
                "phases": [
                    {
                        "submitted": p.submitted,
                        "taken": p.taken,
                        "path": [sq(x) for x in p.path],
                        "rule": p.rule,
                        "options": [{"direction": d, "free": f} for d, f in p.options],
                        "why": phase_reason(p),
                    }
                    for p in m.phases
                ],
            }
            for m in log.moves
        ],
        "contested": [{"phase": ph, "tick": t, "square": sq(x)} for ph, t, x in log.contested],
        "spawned": [{"seat": p.seat, "number": p.number, "square": sq(p.square)} for p in log.spawned],
        "before": before,
        "ticks": [
            {
                "phase": t.phase,
                "tick": t.tick,
                "positions": [sq(x) for _s, _n, x in t.positions],
                "captured": [[sq(x), s] for x, s in t.captured],
                "contested": [sq(x) for x in t.contested],
            }
            for t in log_ticks(log)
        ],
    }


def log_ticks(log: BoardLog) -> tuple[TickNote, ...]:
    """Every tick of the round's three phases, rebuilt from the logged paths by `phase_ticks`."""
    ticks: list[TickNote] = []
    squares = {(m.seat, m.number): m.start for m in log.moves}
    for phase in range(PHASES):
        moving = []
        for m in log.moves:
            path = m.phases[phase].path if phase < len(m.phases) else ()
            moving.append((m.seat, m.number, squares[(m.seat, m.number)], path))
            if path:
                squares[(m.seat, m.number)] = path[-1]
        ticks.extend(phase_ticks(phase + 1, moving))
    return tuple(ticks)


def _names(b: Board, squares: Sequence[int]) -> str:
    names = [b.square(x) for x in squares]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def wall_reason(b: Board, note: WallNote) -> str:
    """Why a submitted wall was kept or dropped, in a sentence."""
    name = b.square(note.square)
    if note.outcome == "placed":
        return f"{name} placed"
    if note.outcome == "corner":
        return f"{name} dropped: it is a corner"
    if note.outcome == "wall":
        return f"{name} dropped: there is a wall there already"
    if note.outcome == "piece":
        return f"{name} dropped: a piece stood there when the round started"
    if note.outcome == "adjacent":
        how = "orthogonally or diagonally" if b.index == 0 else "orthogonally"
        return f"{name} dropped: {how} adjacent to {_names(b, note.against)} on {b.title}"
    if note.outcome == "isolates":
        corners = _names(b, note.against)
        many = len(note.against) > 1
        return f"{name} dropped: it would cut the corner{'s' if many else ''} {corners} off from every other corner"
    return f"{name}: {note.outcome}"


def phase_reason(p: PhaseNote) -> str:
    """Why a piece moved as it did in one phase ('' when it went the way it was told)."""
    if p.submitted is None:
        return "no orders: it stays"
    if not p.rule:
        return ""
    blocked = f"{p.submitted} is blocked"
    counts = ", ".join(f"{d} {f}" for d, f in p.options)
    if p.rule == "stuck":
        return f"{blocked} and so is every other direction: it stays"
    if p.rule == "only":
        return f"{blocked}; {p.taken} is the only open direction"
    best = max(f for _d, f in p.options)
    tied = [d for d, f in p.options if f == best]
    if p.rule == "free":
        return f"{blocked}; {p.taken} crosses the most squares owned by no one ({counts})"
    if p.rule == "nearer":
        return (
            f"{blocked}; {' and '.join(tied)} tie on squares owned by no one ({best}); "
            f"{p.taken} is nearer the intended {p.submitted} (a perpendicular before the opposite)"
        )
    return (
        f"{blocked}; {' and '.join(d for d in tied if d != OPPOSITE[p.submitted])} tie on squares owned by "
        f"no one ({best}) and are both perpendicular; {p.taken} points toward its own corner"
    )


def dump_log(log: BoardLog) -> dict[str, Any]:
    return {
        "walls": [[w.seat, w.square, w.outcome, list(w.against)] for w in log.walls],
        "moves": [
            [
                m.seat,
                m.number,
                m.start,
                [
                    [p.submitted, p.taken, list(p.path), p.rule, [list(o) for o in p.options]]
                    for p in m.phases
                ],
            ]
            for m in log.moves
        ],
        "contested": [list(c) for c in log.contested],
        "spawned": [[p.seat, p.number, p.square] for p in log.spawned],
        "before": list(log.before),
    }


def load_log(data: Mapping[str, Any]) -> BoardLog:
    """Inverse of `dump_log`; logs stored before the trace existed load with no reasons and no `before`."""

    def phase(item: Sequence[Any]) -> PhaseNote:
        rule = str(item[3]) if len(item) > 3 else ""
        options = tuple((str(d), int(f)) for d, f in item[4]) if len(item) > 4 else ()
        return PhaseNote(item[0], item[1], tuple(int(x) for x in item[2]), rule, options)

    return BoardLog(
        walls=tuple(
            WallNote(int(w[0]), int(w[1]), str(w[2]), tuple(int(x) for x in (w[3] if len(w) > 3 else ())))
            for w in data["walls"]
        ),
        moves=tuple(
            MoveNote(int(s), int(n), int(start), tuple(phase(p) for p in phases))
            for s, n, start, phases in data["moves"]
        ),
        contested=tuple((int(a), int(b), int(c)) for a, b, c in data["contested"]),
        spawned=tuple(Piece(int(s), int(n), int(q)) for s, n, q in data["spawned"]),
        before=tuple(int(x) for x in data.get("before", ())),
    )
