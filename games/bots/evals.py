"""Evaluations of positions cut short, for the games where a random playout says little.

Each reads the seat's public view only (`game.view(state, seat)["public"]`) and
returns a value in [0, 1] for `seat` (0.5: even), squashed from a score by a
logistic curve:

- Lance Assembly (6x6, five in a row, R/B/N tiles) and Grid Master (3x3, three
  in a row, X/O): the windows of the winning length each side can still fill
  (a window holding tiles of one colour only), weighted steeply by how full.
- Yinsh (blitz: the first row of five markers wins): the same for windows of
  five points on the board's lines, counting markers (a window with an
  opponent's marker can still turn, markers flip, so it counts for less, not
  nothing), plus ring mobility (the points each side's rings can move to).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.core import Game
from games.two_connect.yinsh import INDEX, POINTS, RAYS, destinations

#: value of a window holding k tiles of one colour and none of the other's, by k, per window length
WINDOW_WEIGHTS: dict[int, tuple[float, ...]] = {
    3: (0.0, 1.0, 6.0, 40.0),
    5: (0.0, 1.0, 4.0, 16.0, 64.0, 400.0),
}


def squash(score: float, scale: float) -> float:
    """A score (positive: good for the seat) as a value in (0, 1)."""
    x = max(-40.0, min(40.0, score / scale))
    return 1.0 / (1.0 + math.exp(-x))


@lru_cache(maxsize=8)
def grid_windows(rows: int, cols: int, k: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every run of `k` squares in a row, column or diagonal of a rows x cols grid."""
    out: list[tuple[tuple[int, int], ...]] = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                er, ec = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= er < rows and 0 <= ec < cols:
                    out.append(tuple((r + dr * s, c + dc * s) for s in range(k)))
    return tuple(out)


def window_score(rows: Sequence[str], mine: str, theirs: str, k: int) -> float:
    """Sum over windows of length `k`: + for windows only `mine` holds, - for only `theirs`."""
    weights = WINDOW_WEIGHTS[k]
    total = 0.0
    for window in grid_windows(len(rows), len(rows[0]), k):
        m = o = 0
        for r, c in window:
            ch = rows[r][c]
            if ch == mine:
                m += 1
            elif ch == theirs:
                o += 1
        if m and not o:
            total += weights[m]
        elif o and not m:
            total -= weights[o]
    return total


def lance_evaluate(game: Game[Any, Any], state: Any, seat: int) -> float:
    public = game.view(state, seat)["public"]
    colours = public["colours"]
    mine = "R" if colours[str(seat)] == "red" else "B"
    theirs = "B" if mine == "R" else "R"
    return squash(window_score(public["rows"], mine, theirs, 5), 40.0)


def grid_master_evaluate(game: Game[Any, Any], state: Any, seat: int) -> float:
    public = game.view(state, seat)["public"]
    symbols = public["symbols"]
    mine, theirs = symbols[str(seat)], symbols[str(3 - seat)]
    return squash(window_score(public["cells"], mine, theirs, 3), 12.0)


# -- Yinsh -------------------------------------------------------------------------------------
def _yinsh_windows() -> tuple[tuple[int, ...], ...]:
    out = []
    for point in range(len(POINTS)):
        for k in range(3):  # the three line directions (the other three are their opposites)
            ray = RAYS[point][k]
            if len(ray) >= 4:
                out.append((point, *ray[:4]))
    return tuple(out)


YINSH_WINDOWS = _yinsh_windows()
#: a window's weight by own markers, when the other side has none / some markers in it
YINSH_CLEAN = (0.0, 1.0, 4.0, 16.0, 64.0, 1000.0)
YINSH_MIXED = (0.0, 0.3, 1.0, 3.0, 8.0, 1000.0)
#: weight of one point of ring mobility
YINSH_MOBILITY = 0.4


def _point(name: str) -> int:
    return INDEX[("ABCDEFGHIJK".index(name[0].upper()), int(name[1:]))]


def yinsh_cells(public: dict[str, Any]) -> list[int]:
    """Cell values from the public view: 0 empty, 1/2 a ring of that seat, 3/4 a marker of seat 1/2."""
    cells = [0] * len(POINTS)
    for seat in ("1", "2"):
        for name in public["rings"][seat]:
            cells[_point(name)] = int(seat)
        for name in public["markers"][seat]:
            cells[_point(name)] = 2 + int(seat)
    return cells


def yinsh_score(cells: Sequence[int], seat: int) -> float:
    """Rows in the making (markers per window of five) and ring mobility, for `seat` minus the other."""
    mine, theirs = 2 + seat, 5 - seat
    total = 0.0
    for window in YINSH_WINDOWS:
        m = o = 0
        for q in window:
            v = cells[q]
            if v == mine:
                m += 1
            elif v == theirs:
                o += 1
        if m > o:
            total += (YINSH_MIXED if o else YINSH_CLEAN)[m]
        elif o > m:
            total -= (YINSH_MIXED if m else YINSH_CLEAN)[o]
    frozen = tuple(cells)
    for q, v in enumerate(cells):
        if v == seat:
            total += YINSH_MOBILITY * len(destinations(frozen, q))
        elif v == 3 - seat:
            total -= YINSH_MOBILITY * len(destinations(frozen, q))
    return total


def yinsh_evaluate(game: Game[Any, Any], state: Any, seat: int) -> float:
    public = game.view(state, seat)["public"]
    return squash(yinsh_score(yinsh_cells(public), seat), 25.0)
