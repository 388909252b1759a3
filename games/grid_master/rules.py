"""Grid Master: tic-tac-toe on a 3x3 grid where a turn is a placement and a
reposition.  The card is the game's rules as written for the show's community;
the full rules a player reads are howto.py's (the page /rules/grid-master/).

Seat 1 is X (Player A, moves first), seat 2 is O; 5 symbols each.  A player's
first turn is one placement (the game's very first move on a corner); every
later turn is a placement on an empty square followed by a mandatory
reposition of one of the mover's own symbols: 1 or 2 squares up, down, left or
right onto an empty square, never passing over an opponent's symbol (passing
over one's own is fine).  On a player's second turn the repositioned symbol
must be the one they placed on their first turn; from their third turn on it
may be any of theirs except the one just placed.  If the placement leaves no
legal reposition the turn is the placement alone.  With no symbol in hand, or
a full board, a turn is a reposition alone.  Only a turn that included a
reposition can win: the mover wins if they then have 3 in a row.

Rulings decided here (where the card is silent):

Ruling: on a reposition-only turn any of the mover's symbols may move (nothing
  was just placed); the second-turn restriction to the first symbol still
  applies should a reposition-only turn ever fall on a player's second turn.
Ruling: only the mover's lines are checked at the end of a turn.  An
  opponent's three in a row (which can only exist if it was made on a
  placement-only turn) neither wins nor blocks the mover's win; the opponent
  wins with it only at the end of one of their own turns that includes a
  reposition, if the line is still there.
Ruling: a line made by the placement and kept through a reposition of another
  symbol wins (the card's "line that exists only between placement and
  reposition" is one the reposition breaks).
Ruling: draws are reported as reason "stalemate" (the player to move has no
  legal action, e.g. a full board with no reposition) and "repetition" (the
  same position arises for the third time).  A position is the board, the
  player to move, the symbols in hand and each player's turn phase (first
  turn, second turn with its must-move symbol, later turns), i.e. everything
  that determines the legal moves.  If both apply, "stalemate" is reported.
Ruling: the game's first move is the only one restricted to a corner.
Ruling: a turn that names the reposition before the placement is refused
  (card: the reposition "can only be made after the new symbol has been
  played"); a reposition-only turn when a placement is possible is refused.
Ruling: a destination that is not in the symbol's row or column (e.g.
  "move A1 to B2", a diagonal) cannot be written as a reposition and is a
  NotationError naming the rule.
Ruling: a placement alone is refused while a reposition is possible after it
  ("you must reposition a symbol after placing"); which placement a player
  picks is free, even one that leaves no reposition.
Ruling (notation): "move A1 right" without a distance means 1 square; the
  destination form "move A1 to C1" is read as "move A1 right 2".
Option `symbols` (default 5, 3 to 5): symbols per player.  With 5, a game
  nobody has won when the ninth placement fills the board ends in a
  stalemate (O faces a full board: no reposition is possible), so
  reposition-only turns that can be played (and repetition) only arise with
  fewer symbols.
Best-of-N matches, clocks and host-declared draws are match events
  (matches/), not rules.

Tests build positions with `GridState.from_diagram("X.O / .X. / O..")`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.core import Game, IllegalAction, Result
from games.core.grid import DIRECTIONS, parse_index

from .notation import CELLS, NAMES, PATHS, SIZE, Reposition, Turn, format_turn, parse_turn

__all__ = ["CELLS", "NAMES", "GridMaster", "GridState", "Reposition", "Turn", "format_turn", "parse_turn"]

EMPTY = 0
SYMBOLS = {1: "X", 2: "O"}
CORNERS = (0, 2, 6, 8)
#: Every line of three: rows, columns, both diagonals.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)


# -- state ----------------------------------------------------------------


@dataclass(frozen=True)
class GridState:
    board: tuple[int, ...]
    to_move: int = 1
    #: turns completed per seat (index 0 = seat 1)
    turns: tuple[int, int] = (0, 0)
    in_hand: tuple[int, int] = (5, 5)
    #: square of each seat's first placement (-1 before it)
    first: tuple[int, int] = (-1, -1)
    #: position keys since the last placement (placements are irreversible)
    history: tuple[int, ...] = ()
    last: Turn | None = None
    winner: int = 0
    #: "" while play goes on, else "line", "stalemate" or "repetition"
    reason: str = ""
    #: squares of the winner's line(s)
    line: tuple[int, ...] = ()

    @classmethod
    def from_diagram(
        cls,
        diagram: str,
        to_move: int = 1,
        turns: tuple[int, int] | None = None,
        in_hand: tuple[int, int] | None = None,
        first: tuple[int, int] = (-1, -1),
        symbols: int = 5,
    ) -> GridState:
        """A position from rows like "X.O / .X. / O.." (spaces and '/' ignored).

        By default each player has played the turns their symbols imply
        (at least 2, so later-turn rules apply) and holds the rest in hand.
        """
        text = "".join(ch for ch in diagram.upper() if ch in "XO.")
        if len(text) != CELLS:
            raise ValueError(f"a Grid Master diagram has {CELLS} cells, got {len(text)}")
        board = tuple({"X": 1, "O": 2, ".": 0}[ch] for ch in text)
        counts = (board.count(1), board.count(2))
        if in_hand is None:
            in_hand = (symbols - counts[0], symbols - counts[1])
        if turns is None:
            turns = (max(2, counts[0]), max(2, counts[1]))
        state = cls(board=board, to_move=to_move, turns=turns, in_hand=in_hand, first=first)
        return replace(state, history=(_key(state),))


# -- the game -------------------------------------------------------------


class GridMaster(Game[GridState, Turn]):
    """Grid Master.

    public_view keys:
      size (3); cells (3 strings, row 1 first, "X", "O" or "." per square,
      A1 top-left); symbols ({"1": "X", "2": "O"}); to_move (seat or None
      once over); turn_number (the game's move number now, from 1);
      turns ({"1": n, "2": n} turns completed); in_hand ({"1": n, "2": n});
      turn_kind ("place" on a first turn, "place+move", "move" for a
      reposition-only turn, None once over); must_reposition (square of the
      symbol the player to move must reposition this turn, on their second
      turn, else None); last_action (canonical text or None); last_squares
      (squares the last turn touched: placement, reposition from, to);
      winning_line (squares of the winner's line(s), else []).
    """

    slug = "grid-master"
    name = "Grid Master"
    seats = 2
    default_options = {"symbols": 5}
    #: X (seat 1, Player A) moves first in every bout: the card names the first mover
    takes_starting_seat = False
    reason_words = {"line": "three in a row", "repetition": "the same position for the third time",
                    "stalemate": "stalemate"}

    # -- setup ------------------------------------------------------------
    def new(self, options: Mapping[str, Any] | None = None) -> GridState:
        opts = self.options(options)
        symbols = opts["symbols"]
        if type(symbols) is not int or not 3 <= symbols <= 5:
            raise IllegalAction(f"symbols must be 3, 4 or 5, got {symbols!r}")
        state = GridState(board=(EMPTY,) * CELLS, in_hand=(symbols, symbols))
        return replace(state, history=(_key(state),))

    # -- notation ---------------------------------------------------------
    def parse(self, state: GridState, seat: int, text: str) -> Turn:
        return parse_turn(text)

    def format(self, action: Turn) -> str:
        return format_turn(action)

    # -- play -------------------------------------------------------------
    def to_act(self, state: GridState) -> frozenset[int]:
        return frozenset() if state.reason else frozenset((state.to_move,))

    def result(self, state: GridState) -> Result | None:
        if not state.reason:
            return None
        if state.reason == "line":
            squares = ", ".join(NAMES[i] for i in state.line)
            return Result(
                frozenset((state.winner,)),
                "line",
                detail=f"{SYMBOLS[state.winner]} has three in a row ({squares}).",
            )
        if state.reason == "repetition":
            return Result(frozenset(), "repetition", detail="The same position arose for the third time.")
        return Result(
            frozenset(), "stalemate", detail=f"{SYMBOLS[state.to_move]} has no legal action: the game is drawn."
        )

    def legal_actions(self, state: GridState, seat: int) -> Iterator[Turn]:
        if state.reason or seat != state.to_move:
            return
        board = state.board
        me = seat - 1
        if _can_place(state, seat):
            squares = CORNERS if state.turns == (0, 0) else range(CELLS)
            for square in squares:
                if board[square] != EMPTY:
                    continue
                if state.turns[me] == 0:
                    yield Turn(place=square)
                    continue
                after = (*board[:square], seat, *board[square + 1 :])
                any_move = False
                for move in _repositions(after, seat, _sources(state, seat, square)):
                    any_move = True
                    yield Turn(place=square, move=move)
                if not any_move:
                    yield Turn(place=square)
        elif state.turns[me] > 0:
            for move in _repositions(board, seat, _sources(state, seat, None)):
                yield Turn(move=move)

    def apply(self, state: GridState, seat: int, action: Turn) -> GridState:
        self.require_turn(state, seat)
        me = seat - 1
        board = state.board
        place, move = action.place, action.move
        if place is None and move is None:
            raise IllegalAction("a turn must place or reposition a symbol")
        can_place = _can_place(state, seat)
        if place is not None:
            if not can_place:
                if state.in_hand[me] <= 0:
                    raise IllegalAction("you have no symbols left to place: this turn is a reposition only")
                raise IllegalAction("the board is full: this turn is a reposition only")
            if not 0 <= place < CELLS:
                raise IllegalAction("that square is not on the board")
            if board[place] != EMPTY:
                raise IllegalAction(f"{NAMES[place]} is not empty")
            if state.turns == (0, 0) and place not in CORNERS:
                raise IllegalAction(
                    f"the first move of the game must be on a corner (A1, C1, A3 or C3), not {NAMES[place]}"
                )
            if move is not None and action.reposition_first:
                raise IllegalAction("place your new symbol first: a reposition comes after the placement")
            board = (*board[:place], seat, *board[place + 1 :])
        elif can_place:
            raise IllegalAction("you must place a new symbol before repositioning")
        if state.turns[me] == 0:
            if move is not None:
                raise IllegalAction("there is no reposition on your first turn: place a symbol only")
        elif move is None:
            if next(_repositions(board, seat, _sources(state, seat, place)), None) is not None:
                raise IllegalAction("you must reposition a symbol after placing")
        else:
            board = _reposition(state, seat, board, place, move)

        in_hand = state.in_hand
        first = state.first
        if place is not None:
            in_hand = _set(in_hand, me, in_hand[me] - 1)
            if state.turns[me] == 0:
                first = _set(first, me, place)
        turns = _set(state.turns, me, state.turns[me] + 1)
        line: tuple[int, ...] = ()
        if move is not None:
            line = _lines_of(board, seat)
        if line:
            return GridState(board, seat, turns, in_hand, first, state.history, action, seat, "line", line)
        nxt = GridState(board, 3 - seat, turns, in_hand, first, (), action)
        key = _key(nxt)
        history = (key,) if place is not None else (*state.history, key)
        nxt = replace(nxt, history=history)
        if not _has_action(nxt):
            return replace(nxt, reason="stalemate")
        if history.count(key) >= 3:
            return replace(nxt, reason="repetition")
        return nxt

    # -- views and storage ------------------------------------------------
    def public_view(self, state: GridState) -> dict[str, Any]:
        over = bool(state.reason)
        me = state.to_move - 1
        kind: str | None = None
        must: str | None = None
        if not over:
            if state.turns[me] == 0:
                kind = "place"
            elif _can_place(state, state.to_move):
                kind = "place+move"
            else:
                kind = "move"
            if state.turns[me] == 1 and state.first[me] >= 0:
                must = NAMES[state.first[me]]
        last = state.last
        touched: list[str] = []
        if last is not None:
            if last.place is not None:
                touched.append(NAMES[last.place])
            if last.move is not None:
                path = last.move.path
                touched.append(NAMES[last.move.square])
                if path:
                    touched.append(NAMES[path[-1]])
        return {
            "size": SIZE,
            "cells": _rows(state.board),
            "symbols": {"1": "X", "2": "O"},
            "to_move": None if over else state.to_move,
            "turn_number": sum(state.turns) + (0 if over else 1),
            "turns": {"1": state.turns[0], "2": state.turns[1]},
            "in_hand": {"1": state.in_hand[0], "2": state.in_hand[1]},
            "turn_kind": kind,
            "must_reposition": must,
            "last_action": None if last is None else format_turn(last),
            "last_squares": touched,
            "winning_line": [NAMES[i] for i in state.line],
        }

    def dump(self, state: GridState) -> dict[str, Any]:
        return {
            "v": 1,
            "cells": _rows(state.board),
            "to_move": state.to_move,
            "turns": list(state.turns),
            "in_hand": list(state.in_hand),
            "first": [None if f < 0 else NAMES[f] for f in state.first],
            "history": list(state.history),
            "last": None if state.last is None else format_turn(state.last),
            "winner": state.winner,
            "reason": state.reason,
            "line": [NAMES[i] for i in state.line],
        }

    def load(self, data: Mapping[str, Any]) -> GridState:
        if data.get("v") != 1:
            raise ValueError(f"unknown Grid Master state version {data.get('v')!r}")
        board = tuple({"X": 1, "O": 2, ".": 0}[ch] for ch in "".join(data["cells"]))
        t1, t2 = (int(x) for x in data["turns"])
        h1, h2 = (int(x) for x in data["in_hand"])
        f1, f2 = (-1 if f is None else parse_index(f, SIZE, SIZE) for f in data["first"])
        return GridState(
            board=board,
            to_move=int(data["to_move"]),
            turns=(t1, t2),
            in_hand=(h1, h2),
            first=(f1, f2),
            history=tuple(int(k) for k in data["history"]),
            last=None if data["last"] is None else parse_turn(data["last"]),
            winner=int(data["winner"]),
            reason=str(data["reason"]),
            line=tuple(parse_index(s, SIZE, SIZE) for s in data["line"]),
        )


# -- helpers --------------------------------------------------------------


def _set(pair: tuple[int, int], index: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


def _rows(board: tuple[int, ...]) -> list[str]:
    marks = ".XO"
    return ["".join(marks[v] for v in board[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]


def _can_place(state: GridState, seat: int) -> bool:
    return state.in_hand[seat - 1] > 0 and EMPTY in state.board


def _sources(state: GridState, seat: int, placed: int | None) -> tuple[int, ...]:
    """Squares whose symbol may be repositioned this turn (after placing on `placed`)."""
    me = seat - 1
    if state.turns[me] == 1 and state.first[me] >= 0:
        return (state.first[me],)
    return tuple(i for i in range(CELLS) if i != placed)


def _repositions(board: tuple[int, ...], seat: int, sources: tuple[int, ...]) -> Iterator[Reposition]:
    opponent = 3 - seat
    for square in sources:
        if board[square] != seat:
            continue
        for direction, distance, path in PATHS[square]:
            if board[path[-1]] == EMPTY and (distance == 1 or board[path[0]] != opponent):
                yield Reposition(square, direction, distance)


def _reposition(
    state: GridState, seat: int, board: tuple[int, ...], placed: int | None, move: Reposition
) -> tuple[int, ...]:
    """The board after `move`, or IllegalAction naming the rule it breaks."""
    me = seat - 1
    source = move.square
    if move.direction not in DIRECTIONS:
        raise IllegalAction(f"{move.direction!r} is not a direction: a reposition goes up, down, left or right")
    if move.distance not in (1, 2):
        raise IllegalAction(f"a reposition moves 1 or 2 squares, not {move.distance}")
    if not 0 <= source < CELLS:
        raise IllegalAction("that square is not on the board")
    name = NAMES[source]
    owner = board[source]
    if owner == EMPTY:
        raise IllegalAction(f"there is no symbol on {name} to reposition")
    if owner != seat:
        raise IllegalAction(f"the symbol on {name} is your opponent's: you may only reposition your own")
    if state.turns[me] == 1 and state.first[me] >= 0 and source != state.first[me]:
        raise IllegalAction(
            f"on your second turn you must reposition the symbol you placed on your first turn "
            f"(on {NAMES[state.first[me]]})"
        )
    if source == placed:
        raise IllegalAction("you may not reposition the symbol you have just placed")
    path = move.path
    where = f"{name} cannot move {move.direction} {move.distance}"
    if path is None:
        raise IllegalAction(f"{where}: it would leave the board")
    for square in path[:-1]:
        if board[square] == 3 - seat:
            raise IllegalAction(
                f"{where}: your opponent's symbol on {NAMES[square]} is in the way "
                f"(no jumping over an opponent's symbol)"
            )
    target = path[-1]
    if board[target] != EMPTY:
        raise IllegalAction(f"{where}: {NAMES[target]} is not empty")
    out = list(board)
    out[source] = EMPTY
    out[target] = seat
    return tuple(out)


def _lines_of(board: tuple[int, ...], seat: int) -> tuple[int, ...]:
    squares: set[int] = set()
    for a, b, c in LINES:
        if board[a] == seat and board[b] == seat and board[c] == seat:
            squares.update((a, b, c))
    return tuple(sorted(squares))


def _has_action(state: GridState) -> bool:
    seat = state.to_move
    if _can_place(state, seat):
        return True
    if state.turns[seat - 1] == 0:
        return False
    return next(_repositions(state.board, seat, _sources(state, seat, None)), None) is not None


def _key(state: GridState) -> int:
    """The position for repetition: board, mover, hands and each seat's turn phase."""
    code = 0
    for value in state.board:
        code = code * 3 + value
    code = code * 2 + state.to_move - 1
    for me in (0, 1):
        phase = min(state.turns[me], 2)
        must = state.first[me] + 1 if phase == 1 else 0
        code = ((code * 6 + state.in_hand[me]) * 3 + phase) * 10 + must
    return code
