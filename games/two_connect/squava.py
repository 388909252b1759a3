"""Squava (5x5), one of the three Two Connect boards, also playable alone.

Rules (the full text: howto.py): any empty square; making 4 in a row (row,
column or diagonal; overlines count) wins the board, even if the same stone
also makes 3 in a row; making 3 in a row (and not 4) loses the board; a full
board without a result is drawn.  Squares A1..E5, A1 top-left, numbers grow
downward.  Standalone: two players alternate, seat 1 first.

Result reasons: "line" (4 in a row), "three" (the opponent made 3), "full".

Ruling: only the stone just placed can make a line, so the check looks at
the lines through it (earlier 3s of the other player cannot exist: they
would have ended the board).
"""

from __future__ import annotations

from typing import ClassVar

from .board import BoardGame, GridBoard, GridRules


class SquavaRules(GridRules):
    word = "squava"
    title = "Squava"
    size = 5
    win_length = 4
    three_loses = True


class Squava(BoardGame[GridBoard, int]):
    """Squava alone.  public_view: board, title, size, win_length, cells
    (rows of 0/1/2, row 0 = number 1), stones per seat, status
    (open/won/drawn), winner, reason, last (square or None), last_squares,
    to_move."""

    slug = "squava"
    name = "Squava"
    rules = SquavaRules()
    reason_words = {"line": "four in a row", "three": "the opponent made three in a row", "full": "the board is full"}
    reasons: ClassVar[dict[str, str]] = {
        "line": "Four in a row wins the Squava board.",
        "three": "Three in a row (without four) loses the Squava board.",
        "full": "The Squava board is full without a result.",
    }
