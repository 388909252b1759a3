"""A game's page hooks: how its board and controls templates are fed.

matches/render.py builds a generic context for every audience (viewer,
seats, names, bout, status, log, ...) and then asks the game's page, found
with `games.registry.get_page(slug)`, for the keys its templates read.  Each
game keeps its implementation in its own app (`games/<app>/page.py`, a
subclass of `Page`); a game without one gets `Page`, which adds nothing.

Plain types only: games/core never imports Django, and neither may a page
(the view is a JSON-safe dict, the context a dict of plain values and model
rows the page only reads).

The one rule: a page runs for every audience with that audience's own
`game.view()`, so it may only shape what the view already holds.  Hidden
information never reaches a template another way.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class GamePage(Protocol):
    """What matches/render.py asks of a game's page."""

    #: True when `context` reads nothing but the view (not `ctx`, not `view["viewer"]`):
    #: its output is then computed once per update for every audience with the same view.
    view_only: bool

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        """Keys to add to (or override in) the context the game's templates read."""
        ...

    def log_notes(self, view: dict[str, Any], entries: list[dict[str, Any]],
                  ctx: dict[str, Any]) -> list[dict[str, Any]]:
        """The log rows a live update appends, with the game's notes ("Gomoku won by Uli")."""
        ...


class Page:
    """The default page: no keys of its own, the log rows as they are."""

    view_only: bool = False

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return {}

    def log_notes(self, view: dict[str, Any], entries: list[dict[str, Any]],
                  ctx: dict[str, Any]) -> list[dict[str, Any]]:
        return entries
