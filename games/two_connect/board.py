"""One board of Two Connect, and the plain two-player game built on it.

`BoardRules` is the small protocol every Two Connect board implements
(Squava, Gomoku, Yinsh).  Its moves name the player explicitly, because in
Two Connect the players need not alternate on one board.  Board states are
immutable values; `play` returns a new board or raises `IllegalAction`.

`BoardGame` wraps one board as a standalone `Game`: two players alternate,
seat 1 first (option `starting_seat`), with the same notation as in Two
Connect, with or without the board word ("squava C3" or "C3").

Ruling: in a standalone board game, a player who has no legal move on the
board passes automatically and the opponent moves again (this only happens
in Yinsh, when every ring of the player is blocked); a board on which
neither player can move is drawn by the board's own rules.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from games.core import Game, IllegalAction, NotationError, Result
from games.core.grid import LINE_DIRECTIONS, square_name
from games.core.notation import require_text

B = TypeVar("B")
M = TypeVar("M")

#: The three board words, in the order of the card.
BOARD_WORDS: tuple[str, ...] = ("squava", "yinsh", "gomoku")

#: Words players type around a move that carry no meaning ("I place a stone on C3").
FILLER_WORDS = frozenset(
    {"i", "place", "places", "play", "plays", "put", "a", "an", "my", "the", "on", "at", "in", "and",
     "then", "stone", "stones", "piece", "tile", "marker", "move", "moves", "from", "to", "-", "board",
     "onto", "into", "go", "goes", "with"}
)

_SPLIT = re.compile(r"[\s,;:]+")


def tokens(text: str) -> list[str]:
    """Lower-case words of `text`, dashes and arrows split off, filler words dropped."""
    spaced = text.lower().replace("\u2192", "-").replace("->", "-").replace("-", " - ")
    return [t for t in _SPLIT.split(spaced) if t and t not in FILLER_WORDS]


class BoardRules(ABC, Generic[B, M]):
    """The rules of one board, independent of whose turn it is."""

    word: ClassVar[str]  # board word in notation ("squava")
    title: ClassVar[str]  # display name ("Squava")

    @abstractmethod
    def initial(self) -> B:
        """The empty board."""

    @abstractmethod
    def parse_move(self, text: str) -> M:
        """Move text without the board word -> move; NotationError otherwise."""

    @abstractmethod
    def format_move(self, move: M) -> str:
        """Canonical move text without the board word."""

    @abstractmethod
    def legal_moves(self, board: B, player: int) -> Iterator[M]:
        """Every legal move of `player` (none once the board is finished)."""

    @abstractmethod
    def play(self, board: B, player: int, move: M) -> B:
        """The board after `player` plays `move`, or IllegalAction."""

    @abstractmethod
    def outcome(self, board: B) -> int | None:
        """Winner seat, 0 for a drawn board, None while the board is open."""

    @abstractmethod
    def reason(self, board: B) -> str:
        """Short word saying why the board finished ("" while open)."""

    @abstractmethod
    def can_move(self, board: B, player: int) -> bool:
        """True if `player` has a legal move here (False once finished)."""

    @abstractmethod
    def public(self, board: B) -> dict[str, Any]:
        """JSON-safe view of the board (cells, status, last move...)."""

    @abstractmethod
    def dump(self, board: B) -> dict[str, Any]:
        """JSON-safe form of the board."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> B:
        """Inverse of `dump`."""

    def random_move(self, board: B, player: int, rng: random.Random) -> M | None:
        """A uniformly chosen legal move (None if there is none)."""
        moves = list(self.legal_moves(board, player))
        return rng.choice(moves) if moves else None

    def status(self, board: B) -> dict[str, Any]:
        """The board's status as JSON: open, won (by whom and why) or drawn."""
        outcome = self.outcome(board)
        if outcome is None:
            return {"status": "open", "winner": None, "reason": ""}
        if outcome == 0:
            return {"status": "drawn", "winner": None, "reason": self.reason(board)}
        return {"status": "won", "winner": outcome, "reason": self.reason(board)}


@dataclass(frozen=True)
class SoloState(Generic[B]):
    """A standalone board game: the board and the seat to move."""

    board: B
    to_move: int


_BOARD_WORD_RE = re.compile(r"\b(squava|yinsh|gomoku)\b")


def strip_board_word(text: str, rules: BoardRules[Any, Any]) -> str:
    """Drop the board word from standalone notation ("squava C3" -> "c3")."""
    for word in _BOARD_WORD_RE.findall(text):
        if word != rules.word:
            raise NotationError(f"this is a {rules.title} game: there is no {word} board here")
    return _BOARD_WORD_RE.sub(" ", text).strip()


