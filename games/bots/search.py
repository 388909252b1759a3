"""One engine for every game: tactics, UCT Monte Carlo tree search, and a flat
bandit over sampled submissions for sealed rounds.

Everything runs on the observed state (observe.py) through the Game interface
only: `legal_actions`, `random_action`, `apply`, `result`, `to_act`,
`pending`.  Budgets: an iteration count and an optional wall-clock limit
(whichever ends first); randomness comes from one seeded `random.Random`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from games.core import Game, Result

#: an evaluation of a position for `seat` in [0, 1] (used where a playout is cut short)
Evaluate = Callable[[Any, int], float]
#: candidate actions a game's knowledge proposes first (best first)
Propose = Callable[[Any, int, random.Random], list[Any]]


@dataclass(frozen=True)
class Strength:
    """A strength is budgets and knobs of the one engine."""

    name: str
    iterations: int
    seconds: float | None  # None: iterations only (deterministic for a seed)
    candidates: int  # actions considered per node (sampled when there are more)
    playout_depth: int  # random moves before a playout is cut and evaluated
    tactics: bool  # win now / do not lose now / do not hand over a win
    tactic_checks: int = 20000  # at most this many replies inspected for tactics
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


def reward(result: Result, seat: int, seats: int) -> float:
    """1 for a sole win, 0 for a loss, shared wins and draws in between;
    by placing on the scores when more than two seats play."""
    if seats > 2 and result.scores:
        mine = result.scores.get(seat, 0)
        others = [v for s, v in result.scores.items() if s != seat]
        beaten = sum(1.0 if mine > v else 0.5 if mine == v else 0.0 for v in others)
        return beaten / max(1, len(others))
    if not result.winners:
        return 0.5
    if seat in result.winners:
        return 1.0 / len(result.winners)
    return 0.0


def deadline_for(strength: Strength) -> float | None:
    """The clock time by which a decision started now must be made (None: iterations only)."""
    return None if strength.seconds is None else time.perf_counter() + strength.seconds


def past(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() > deadline


class Budget:
    """Iterations and, optionally, a deadline: one decision's whole clock (the tactics, proposals and
    search share it, so no part runs on a fresh clock of its own)."""

    def __init__(self, strength: Strength, deadline: float | None = None) -> None:
        self.left = strength.iterations
        self.deadline = deadline_for(strength) if deadline is None else deadline

    def more(self) -> bool:
        if self.left <= 0:
            return False
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return False
        self.left -= 1
        return True


def sample_actions(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, cap: int,
                   scan: int = 20000) -> list[Any]:
    """Up to `cap` legal actions, a uniform sample of the first `scan` listed."""
    chosen: list[Any] = []
    for count, action in enumerate(islice(game.legal_actions(state, seat), scan)):
        if count < cap:
            chosen.append(action)
        else:
            j = rng.randrange(count + 1)
            if j < cap:
                chosen[j] = action
    rng.shuffle(chosen)
    return chosen


def actor(game: Game[Any, Any], state: Any) -> int:
    acting = sorted(game.pending(state)) or sorted(game.to_act(state))
    return acting[0]


def rollout(game: Game[Any, Any], state: Any, rng: random.Random, depth: int,
            deadline: float | None = None) -> tuple[Any, Result | None]:
    """Random moves for every seat to the end, or `depth` moves, or until `deadline`:
    (last state, its result)."""
    for _ in range(depth):
        result = game.result(state)
        if result is not None:
            return state, result
        if past(deadline):
            break
        mover = actor(game, state)
        action = game.random_action(state, mover, rng)
        if action is None:
            break
        state = game.apply(state, mover, action)
    return state, game.result(state)


def score(game: Game[Any, Any], end: tuple[Any, Result | None], seat: int, evaluate: Evaluate | None) -> float:
    state, result = end
    if result is not None:
        return reward(result, seat, game.seats)
    return 0.5 if evaluate is None else evaluate(state, seat)


def playout(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, depth: int,
            evaluate: Evaluate | None, deadline: float | None = None) -> float:
    """A random playout's value for `seat` (`evaluate` where it is cut short)."""
    return score(game, rollout(game, state, rng, depth, deadline), seat, evaluate)


