"""Grid Master actions and their notation (pure Python, no Django).

A turn is an optional placement and an optional reposition; canonical text
is ``place B2; move A1 right 2``.  The parser also reads natural phrasings
("I place on B2 and move A1 to C1", "move A1 r", "put b2, a1 two right") and
raises only `NotationError`; whether the turn is legal is `GridMaster.apply`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.core import NotationError
from games.core.grid import COLUMNS, DIRECTIONS, parse_index
from games.core.notation import normalize

SIZE = 3
CELLS = SIZE * SIZE
DIRECTION_ORDER = ("up", "down", "left", "right")


def _name(index: int) -> str:
    row, col = divmod(index, SIZE)
    return f"{COLUMNS[col]}{row + 1}"


NAMES = tuple(_name(i) for i in range(CELLS))


def _paths() -> tuple[tuple[tuple[str, int, tuple[int, ...]], ...], ...]:
    """Per square: every (direction, distance, squares entered) that stays on the board."""
    table = []
    for index in range(CELLS):
        row, col = divmod(index, SIZE)
        options = []
        for direction in DIRECTION_ORDER:
            dc, dr = DIRECTIONS[direction]
            path: list[int] = []
            for distance in (1, 2):
                c, r = col + dc * distance, row + dr * distance
                if not (0 <= c < SIZE and 0 <= r < SIZE):
                    break
                path.append(r * SIZE + c)
                options.append((direction, distance, tuple(path)))
        table.append(tuple(options))
    return tuple(table)


#: PATHS[square] -> ((direction, distance, path), ...); path ends on the destination.
PATHS = _paths()


# -- actions --------------------------------------------------------------


@dataclass(frozen=True)
class Reposition:
    """Move the symbol on `square` `distance` squares toward `direction`."""

    square: int
    direction: str
    distance: int

    @property
    def path(self) -> tuple[int, ...] | None:
        """The squares entered, the destination last; None if it leaves the board."""
        for direction, distance, path in PATHS[self.square]:
            if direction == self.direction and distance == self.distance:
                return path
        return None


@dataclass(frozen=True)
class Turn:
    """One turn: an optional placement and an optional reposition.

    `reposition_first` records text that named the reposition before the
    placement, so that apply can refuse it with the card's reason.
    """

    place: int | None = None
    move: Reposition | None = None
    reposition_first: bool = False



# -- notation -------------------------------------------------------------

EXAMPLE = "expected a turn like 'place B2; move A1 right 2'"
_TOKEN = re.compile(r"[a-z]+[0-9]*|[0-9]+|->|=>|[^\sa-z0-9]")
_SQUARE = re.compile(r"[a-z][0-9]+")
_PLACE_WORDS = frozenset({"place", "places", "placing", "put", "puts", "putting", "play", "plays", "drop", "add"})
_MOVE_WORDS = frozenset(
    {"move", "moves", "moving", "reposition", "repositions", "repositioning", "slide", "slides", "shift", "shifts"}
)
_TO_WORDS = frozenset({"to", "onto", "->", "=>", ">", "-"})
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3}
_DIRECTION_WORDS = {
    "u": "up", "up": "up", "upward": "up", "upwards": "up", "north": "up", "n": "up",
    "d": "down", "down": "down", "downward": "down", "downwards": "down", "south": "down", "s": "down",
    "l": "left", "left": "left", "leftward": "left", "leftwards": "left", "west": "left", "w": "left",
    "r": "right", "right": "right", "rightward": "right", "rightwards": "right", "east": "right", "e": "right",
}
_FILLER = frozenset(
    {
        "i", "ill", "will", "a", "an", "the", "my", "new", "symbol", "symbols", "piece", "pieces", "mark",
        "marker", "tile", "x", "o", "on", "at", "in", "into", "square", "squares", "box", "boxes",
        "space", "spaces", "cell", "from", "then", "and", "by", "it", "step", "steps", "please", "now",
        "also", "of", "its", "this", "that", "one's", ";", ",", ":",
    }
)


def parse_turn(text: str) -> Turn:
    """Notation -> Turn (no legality checks: that is apply's job)."""
    cleaned = normalize(text).replace("'", "").replace("\u2019", "")
    if not cleaned:
        raise NotationError(f"{EXAMPLE}, got nothing")
    tokens = [t for t in _TOKEN.findall(cleaned) if t not in _FILLER]
    place: int | None = None
    move: Reposition | None = None
    reposition_first = False
    pos = 0

    def square_at(i: int, after: str) -> int:
        if i >= len(tokens) or not _SQUARE.fullmatch(tokens[i]):
            got = "nothing" if i >= len(tokens) else repr(tokens[i])
            raise NotationError(f"expected a square after {after!r}, like '{after} B2', got {got}")
        return parse_index(tokens[i], SIZE, SIZE)

    while pos < len(tokens):
        token = tokens[pos]
        if token in _PLACE_WORDS or (_SQUARE.fullmatch(token) and not _starts_move_tail(tokens, pos + 1)):
            if token in _PLACE_WORDS:
                pos += 1
            if place is not None:
                raise NotationError("a turn places only one new symbol")
            place = square_at(pos, "place")
            pos += 1
        elif token in _MOVE_WORDS or _SQUARE.fullmatch(token):
            if token in _MOVE_WORDS:
                pos += 1
            if move is not None:
                raise NotationError("a turn repositions only one symbol")
            source = square_at(pos, "move")
            move, pos = _move_tail(tokens, pos + 1, source)
            reposition_first = place is None
        else:
            raise NotationError(f"{EXAMPLE}, got {token!r}")
    if place is None and move is None:
        raise NotationError(f"{EXAMPLE}, got {text.strip()!r}")
    if place is None or move is None:
        reposition_first = False
    return Turn(place=place, move=move, reposition_first=reposition_first)


def format_turn(action: Turn) -> str:
    parts = []
    if action.place is not None:
        parts.append(f"place {NAMES[action.place]}")
    if action.move is not None:
        move = action.move
        text = f"move {NAMES[move.square]} {move.direction} {move.distance}"
        if action.reposition_first:
            parts.insert(0, text)
        else:
            parts.append(text)
    return "; ".join(parts)


def _starts_move_tail(tokens: list[str], pos: int) -> bool:
    return pos < len(tokens) and (tokens[pos] in _TO_WORDS or tokens[pos] in _DIRECTION_WORDS)


def _move_tail(tokens: list[str], pos: int, source: int) -> tuple[Reposition, int]:
    """After 'move A1': 'right 2', 'r', 'to C1' or 'C1'."""
    name = NAMES[source]
    if pos < len(tokens) and tokens[pos] in _TO_WORDS:
        pos += 1
    if pos >= len(tokens):
        raise NotationError(
            f"expected a direction and distance or a destination after 'move {name}', "
            f"like 'move {name} right 2' or 'move {name} to C1'"
        )
    token = tokens[pos]
    # "move A1 two right", "move A1 2 squares right": the distance first
    ahead = tokens[pos + 1] if pos + 1 < len(tokens) else None
    if ahead in _DIRECTION_WORDS and (token in _NUMBER_WORDS or (token.isascii() and token.isdigit())):
        if token in _NUMBER_WORDS:
            distance = _NUMBER_WORDS[token]
        elif len(token) > 2:
            raise NotationError(f"expected a distance of 1 or 2, got {token!r}")
        else:
            distance = int(token)
        return Reposition(source, _DIRECTION_WORDS[ahead], distance), pos + 2
    if token in _DIRECTION_WORDS:
        direction = _DIRECTION_WORDS[token]
        pos += 1
        distance = 1
        if pos < len(tokens):
            following = tokens[pos]
            if following in _NUMBER_WORDS:
                distance = _NUMBER_WORDS[following]
                pos += 1
            elif following.isascii() and following.isdigit():  # not '²'
                if len(following) > 2:
                    raise NotationError(f"expected a distance of 1 or 2, got {following!r}")
                distance = int(following)
                pos += 1
        return Reposition(source, direction, distance), pos
    if _SQUARE.fullmatch(token):
        target = parse_index(token, SIZE, SIZE)
        return _toward(source, target), pos + 1
    raise NotationError(
        f"expected a direction (up, down, left or right) or a destination after 'move {name}', got {token!r}"
    )


def _toward(source: int, target: int) -> Reposition:
    r1, c1 = divmod(source, SIZE)
    r2, c2 = divmod(target, SIZE)
    if source == target:
        raise NotationError(f"{NAMES[source]} to {NAMES[target]} does not move the symbol")
    if r1 == r2:
        return Reposition(source, "right" if c2 > c1 else "left", abs(c2 - c1))
    if c1 == c2:
        return Reposition(source, "down" if r2 > r1 else "up", abs(r2 - r1))
    kind = "a diagonal move" if abs(r2 - r1) == abs(c2 - c1) else "not in one row or column"
    raise NotationError(
        f"{NAMES[source]} to {NAMES[target]} is {kind}: a reposition goes up, down, left or right only"
    )

