"""Square grids: coordinates, directions, lines and sliding.

Boards are flat tuples in row-major order (`index = row * width + col`),
cells hold small ints (0 = empty).  `A1` is the top-left square, letters
grow to the right and numbers grow downward, as in a spreadsheet: the
convention of every grid game here (games/README.md, "Conventions").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .errors import IllegalAction, NotationError

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
EMPTY = 0

#: Orthogonal directions as (dcol, drow); "up" decreases the row number.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "up": (0, -1),
    "down": (0, 1),
    "left": (-1, 0),
    "right": (1, 0),
}
_DIRECTION_ALIASES = {
    "u": "up", "up": "up", "upward": "up", "upwards": "up", "north": "up", "n": "up",
    "d": "down", "down": "down", "downward": "down", "downwards": "down", "south": "down", "s": "down",
    "l": "left", "left": "left", "west": "left", "w": "left",
    "r": "right", "right": "right", "east": "right", "e": "right",
}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}

#: The four line directions (each line is counted once: E, S, SE, NE).
LINE_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))

_SQUARE_RE = re.compile(r"^([a-z])\s*(\d{1,2})$", re.IGNORECASE)


def square_name(col: int, row: int) -> str:
    """(0, 0) -> 'A1'."""
    return f"{COLUMNS[col]}{row + 1}"


def index_name(index: int, width: int) -> str:
    row, col = divmod(index, width)
    return square_name(col, row)


def parse_square(text: str, width: int, height: int) -> tuple[int, int]:
    """'c3' -> (2, 2); NotationError naming the board's range otherwise."""
    raw = text.strip()
    last = square_name(width - 1, height - 1)
    match = _SQUARE_RE.match(raw)
    if match:
        col = COLUMNS.index(match.group(1).upper())
        row = int(match.group(2)) - 1
        if 0 <= col < width and 0 <= row < height:
            return col, row
    raise NotationError(f"expected a square from A1 to {last}, got {raw!r}")


def parse_index(text: str, width: int, height: int) -> int:
    col, row = parse_square(text, width, height)
    return row * width + col


def parse_direction(text: str) -> str:
    """'U', 'up', 'Down' -> canonical direction name."""
    word = text.strip().lower()
    if word in _DIRECTION_ALIASES:
        return _DIRECTION_ALIASES[word]
    raise NotationError(f"expected a direction (up, down, left or right), got {text.strip()!r}")


def step(index: int, direction: tuple[int, int], width: int, height: int) -> int | None:
    """The index one square away, or None off the board."""
    row, col = divmod(index, width)
    col += direction[0]
    row += direction[1]
    if 0 <= col < width and 0 <= row < height:
        return row * width + col
    return None


def neighbours(index: int, width: int, height: int, diagonal: bool = False) -> Iterable[int]:
    row, col = divmod(index, width)
    for dc in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (dc, dr) == (0, 0) or (not diagonal and dc and dr):
                continue
            c, r = col + dc, row + dr
            if 0 <= c < width and 0 <= r < height:
                yield r * width + c


def run_through(cells: Sequence[int], width: int, height: int, index: int, direction: tuple[int, int]) -> int:
    """Length of the run of cells equal to cells[index] through `index` along ±direction."""
    owner = cells[index]
    row, col = divmod(index, width)
    length = 1
    for sign in (1, -1):
        dc, dr = direction[0] * sign, direction[1] * sign
        c, r = col + dc, row + dr
        while 0 <= c < width and 0 <= r < height and cells[r * width + c] == owner:
            length += 1
            c += dc
            r += dr
    return length


def longest_through(cells: Sequence[int], width: int, height: int, index: int) -> int:
    """Longest line of cells[index]'s owner through `index` in any of the four directions."""
    return max(run_through(cells, width, height, index, d) for d in LINE_DIRECTIONS)