class BoardGame(Game[SoloState[B], M]):
    """One board played alone: two players alternating, seat 1 first."""

    rules: ClassVar[BoardRules[Any, Any]]
    default_options: ClassVar[Mapping[str, Any]] = {"starting_seat": 1}
    takes_starting_seat = True  # who moves first: the option starting_seat
    #: Result.detail for each reason word.
    reasons: ClassVar[Mapping[str, str]] = {}

    def new(self, options: Mapping[str, Any] | None = None) -> SoloState[B]:
        opts = self.options(options)
        start = opts["starting_seat"]
        if start not in (1, 2):
            raise IllegalAction("starting_seat must be 1 or 2")
        board: B = self.rules.initial()
        return SoloState(board=board, to_move=int(start))

    def parse(self, state: SoloState[B], seat: int, text: str) -> M:
        cleaned = strip_board_word(require_text(text, self.name), self.rules)
        if not cleaned:
            raise NotationError(f"expected a {self.name} move after the board word, got nothing")
        move: M = self.rules.parse_move(cleaned)
        return move

    def format(self, action: M) -> str:
        return self.rules.format_move(action)

    def legal_actions(self, state: SoloState[B], seat: int) -> Iterator[M]:
        if self.result(state) is not None or seat != state.to_move:
            return iter(())
        moves: Iterator[M] = self.rules.legal_moves(state.board, seat)
        return moves

    def random_action(self, state: SoloState[B], seat: int, rng: random.Random) -> M | None:
        if self.result(state) is not None or seat != state.to_move:
            return None
        move: M | None = self.rules.random_move(state.board, seat, rng)
        return move

    def apply(self, state: SoloState[B], seat: int, action: M) -> SoloState[B]:
        self.require_turn(state, seat)
        board: B = self.rules.play(state.board, seat, action)
        other = 3 - seat
        if self.rules.outcome(board) is None and not self.rules.can_move(board, other):
            other = seat  # the opponent cannot move: their turn passes automatically
        return SoloState(board=board, to_move=other)

    def to_act(self, state: SoloState[B]) -> frozenset[int]:
        if self.result(state) is not None:
            return frozenset()
        return frozenset({state.to_move})

    def result(self, state: SoloState[B]) -> Result | None:
        outcome = self.rules.outcome(state.board)
        if outcome is None:
            return None
        reason = self.rules.reason(state.board)
        detail = self.reasons.get(reason, "")
        if outcome == 0:
            return Result(winners=frozenset(), reason=reason, detail=detail or "The board is drawn.")
        return Result(winners=frozenset({outcome}), reason=reason, detail=detail)

    def public_view(self, state: SoloState[B]) -> dict[str, Any]:
        view = self.rules.public(state.board)
        view["to_move"] = state.to_move
        return view

    def dump(self, state: SoloState[B]) -> dict[str, Any]:
        return {"v": 1, "board": self.rules.dump(state.board), "to_move": state.to_move}

    def load(self, data: Mapping[str, Any]) -> SoloState[B]:
        if data.get("v") != 1:
            raise ValueError(f"unknown {self.slug} state version {data.get('v')!r}")
        board: B = self.rules.load(data["board"])
        return SoloState(board=board, to_move=int(data["to_move"]))


# -- square-grid boards (Squava, Gomoku) ------------------------------------

EMPTY = 0


@dataclass(frozen=True)
class GridBoard:
    """A square grid of stones: cells row-major (0 empty, else the seat)."""

    cells: tuple[int, ...]
    winner: int | None = None  # seat, 0 for a drawn board, None while open
    reason: str = ""
    last: int = -1  # index of the last stone played, -1 before the first


