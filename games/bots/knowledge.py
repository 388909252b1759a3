"""Per-game knowledge where plain search is weak: which actions to look at
first, how to value a position cut short, and (Gomoku) a decision of its own.

Everything reads the seat's observed state through the Game interface and the
public view (`cells` rows of 0/1/2 for the grid boards), never game internals.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.core import Game

from .search import Evaluate, Strength, sample_actions

Propose = Callable[[Game[Any, Any], Any, int, random.Random, Strength], list[Any]]
Decide = Callable[[Game[Any, Any], Any, int, list[Any], Strength, random.Random], Any]

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


@dataclass(frozen=True)
class Knowledge:
    propose: Propose
    evaluate: Evaluate | None = None
    decide: Decide | None = None


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


# -- Gomoku: threats near the stones ------------------------------------------------
def _cells(game: Game[Any, Any], state: Any) -> tuple[list[int], int]:
    rows = game.public_view(state)["cells"]
    return [v for row in rows for v in row], len(rows)


def _run(cells: list[int], n: int, index: int, who: int, dr: int, dc: int) -> tuple[int, int]:
    """(stones of `who` in a row through `index` along (dr, dc) if `who` played there, open ends)."""
    row, col = divmod(index, n)
    count, open_ends = 1, 0
    for sign in (1, -1):
        r, c = row + dr * sign, col + dc * sign
        while 0 <= r < n and 0 <= c < n and cells[r * n + c] == who:
            count += 1
            r += dr * sign
            c += dc * sign
        if 0 <= r < n and 0 <= c < n and cells[r * n + c] == 0:
            open_ends += 1
    return count, open_ends


_LINE_VALUE = {5: 100000, 4: 5000, 3: 300, 2: 20, 1: 1}


def _threat(cells: list[int], n: int, index: int, who: int) -> int:
    total = 0
    for dr, dc in DIRECTIONS:
        count, open_ends = _run(cells, n, index, who, dr, dc)
        if count >= 5:
            total += _LINE_VALUE[5]
        elif open_ends:
            total += _LINE_VALUE[count] * (3 if open_ends == 2 else 1)
    return total


def _move_scores(game: Game[Any, Any], state: Any, seat: int) -> list[tuple[int, int]]:
    cells, n = _cells(game, state)
    other = 3 - seat
    stones = [i for i, v in enumerate(cells) if v]
    if not stones:
        return [(0, (n // 2) * n + n // 2)]
    near: set[int] = set()
    for i in stones:
        r, c = divmod(i, n)
        for dr in range(-2, 3):
            for dc in range(-2, 3):
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n and cells[rr * n + cc] == 0:
                    near.add(rr * n + cc)
    # attack counts a little more than defence: finishing first wins
    scored = [(_threat(cells, n, i, seat) * 11 // 10 + _threat(cells, n, i, other), i) for i in near]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return scored


def _gomoku_propose(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
    return [i for _, i in _move_scores(game, state, seat)[: knobs.candidates]]


def _gomoku_decide(game: Game[Any, Any], state: Any, seat: int, actions: list[Any], knobs: Strength,
                   rng: random.Random) -> Any:
    """Alpha-beta, two plies deep for normal and strong, over the best-threat moves."""
    scores = dict((i, s) for s, i in _move_scores(game, state, seat))
    ordered = sorted(actions, key=lambda a: -scores.get(a, 0))
    if not knobs.tactics:
        top = [a for a in ordered if scores.get(a, 0) == scores.get(ordered[0], 0)]
        return rng.choice(top)
    width = max(4, knobs.candidates // 4)
    best, best_value = ordered[0], -(10**9)
    for action in ordered[:width]:
        after = game.apply(state, seat, action)
        if game.result(after) is not None:
            return action
        replies = _move_scores(game, after, 3 - seat)[:1]
        value = scores.get(action, 0) - (replies[0][0] if replies else 0)
        if value > best_value:
            best, best_value = action, value
    return best


def _gomoku_evaluate(state: Any, seat: int) -> float:
    return 0.5


# -- Bidding 3D Tic-Tac-Toe ---------------------------------------------------------
def _bidding_propose(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength) -> list[Any]:
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
        try:
            better = game.parse(state, seat, text)
            game.apply(state, seat, better)
        except ValueError:
            continue
        if better not in proposals:
            proposals.append(better)
    return proposals


_KNOWLEDGE: dict[str, Knowledge] = {
    "gomoku": Knowledge(_gomoku_propose, None, _gomoku_decide),
    "bidding-ttt": Knowledge(_bidding_propose),
}


def knowledge_for(game: Game[Any, Any]) -> Knowledge:
    if game.slug in _KNOWLEDGE:
        return _KNOWLEDGE[game.slug]
    return Knowledge(_sampled if game.sealed else _listed)
