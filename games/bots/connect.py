"""Two Connect: a turn composed from its boards' own engines (the normal and strong computer players).

A Two Connect turn is a move on two of three boards (Squava, Yinsh, Gomoku), and the match is won
by two boards.  Tree search over whole turns with random playouts (the default, still easy's)
reads a ~86-ply game through ~2,000 turns a position: more time bought it little, and it left a
Gomoku four unanswered.  Each board alone has an engine that separates the strengths well
(grids.py's alpha-beta, Yinsh's search with its evaluation), so normal and strong ask each open
board's engine for its move (normal the beginner's engine, `BOARD_STRENGTH`), and then pick the
boards to play on:

- every board is valued as the chance that this seat wins it, with the opponent to move next
  (after this turn the opponent chooses where to play): once after the engine's move there, once
  if this seat leaves the board alone this turn;
- a turn's value is the chance of winning at least two of the three boards, the boards taken as
  independent (a won board counts 1, a lost one 0, a drawn one a half);
- strong also counts that the opponent's next turn reaches two boards (one once a board is
  finished): it takes the opponent to play where that hurts most, and itself to move next on the
  board left out, so threats on more boards than the opponent can answer are worth what they are;
- the turn plays the engine's moves on the boards that give the best value.  So a board where the
  opponent threatens to win is answered, a board one move from won is taken, and when one board
  is already lost the other two matter most.

Everything reads the seat's observed state through the Game interface: each board is loaded as
its standalone game from the match's own `dump`, and the turn is submitted in notation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

from games.core import Game, IllegalAction, NotationError
from games.registry import get_game

from .evals import squash, yinsh_evaluate
from .grids import board_value
from .search import Strength, reward

#: squash scales of the grid evaluation (grids.py's window values: ~150 an open three on Gomoku, ~60
#: a three-window on Squava), so that a quiet edge weighs less than a threat
GRID_SCALES = {"squava": 150.0, "gomoku": 800.0}
#: the strengths that look at which boards the opponent's next turn can reach: a threat on a board
#: the opponent cannot also answer is as good as won (normal takes the opponent to answer everywhere)
REACH = frozenset({"strong"})
#: the strength each board's engine plays at, by the strength of the whole turn: normal reads every
#: board for the threats it must answer (every engine sees a win or a loss one move ahead) but plays
#: each board as a beginner would; strong plays each as well as its share of the clock allows
BOARD_STRENGTH = {"normal": "easy", "strong": "strong"}
#: the share of the strength's clock the boards' engines spend together (the rest: loading, values)
CLOCK_SHARE = 0.85


@dataclass(frozen=True)
class Chances:
    """The chance of winning one board with the opponent to move next there, and with this seat to
    move next there (the opponent's turn left it alone); `done`: the board is finished."""

    theirs: float
    mine: float
    done: bool = False


@dataclass(frozen=True)
class Option:
    """One board's move, and the board's chances after it and if this seat leaves the board."""

    text: str  # the move in the board's notation
    played: Chances
    left: Chances


def compose_turn(game: Game[Any, Any], state: Any, seat: int, knobs: Strength, rng: random.Random) -> Any:
    """The turn: the engine's moves on the boards where they raise the chance of two boards most."""
    from . import STRENGTHS  # the package's, imported late: the package imports this module

    public = game.view(state, seat)["public"]
    words: list[str] = list(public["board_order"])
    boards = game.dump(state)["boards"]
    open_words = list(public["open_boards"][str(seat)])
    need = int(public["moves_this_turn"])
    share = None if knobs.seconds is None else knobs.seconds * CLOCK_SHARE / max(1, len(open_words))
    board_knobs = replace(STRENGTHS[BOARD_STRENGTH.get(knobs.name, knobs.name)], seconds=share)
    if knobs.seconds is None:  # no clock (tests): the turn's own budget
        board_knobs = replace(board_knobs, iterations=knobs.iterations)
    fixed: dict[str, Chances] = {}
    options: dict[str, Option] = {}
    for word in words:
        if word in open_words:
            options[word] = _option(word, boards[word], seat, board_knobs, rng)
        else:  # finished, or closed to this seat for now
            fixed[word] = _chances(word, boards[word], seat)
    turns = _turns(list(options), need)
    rng.shuffle(turns)  # equal values: the seed chooses
    reach = knobs.name in REACH
    ranked = sorted(turns, key=lambda t: -_value(words, fixed, options, t, reach))
    for turn in ranked:
        text = "; ".join(f"{word} {options[word].text}" for word in turn)
        try:
            action = game.parse(state, seat, text)
            game.apply(state, seat, action)
        except (IllegalAction, NotationError):
            continue
        return action
    raise ValueError(f"no turn of the boards' engines is legal for seat {seat}")


def _turns(words: list[str], need: int) -> list[tuple[str, ...]]:
    if need <= 1 or len(words) < 2:
        return [(w,) for w in words]
    return [(a, b) for i, a in enumerate(words) for b in words[i + 1:]]


def _value(words: list[str], fixed: dict[str, Chances], options: dict[str, Option], turn: tuple[str, ...],
           reach: bool) -> float:
    """The chance of two boards after `turn`.  Without `reach`, the opponent is taken to move next on
    every board; with it, on the boards its turn can reach only (two, one once a board is finished),
    chosen to hurt most, and this seat moves next on the others."""
    after = [fixed[w] if w in fixed else options[w].played if w in turn else options[w].left for w in words]
    if not reach:
        return two_of_three(*(c.theirs for c in after))
    unfinished = [i for i, c in enumerate(after) if not c.done]
    moves = 1 if len(unfinished) < len(after) else 2
    worst = 1.0
    for reached in combinations(unfinished, min(moves, len(unfinished))):
        chances = [c.theirs if i in reached else c.mine for i, c in enumerate(after)]
        worst = min(worst, two_of_three(*chances))
    return worst


def two_of_three(a: float, b: float, c: float) -> float:
    """The chance of winning at least two of three independent boards won with chances a, b, c."""
    return a * b + a * c + b * c - 2 * a * b * c


def _solo(word: str, board: dict[str, Any], to_move: int) -> tuple[Game[Any, Any], Any]:
    solo = get_game(word)
    return solo, solo.load({"v": 1, "board": board, "to_move": to_move})


def _chances(word: str, board: dict[str, Any], seat: int) -> Chances:
    """`seat`'s chances of winning `board`, the opponent to move next there and this seat to move."""
    solo, state = _solo(word, board, seat)
    result = solo.result(state)
    if result is not None:
        value = reward(result, seat, 2)
        return Chances(value, value, done=True)
    if word == "yinsh":  # its evaluation does not ask who moves next
        value = yinsh_evaluate(solo, state, seat)
        return Chances(value, value)
    public = solo.view(state, seat)["public"]
    scale, three_loses = GRID_SCALES[word], word == "squava"
    return Chances(squash(board_value(public, seat, 3 - seat, three_loses), scale),
                   squash(board_value(public, seat, seat, three_loses), scale))


def _option(word: str, board: dict[str, Any], seat: int, knobs: Strength, rng: random.Random) -> Option:
    from . import choose  # the package's entry point; imported late, as it imports this module

    solo, state = _solo(word, board, seat)
    move = choose(solo, state, seat, knobs, seed=rng.getrandbits(32))
    after = solo.dump(solo.apply(state, seat, move))["board"]
    return Option(solo.format(move), _chances(word, after, seat), _chances(word, board, seat))