class GridRules(BoardRules[GridBoard, int]):
    """Place a stone on any empty square; `win_length` in a row wins.

    With `three_loses`, making exactly 3 in a row (and not `win_length`)
    loses the board (Squava).  A full board without a result is drawn.
    Moves are square indices (row * size + column).
    """

    size: ClassVar[int]
    win_length: ClassVar[int]
    three_loses: ClassVar[bool] = False

    def __init__(self) -> None:
        n = self.size
        self._names = tuple(square_name(i % n, i // n) for i in range(n * n))
        self._index = {name.lower(): i for i, name in enumerate(self._names)}
        # for every square and line direction: the squares ahead and behind
        rays: list[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = []
        for i in range(n * n):
            row, col = divmod(i, n)
            per_dir = []
            for dc, dr in LINE_DIRECTIONS:
                sides = []
                for sign in (1, -1):
                    ray = []
                    c, r = col + dc * sign, row + dr * sign
                    while 0 <= c < n and 0 <= r < n:
                        ray.append(r * n + c)
                        c += dc * sign
                        r += dr * sign
                    sides.append(tuple(ray))
                per_dir.append((sides[0], sides[1]))
            rays.append(tuple(per_dir))
        self._rays = tuple(rays)

    def name(self, index: int) -> str:
        return self._names[index]

    def initial(self) -> GridBoard:
        return GridBoard(cells=(EMPTY,) * (self.size * self.size))

    def parse_move(self, text: str) -> int:
        words = tokens(text)
        last = self._names[-1]
        if len(words) != 1:
            raise NotationError(
                f"expected one {self.title} square from A1 to {last}, got {text.strip()!r}"
            )
        index = self._index.get(words[0])
        if index is None:
            raise NotationError(f"expected a {self.title} square from A1 to {last}, got {words[0]!r}")
        return index

    def format_move(self, move: int) -> str:
        return self._names[move]

    def legal_moves(self, board: GridBoard, player: int) -> Iterator[int]:
        if board.winner is not None:
            return
        for index, value in enumerate(board.cells):
            if value == EMPTY:
                yield index

    def random_move(self, board: GridBoard, player: int, rng: random.Random) -> int | None:
        if board.winner is not None:
            return None
        empties = [i for i, v in enumerate(board.cells) if v == EMPTY]
        return rng.choice(empties) if empties else None

    def longest_through(self, cells: tuple[int, ...], index: int) -> int:
        """Longest line of cells[index]'s owner through `index`."""
        owner = cells[index]
        best = 0
        for ahead, behind in self._rays[index]:
            length = 1
            for j in ahead:
                if cells[j] != owner:
                    break
                length += 1
            for j in behind:
                if cells[j] != owner:
                    break
                length += 1
            best = max(best, length)
        return best

    def play(self, board: GridBoard, player: int, move: int) -> GridBoard:
        if board.winner is not None:
            raise IllegalAction(f"the {self.title} board is finished")
        if not isinstance(move, int) or not 0 <= move < len(board.cells):
            raise IllegalAction(f"that is not a {self.title} square")
        if board.cells[move] != EMPTY:
            raise IllegalAction(f"{self._names[move]} is not empty")
        changed = list(board.cells)
        changed[move] = player
        cells = tuple(changed)
        line = self.longest_through(cells, move)
        if line >= self.win_length:
            return GridBoard(cells, player, "line", move)
        if self.three_loses and line == 3:
            return GridBoard(cells, 3 - player, "three", move)
        if EMPTY not in cells:
            return GridBoard(cells, 0, "full", move)
        return GridBoard(cells, None, "", move)

    def outcome(self, board: GridBoard) -> int | None:
        return board.winner

    def reason(self, board: GridBoard) -> str:
        return board.reason

    def can_move(self, board: GridBoard, player: int) -> bool:
        return board.winner is None and EMPTY in board.cells

    def public(self, board: GridBoard) -> dict[str, Any]:
        n = self.size
        last = None if board.last < 0 else self._names[board.last]
        return {
            "board": self.word,
            "title": self.title,
            "size": n,
            "win_length": self.win_length,
            "cells": [list(board.cells[r * n : (r + 1) * n]) for r in range(n)],
            "stones": {str(p): sum(1 for v in board.cells if v == p) for p in (1, 2)},
            **self.status(board),
            "last": last,
            "last_squares": [] if last is None else [last],
            "win_squares": [self._names[i] for i in self.deciding_line(board)],
        }

    def deciding_line(self, board: GridBoard) -> list[int]:
        """The squares of the line that decided a won board (the 4 or 5 in a row, or
        Squava's losing 3), in board order; empty while open or when drawn."""
        if board.reason not in ("line", "three") or board.last < 0:
            return []
        cells, index = board.cells, board.last
        owner = cells[index]
        best: list[int] = []
        for ahead, behind in self._rays[index]:
            line = [index]
            for ray in (ahead, behind):
                for j in ray:
                    if cells[j] != owner:
                        break
                    line.append(j)
            if len(line) > len(best):
                best = line
        return sorted(best)

    def dump(self, board: GridBoard) -> dict[str, Any]:
        return {
            "cells": "".join(str(v) for v in board.cells),
            "winner": board.winner,
            "reason": board.reason,
            "last": board.last,
        }

    def load(self, data: Mapping[str, Any]) -> GridBoard:
        cells = tuple(int(ch) for ch in str(data["cells"]))
        if len(cells) != self.size * self.size or any(v not in (0, 1, 2) for v in cells):
            raise ValueError(f"bad {self.title} cells")
        winner = data.get("winner")
        return GridBoard(
            cells=cells,
            winner=None if winner is None else int(winner),
            reason=str(data.get("reason", "")),
            last=int(data.get("last", -1)),
        )

    def from_rows(self, rows: str) -> GridBoard:
        """Test-friendly constructor: rows of `.`, `1`/`x`, `2`/`o` separated by blanks."""
        symbols = {".": 0, "1": 1, "x": 1, "2": 2, "o": 2}
        cells = tuple(symbols[ch] for ch in "".join(rows.split()).lower())
        if len(cells) != self.size * self.size:
            raise ValueError(f"expected {self.size * self.size} cells, got {len(cells)}")
        return GridBoard(cells=cells)