def longest_run(cells: Sequence[int], width: int, height: int, owner: int) -> int:
    """Longest run of `owner` anywhere on the board (0 if none)."""
    best = 0
    for index, value in enumerate(cells):
        if value != owner:
            continue
        row, col = divmod(index, width)
        for dc, dr in LINE_DIRECTIONS:
            # count only from the start of a run, so each run is walked once
            pc, pr = col - dc, row - dr
            if 0 <= pc < width and 0 <= pr < height and cells[pr * width + pc] == owner:
                continue
            length, c, r = 0, col, row
            while 0 <= c < width and 0 <= r < height and cells[r * width + c] == owner:
                length += 1
                c += dc
                r += dr
            best = max(best, length)
    return best


def has_line(cells: Sequence[int], width: int, height: int, owner: int, length: int) -> bool:
    """True if `owner` has `length` or more in a row (overlines count)."""
    return longest_run(cells, width, height, owner) >= length


def run_between(start: int, end: int, width: int) -> tuple[tuple[int, ...], tuple[int, int] | None]:
    """Indices from `start` to `end` inclusive along one row or column.

    Returns (indices, axis) where axis is the unit step from start to end, or
    None for a single square.  IllegalAction if the two squares share no row
    or column.
    """
    r1, c1 = divmod(start, width)
    r2, c2 = divmod(end, width)
    if start == end:
        return (start,), None
    if r1 == r2:
        lo, hi = sorted((c1, c2))
        return tuple(r1 * width + c for c in range(lo, hi + 1)), (1, 0)
    if c1 == c2:
        lo, hi = sorted((r1, r2))
        return tuple(r * width + c1 for r in range(lo, hi + 1)), (0, 1)
    raise IllegalAction(
        f"{index_name(start, width)} and {index_name(end, width)} are not in one row or column"
    )


def slide(
    cells: tuple[int, ...], width: int, height: int, start: int, end: int, direction: str, distance: int
) -> tuple[int, ...]:
    """Slide the contiguous run start..end `distance` squares toward `direction`.

    The run must be occupied throughout, lie in one row or column and move
    along it; every square it passes into must be empty and on the board.
    Tiles outside the run never move (no pushing).
    """
    run, axis = run_between(start, end, width)
    name = index_name
    for index in run:
        if cells[index] == EMPTY:
            if len(run) == 1:
                raise IllegalAction(f"there is no tile on {name(index, width)} to slide")
            raise IllegalAction(
                f"the tiles from {name(run[0], width)} to {name(run[-1], width)} are not connected: "
                f"{name(index, width)} is empty"
            )
    dc, dr = DIRECTIONS[direction]
    if axis is not None and (dc, dr) not in (axis, (-axis[0], -axis[1])):
        raise IllegalAction(
            f"a run from {name(run[0], width)} to {name(run[-1], width)} can only slide along its "
            f"{'row' if axis == (1, 0) else 'column'}, not {direction}"
        )
    if distance < 1:
        raise IllegalAction("a slide must move at least 1 square")
    # the leading tile is the one furthest toward `direction`
    lead = run[-1] if (dc, dr) in ((1, 0), (0, 1)) else run[0]
    current = lead
    for moved in range(1, distance + 1):
        nxt = step(current, (dc, dr), width, height)
        if nxt is None:
            raise IllegalAction(
                f"sliding {direction} {distance} would push {name(lead, width)} off the board "
                f"(it can go at most {moved - 1})"
            )
        if cells[nxt] != EMPTY:
            raise IllegalAction(
                f"{name(nxt, width)} is not empty: the slide cannot pass into it (no pushing)"
            )
        current = nxt
    out = list(cells)
    shift = (dr * width + dc) * distance
    values = [cells[i] for i in run]
    for index in run:
        out[index] = EMPTY
    for index, value in zip(run, values, strict=True):
        out[index + shift] = value
    return tuple(out)


def free_distance(cells: Sequence[int], width: int, height: int, lead: int, direction: str) -> int:
    """How many empty squares lie ahead of `lead` toward `direction`."""
    d = DIRECTIONS[direction]
    count = 0
    current = step(lead, d, width, height)
    while current is not None and cells[current] == EMPTY:
        count += 1
        current = step(current, d, width, height)
    return count
