"""Lance Assembly's view shaping for its page: the board's cells with their
marks, the last turn's squares and the lance.  Pure: no Django."""

from __future__ import annotations

from typing import Any

from games.core.howto import HowToPlay
from games.core.pages import Page
from games.core.squares import Mark, square_grid, squares

from .board import PLACEMENT_LIMIT
from .howto import HOW_TO_PLAY

MARKS = {"R": Mark("p1", "red tile"), "B": Mark("p2", "blue tile"), "N": Mark("neutral", "neutral tile")}


def context(view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    public = view.get("public") or {}
    grid = square_grid(public.get("cells") or [], MARKS)
    return {
        "grid": grid,
        "last_cells": squares(public.get("last_squares")),
        "win_cells": squares(public.get("lance")),
        "refuse_cells": {} if ctx.get("over") else _refusals(grid, public),
    }


def _refusals(grid: dict[str, Any], public: dict[str, Any]) -> dict[str, str]:
    """Empty squares when nothing may be placed on them (rules.py): the placement limit, or no
    tile in hand and no neutral tile.  Tiles are always clickable: they are the ends of a run."""
    seat = public.get("to_move")
    if not seat:
        return {}
    empty = int(public.get("empty_count") or 0)
    if empty <= PLACEMENT_LIMIT:
        why = (f"No tile can be placed now: {empty} squares are empty, and tiles go down only while more "
               f"than {PLACEMENT_LIMIT} are. Slide a run instead.")
    elif not int((public.get("in_hand") or {}).get(str(seat), 0)) and not (
            public.get("neutral_available") and public.get("neutral_owner") == seat):
        why = "You have no tile left in hand: slide a run instead."
    else:
        return {}
    return {cell["coord"]: why for row in grid["rows"] for cell in row if not cell["value"]}


class LancePage(Page):
    """Lance Assembly's page hooks (games.registry.get_page)."""

    #: `context` reads nothing but `view["public"]` (not ctx, not whose view it is): matches/render.py
    #: runs it once per update for every audience with the same view
    view_only = True
    description = "Place and slide tiles on a 6x6 board; five in a row (a lance) wins the bout. Best of 3."
    example_move = "place C3; slide B2-B3 down 1"

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return context(view, ctx)

    def how_to_play(self) -> HowToPlay:
        return HOW_TO_PLAY
