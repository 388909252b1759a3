"""Gomoku (14x14), one of the three Two Connect boards, also playable alone.

Rules (the full text: howto.py): any empty intersection; 5 in a row (overlines
count) wins the board; a full board is drawn.  Points A1..N14, A1 top-left,
numbers grow downward.  Standalone: two players alternate, seat 1 first.

Result reasons: "line" (5 or more in a row), "full".
"""

from __future__ import annotations

from typing import ClassVar

from .board import BoardGame, GridBoard, GridRules


class GomokuRules(GridRules):
    word = "gomoku"
    title = "Gomoku"
    size = 14
    win_length = 5


class Gomoku(BoardGame[GridBoard, int]):
    """Gomoku alone.  public_view: board, title, size, win_length, cells
    (rows of 0/1/2, row 0 = number 1), stones per seat, status
    (open/won/drawn), winner, reason, last (square or None), last_squares,
    to_move."""

    slug = "gomoku"
    name = "Gomoku"
    rules = GomokuRules()
    reason_words = {"line": "five in a row", "full": "the board is full"}
    reasons: ClassVar[dict[str, str]] = {
        "line": "Five in a row wins the Gomoku board.",
        "full": "The Gomoku board is full without a result.",
    }
