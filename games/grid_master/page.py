"""Grid Master's view shaping for its page: which squares to highlight.

The first move must be on a corner, and on each player's second turn the
symbol placed on their first turn must be repositioned (see rules.py); the page
lights those squares so nobody has to remember.  Pure: no Django.
"""

from __future__ import annotations

from typing import Any

from games.core.howto import HowToPlay
from games.core.pages import Page
from games.core.squares import Mark, square_grid, squares

from .howto import HOW_TO_PLAY

CORNERS = ("A1", "C1", "A3", "C3")
MARKS = {"X": Mark("p1", "X"), "O": Mark("p2", "O")}


def context(view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    public = view.get("public") or {}
    hints: dict[str, str] = {}
    refuse: dict[str, str] = {}
    note = ""
    grid = square_grid(public.get("cells") or [], MARKS)
    # a bout ended by the host, a clock or a resignation keeps its rules' turn: no hint on a finished board
    if public.get("to_move") and public.get("turn_kind") and not ctx.get("over"):
        refuse = _refusals(grid, public)
        if public.get("turn_number") == 1:
            hints = {square: "corner: the first move goes on a corner" for square in CORNERS}
            note = "The first move goes on a corner."
        must = public.get("must_reposition")
        if isinstance(must, str) and must:
            hints[must] = "must be moved this turn"
            note = f"This turn moves the symbol on {must} (the first one placed)."
    return {
        "grid": grid,
        "last_cells": squares(public.get("last_squares")),
        "win_cells": squares(public.get("winning_line")),
        "hint_cells": hints,
        "hint_note": note,
        "refuse_cells": refuse,
    }


def _refusals(grid: dict[str, Any], public: dict[str, Any]) -> dict[str, str]:
    """The squares the player to move may not click whatever they picked, with why (rules.py):
    on the first move every square but a corner; the other player's symbols; on a player's second
    turn their symbols but the one to reposition."""
    mine = (public.get("symbols") or {}).get(str(public["to_move"]), "")
    must = public.get("must_reposition") or ""
    out: dict[str, str] = {}
    for row in grid["rows"]:
        for cell in row:
            square, value = cell["coord"], cell["value"]
            if public.get("turn_number") == 1 and square not in CORNERS:
                out[square] = f"{square} is not a corner: the first move goes on a corner."
            elif value and value != mine:
                out[square] = f"{square} holds {value}, the other player's symbol: place on an empty square or move one of yours."
            elif value and must and square != must:
                out[square] = f"This turn moves the symbol on {must} (the first one placed), not the one on {square}."
    return out


class GridMasterPage(Page):
    """Grid Master's page hooks (games.registry.get_page)."""

    #: `context` reads nothing but `view["public"]` (not ctx, not whose view it is): matches/render.py
    #: runs it once per update for every audience with the same view
    view_only = True
    description = "Tic-tac-toe with moving symbols on 3x3: place, then reposition one of yours; three in a row wins."
    example_move = "place B2; move A1 right 2"

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return context(view, ctx)

    def how_to_play(self) -> HowToPlay:
        return HOW_TO_PLAY
