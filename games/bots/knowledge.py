"""Per-game knowledge where plain search is weak: which actions to look at
first, how to value a position cut short, or (Gomoku, Squava: alpha-beta in
grids.py) a decision of its own.

Everything reads the seat's observed state through the Game interface and the
public view (`cells` rows of 0/1/2 for the grid boards), never game internals.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from games.core import Game

from . import bidding
from .connect import compose_turn
from .evals import grid_master_evaluate, lance_evaluate, yinsh_evaluate
from .grids import choose_stone
from .planner import plan_orders
from .search import Evaluate, Strength, deadline_for, reward, sample_actions
from .solver import dump_key, solve_and_play

Propose = Callable[[Game[Any, Any], Any, int, random.Random, Strength], list[Any]]
Decide = Callable[[Game[Any, Any], Any, int, list[Any], Strength, random.Random], Any]
#: a whole decision of the game's own (no generic tactics or tree search around it)
Play = Callable[[Game[Any, Any], Any, int, Strength, random.Random], Any]
#: an evaluation that reads the game's views (bound to the game by `knowledge_for`)
Judge = Callable[[Game[Any, Any], Any, int], float]

@dataclass(frozen=True)
class Knowledge:
    propose: Propose
    evaluate: Evaluate | None = None
    decide: Decide | None = None
    play: Play | None = None
    #: the strengths `play` decides for (None: every one); the others use the tree search
    play_for: frozenset[str] | None = None
    judge: Judge | None = None  # becomes `evaluate` for the game at hand
    #: random moves before a playout is cut and evaluated, at most (an evaluation is
    #: worth more than a long random tail)
    depth: int | None = None


def _listed(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
    """Turn-based default: a sample of the legal actions, wide enough for the tactics."""
    return sample_actions(game, state, seat, rng, max(knobs.candidates, 8 * knobs.candidates))


def _sampled(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
    """Sealed default: distinct random submissions (the game's own sampler)."""
    seen: list[Any] = []
    for _ in range(knobs.candidates * 3):
        action = game.random_action(state, seat, rng)
        if action is not None and action not in seen:
            seen.append(action)
        if len(seen) >= knobs.candidates:
            break
    return seen


# -- Lance Assembly: a turn is one of ~2,000 (placements, slides, the two together) ------------------
#: actions sampled before they are ranked, by strength (easy ranks none: a beginner's few looks)
LANCE_SCAN = {"normal": 400, "strong": 4000}


def _lance_propose(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
    """The `candidates` best actions by the position each leaves (`lance_evaluate`), out of a sample
    of the legal ones; the tree search then only reads those.  A random sample of 24-40 out of ~2,000
    (the default) rarely held the move that mattered, so more time bought strong nothing.  Ranking
    stops after a third of the strength's clock (or one action per iteration without a clock); near
    ties keep the sample's random order, so the seed varies the play."""
    scan = LANCE_SCAN.get(knobs.name)
    if scan is None:
        return _listed(game, state, seat, rng, knobs)
    actions = sample_actions(game, state, seat, rng, scan)
    stop = None if knobs.seconds is None else time.perf_counter() + knobs.seconds / 3
    limit = len(actions) if knobs.seconds is not None else knobs.iterations
    scored: list[tuple[float, int]] = []
    for index, action in enumerate(actions[:limit]):
        if stop is not None and time.perf_counter() > stop:
            break
        after = game.apply(state, seat, action)
        result = game.result(after)
        value = lance_evaluate(game, after, seat) if result is None else reward(result, seat, game.seats) * 10
        scored.append((round(value, 3), index))
    scored.sort(key=lambda t: -t[0])
    ranked = [actions[i] for _, i in scored[: knobs.candidates]]
    return ranked or actions[: knobs.candidates]


# -- Bidding 3D Tic-Tac-Toe ---------------------------------------------------------
def _bidding_propose(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
    """Submissions planned from the lines of boards (bidding.py), then a few spread ones."""
    spread = _bidding_spread(game, state, seat, rng, replace(knobs, candidates=4))
    return bidding.propose(game, state, seat, rng, knobs, spread[:4])


def _bidding_spread(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
    """Random submissions plus greedy ones that spend a round's share of chips on
    tiles completing the most lines (the bandit then picks among them)."""
    proposals = _sampled(game, state, seat, rng, knobs)
    view = game.view(state, seat)
    chips = int(view["private"]["chips"])
    rnd = int(view["public"]["round"])
    share = chips if rnd >= 3 else chips // (4 - rnd)
    for _ in range(knobs.candidates):
        action = game.random_action(state, seat, rng)
        if action is None or not getattr(action, "bids", ()):
            continue
        tiles = [t for t, _ in action.bids]
        spread = max(1, share // len(tiles))
        text = "; ".join(f"{game.format(type(action)(((t, 1),))).split()[0]} {spread}" for t in tiles)
        better = bidding.legal(game, state, seat, text)
        if better is not None and better not in proposals:
            proposals.append(better)
    return proposals


# -- Gomoku and Squava: alpha-beta (grids.py) -----------------------------------------------
def _stones(three_loses: bool) -> Play:
    def play(game: Game[Any, Any], state: Any, seat: int, knobs: Strength, rng: random.Random) -> Any:
        legal = list(game.legal_actions(state, seat))
        return choose_stone(game.view(state, seat), seat, legal, knobs, rng, three_loses)

    return play


# -- Grid Master: search to the end (solver.py) -----------------------------------------------
#: by strength (a `Strength` of a test may set them in `extra`): plies searched against the best
#: defence (None: to the end), plies of the chances search, and whether the chances only break
#: ties between the actions with the best value against any defence (easy) or choose among all
#: of them once no forced win is found (normal, strong: measured against a random player, 200
#: games each, this wins 96-97 % where keeping the best value won 89-91 %: a draw held against
#: perfect play is a game not won against a fallible one).  The price: strong as O gave up a draw
#: it held against perfect play for a gamble in 13 of 164 decisions against a random player, which
#: an opponent who sees the win punishes
GRID_KNOBS: dict[str, dict[str, Any]] = {
    "easy": {"solve_depth": 2, "chance_depth": 1, "hold": True},
    "normal": {"solve_depth": 4, "chance_depth": 3, "hold": False},
    "strong": {"solve_depth": None, "chance_depth": 6, "hold": False},
}


def _grid_master(game: Game[Any, Any], state: Any, seat: int, knobs: Strength, rng: random.Random) -> Any:
    knobs = replace(knobs, extra={**GRID_KNOBS.get(knobs.name, GRID_KNOBS["normal"]), **knobs.extra})
    return solve_and_play(game, state, seat, knobs, partial(grid_master_evaluate, game), dump_key(game),
                          deadline_for(knobs), rng)


_KNOWLEDGE: dict[str, Knowledge] = {
    "gomoku": Knowledge(_listed, play=_stones(three_loses=False)),
    "squava": Knowledge(_listed, play=_stones(three_loses=True)),
    "bidding-ttt": Knowledge(_bidding_propose),
    "back-to-the-wall": Knowledge(_sampled, play=plan_orders),
    "yinsh": Knowledge(_listed, judge=yinsh_evaluate, depth=20),
    "lance-assembly": Knowledge(_lance_propose, judge=lance_evaluate, depth=8),
    "grid-master": Knowledge(_listed, play=_grid_master),
    # normal and strong play their boards' own engines (connect.py); easy keeps the tree search, a
    # beginner's game that misses a threat on a board it is not looking at
    "two-connect": Knowledge(_listed, play=compose_turn, play_for=frozenset({"normal", "strong"})),
}


def knowledge_for(game: Game[Any, Any]) -> Knowledge:
    know = _KNOWLEDGE.get(game.slug)
    if know is None:
        return Knowledge(_sampled if game.sealed else _listed)
    if know.judge is not None:
        return replace(know, evaluate=partial(know.judge, game))
    return know
