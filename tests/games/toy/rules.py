"""Tic-tac-toe: seat 1 (X) and seat 2 (O) alternate placing a mark on an empty
square of a 3x3 board; three in a row wins, a full board is drawn.  Pure."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from games.core import Game, IllegalAction, Result
from games.core.grid import index_name, parse_index
from games.core.notation import require_text

SIZE = 3
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = {0: "", 1: "X", 2: "O"}


@dataclass(frozen=True)
class ToyState:
    cells: tuple[int, ...] = (0,) * SIZE * SIZE
    to_move: int = 1


class TicTacToe(Game[ToyState, int]):
    slug = "tic-tac-toe"
    name = "Tic-Tac-Toe"
    default_options: ClassVar[Mapping[str, Any]] = {"starting_seat": 1}
    takes_starting_seat = True
    reason_words = {"line": "a straight line of three marks", "full": "the board filled up"}

    def new(self, options: Mapping[str, Any] | None = None) -> ToyState:
        start = self.options(options)["starting_seat"]
        if start not in (1, 2):
            raise IllegalAction("starting_seat must be 1 or 2")
        return ToyState(to_move=int(start))

    def parse(self, state: ToyState, seat: int, text: str) -> int:
        return parse_index(require_text(text, self.name), SIZE, SIZE)

    def format(self, action: int) -> str:
        return index_name(action, SIZE)

    def legal_actions(self, state: ToyState, seat: int) -> Iterator[int]:
        if self.result(state) is None and seat == state.to_move:
            yield from (i for i, cell in enumerate(state.cells) if not cell)

    def apply(self, state: ToyState, seat: int, action: int) -> ToyState:
        self.require_turn(state, seat)
        if state.cells[action]:
            raise IllegalAction(f"{self.format(action)} is not empty")
        cells = (*state.cells[:action], seat, *state.cells[action + 1:])
        return replace(state, cells=cells, to_move=3 - seat)

    def to_act(self, state: ToyState) -> frozenset[int]:
        return frozenset() if self.result(state) is not None else frozenset({state.to_move})

    def result(self, state: ToyState) -> Result | None:
        for a, b, c in LINES:
            if state.cells[a] and state.cells[a] == state.cells[b] == state.cells[c]:
                return Result(frozenset({state.cells[a]}), "line", detail=f"Seat {state.cells[a]} has three in a row.")
        if all(state.cells):
            return Result(frozenset(), "full", detail="The board is full.")
        return None

    def public_view(self, state: ToyState) -> dict[str, Any]:
        return {"cells": list(state.cells), "to_move": state.to_move}

    def dump(self, state: ToyState) -> dict[str, Any]:
        return {"cells": list(state.cells), "to_move": state.to_move}

    def load(self, data: Mapping[str, Any]) -> ToyState:
        return ToyState(cells=tuple(int(c) for c in data["cells"]), to_move=int(data["to_move"]))
