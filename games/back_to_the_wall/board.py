"""Back to the Wall: boards, pieces, orders (and their notation), the resolution log.

Squares are indices into a row-major tuple (`index = row * size + col`);
`A1` is the top-left square.  Owners are seats 1-4, 0 for no one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.core import NotationError
from games.core.grid import COLUMNS, index_name, parse_direction, square_name
from games.core.notation import require_text

#: The three boards, in canonical order.
BOARD_NAMES: tuple[str, str, str] = ("once", "twice", "thrice")
BOARD_TITLES: dict[str, str] = {"once": "Once", "twice": "Twice", "thrice": "Thrice"}
#: How many walls each seat may submit per round on each board.
WALL_LIMITS: tuple[int, int, int] = (1, 2, 3)
DEFAULT_SIZES: tuple[int, int, int] = (6, 7, 8)
MIN_SIZE, MAX_SIZE = 4, 12
SEATS: tuple[int, int, int, int] = (1, 2, 3, 4)
ROUNDS = 3
PHASES = 3

#: Directions in clockwise order, with their (dcol, drow) steps.
DIRECTIONS: tuple[str, str, str, str] = ("up", "right", "down", "left")
DELTAS: dict[str, tuple[int, int]] = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}
OPPOSITE: dict[str, str] = {"up": "down", "down": "up", "left": "right", "right": "left"}

#: Corner of each seat on each board, so that each seat faces a different opponent diagonally on each
#: board: tl, tr, br, bl.
CORNERS: tuple[dict[int, str], dict[int, str], dict[int, str]] = (
    {1: "tl", 2: "tr", 3: "br", 4: "bl"},
    {1: "tl", 3: "tr", 2: "br", 4: "bl"},
    {1: "tl", 2: "tr", 4: "br", 3: "bl"},
)


def corner_square(board: int, size: int, seat: int) -> int:
    """The corner square of `seat` on board number `board` (0 once, 1 twice, 2 thrice)."""
    where = CORNERS[board][seat]
    col = 0 if where in ("tl", "bl") else size - 1
    row = 0 if where in ("tl", "tr") else size - 1
    return row * size + col


def all_corners(size: int) -> tuple[int, int, int, int]:
    return (0, size - 1, size * size - 1, size * (size - 1))


def default_walls(board: int, size: int) -> tuple[tuple[int, int], ...]:
    """Two pre-placed walls, symmetric through the centre, off the corners.

    6x6 Once: B3 E4; 7x7 Twice: D3 D5; 8x8 Thrice: C6 F3.
    """
    n = size
    if board == 0:
        return ((1, 2), (n - 2, n - 3))
    if board == 1:
        k = max(1, n // 2 - 1)
        return ((n // 2, k), (n - 1 - n // 2, n - 1 - k))
    c = n // 2 - 2
    return ((c, n - 3), (n - 1 - c, 2))


# -- state -------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Piece:
    seat: int
    number: int
    square: int


@dataclass(frozen=True)
class Board:
    """One board: which of the three, its size, walls, owners and pieces."""

    index: int
    size: int
    walls: frozenset[int]
    owners: tuple[int, ...]
    pieces: tuple[Piece, ...]  # sorted by (seat, number)

    @property
    def name(self) -> str:
        return BOARD_NAMES[self.index]

    @property
    def title(self) -> str:
        return BOARD_TITLES[self.name]

    @property
    def wall_limit(self) -> int:
        return WALL_LIMITS[self.index]

    def corner(self, seat: int) -> int:
        return corner_square(self.index, self.size, seat)

    def square(self, index: int) -> str:
        return index_name(index, self.size)

    def last_square(self) -> str:
        return self.square(self.size * self.size - 1)

    def pieces_of(self, seat: int) -> tuple[Piece, ...]:
        return tuple(p for p in self.pieces if p.seat == seat)

    def captured(self, seat: int) -> int:
        return sum(1 for owner in self.owners if owner == seat)


def corners_connected(size: int, walls: frozenset[int] | set[int]) -> bool:
    """True unless some corner is cut off (orthogonally, through non-wall squares) from every other corner."""
    return not cut_corners(size, walls)


def cut_corners(size: int, walls: frozenset[int] | set[int]) -> tuple[int, ...]:
    """The corners that reach no other corner orthogonally through non-wall squares (a walled corner counts)."""
    label = [0] * (size * size)
    corners = all_corners(size)
    current = 0
    for start in corners:
        if label[start] or start in walls:
            continue
        current += 1
        label[start] = current
        stack = [start]
        while stack:
            sq = stack.pop()
            row, col = divmod(sq, size)
            if col > 0:
                nxt = sq - 1
                if not label[nxt] and nxt not in walls:
                    label[nxt] = current
                    stack.append(nxt)
            if col < size - 1:
                nxt = sq + 1
                if not label[nxt] and nxt not in walls:
                    label[nxt] = current
                    stack.append(nxt)
            if row > 0:
                nxt = sq - size
                if not label[nxt] and nxt not in walls:
                    label[nxt] = current
                    stack.append(nxt)
            if row < size - 1:
                nxt = sq + size
                if not label[nxt] and nxt not in walls:
                    label[nxt] = current
                    stack.append(nxt)
    labels = [label[c] for c in corners]
    return tuple(c for c, lab in zip(corners, labels, strict=True) if not lab or labels.count(lab) < 2)


def start_board(index: int, size: int, walls: Iterable[int]) -> Board:
    """A board at the start of round 1: piece 1 of every seat on its corner, corner captured."""
    owners = [0] * (size * size)
    pieces = []
    for seat in SEATS:
        corner = corner_square(index, size, seat)
        owners[corner] = seat
        pieces.append(Piece(seat, 1, corner))
    return Board(index, size, frozenset(walls), tuple(owners), tuple(sorted(pieces)))


def make_board(
    name: str,
    rows: Sequence[str],
    pieces: Mapping[tuple[int, int], str] | None = None,
) -> Board:
    """Test-friendly constructor from a diagram.

    `rows` are strings of `.` (no one), `1`-`4` (owner) and `#` (wall), one
    per row, top row first (spaces ignored); `pieces` maps (seat, number) to a
    square name.  No piece is added implicitly.
    """
    index = BOARD_NAMES.index(name)
    grid = ["".join(row.split()) for row in rows]
    size = len(grid)
    if any(len(row) != size for row in grid):
        raise ValueError("the diagram must be square")
    owners: list[int] = []
    walls: set[int] = set()
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == "#":
                walls.add(r * size + c)
                owners.append(0)
            elif ch == ".":
                owners.append(0)
            else:
                owners.append(int(ch))
    placed = []
    for (seat, number), square in (pieces or {}).items():
        pcol = ord(square[0].upper()) - ord("A")
        prow = int(square[1:]) - 1
        placed.append(Piece(seat, number, prow * size + pcol))
    return Board(index, size, frozenset(walls), tuple(owners), tuple(sorted(placed)))


# -- orders ------------------------------------------------------------------
@dataclass(frozen=True)
class BoardOrders:
    """One seat's orders for one board.

    `walls` are (col, row) pairs in the order given (it decides the order in
    which surviving walls are added); `moves` are (piece number, directions),
    sorted by piece number.
    """

    walls: tuple[tuple[int, int], ...] = ()
    moves: tuple[tuple[int, tuple[str, ...]], ...] = ()
    garnet: bool = False

    def is_empty(self) -> bool:
        return not self.walls and not self.moves and not self.garnet

    def directions(self, number: int) -> tuple[str, ...] | None:
        for n, dirs in self.moves:
            if n == number:
                return dirs
        return None


EMPTY_ORDERS = BoardOrders()


@dataclass(frozen=True)
class Orders:
    """A seat's sealed submission for one round: orders for once, twice, thrice."""

    boards: tuple[BoardOrders, BoardOrders, BoardOrders] = (EMPTY_ORDERS, EMPTY_ORDERS, EMPTY_ORDERS)


