"""Lance Assembly actions and their notation (pure Python, no Django).

A turn is one action: an ordered tuple of parts, each a `Place`, a `Slide`
or a `Neutral`.  Canonical text joins the parts with "; " in the order they
are played::

    place C3; slide B2-B3 down 1; neutral D4
    slide B2 down 1                      (a single tile names one square)

The parser is forgiving about phrasing and strict about meaning.  It reads
what players type, e.g. "I place tile on A1, and slide tiles on B2 and B3
down 1.", "place a1 slide b2-b3 d 1", "slide tiles on B2, B3 and B4 left 2",
"place neutral on D4", "neutral tile D4", "move B2 to B4" (one tile to a
destination square), "slide B2 to the right by 2 spaces", "slide B2 d1".  "and" and commas join squares inside a slide and
separate parts elsewhere.  A part with no verb is a slide when a direction or
distance follows its squares, otherwise a placement.  The parser needs no
state and raises only `NotationError`; whether the turn is legal is
`LanceAssembly.apply`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.core.errors import NotationError
from games.core.grid import index_name, parse_direction, parse_index
from games.core.notation import require_text

SIZE = 6


@dataclass(frozen=True)
class Place:
    """Place one of your own tiles on `square` (a flat index, A1 = 0)."""

    square: int


@dataclass(frozen=True)
class Neutral:
    """Place the neutral tile on `square`."""

    square: int


@dataclass(frozen=True)
class Slide:
    """Slide the run `start`..`end` (one row or column) `distance` squares.

    `start` <= `end` always (the constructor orders them), so a slide has one
    spelling and `parse(format(a)) == a`.  `start == end` is a single tile.
    """

    start: int
    end: int
    direction: str
    distance: int

    def __post_init__(self) -> None:
        if self.start > self.end:
            start, end = self.end, self.start
            object.__setattr__(self, "start", start)
            object.__setattr__(self, "end", end)


Part = Place | Slide | Neutral


@dataclass(frozen=True)
class Turn:
    """One whole turn: its parts in the order they are played."""

    parts: tuple[Part, ...]


def square_text(index: int) -> str:
    return index_name(index, SIZE)


def format_part(part: Part) -> str:
    if isinstance(part, Place):
        return f"place {square_text(part.square)}"
    if isinstance(part, Neutral):
        return f"neutral {square_text(part.square)}"
    run = square_text(part.start)
    if part.end != part.start:
        run += f"-{square_text(part.end)}"
    return f"slide {run} {part.direction} {part.distance}"


def format_turn(turn: Turn) -> str:
    return "; ".join(format_part(part) for part in turn.parts)


# -- parsing ------------------------------------------------------------------

_TOKEN_RE = re.compile(r"[a-z]+[0-9]+|[0-9]+|[a-z]+(?:'[a-z]+)?|[-,;.&+/:()]|\S")
_SQUARE_TOKEN = re.compile(r"[a-z]+[0-9]+")

_PLACE_WORDS = frozenset({"place", "places", "placing", "put", "puts", "drop", "play", "add"})
_SLIDE_WORDS = frozenset({"slide", "slides", "sliding", "move", "moves", "shift", "push"})
_NEUTRAL_WORDS = frozenset({"neutral"})
#: words that never change the meaning ("and"/"," also join squares in a slide)
_FILLER = frozenset({
    "i", "i'll", "ill", "will", "we", "let's", "lets", "me", "my", "then", "and", "also", "afterwards",
    "after", "that", "first", "finally", "tile", "tiles", "piece", "pieces", "stone", "stones",
    "on", "at", "in", "onto", "into", "the", "a", "an", "of", "from", "by", "with", "square",
    "squares", "space", "spaces", "step", "steps", "cell", "cells",
})
_SEPARATORS = frozenset({",", ";", ".", ":", "(", ")"})
_RANGE_WORDS = frozenset({"-", "to", "through", "thru", "until", "till"})
_LIST_WORDS = frozenset({",", "and", "&", "+", "/"})
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DIRECTION_WORDS = frozenset({
    "u", "up", "upward", "upwards", "north", "n",
    "d", "down", "downward", "downwards", "south", "s",
    "l", "left", "west", "w",
    "r", "right", "east", "e",
})
#: words skipped around a slide's direction and distance ("to the right by 2 spaces")
_DISTANCE_FILLER = frozenset({
    "by", "space", "spaces", "square", "squares", "step", "steps", "cell", "cells", "to", "the", "toward",
    "towards",
})

_COMPACT_RE = re.compile(r"(up|down|left|right|u|d|l|r)([0-9]{1,2})")

_EXPECTED = "expected a turn like 'place C3; slide B2-B3 down 1; neutral D4'"


def parse_turn(text: str) -> Turn:
    """Text -> Turn, or NotationError saying what was expected."""
    cleaned = require_text(text, "Lance Assembly")
    tokens = _tokenize(cleaned)
    return _Parser(tokens).turn()


def _tokenize(text: str) -> list[str]:
    tokens = _TOKEN_RE.findall(text)
    for token in tokens:
        if len(token) == 1 and not token.isalnum() and token not in _SEPARATORS | _LIST_WORDS | {"-"}:
            raise NotationError(f"unexpected character {token!r}; {_EXPECTED}")
    return tokens


def _is_square(token: str | None) -> bool:
    return token is not None and _SQUARE_TOKEN.fullmatch(token) is not None


def _is_number(token: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts superscripts like '²', which int() refuses."""
    return token.isascii() and token.isdigit()


