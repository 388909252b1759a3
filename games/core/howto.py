"""A game's How to play text: typed sections, notation examples and diagrams.

Each game's page returns a `HowToPlay` from `how_to_play()` (games/core/pages.py);
matches/web renders it at /rules/<slug>/.  A diagram is never a picture drawn by
hand: it is a list of moves in the game's own notation, played from `game.new()`
through `parse` and `apply` (`positions`), and drawn by the game's own board
template.  A diagram that the rules refuse fails its test (tests/games/
test_how_to_play.py), so the page can never disagree with the rules.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .game import SPECTATOR, Game

#: one move of a diagram: (the seat that plays it, or HOST; its text in the game's notation)
Move = tuple[int, str]


@dataclass(frozen=True)
class Example:
    """A move as typed, and what it does."""

    text: str
    meaning: str


@dataclass(frozen=True)
class Diagram:
    """A position built by the rules.  `setup` is played from `game.new(options)`; when
    `play` is given the position is drawn twice, before and after it (a slide, a ring
    move, a resolved round), and its moves are listed between the two drawings.  The
    drawing is `viewer`'s own view (a spectator's by default: nothing hidden leaks)."""

    caption: str
    setup: tuple[Move, ...] = ()
    play: tuple[Move, ...] = ()
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    viewer: int = SPECTATOR
    #: the names of the seats in the drawing (seat 1 first); default "Player 1", ...
    names: tuple[str, ...] = ()
    #: a drawing too wide to stand beside another (several boards): before and after are stacked
    wide: bool = False


@dataclass(frozen=True)
class Section:
    """One heading of the page: paragraphs, then notation examples, then diagrams."""

    title: str
    paragraphs: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    diagrams: tuple[Diagram, ...] = ()


@dataclass(frozen=True)
class HowToPlay:
    """The whole page.  `goal` and `turn` open it (required: the structure test fails a
    game without them), `sections` hold the rules and rulings players trip on, and
    `notation` the moves as typed, with examples."""

    goal: str
    turn: str
    sections: tuple[Section, ...] = ()
    notation: tuple[Example, ...] = ()
    #: a paragraph above the notation examples (how moves are written in general)
    notation_intro: str = ""

    def diagrams(self) -> list[Diagram]:
        return [d for s in self.sections for d in s.diagrams]


def play(game: Game[Any, Any], state: Any, moves: tuple[Move, ...]) -> Any:
    """`moves` played from `state` through the rules' own checked path."""
    for seat, text in moves:
        state = game.apply(state, seat, game.parse(state, seat, text))
    return state


def positions(game: Game[Any, Any], diagram: Diagram) -> list[tuple[str, Any]]:
    """The states `diagram` draws, each with its label ("Before", "After", or "" alone).
    A move the rules refuse raises its `RuleError`."""
    start = play(game, game.new(dict(diagram.options)), diagram.setup)
    if not diagram.play:
        return [("", start)]
    return [("Before", start), ("After", play(game, start, diagram.play))]


def seat_names(game: Game[Any, Any], diagram: Diagram) -> dict[int, str]:
    """Seat number -> name in the drawing of `diagram`."""
    count = game.seat_count(dict(diagram.options))
    names = dict(enumerate(diagram.names, start=1))
    return {n: names.get(n, f"Player {n}") for n in range(1, count + 1)}
