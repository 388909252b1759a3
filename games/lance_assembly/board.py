"""Lance Assembly's board: its cells, its slides (checking and making one,
listing every legal one), its lances, and a random turn.

Pure Python, no Django.  A board is a tuple of 36 cells (A1 = 0, row by row;
EMPTY, RED, BLUE or NEUTRAL); the slide rules: a run of
connected tiles of one row or column (or a single tile) moves along it, by
at least one square, never off the board and never pushing another tile.
The turn-level rules (whose turn, tiles in hand, the neutral tile, the end
of a bout) are rules.py's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from games.core.errors import IllegalAction
from games.core.grid import index_name

from .notation import Neutral, Part, Place, Slide, Turn

SIZE = 6
SQUARES = SIZE * SIZE
LANCE = 5
#: Placement (own or neutral) is allowed only while MORE than this many squares are empty.
PLACEMENT_LIMIT = 4
EMPTY, RED, BLUE, NEUTRAL = 0, 1, 2, 3

#: Every window of 5 squares in a row (rows, columns, both diagonals): 32 of them.
WINDOWS: tuple[tuple[int, ...], ...] = tuple(
    tuple((r + k * dr) * SIZE + (c + k * dc) for k in range(LANCE))
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
    for r in range(SIZE)
    for c in range(SIZE)
    if 0 <= c + (LANCE - 1) * dc < SIZE and 0 <= r + (LANCE - 1) * dr < SIZE
)

#: Rows then columns as flat indices in increasing order, with their (backward, forward) directions.
_LINES: tuple[tuple[tuple[int, ...], str, str], ...] = tuple(
    (tuple(r * SIZE + c for c in range(SIZE)), "left", "right") for r in range(SIZE)
) + tuple((tuple(r * SIZE + c for r in range(SIZE)), "up", "down") for c in range(SIZE))
_STEP = {"up": -SIZE, "down": SIZE, "left": -1, "right": 1}


def slide_in_place(cells: list[int], slide: Slide) -> None:
    """Validate `slide` on `cells` and perform it (cells is a scratch list)."""
    start, end, direction, distance = slide.start, slide.end, slide.direction, slide.distance
    name = _name
    if not (0 <= start < SQUARES and 0 <= end < SQUARES):
        raise IllegalAction("that slide is not on the board")
    if direction not in _STEP:
        raise IllegalAction(f"tiles slide only up, down, left or right, not {direction!r}")
    r1, c1 = divmod(start, SIZE)
    r2, c2 = divmod(end, SIZE)
    if start == end:
        stride = 1
        horizontal = direction in ("left", "right")
    elif r1 == r2:
        stride, horizontal = 1, True
    elif c1 == c2:
        stride, horizontal = SIZE, False
    else:
        raise IllegalAction(
            f"{name(start)} and {name(end)} are not in one row or column: tiles slide along one row or column"
        )
    run = range(start, end + 1, stride)
    for index in run:
        if cells[index] == EMPTY:
            if start == end:
                raise IllegalAction(f"there is no tile on {name(index)} to slide")
            raise IllegalAction(
                f"the tiles from {name(start)} to {name(end)} are not connected ({name(index)} is empty), "
                "so they cannot slide together"
            )
    if start != end and horizontal != (direction in ("left", "right")):
        along = "row" if horizontal else "column"
        allowed = "left or right" if horizontal else "up or down"
        raise IllegalAction(
            f"{name(start)}-{name(end)} lies in one {along} and can only slide along it ({allowed}), "
            f"not {direction}"
        )
    if distance < 1:
        raise IllegalAction("a slide must move the tiles at least 1 square")
    forward = direction in ("right", "down")
    lead = end if forward else start
    row, col = divmod(lead, SIZE)
    room = {"right": SIZE - 1 - col, "left": col, "down": SIZE - 1 - row, "up": row}[direction]
    step = _STEP[direction]
    what = name(start) if start == end else f"{name(start)}-{name(end)}"
    current = lead
    for _ in range(min(distance, room)):
        current += step
        if cells[current] != EMPTY:
            raise IllegalAction(
                f"{name(current)} is not empty: {what} cannot slide into it, and tiles cannot push other tiles"
            )
    if distance > room:
        raise IllegalAction(
            f"{what} cannot slide {direction} {distance}: it would leave the board (at most {room})"
        )
    values = [cells[i] for i in run]
    for index in run:
        cells[index] = EMPTY
    shift = step * distance
    for index, value in zip(run, values, strict=True):
        cells[index + shift] = value


def shifted(cells: tuple[int, ...], slide: Slide) -> tuple[int, ...]:
    """`cells` after a slide already known to be legal (no checks)."""
    out = list(cells)
    stride = 1 if slide.start == slide.end or slide.start // SIZE == slide.end // SIZE else SIZE
    run = range(slide.start, slide.end + 1, stride)
    values = [cells[i] for i in run]
    for index in run:
        out[index] = EMPTY
    shift = _STEP[slide.direction] * slide.distance
    for index, value in zip(run, values, strict=True):
        out[index + shift] = value
    return tuple(out)


def _slide_table(line: tuple[int, ...], direction: str) -> tuple[tuple[tuple[Slide, ...], ...], ...]:
    """table[x][y][d - 1] (x <= y): the slide of the run line[x]..line[y] by d toward `direction`.

    Built once, so the hot enumeration below hands out shared immutable
    Slide objects instead of constructing thousands per call.
    """
    return tuple(
        tuple(
            tuple(Slide(line[x], line[y], direction, d) for d in range(1, SIZE)) if y >= x else ()
            for y in range(SIZE)
        )
        for x in range(SIZE)
    )


#: For each row/column: (line, table of forward slides [i][b], table of backward slides [a][j]).
_SLIDE_TABLES = tuple(
    (line, _slide_table(line, fwd), _slide_table(line, back)) for line, back, fwd in _LINES
)


def slides(cells: tuple[int, ...]) -> Iterator[Slide]:
    """Every legal slide on `cells`.

    In each row/column, a maximal block of tiles a..b moving forward can only
    move a sub-run ending at b (anything else would push), by 1..free squares
    ahead of b; backward, a sub-run starting at a.  A single tile is a run of
    both its row and its column, so it gets all four directions exactly once.
    """
    for line, fwd_table, back_table in _SLIDE_TABLES:
        k = 0
        prev_end = -1
        while k < SIZE:
            if cells[line[k]] == EMPTY:
                k += 1
                continue
            a = k
            while k < SIZE and cells[line[k]] != EMPTY:
                k += 1
            b = k - 1
            nxt = k
            while nxt < SIZE and cells[line[nxt]] == EMPTY:
                nxt += 1
            free_fwd = nxt - k
            free_back = a - prev_end - 1
            if free_fwd:
                for i in range(a, b + 1):
                    yield from fwd_table[i][b][:free_fwd]
            if free_back:
                row = back_table[a]
                for j in range(a, b + 1):
                    yield from row[j][:free_back]
            prev_end = b


def any_slide(cells: tuple[int, ...]) -> bool:
    """Some tile can slide: the board has both a tile and an empty square (the grid is connected)."""
    empty = cells.count(EMPTY)
    return 0 < empty < SQUARES


def _name(index: int) -> str:
    return index_name(index, SIZE)


def put(cells: tuple[int, ...], square: int, value: int) -> tuple[int, ...]:
    return (*cells[:square], value, *cells[square + 1 :])


def lances(cells: tuple[int, ...]) -> tuple[set[int], set[int]]:
    """Squares of every red and every blue lance window."""
    red: set[int] = set()
    blue: set[int] = set()
    for w in WINDOWS:
        v = cells[w[0]]
        if (
            v != EMPTY
            and v != NEUTRAL
            and cells[w[1]] == v
            and cells[w[2]] == v
            and cells[w[3]] == v
            and cells[w[4]] == v
        ):
            (red if v == RED else blue).update(w)
    return red, blue


def random_turn(cells: tuple[int, ...], seat: int, shape: str, rng: random.Random) -> Turn | None:
    """A random legal turn of `shape` (letters P, S, N in order), or None if it has none.

    The caller guarantees that P and N are allowed at the start of the turn;
    the placement limit after the first placement is checked here.
    """
    parts: list[Part] = []
    current = cells
    for letter in shape:
        if letter == "S":
            options = list(slides(current))
            if not options:
                return None
            slide = rng.choice(options)
            parts.append(slide)
            current = shifted(current, slide)
            continue
        empties = [i for i in range(SQUARES) if current[i] == EMPTY]
        if len(empties) <= PLACEMENT_LIMIT:
            return None
        square = rng.choice(empties)
        if letter == "P":
            parts.append(Place(square))
            current = put(current, square, seat)
        else:
            parts.append(Neutral(square))
            current = put(current, square, NEUTRAL)
    return Turn(tuple(parts))