def _square(token: str) -> int:
    if len(token) > 4:
        raise NotationError(f"expected a square from A1 to F6, got {token.upper()!r}")
    return parse_index(token.upper(), SIZE, SIZE)


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.pos + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def skip_filler(self) -> None:
        while (token := self.peek()) is not None and (token in _FILLER or token in _SEPARATORS):
            self.pos += 1

    def turn(self) -> Turn:
        parts: list[Part] = []
        while True:
            self.skip_filler()
            token = self.peek()
            if token is None:
                break
            parts.append(self.part())
        if not parts:
            raise NotationError(f"{_EXPECTED}, got no place, slide or neutral")
        return Turn(tuple(parts))

    def part(self) -> Part:
        token = self.take()
        if token in _PLACE_WORDS:
            self.skip_filler()
            if self.peek() in _NEUTRAL_WORDS:
                self.pos += 1
                return Neutral(self.one_square("the neutral tile"))
            return Place(self.one_square("place"))
        if token in _NEUTRAL_WORDS:
            return Neutral(self.one_square("neutral"))
        if token in _SLIDE_WORDS:
            return self.slide(token)
        if _is_square(token):
            self.pos -= 1
            squares, ranged, destination = self.squares()
            if self.at_direction_or_distance() or ranged or len(squares) > 1 or destination is not None:
                return self.finish_slide(squares, ranged, destination)
            return Place(squares[0])
        if token == "pass":
            raise NotationError("you may not pass: a turn must place a tile or slide")
        raise NotationError(f"unexpected {token!r}; {_EXPECTED}")

    def one_square(self, what: str) -> int:
        self.skip_filler()
        token = self.peek()
        if token is None:
            raise NotationError(f"expected a square like C3 after {what!r}, got nothing")
        if not _is_square(token):
            raise NotationError(f"expected a square like C3 after {what!r}, got {token!r}")
        self.pos += 1
        return _square(token)

    def slide(self, verb: str) -> Slide:
        self.skip_filler()
        token = self.peek()
        if not _is_square(token):
            got = "nothing" if token is None else repr(token)
            raise NotationError(f"expected the squares to slide (like B2-B3) after {verb!r}, got {got}")
        squares, ranged, destination = self.squares()
        return self.finish_slide(squares, ranged, destination)

    def squares(self) -> tuple[list[int], bool, int | None]:
        """Squares of a run: 'B2', 'B2-B4', 'B2, B3 and B4'.

        Returns (squares, ranged, destination): `ranged` when two ends were
        joined by '-'/'to'; `destination` when the form was 'B2 to B4' with
        no direction after it (one tile moved to a square).
        """
        squares = [_square(self.take())]
        ranged = False
        destination: int | None = None
        while True:
            token = self.peek()
            if token in _RANGE_WORDS and _is_square(self.peek(1)) and not ranged and len(squares) == 1:
                word = self.take()
                end = _square(self.take())
                if word != "-" and not self.at_direction_or_distance():
                    destination = end
                    return squares, False, destination
                squares.append(end)
                ranged = True
                continue
            ahead = 0
            while self.peek(ahead) in _LIST_WORDS:
                ahead += 1
            if (
                ahead
                and _is_square(self.peek(ahead))
                and not ranged
                # "C3, B2-B3 down 1": a new run starts, so the list ended before the comma
                and not (self.peek(ahead + 1) in _RANGE_WORDS and _is_square(self.peek(ahead + 2)))
            ):
                self.pos += ahead
                squares.append(_square(self.take()))
                continue
            return squares, ranged, destination

    def at_direction_or_distance(self) -> bool:
        ahead = 0
        while (token := self.peek(ahead)) is not None and token in _FILLER and token not in _LIST_WORDS:
            ahead += 1
        token = self.peek(ahead)
        return token is not None and (
            token in _DIRECTION_WORDS or token in _NUMBER_WORDS or _is_number(token)
        )

    def finish_slide(self, squares: list[int], ranged: bool, destination: int | None) -> Slide:
        if destination is not None:
            return _slide_to(squares[0], destination)
        start, end = _run_ends(squares, ranged)
        direction: str | None = None
        distance: int | None = None
        while direction is None or distance is None:
            while (token := self.peek()) is not None and token in _DISTANCE_FILLER:
                self.pos += 1
            token = self.peek()
            compact = _COMPACT_RE.fullmatch(token) if token is not None else None
            if direction is None and distance is None and compact is not None:  # "d1", "right2"
                self.pos += 1
                direction = parse_direction(compact.group(1))
                distance = _distance(compact.group(2))
            elif direction is None and token is not None and token in _DIRECTION_WORDS:
                direction = parse_direction(self.take())
            elif distance is None and token is not None and (_is_number(token) or token in _NUMBER_WORDS):
                distance = _distance(self.take())
            else:
                break
        run = _run_text(start, end)
        if direction is None:
            got = "nothing" if self.peek() is None else repr(self.peek())
            raise NotationError(f"expected a direction (up, down, left or right) to slide {run}, got {got}")
        if distance is None:
            got = "nothing" if self.peek() is None else repr(self.peek())
            raise NotationError(f"expected how far to slide {run} (a number like 1), got {got}")
        return Slide(start, end, direction, distance)


