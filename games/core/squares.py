"""Square boards as the shared grid partial (matches/partials/grid.html) draws them.

A game whose view holds a plain square board (Lance Assembly, Grid Master)
names its own marks here instead of leaving the page to guess what a cell's
value means: `square_grid(view["public"]["cells"], MARKS)`.  Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

EMPTY = frozenset({"", "."})


class Mark(NamedTuple):
    """How one cell value is drawn: its CSS class and what a screen reader says."""

    cls: str
    label: str


def column(index: int) -> str:
    return chr(ord("A") + index)


def square_grid(rows: Sequence[Sequence[str] | str], marks: Mapping[str, Mark], label: str = "") -> dict[str, Any]:
    """Rows of cells (A1 top-left) for the grid partial: coord, value, text, cls, label.

    `rows` is the view's board, a list of rows, each a list of cell values or a
    string with one character a cell; "" and "." are empty.  A value missing
    from `marks` is a bug in the game's page module, so it raises KeyError."""
    out: list[list[dict[str, str]]] = []
    for r, row in enumerate(rows):
        cells: list[dict[str, str]] = []
        for c, raw in enumerate(row):
            value = "" if raw in EMPTY else str(raw)
            mark = marks[value] if value else Mark("empty", "empty")
            cells.append({"coord": f"{column(c)}{r + 1}", "value": value, "text": value,
                          "cls": mark.cls, "label": mark.label})
        out.append(cells)
    width = max((len(row) for row in rows), default=0)
    return {"label": label, "rows": out, "cols": [column(c) for c in range(width)]}


def squares(value: Any) -> list[str]:
    """A view's list of square names (e.g. "last_squares"), or [] when absent."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return []