@dataclass(frozen=True)
class Resolve:
    """Host only: close the round now (missing submissions: no walls, pieces stay, no garnet)."""


# -- resolution log ------------------------------------------------------------
#: Wall outcomes: placed, or why it was dropped.
WALL_OUTCOMES = ("placed", "corner", "wall", "piece", "adjacent", "isolates")
#: Why a blocked piece took the direction it took (PhaseNote.rule): "" when it was not blocked.
#: only: one open direction; free: most squares owned by no one; nearer: a perpendicular
#: over the opposite; corner: the perpendicular toward its own corner; stuck: no open direction.
FALLBACK_RULES = ("", "only", "free", "nearer", "corner", "stuck")


@dataclass(frozen=True)
class WallNote:
    seat: int
    square: int
    outcome: str
    #: adjacent: the walls (standing or submitted) it touches; isolates: the corners it would cut off
    against: tuple[int, ...] = ()


@dataclass(frozen=True)
class PhaseNote:
    submitted: str | None  # None: no submission, the piece stays
    taken: str | None  # the direction actually moved (None: it stayed)
    path: tuple[int, ...]  # every square entered, in order
    rule: str = ""  # FALLBACK_RULES: why a blocked piece took `taken`
    #: a blocked piece's open directions, nearest the intended first, with the squares owned by no one on each path
    options: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class MoveNote:
    seat: int
    number: int
    start: int
    phases: tuple[PhaseNote, ...]