def _distance(token: str) -> int:
    if token in _NUMBER_WORDS:
        return _NUMBER_WORDS[token]
    if len(token) > 3:
        raise NotationError(f"expected a distance from 1 to 5, got {token!r}")
    return int(token)


def _run_text(start: int, end: int) -> str:
    if start == end:
        return square_text(start)
    return f"{square_text(start)}-{square_text(end)}"


def _run_ends(squares: list[int], ranged: bool) -> tuple[int, int]:
    """The end squares of a listed run; NotationError if the list is not one unbroken run."""
    if ranged or len(squares) == 1:
        return min(squares), max(squares)
    unique = sorted(set(squares))
    if len(unique) != len(squares):
        raise NotationError("a square is named twice in the slide")
    rows = {s // SIZE for s in unique}
    cols = {s % SIZE for s in unique}
    names = ", ".join(square_text(s) for s in unique)
    if len(rows) != 1 and len(cols) != 1:
        raise NotationError(f"the tiles {names} are not in one row or column, so they cannot slide together")
    stride = 1 if len(rows) == 1 else SIZE
    expected = list(range(unique[0], unique[-1] + 1, stride))
    if unique != expected:
        missing = ", ".join(square_text(s) for s in expected if s not in unique)
        raise NotationError(
            f"the tiles {names} are not connected ({missing} is left out), so they cannot slide together"
        )
    return unique[0], unique[-1]


def _slide_to(source: int, target: int) -> Slide:
    """'move B2 to B4': one tile to a square of its row or column."""
    r1, c1 = divmod(source, SIZE)
    r2, c2 = divmod(target, SIZE)
    if source == target:
        raise NotationError(f"a slide from {square_text(source)} to itself goes nowhere")
    if r1 == r2:
        return Slide(source, source, "right" if c2 > c1 else "left", abs(c2 - c1))
    if c1 == c2:
        return Slide(source, source, "down" if r2 > r1 else "up", abs(r2 - r1))
    raise NotationError(
        f"{square_text(source)} and {square_text(target)} are not in one row or column: "
        "tiles slide only up, down, left or right"
    )