def tactical(game: Game[Any, Any], state: Any, seat: int, actions: Sequence[Any],
             strength: Strength, rng: random.Random,
             deadline: float | None = None) -> tuple[Any | None, list[Any]]:
    """(a winning action or None, the actions that do not lose at once).

    Turn-based games only: an action that ends the bout in our favour is taken;
    one that loses on the spot, or lets the next player win with one reply, is
    dropped (unless every action does).  The checks take at most a third of the
    time left before `deadline` (the decision's clock; the strength's own when
    None): the reply checks stop first, at a quarter; actions not reached by then
    are kept unchecked."""
    safe: list[Any] = []
    checks = strength.tactic_checks
    if deadline is None:
        deadline = deadline_for(strength)
    now = time.perf_counter()
    stop = None if deadline is None else now + max(0.0, deadline - now) / 3
    replies_stop = None if deadline is None else now + max(0.0, deadline - now) / 4
    for index, action in enumerate(actions):
        if past(stop):
            safe.extend(actions[index:])
            break
        if past(replies_stop):
            checks = 0
        after = game.apply(state, seat, action)
        result = game.result(after)
        if result is not None:
            value = reward(result, seat, game.seats)
            if value == 1.0:
                return action, [action]
            if value == 0.0:
                continue
            safe.append(action)
            continue
        if checks > 0 and strength.tactics:
            mover = actor(game, after)
            if mover != seat:
                replies = list(islice(game.legal_actions(after, mover), checks))
                checks -= len(replies)
                if any(_wins(game, after, mover, reply) for reply in replies if not past(stop)):
                    continue
        safe.append(action)
    return None, safe or list(actions)


def _wins(game: Game[Any, Any], state: Any, mover: int, action: Any) -> bool:
    result = game.result(game.apply(state, mover, action))
    return result is not None and reward(result, mover, game.seats) == 1.0


class _Node:
    __slots__ = ("action", "children", "mover", "state", "untried", "value", "visits")

    def __init__(self, state: Any, action: Any, mover: int) -> None:
        self.state = state
        self.action = action
        self.mover = mover  # the seat that played `action` into this node
        self.children: list[_Node] = []
        self.untried: list[Any] | None = None
        self.visits = 0
        self.value = 0.0  # summed rewards for `mover`


def uct(game: Game[Any, Any], state: Any, seat: int, actions: list[Any], strength: Strength,
        rng: random.Random, evaluate: Evaluate | None = None, c: float = 1.2,
        deadline: float | None = None) -> Any:
    """UCT over turn-based play from `state`, root actions `actions`; the most visited.
    Stops at `deadline` (the decision's clock; the strength's own from now when None)."""
    root = _Node(state, None, -1)
    root.untried = list(actions)
    budget = Budget(strength, deadline)
    while budget.more():
        node = root
        path = [node]
        # selection
        while not node.untried and node.children:
            log_n = math.log(node.visits + 1)
            node = max(node.children, key=lambda ch: ch.value / ch.visits + c * math.sqrt(log_n / ch.visits))
            path.append(node)
        # expansion
        result = game.result(node.state)
        if result is None:
            mover = actor(game, node.state)
            if node.untried is None:
                node.untried = sample_actions(game, node.state, mover, rng, strength.candidates)
            if node.untried:
                action = node.untried.pop()
                child = _Node(game.apply(node.state, mover, action), action, mover)
                node.children.append(child)
                node = child
                path.append(node)
        # simulation: rewards for every seat that moved
        end = rollout(game, node.state, rng, strength.playout_depth, budget.deadline)
        cache: dict[int, float] = {}
        for n in path[1:]:
            if n.mover not in cache:
                cache[n.mover] = score(game, end, n.mover, evaluate)
            n.visits += 1
            n.value += cache[n.mover]
        root.visits += 1
    if not root.children:
        return actions[0]
    return max(root.children, key=lambda ch: (ch.visits, ch.value)).action


def sealed_bandit(game: Game[Any, Any], state: Any, seat: int, candidates: list[Any], strength: Strength,
                  rng: random.Random, evaluate: Evaluate | None = None, c: float = 0.7,
                  deadline: float | None = None) -> Any:
    """UCB1 over our candidate submissions: each trial samples the others'
    sealed submissions, resolves the round with the game's own rules and plays
    the rest out at random."""
    visits = [0] * len(candidates)
    values = [0.0] * len(candidates)
    budget = Budget(strength, deadline)
    total = 0
    while budget.more():
        total += 1
        if total <= len(candidates):
            i = total - 1
        else:
            log_n = math.log(total)
            i = max(range(len(candidates)),
                    key=lambda k: values[k] / visits[k] + c * math.sqrt(log_n / visits[k]))
        after = game.apply(state, seat, candidates[i])
        values[i] += playout(game, after, seat, rng, strength.playout_depth, evaluate, budget.deadline)
        visits[i] += 1
    best = max(range(len(candidates)), key=lambda k: (visits[k], values[k] / max(1, visits[k]), -k))
    return candidates[best]