@dataclass(frozen=True)
class TickNote:
    """One tick of one movement phase: where every piece stands after it and what changed hands."""

    phase: int  # 1-3
    tick: int  # 1-based
    positions: tuple[tuple[int, int, int], ...]  # (seat, number, square) for every piece
    captured: tuple[tuple[int, int], ...]  # (square, seat), in the order the squares were entered
    contested: tuple[int, ...]  # squares entered by pieces of different players: no change


@dataclass(frozen=True)
class BoardLog:
    walls: tuple[WallNote, ...]
    moves: tuple[MoveNote, ...]
    contested: tuple[tuple[int, int, int], ...]  # (phase 1-3, tick, square) that did not change hands
    spawned: tuple[Piece, ...]  # pieces spawned for the next round
    #: owners when the round started (empty in logs stored before the trace existed)
    before: tuple[int, ...] = ()


# -- notation ----------------------------------------------------------------------
# Canonical: ``once wall C3; once piece 1 up right down; twice garnet`` -- a board
# name starts each part; boards in the order once, twice, thrice; within a board the
# walls in the order given (it matters: surviving walls are added in each player's
# order), then pieces by number, then the garnet.  Natural phrasings are read too:
# lower case, commas, "and", "walls C3 D4", "piece 1: up, right, down", ``U D L R``,
# "spend a garnet on twice", "wall C3 on once".  Host only: ``resolve``.
Action = Orders | Resolve

_FILLER = frozenset(
    [
        "i",
        "and",
        "then",
        "also",
        "on",
        "in",
        "at",
        "to",
        "the",
        "a",
        "an",
        "my",
        "board",
        "boards",
        "place",
        "places",
        "put",
        "build",
        "builds",
        "spend",
        "spends",
        "use",
        "uses",
        "move",
        "moves",
        "go",
        "goes",
        "with",
        "square",
        "squares",
        "direction",
        "directions",
        "please",
        "of",
        "for",
    ]
)
_WALL_WORDS = frozenset({"wall", "walls"})
_PIECE_WORDS = frozenset({"piece", "pieces", "p"})
_GARNET_WORDS = frozenset({"garnet", "garnets"})
_DIRECTION_WORDS = frozenset({"u", "d", "l", "r", "up", "down", "left", "right"})
_SQUARE = re.compile(r"^([a-z])(\d{1,2})$")
_NUMBER = re.compile(r"^(?:p|piece|#)?(\d{1,3})$")
_TRAILING_BOARD = re.compile(r"^(.*?)\s+(?:on|in|for)\s+(?:the\s+)?(once|twice|thrice)(?:\s+board)?$")
_GARNET_COUNT = re.compile(r"\b(?:a|one|1)\s+(garnets?)\b")

EXPECTED = (
    "expected parts like 'once wall C3', 'once piece 1 up right down' or 'twice garnet' "
    "(a board name, once, twice or thrice, starts each part)"
)


