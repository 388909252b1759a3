"""Tic-tac-toe's page hooks: the board's rows for board.html, its line on the home page."""

from __future__ import annotations

from typing import Any

from games.core.grid import index_name
from games.core.howto import Diagram, Example, HowToPlay, Section
from games.core.pages import Page

from .rules import MARKS, SIZE


class TicTacToePage(Page):
    view_only = True
    description = "Plain 3x3 tic-tac-toe, a toy kept for tests: three marks in a row win."
    example_move = "B2"

    def how_to_play(self) -> HowToPlay:
        return HowToPlay(goal="Three of your marks in a row.", turn="X and O take turns, one mark on an empty square.",
                         sections=(Section("A line", ("Across, down or diagonally.",), diagrams=(
                             Diagram("X completes the top row.", setup=((1, "A1"), (2, "A2"), (1, "B1"), (2, "B2")),
                                     play=((1, "C1"),)),)),),
                         notation=(Example("B2", "a mark on the centre square"),))

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        cells = (view.get("public") or {}).get("cells") or [0] * SIZE * SIZE
        return {"toy_rows": [[{"coord": index_name(row * SIZE + col, SIZE), "mark": MARKS[cells[row * SIZE + col]]}
                              for col in range(SIZE)] for row in reversed(range(SIZE))]}
