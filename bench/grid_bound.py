"""What any Grid Master player can reach, by exhaustive search (about 30 s): the value of the
start against perfect play, and the most a player can win against a uniformly random opponent
(the measure of bench/bots.py), seat by seat.

    .venv/bin/python bench/grid_bound.py

Positions are keyed by the game's `dump` without its last action (games/bots/solver.py).
Expected wins are exact fractions: the random seat picks each legal action with equal chance.
"""

from __future__ import annotations

import os
import sys
import time
from fractions import Fraction
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots.solver import Solver, dump_key
from games.registry import get_game

GAME = get_game("grid-master")
KEY = dump_key(GAME)


def best_wins(state: Any, seat: int, table: dict[Any, Fraction]) -> Fraction:
    """The chance that `seat` wins when it plays for the most wins and the other seat plays
    uniformly at random (a draw counts as no win)."""
    result = GAME.result(state)
    if result is not None:
        return Fraction(1) if result.winners == {seat} else Fraction(0)
    key = KEY(state)
    if key in table:
        return table[key]
    mover = min(GAME.to_act(state))
    values = [best_wins(GAME.apply(state, mover, a), seat, table) for a in GAME.legal_actions(state, mover)]
    value = max(values) if mover == seat else sum(values, Fraction(0)) / len(values)
    table[key] = value
    return value


def main() -> None:
    start = GAME.new({})
    began = time.perf_counter()
    value = Solver(GAME, KEY, None, None).negamax(start, None)
    print(f"value of the start for seat 1 (X) against perfect play: {value:+.0f} "
          f"({'X wins' if value > 0 else 'draw' if value == 0 else 'O wins'}; {time.perf_counter() - began:.1f} s)")
    chances = {}
    for seat in (1, 2):
        began = time.perf_counter()
        chances[seat] = best_wins(start, seat, {})
        print(f"seat {seat}: at most {chances[seat]} = {float(chances[seat]):.4f} of games won against a uniformly "
              f"random opponent ({time.perf_counter() - began:.1f} s)")
    both = (chances[1] + chances[2]) / 2
    print(f"seats alternated: at most {float(both):.4f} of games won against a random player")


if __name__ == "__main__":
    main()
