"""A game's page hooks: how its board and controls templates are fed.

matches/render.py builds a generic context for every audience (viewer,
seats, names, bout, status, log, ...) and then asks the game's page, found
with `games.registry.get_page(slug)`, for the keys its templates read.  Each
game keeps its implementation in its own app (`games/<app>/page.py`, a
subclass of `Page`); a game without one gets `Page`, which adds nothing.

Plain types only: games/core never imports Django, and neither may a page
(the view is a JSON-safe dict, the context a dict of plain values and model
rows the page only reads).

Besides the board, a page says what the platform's other pages show of the
game: its one-line `description` on the home page, the `example_move` in an
empty move box, and how the host form shows an option (`option_fields`: one
number per seat, or a board editor fed by `boards` and checked by
`check_board`), and the game's How to play page (`how_to_play`: games/core/howto.py).

The one rule: a page runs for every audience with that audience's own
`game.view()`, so it may only shape what the view already holds.  Hidden
information never reaches a template another way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .howto import HowToPlay


@dataclass(frozen=True)
class OptionField:
    """How the host form shows one of the game's options, when not by its default's type:
    `kind` "per_seat" (one whole number per seat, `hint` beside them) or "boards" (a board
    editor per board of `GamePage.boards`, each board checked by `GamePage.check_board`, `hint`
    above them: how to use it, in the game's words)."""

    kind: str
    hint: str = ""


@runtime_checkable
class GamePage(Protocol):
    """What matches/render.py asks of a game's page."""

    #: True when `context` reads nothing but the view and `ctx["over"]` (the same for every audience;
    #: not the rest of `ctx`, not `view["viewer"]`): its output is then computed once per update for
    #: every audience with the same view.
    view_only: bool
    #: one line for the home page's game menu (required: the structure test fails without it)
    description: str
    #: the move box's placeholder example ("place C3")
    example_move: str
    #: option key -> how the host form shows it (options not listed: by their default's type)
    option_fields: Mapping[str, OptionField]

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        """Keys to add to (or override in) the context the game's templates read."""
        ...

    def log_notes(self, view: dict[str, Any], entries: list[dict[str, Any]],
                  ctx: dict[str, Any]) -> list[dict[str, Any]]:
        """The log rows a live update appends, with the game's notes ("Gomoku won by Uli")."""
        ...

    def boards(self, value: Any) -> list[dict[str, Any]]:
        """A "boards" option for its editor: per board its name, title, size, walls (text) and
        the sizes allowed."""
        ...

    def check_board(self, game: Any, board: str, size: int | None, walls: list[str] | None) -> dict[str, Any]:
        """One board of the editor checked by the game's own rules: {ok, error, size, walls,
        corners}.  `walls` None: the game's default walls for that size."""
        ...

    def how_to_play(self) -> HowToPlay | None:
        """The game's How to play page (/rules/<slug>/): required, the structure test fails a
        registered game whose page returns None."""
        ...


class Page:
    """The default page: no keys of its own, the log rows as they are."""

    view_only: bool = False
    description: str = ""
    example_move: str = "C3"
    option_fields: Mapping[str, OptionField] = {}

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return {}

    def log_notes(self, view: dict[str, Any], entries: list[dict[str, Any]],
                  ctx: dict[str, Any]) -> list[dict[str, Any]]:
        return entries

    def boards(self, value: Any) -> list[dict[str, Any]]:
        return []

    def check_board(self, game: Any, board: str, size: int | None, walls: list[str] | None) -> dict[str, Any]:
        raise ValueError("there is no such board")

    def how_to_play(self) -> HowToPlay | None:
        # no text by default: a game says how it is played, or the structure test fails it
        return None
