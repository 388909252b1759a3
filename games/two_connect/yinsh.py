"""YINSH (blitz), one of the three Two Connect boards, also playable alone.

Geometry, coordinates and movement follow the official YINSH rules, restated
here (the text players read: howto.py, /rules/yinsh/):

- 85 points, column letter A-K and number 1-11; valid numbers per column
  A 2-5, B 1-7, C 1-8, D 1-9, E 1-10, F 2-10, G 2-11, H 3-11, I 4-11,
  J 5-11, K 7-10.  Lines: same letter, same number, and letter and number
  together (+1,+1); the other diagonal is not a line.  Equivalently, with
  x = column index - 5 (A = 0) and y = number - 6, a point is valid when
  max(|x|, |y|, |x - y|) <= 5, except the six corners A1, A6, F1, F11, K6, K11.
- A player with fewer than 5 rings on the board places a ring on an empty
  point.  Otherwise they put a marker of their colour in one of their rings
  and move that ring in a straight line: over any number of empty points,
  then it may jump one uninterrupted group of markers (any colours) and must
  stop on the first empty point behind them; it never passes over a ring and
  never stops on an occupied point.  Jumped markers flip colour; the marker
  left at the start does not.
- Blitz: the first row of 5 (or more) markers of one colour on a line
  decides the board.  Rows for both players: the mover wins; a row only for
  the opponent: the opponent wins.
- 51 markers shared; if they run out the board is drawn.

Notation: `ring E5` (place a ring), `E5-E8` (marker at E5, ring to E8);
Two Connect and the standalone game also accept the board word in front
("yinsh ring E5"), "e5 to e8", "move ring from e5 to e8", lower case.
A single point alone ("E5") is read as a ring placement.

Ruling: the board is drawn ("markers") the moment the 51st marker is put
down without making a row: from then on every ring move would need a marker
and none is left, and ring placements cannot make a row, so nobody can win
it any more.
Ruling: the board is drawn ("blocked") when neither player has a legal move
on it (both have all 5 rings placed and every ring is blocked): nothing can
ever change on it again.
Ruling (standalone game): a player who cannot move any ring while the
opponent can passes automatically (see board.py).

Result reasons: "row", "markers", "blocked".
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from games.core import IllegalAction, NotationError

from .board import BoardGame, BoardRules, tokens

COLUMNS = "ABCDEFGHIJK"
#: Valid numbers per column (the table in the module docstring).
COLUMN_RANGES: dict[str, tuple[int, int]] = {
    "A": (2, 5), "B": (1, 7), "C": (1, 8), "D": (1, 9), "E": (1, 10), "F": (2, 10),
    "G": (2, 11), "H": (3, 11), "I": (4, 11), "J": (5, 11), "K": (7, 10),
}
RINGS_EACH = 5
MARKERS = 51
ROW = 5

#: The 85 points, column by column, as (column index, number).
POINTS: tuple[tuple[int, int], ...] = tuple(
    (c, n) for c, letter in enumerate(COLUMNS) for n in range(COLUMN_RANGES[letter][0], COLUMN_RANGES[letter][1] + 1)
)
NAMES: tuple[str, ...] = tuple(f"{COLUMNS[c]}{n}" for c, n in POINTS)
INDEX: dict[tuple[int, int], int] = {p: i for i, p in enumerate(POINTS)}
_BY_NAME: dict[str, int] = {name.lower(): i for i, name in enumerate(NAMES)}

#: Line directions as (d column, d number); direction k + 3 is the opposite of k.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (0, -1), (-1, 0), (-1, -1))


def _ray(start: int, d: tuple[int, int]) -> tuple[int, ...]:
    c, n = POINTS[start]
    out: list[int] = []
    while True:
        c, n = c + d[0], n + d[1]
        if (c, n) not in INDEX:
            return tuple(out)
        out.append(INDEX[(c, n)])


#: RAYS[point][k]: the points met going from `point` in direction k, nearest first.
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(i, d) for d in DIRECTIONS) for i in range(len(POINTS))
)

# Cell values: 0 empty, 1/2 a ring of that seat, 3/4 a marker of seat 1/2.
EMPTY = 0
_RING = (0, 1, 2)
_MARKER = (0, 3, 4)
_FLIP = {3: 4, 4: 3}

_POINT_RE = re.compile(r"^([a-k])([0-9]{1,2})$")


def point_name(index: int) -> str:
    return NAMES[index]


def parse_point(text: str) -> int:
    """'e5' -> point index; NotationError naming the valid points otherwise."""
    raw = text.strip().lower()
    if _POINT_RE.match(raw) and raw in _BY_NAME:
        return _BY_NAME[raw]
    raise NotationError(
        f"expected a Yinsh point like E5 (column A-K with its valid numbers, "
        f"e.g. A2-A5, F2-F10, K7-K10), got {text.strip()!r}"
    )


@dataclass(frozen=True)
class YinshMove:
    """`frm` None: place a ring on `to`; else marker at `frm`, ring to `to`."""

    frm: int | None
    to: int


@dataclass(frozen=True)
class YinshBoard:
    cells: tuple[int, ...]
    rings: tuple[int, int] = (0, 0)  # rings on the board of seat 1, seat 2
    markers_left: int = MARKERS
    winner: int | None = None  # seat, 0 for a drawn board, None while open
    reason: str = ""
    last: tuple[int, ...] = ()  # (point,) after a placement, (from, to) after a move


def destinations(cells: tuple[int, ...], src: int) -> list[int]:
    """Every point the ring on `src` may move to (see the module docstring)."""
    out: list[int] = []
    for ray in RAYS[src]:
        jumped = False
        for q in ray:
            value = cells[q]
            if value == EMPTY:
                out.append(q)
                if jumped:
                    break  # must stop on the first empty point after a jump
            elif value <= 2:
                break  # a ring: never passed over
            else:
                jumped = True
    return out


def flipped(cells: tuple[int, ...], src: int, dst: int) -> list[int]:
    """The markers a ring move from `src` to `dst` jumps (and so flips), nearest first;
    empty when `dst` is not on a line from `src`."""
    for ray in RAYS[src]:
        if dst in ray:
            return [q for q in ray[: ray.index(dst)] if cells[q] > 2]
    return []


def rows_of(cells: tuple[int, ...], seat: int) -> list[int]:
    """Every point in a row of 5 or more markers of `seat`, in point order."""
    value = _MARKER[seat]
    found: set[int] = set()
    for point, v in enumerate(cells):
        if v != value:
            continue
        for k in range(3):
            behind = RAYS[point][k + 3]
            if behind and cells[behind[0]] == value:
                continue  # not the start of this run
            run = [point]
            for q in RAYS[point][k]:
                if cells[q] != value:
                    break
                run.append(q)
            if len(run) >= ROW:
                found.update(run)
    return sorted(found)


class YinshRules(BoardRules[YinshBoard, YinshMove]):
    word = "yinsh"
    title = "Yinsh"

    def initial(self) -> YinshBoard:
        return YinshBoard(cells=(EMPTY,) * len(POINTS))

    # -- notation -----------------------------------------------------------
    def parse_move(self, text: str) -> YinshMove:
        words = tokens(text)
        ring = False
        while "ring" in words or "rings" in words:
            ring = True
            words = [w for w in words if w not in ("ring", "rings")]
        if len(words) == 1:
            return YinshMove(None, parse_point(words[0]))
        if len(words) == 2:
            return YinshMove(parse_point(words[0]), parse_point(words[1]))
        expected = "a ring placement like 'ring E5' or a ring move like 'E5-E8'"
        if ring and not words:
            raise NotationError(f"expected {expected}: which point for the ring?")
        raise NotationError(f"expected {expected}, got {text.strip()!r}")

    def format_move(self, move: YinshMove) -> str:
        if move.frm is None:
            return f"ring {NAMES[move.to]}"
        return f"{NAMES[move.frm]}-{NAMES[move.to]}"

    # -- moves --------------------------------------------------------------
    def ring_points(self, board: YinshBoard, player: int) -> list[int]:
        ring = _RING[player]
        return [i for i, v in enumerate(board.cells) if v == ring]

    def legal_moves(self, board: YinshBoard, player: int) -> Iterator[YinshMove]:
        if board.winner is not None:
            return
        if board.rings[player - 1] < RINGS_EACH:
            for i, value in enumerate(board.cells):
                if value == EMPTY:
                    yield YinshMove(None, i)
            return
        for src in self.ring_points(board, player):
            for dst in destinations(board.cells, src):
                yield YinshMove(src, dst)

    def ring_moves(self, board: YinshBoard, player: int) -> dict[int, dict[int, list[int]]]:
        """{ring point: {destination: markers it would flip}} for every ring `player` may
        move now; empty while they still place rings or once the board is finished."""
        if board.winner is not None or board.rings[player - 1] < RINGS_EACH or board.markers_left <= 0:
            return {}
        cells = board.cells
        return {
            src: {dst: flipped(cells, src, dst) for dst in destinations(cells, src)}
            for src in self.ring_points(board, player)
        }

    def can_move(self, board: YinshBoard, player: int) -> bool:
        if board.winner is not None:
            return False
        if board.rings[player - 1] < RINGS_EACH:
            return True  # 10 rings and 51 markers never fill the 85 points
        if board.markers_left <= 0:
            return False
        cells = board.cells
        return any(destinations(cells, src) for src in self.ring_points(board, player))

    def play(self, board: YinshBoard, player: int, move: YinshMove) -> YinshBoard:
        if board.winner is not None:
            raise IllegalAction("the Yinsh board is finished")
        if not isinstance(move, YinshMove) or not all(
            isinstance(q, int) and 0 <= q < len(POINTS) for q in (move.to, move.to if move.frm is None else move.frm)
        ):
            raise IllegalAction("that is not a Yinsh move")
        placed = board.rings[player - 1]
        if move.frm is None:
            if placed >= RINGS_EACH:
                raise IllegalAction("you have already placed all 5 rings: move a ring instead")
            if board.cells[move.to] != EMPTY:
                raise IllegalAction(f"{NAMES[move.to]} is not empty")
            cells = list(board.cells)
            cells[move.to] = _RING[player]
            rings = (placed + 1, board.rings[1]) if player == 1 else (board.rings[0], placed + 1)
            after = YinshBoard(tuple(cells), rings, board.markers_left, None, "", (move.to,))
            return self._blocked(after)
        if placed < RINGS_EACH:
            raise IllegalAction(
                f"you must place all 5 rings before moving one (you have {placed} on the board)"
            )
        if board.markers_left <= 0:  # unreachable: the board is drawn when they run out
            raise IllegalAction("no markers are left")
        src, dst = move.frm, move.to
        if board.cells[src] != _RING[player]:
            raise IllegalAction(f"there is no ring of yours on {NAMES[src]}")
        path = self._path(board.cells, src, dst)
        cells = list(board.cells)
        cells[src] = _MARKER[player]
        flipped = [q for q in path if cells[q] != EMPTY]
        for q in flipped:
            cells[q] = _FLIP[cells[q]]
        cells[dst] = _RING[player]
        done = tuple(cells)
        rows = self._rows(done, [src, *flipped])
        markers_left = board.markers_left - 1
        opponent = 3 - player
        if player in rows:
            return YinshBoard(done, board.rings, markers_left, player, "row", (src, dst))
        if opponent in rows:
            return YinshBoard(done, board.rings, markers_left, opponent, "row", (src, dst))
        if markers_left == 0:
            return YinshBoard(done, board.rings, 0, 0, "markers", (src, dst))
        return self._blocked(YinshBoard(done, board.rings, markers_left, None, "", (src, dst)))

    def _blocked(self, board: YinshBoard) -> YinshBoard:
        """Draw the board if neither player can move on it any more."""
        if self.can_move(board, 1) or self.can_move(board, 2):
            return board
        return YinshBoard(board.cells, board.rings, board.markers_left, 0, "blocked", board.last)

    def _path(self, cells: tuple[int, ...], src: int, dst: int) -> list[int]:
        """The points strictly between src and dst, or IllegalAction naming the rule broken."""
        frm, to = NAMES[src], NAMES[dst]
        for ray in RAYS[src]:
            if dst not in ray:
                continue
            if cells[dst] != EMPTY:
                raise IllegalAction(f"{to} is not empty: a ring must stop on an empty point")
            path = list(ray[: ray.index(dst)])
            jumped = False
            for q in path:
                value = cells[q]
                if value in (1, 2):
                    raise IllegalAction(f"the ring cannot pass over the ring on {NAMES[q]}")
                if value != EMPTY:
                    jumped = True
                elif jumped:
                    raise IllegalAction(
                        f"after jumping markers the ring must stop on the first empty point, {NAMES[q]}"
                    )
            return path
        if src == dst:
            raise IllegalAction("a ring must move to another point")
        raise IllegalAction(f"{frm} and {to} are not on one line")

    @staticmethod
    def _rows(cells: tuple[int, ...], changed: list[int]) -> set[int]:
        """Seats with a row of 5+ markers through any of the `changed` points."""
        found: set[int] = set()
        for point in changed:
            value = cells[point]
            rays = RAYS[point]
            for k in range(3):
                length = 1
                for q in rays[k]:
                    if cells[q] != value:
                        break
                    length += 1
                for q in rays[k + 3]:
                    if cells[q] != value:
                        break
                    length += 1
                if length >= ROW:
                    found.add(value - 2)
                    break
        return found

    # -- outcome and views -----------------------------------------------------
    def outcome(self, board: YinshBoard) -> int | None:
        return board.winner

    def reason(self, board: YinshBoard) -> str:
        return board.reason

    def public(self, board: YinshBoard) -> dict[str, Any]:
        def where(value: int) -> list[str]:
            return [NAMES[i] for i, v in enumerate(board.cells) if v == value]

        last: str | None = None
        if len(board.last) == 1:
            last = f"ring {NAMES[board.last[0]]}"
        elif len(board.last) == 2:
            last = f"{NAMES[board.last[0]]}-{NAMES[board.last[1]]}"
        return {
            "board": self.word,
            "title": self.title,
            "points": list(NAMES),
            "columns": {letter: list(rng) for letter, rng in COLUMN_RANGES.items()},
            "rings": {"1": where(1), "2": where(2)},
            "markers": {"1": where(3), "2": where(4)},
            "rings_placed": {"1": board.rings[0], "2": board.rings[1]},
            "rings_in_hand": {"1": RINGS_EACH - board.rings[0], "2": RINGS_EACH - board.rings[1]},
            "markers_left": board.markers_left,
            **self.status(board),
            "last": last,
            "last_squares": [NAMES[i] for i in board.last],
            "win_squares": [NAMES[i] for i in rows_of(board.cells, board.winner)]
            if board.winner and board.reason == "row" else [],
        }

    def dump(self, board: YinshBoard) -> dict[str, Any]:
        return {
            "cells": "".join(str(v) for v in board.cells),
            "winner": board.winner,
            "reason": board.reason,
            "markers_left": board.markers_left,
            "last": [NAMES[i] for i in board.last],
        }

    def load(self, data: Mapping[str, Any]) -> YinshBoard:
        cells = tuple(int(ch) for ch in str(data["cells"]))
        if len(cells) != len(POINTS) or any(v not in (0, 1, 2, 3, 4) for v in cells):
            raise ValueError("bad Yinsh cells")
        winner = data.get("winner")
        return YinshBoard(
            cells=cells,
            rings=(cells.count(1), cells.count(2)),
            markers_left=int(data.get("markers_left", MARKERS - cells.count(3) - cells.count(4))),
            winner=None if winner is None else int(winner),
            reason=str(data.get("reason", "")),
            last=tuple(_BY_NAME[str(n).lower()] for n in data.get("last", [])),
        )

    def from_points(
        self,
        rings1: str = "",
        rings2: str = "",
        markers1: str = "",
        markers2: str = "",
        markers_left: int | None = None,
    ) -> YinshBoard:
        """Test-friendly constructor from blank-separated point names."""
        cells = [EMPTY] * len(POINTS)
        for text, value in ((rings1, 1), (rings2, 2), (markers1, 3), (markers2, 4)):
            for name in text.split():
                index = parse_point(name)
                if cells[index] != EMPTY:
                    raise ValueError(f"{name} given twice")
                cells[index] = value
        used = cells.count(3) + cells.count(4)
        return YinshBoard(
            cells=tuple(cells),
            rings=(cells.count(1), cells.count(2)),
            markers_left=MARKERS - used if markers_left is None else markers_left,
        )

    def random_move(self, board: YinshBoard, player: int, rng: random.Random) -> YinshMove | None:
        moves = list(self.legal_moves(board, player))
        return rng.choice(moves) if moves else None


class Yinsh(BoardGame[YinshBoard, YinshMove]):
    """YINSH blitz alone.  public_view: board, title, points (the 85 names),
    columns (valid numbers per letter), rings and markers (point names per
    seat), rings_placed, rings_in_hand, markers_left, status
    (open/won/drawn), winner, reason, last (move text or None),
    last_squares, to_move."""

    slug = "yinsh"
    name = "Yinsh"
    reason_words = {"row": "a row of five markers", "markers": "more markers on the board when they ran out",
                    "blocked": "the opponent could not move"}
    rules = YinshRules()
    reasons: ClassVar[dict[str, str]] = {
        "row": "The first row of 5 markers wins the Yinsh board.",
        "markers": "The 51 markers ran out: the Yinsh board is drawn.",
        "blocked": "Neither player can move a ring: the Yinsh board is drawn.",
    }