def parse_action(text: str) -> Action:
    cleaned = require_text(text, "Back to the Wall")
    if cleaned == "resolve":
        return Resolve()
    if cleaned == "pass":
        raise NotationError(
            "there is no pass: a submission gives 3 directions for each of your pieces "
            "(a seat that submits nothing keeps its pieces in place when the round resolves)"
        )
    cleaned = _GARNET_COUNT.sub(r"\1", cleaned)
    tokens: list[str] = []
    for clause in cleaned.split(";"):
        clause = clause.strip()
        # "wall C3 on once" / "spend a garnet on twice": move the board name to the front
        match = _TRAILING_BOARD.match(clause)
        if match and not any(b in match.group(1).split() for b in BOARD_NAMES):
            clause = f"{match.group(2)} {match.group(1)}"
        tokens.extend(re.sub(r"[,:()!?]", " ", clause).replace(".", " ").split())
    return _parse_tokens(tokens, text)


def _parse_tokens(tokens: list[str], text: str) -> Orders:
    walls: dict[int, list[tuple[int, int]]] = {0: [], 1: [], 2: []}
    moves: dict[int, list[tuple[int, list[str]]]] = {0: [], 1: [], 2: []}
    garnet = [False, False, False]
    board: int | None = None
    mode = ""  # "", "wall", "number", "dirs"
    for token in tokens:
        if token in BOARD_NAMES:
            board = BOARD_NAMES.index(token)
            if mode == "number":
                raise NotationError(f"expected a piece number after 'piece', got {token!r}")
            mode = ""
            continue
        if token in _FILLER:
            continue
        if board is None:
            raise NotationError(f"{EXPECTED}, got {token!r}")
        if mode == "dirs" and token in _DIRECTION_WORDS:  # the common case, kept fast
            moves[board][-1][1].append(parse_direction(token))
            continue
        number = _NUMBER.match(token)
        if mode == "number" and not number:
            raise NotationError(f"expected a piece number after 'piece', got {token!r}")
        if token in _WALL_WORDS:
            mode = "wall"
        elif token in _PIECE_WORDS:
            mode = "number"
        elif token in _GARNET_WORDS:
            garnet[board] = True
            mode = ""
        elif number and (mode in ("number", "dirs") or not token.isdigit()):
            value = int(number.group(1))
            if value < 1:
                raise NotationError(f"piece numbers start at 1, got {token!r}")
            moves[board].append((value, []))
            mode = "dirs"
        elif token in _DIRECTION_WORDS:
            if mode != "dirs":
                raise NotationError(f"directions must follow 'piece <number>', got {token!r}")
            moves[board][-1][1].append(parse_direction(token))
        elif mode in ("wall", "") and (square := _SQUARE.match(token)):
            col = COLUMNS.index(square.group(1).upper())
            row = int(square.group(2)) - 1
            if row < 0:
                raise NotationError(f"expected a square like C3, got {token!r}")
            walls[board].append((col, row))
            mode = "wall"
        else:
            raise NotationError(f"{EXPECTED}, got {token!r}")
    if mode == "number":
        raise NotationError("expected a piece number after 'piece'")
    boards = tuple(
        BoardOrders(
            walls=tuple(walls[b]),
            moves=tuple(sorted(((n, tuple(d)) for n, d in moves[b]), key=lambda m: m[0])),
            garnet=garnet[b],
        )
        for b in range(3)
    )
    if all(b.is_empty() for b in boards):
        raise NotationError(f"{EXPECTED}, got {text.strip()!r}")
    return Orders((boards[0], boards[1], boards[2]))


def format_action(action: Action) -> str:
    if isinstance(action, Resolve):
        return "resolve"
    parts: list[str] = []
    for name, orders in zip(BOARD_NAMES, action.boards, strict=True):
        for col, row in orders.walls:
            parts.append(f"{name} wall {square_name(col, row)}")
        for number, dirs in orders.moves:
            parts.append(" ".join([name, "piece", str(number), *dirs]))
        if orders.garnet:
            parts.append(f"{name} garnet")
    return "; ".join(parts)
