"""Lance Assembly's view shaping for its page: the board's cells with their
marks, the last turn's squares and the lance.  Pure: no Django."""

from __future__ import annotations

from typing import Any

from games.core.howto import HowToPlay
from games.core.pages import Page
from games.core.squares import Mark, square_grid, squares

from .howto import HOW_TO_PLAY

MARKS = {"R": Mark("p1", "red tile"), "B": Mark("p2", "blue tile"), "N": Mark("neutral", "neutral tile")}


def context(view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    public = view.get("public") or {}
    return {
        "grid": square_grid(public.get("cells") or [], MARKS),
        "last_cells": squares(public.get("last_squares")),
        "win_cells": squares(public.get("lance")),
    }


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
