"""Computer players for every registered game: `choose(game, state, seat, strength, seed)`.

Pure Python, no Django.  A bot decides only from what `seat` may see
(observe.py rebuilds the state from the seat's point of view before anything
else looks at it) and acts only with the seat's legal actions.  One engine
(search.py) with per-game knowledge (knowledge.py); a strength is budgets and
knobs of that engine.  Some games decide with engines of their own (knowledge.py
says which and for which strengths): the stone boards' alpha-beta (grids.py),
Grid Master's solver, Back to the Wall's planner, and Two Connect's normal and
strong players composed from its boards' engines (connect.py).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from games.core import Game

from .knowledge import knowledge_for
from .observe import observed_state
from .search import Strength, deadline_for, sample_actions, sealed_bandit, tactical, uct

__all__ = ["STRENGTHS", "Strength", "choose"]

STRENGTHS: dict[str, Strength] = {
    "easy": Strength("easy", iterations=60, seconds=0.15, candidates=12, playout_depth=30, tactics=False,
                     tactic_checks=0),
    "normal": Strength("normal", iterations=400, seconds=0.8, candidates=24, playout_depth=60, tactics=True),
    # in sealed rounds (Bidding) strong's 1,500 playouts took a median 0.72 s of its 2.5 s: with a
    # clock, the clock alone ends its bandit there
    "strong": Strength("strong", iterations=1500, seconds=2.5, candidates=40, playout_depth=120, tactics=True,
                       tactic_checks=60000, extra={"sealed_by_clock": True}),
}


def choose(game: Game[Any, Any], state: Any, seat: int, strength: str | Strength = "normal",
           seed: int | None = None) -> Any:
    """A legal action for `seat`, decided from `seat`'s view and legal actions only.

    `strength` is "easy", "normal", "strong" or a `Strength` (tests pass one
    with `seconds=None` so a seed fixes the decision).  ValueError when
    `seat` may not act now."""
    knobs = STRENGTHS[strength] if isinstance(strength, str) else strength
    # one clock for the whole decision: proposals, tactics and search all share it
    deadline = deadline_for(knobs)
    rng = random.Random(seed)
    if game.host_moves:
        # the host's game: only the host judges an answer, so a bot answers at random (from the
        # open round's public definition alone) whatever its strength
        if game.result(state) is not None or seat not in game.to_act(state):
            raise ValueError(f"seat {seat} may not act now")
        return game.random_action(state, seat, rng)
    observed = observed_state(game, state, seat)
    if game.result(observed) is not None or seat not in game.to_act(observed):
        raise ValueError(f"seat {seat} may not act now")
    know = knowledge_for(game)
    if know.depth is not None and know.evaluate is not None and knobs.playout_depth > know.depth:
        knobs = replace(knobs, playout_depth=know.depth)
    if know.play is not None and (know.play_for is None or knobs.name in know.play_for):
        return know.play(game, observed, seat, knobs, rng)
    if game.sealed:
        candidates = know.propose(game, observed, seat, rng, knobs)
        if len(candidates) == 1:
            return candidates[0]
        if knobs.seconds is not None and knobs.extra.get("sealed_by_clock"):
            knobs = replace(knobs, iterations=10**9)
        return sealed_bandit(game, observed, seat, candidates, knobs, rng, know.evaluate, deadline=deadline)
    actions = know.propose(game, observed, seat, rng, knobs)
    if not actions:
        actions = sample_actions(game, observed, seat, rng, knobs.candidates)
    if len(actions) == 1:
        return actions[0]
    win, safe = tactical(game, observed, seat, actions, knobs, rng, deadline)
    if win is not None:
        return win
    if len(safe) == 1:
        return safe[0]
    if know.decide is not None:
        return know.decide(game, observed, seat, safe, knobs, rng)
    return uct(game, observed, seat, safe, knobs, rng, know.evaluate, deadline=deadline)
