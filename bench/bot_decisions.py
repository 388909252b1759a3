"""Back to the Wall: one round's decision measured against the real orders of the other seats.

    .venv/bin/python bench/bot_decisions.py [--round 3] [--positions 12] [--truth normal|random]
                                            [--iterations 1500] [--strength strong] [--seconds 2.5]

A duel of 32 games tells strong from normal within about ±16 points: a planner change worth a
point a match drowns in the other seats' luck.  This measures one decision instead.  Positions at
the start of `--round` come from games of normal against itself (no clock, fixed seeds); in each
position every seat in turn plans its orders with strong's knobs and no clock (`--iterations`),
and those orders are resolved against four draws of the other seats' orders, by normal (no
clock, different seeds) or a random player (`--truth random`).  With `--seconds` the planning
seat has a clock, as in a match (its figure then depends on the machine's load).  The figure is the mean of the
planning seat's place points summed over the three boards right after the round (6/4/2/1 a
board, ties shared: 9.75 is even); rounds 1 and 2 are valued by the standing after them, which is
not the final one.  The same positions and draws serve every run with the same options, so two
runs of the planner differ only by the planner.  Nothing here asserts a figure.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.back_to_the_wall.resolve import place_points
from games.back_to_the_wall.rules import BackToTheWall
from games.bots import STRENGTHS, choose
from games.bots.search import reward
from games.core import Result
from games.registry import get_game

SEATS = (1, 2, 3, 4)
#: draws of the other seats' orders a decision is resolved against
DRAWS = 4


def positions(game: Any, round_: int, count: int) -> list[Any]:
    """States at the start of `round_`, from games of normal against itself without a clock."""
    normal = replace(STRENGTHS["normal"], seconds=None, iterations=300)
    states = []
    for index in range(count):
        state = game.new({})
        while state.round < round_:
            for seat in SEATS:
                seed = index * 100 + seat + 10 * state.round
                state = game.apply(state, seat, choose(game, state, seat, normal, seed=seed))
        states.append(state)
    return states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", type=int, default=3)
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--truth", choices=("normal", "random"), default="normal")
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--strength", choices=("normal", "strong"), default="strong",
                        help="the planning seat's knobs")
    parser.add_argument("--seconds", type=float, default=None,
                        help="the planning seat's clock (as in a match); without it, --iterations alone")
    args = parser.parse_args()
    game = get_game("back-to-the-wall")
    assert isinstance(game, BackToTheWall)
    normal = replace(STRENGTHS["normal"], seconds=None, iterations=300)
    planner = replace(STRENGTHS[args.strength], seconds=args.seconds, iterations=args.iterations)
    started = time.time()
    total = 0.0
    beaten = 0.0
    count = 0
    for p, state in enumerate(positions(game, args.round, args.positions)):
        draws: list[dict[int, Any]] = []
        for k in range(DRAWS):
            seed = 9000 + p * 50 + k * 5
            if args.truth == "random":
                draws.append({s: game.random_action(state, s, random.Random(seed + s)) for s in SEATS})
            else:
                draws.append({s: choose(game, state, s, normal, seed=seed + s) for s in SEATS})
        for seat in SEATS:
            mine = choose(game, state, seat, planner, seed=777 + p * 10 + seat)
            for theirs in draws:
                after = state
                for s in SEATS:
                    after = game.apply(after, s, mine if s == seat else theirs[s])
                boards = [place_points(scores) for scores in game.board_scores(after)]
                totals = {s: sum(points[s] for points in boards) for s in SEATS}
                total += totals[seat]
                # the duel's own score (bench/bots.py): the share of the other seats with fewer points
                beaten += reward(Result(winners=frozenset(), reason="standing", scores=totals), seat, len(SEATS))
                count += 1
    print(f"round {args.round} truth {args.truth} {args.strength} iterations {args.iterations} "
          f"seconds {args.seconds}: "
          f"{total / count:.3f} points a match, {100 * beaten / count:.1f} % of the others placed below, "
          f"over {count} decisions and draws "
          f"({time.time() - started:.0f} s, "
          f"load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
