"""Search to the end for small two-seat games of perfect information (Grid Master: a 3x3 board,
nine placements at most), through the Game interface only.

Two questions are asked of each action the bot may take, both by search over `legal_actions`
and `apply`, positions keyed by the game's own `dump` (without its last action, which says how a
position was reached, not what may follow):

1. What does it lead to against the best defence (negamax, win 1 / draw 0 / loss -1)?  Searched
   to `Strength.extra["solve_depth"]` plies, the evaluation beyond (None: to the end, exact).
2. Which gives a fallible opponent the most chances to go wrong: the expected score (1 / 0.5 / 0)
   if every other turn were played uniformly at random (expectimax), searched to
   `extra["chance_depth"]` plies.  In a lost position against perfect play this is what a good
   player does: the move that is hardest to punish.

A forced win (1) is always taken.  Otherwise `extra["hold"]` decides: True, the chances only
break ties between the actions with the best value; False, they choose among all actions.

Grid Master, exhaustively (bench/grid_bound.py): seat 1 (X) wins from the start against any
defence, and seat 2 (O) wins at most 41 of 45 games (91.1 %) against a uniformly random X, however
it plays, so no bot wins more than 95.6 % of games against a random player with seats
alternated.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from typing import Any

from games.core import Game

from .search import Evaluate, Strength, actor, reward

#: a position's key for the tables: two states with the same key have the same future
Key = Callable[[Any], Hashable]


#: chances closer than this are equal (the seed chooses between their actions)
EQUAL = 1e-3
#: positions of the chances search per iteration of the strength (solve_and_play)
NODES_PER_ITERATION = 100


class OutOfTime(Exception):
    """The decision's deadline passed during a search."""


def dump_key(game: Game[Any, Any], drop: tuple[str, ...] = ("last",)) -> Key:
    """Key by the game's JSON dump without the fields in `drop` (how the position was reached)."""

    def key(state: Any) -> Hashable:
        data = game.dump(state)
        return tuple(sorted((k, _frozen(v)) for k, v in data.items() if k not in drop))

    return key


def _frozen(value: Any) -> Hashable:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value  # type: ignore[no-any-return]


class Solver:
    """The two searches of one decision, with their tables (kept for that decision only)."""

    def __init__(self, game: Game[Any, Any], key: Key, evaluate: Evaluate | None, deadline: float | None,
                 budget: int | None = None) -> None:
        self.game = game
        self.key = key
        self.evaluate = evaluate
        self.deadline = deadline
        self.exact: dict[Hashable, int] = {}
        self.cut: dict[tuple[Hashable, int], float] = {}
        self.chance: dict[tuple[Hashable, int, int], float] = {}
        self.nodes = 0
        self.ticks = 0
        #: positions the chances search may expand (None: the deadline alone)
        self.budget = budget

    def _tick(self, counted: bool = False) -> None:
        """One more position searched; OutOfTime past the deadline, or past `budget` positions of
        the chances search (`counted`: the search to the end is small and bounded by the clock)."""
        if counted:
            self.nodes += 1
            if self.budget is not None and self.nodes > self.budget:
                raise OutOfTime
        self.ticks += 1
        if self.deadline is not None and self.ticks % 256 == 0 and time.perf_counter() > self.deadline:
            raise OutOfTime

    def _end(self, state: Any, seat: int) -> float | None:
        """An ended position's value for `seat`: 1 won, 0 drawn, -1 lost (None: not ended)."""
        result = self.game.result(state)
        return None if result is None else 2.0 * reward(result, seat, 2) - 1.0

    def _guess(self, state: Any, seat: int) -> float:
        """A position cut short, for `seat`, strictly between a loss and a win."""
        if self.evaluate is None:
            return 0.0
        return 0.9 * (2.0 * self.evaluate(state, seat) - 1.0)

    def negamax(self, state: Any, depth: int | None) -> float:
        """The value of `state` (not ended) for the seat to move: exact (-1, 0, 1) with `depth` None."""
        seat = actor(self.game, state)
        if depth == 0:
            return self._guess(state, seat)
        key = self.key(state)
        table: dict[Any, Any] = self.exact if depth is None else self.cut
        slot: Hashable = key if depth is None else (key, depth)
        if slot in table:
            return float(table[slot])
        self._tick()
        best = -2.0
        for action in self.game.legal_actions(state, seat):
            after = self.game.apply(state, seat, action)
            value = self.after_value(after, seat, None if depth is None else depth - 1)
            if value > best:
                best = value
                if best >= 1.0:  # nothing beats a win
                    break
        table[slot] = int(best) if depth is None else best
        return best

    def after_value(self, after: Any, seat: int, depth: int | None) -> float:
        """`after`'s value for `seat`, who just moved (the other seat moves next, or the game ended)."""
        end = self._end(after, seat)
        if end is not None:
            return end
        return -self.negamax(after, depth)

    def expected(self, state: Any, seat: int, depth: int) -> float:
        """`seat`'s expected score (1 win, 0.5 draw, 0 loss) when `seat` plays for the most and the
        other seat plays uniformly at random; the evaluation after `depth` plies."""
        end = self._end(state, seat)
        if end is not None:
            return (end + 1.0) / 2.0
        if depth == 0:
            return (self._guess(state, seat) + 1.0) / 2.0
        slot = (self.key(state), seat, depth)
        if slot in self.chance:
            return self.chance[slot]
        self._tick(counted=True)
        mover = actor(self.game, state)
        values = [self.expected(self.game.apply(state, mover, a), seat, depth - 1)
                  for a in self.game.legal_actions(state, mover)]
        value = max(values) if mover == seat else sum(values) / len(values)
        self.chance[slot] = value
        return value


def solve_and_play(game: Game[Any, Any], state: Any, seat: int, knobs: Strength, evaluate: Evaluate | None,
                   key: Key, deadline: float | None, rng: random.Random | None = None) -> Any:
    """The action with the best value against any defence, ties broken by the chances it leaves
    a fallible opponent (module docstring).  Runs out of time gracefully: the answer of the
    deepest search that finished (the evaluation alone if none did)."""
    actions = list(game.legal_actions(state, seat))
    if len(actions) == 1:
        return actions[0]
    # a strength's iterations bound the chances search too: a test's strength without a clock
    # (`seconds=None`) decides the same way on every machine
    solver = Solver(game, key, evaluate, deadline, budget=knobs.iterations * NODES_PER_ITERATION)
    solve_depth = knobs.extra.get("solve_depth")
    chance_depth = int(knobs.extra.get("chance_depth", 2))
    afters = [game.apply(state, seat, a) for a in actions]
    hold = bool(knobs.extra.get("hold", True))
    try:
        values = [solver.after_value(after, seat, solve_depth) for after in afters]
    except OutOfTime:  # no time for even that: the evaluation of each action alone chooses
        values, hold = [0.0] * len(actions), False
    best = max(values)
    rng = rng or random.Random(0)
    if best >= 1.0:  # a win against any defence: any of them (each keeps it); the seed chooses
        return actions[rng.choice([i for i, v in enumerate(values) if v >= 1.0])]
    kept = [i for i, v in enumerate(values) if not hold or v >= best - 1e-9]
    choice = kept[0]
    # deepen the chances search while time allows; each finished depth replaces the last answer
    for depth in range(1, chance_depth + 1):
        try:
            chances = [solver.expected(afters[i], seat, depth - 1) for i in kept]
        except OutOfTime:
            break
        top = max(chances)
        # actions of (nearly) equal chances are equal: the seed chooses, so games vary
        choice = kept[rng.choice([j for j in range(len(kept)) if chances[j] >= top - EQUAL])]
    return actions[choice]
