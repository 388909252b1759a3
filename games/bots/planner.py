"""Back to the Wall: a greedy-plus-search planner for one round's sealed orders.

Plain Monte Carlo over whole random submissions is weak here (a submission is
walls, three directions per piece and a garnet on each of three boards: far too
many to sample well).  The planner improves one part of the orders at a time
(coordinate ascent): the walls (with the garnet), then each piece's three
directions, trying every alternative for that part.  Each trial is judged by
resolving the round with the game's own rules (wallsim.py: resolve.py's walls,
rays and fallbacks, owners only) against the other seats' orders sampled from
the observed state (`random_action`: their sealed orders are unknown).  The same
samples judge every trial (common random numbers), so two trials differ only
by our orders.  Once a sweep changes nothing, the orders are judged again on
more samples and fresh wall sets, while the budget lasts.

The three boards resolve independently, so one trial is judged on all three
at once: trial k sets choice k of the part on every board, and each board
keeps its own best.  A board is valued by the place points it would give
(6/4/2/1, ties shared: the match's own score) plus a little for the margin of
captured squares over the best other seat.

The strengths (`PLANS`; bench/bots.py measures them).  Easy is a beginner: it
looks at a few hundred orders and forgets the garnet bonus.  Normal judges its
iterations' worth of orders and stops, a fraction of a second.  Strong spends
its whole clock, and samples a seat that has shown it plans (a full set of
walls on every board in every round resolved so far: the logs are public) with
a planner's walls and garnets instead of random ones (`plans_walls`,
`_as_planner`); in round 1 nothing has shown yet and every other seat is
sampled at random.  The strengths differ in how much each looks at and what
strong reads from the others' past rounds, not only in time: with three other
seats choosing at once, extra thought alone moves a seat's places little.

Reads only the observed state (observe.py: others' submissions, spends and
bonuses unknown).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.back_to_the_wall.board import ROUNDS, SEATS, Board, BoardOrders, Orders
from games.back_to_the_wall.resolve import place_points
from games.back_to_the_wall.state import BackToTheWallState
from games.core import Game

from .search import Strength
from .wallsim import TRIPLES, board_owners, board_walls, ray_cache


@dataclass(frozen=True)
class Plan:
    """How a strength plans here."""

    #: judged trials (one resolution of every board per sample) per iteration of the strength
    evals_per_iteration: int
    #: whether, once a sweep changes nothing, it judges again on more samples while the budget lasts
    resample: bool
    #: whether the rest of the clock is its budget (else its iterations are)
    clock: bool
    #: whether it spends garnets (their bonus counts the walls placed with one on that board)
    garnets: bool
    #: whether it samples the seats that have shown they plan as planners
    model: bool


#: each strength's way of planning: easy 60
#: iterations x 7 (a few hundred trials), normal 400 x 2, strong its 2.5 s
PLANS = {
    "easy": Plan(evals_per_iteration=7, resample=False, clock=False, garnets=False, model=False),
    "normal": Plan(evals_per_iteration=2, resample=True, clock=False, garnets=True, model=False),
    "strong": Plan(evals_per_iteration=2, resample=True, clock=True, garnets=True, model=True),
}
#: weight of the captured-squares margin beside the place points
MARGIN = 0.15
#: wall sets tried per board
WALL_CHOICES = 8
#: alternatives tried per part of the orders when each is judged over several samples
WIDE = 32
#: most samples a strength that resamples judges on once the first ones have nothing more to tell
MAX_EXTENDED = 80


def _wall_sets(board: Board, seat: int, rng: random.Random, count: int) -> list[tuple[tuple[int, int], ...]]:
    """Up to `count` distinct random sets of `wall_limit` walls that the placement rules would not
    drop on their own (off corners, walls and pieces; not touching a wall or each other)."""
    n = board.size
    corners = {board.corner(s) for s in SEATS}
    taken = set(board.walls) | {p.square for p in board.pieces}
    free = [sq for sq in range(n * n) if sq not in corners and sq not in taken]
    diagonal = board.index == 0

    def touches(a: int, b: int) -> bool:
        ra, ca = divmod(a, n)
        rb, cb = divmod(b, n)
        dr, dc = abs(ra - rb), abs(ca - cb)
        if board.index >= 2:
            return False
        return max(dr, dc) == 1 if diagonal else dr + dc == 1

    sets: list[tuple[tuple[int, int], ...]] = []
    for _ in range(count * 4):
        rng.shuffle(free)
        chosen: list[int] = []
        for sq in free:
            if any(touches(sq, w) for w in board.walls) or any(touches(sq, c) for c in chosen):
                continue
            chosen.append(sq)
            if len(chosen) == board.wall_limit:
                break
        walls = tuple(sorted((sq % n, sq // n) for sq in chosen))
        if walls and walls not in sets:
            sets.append(walls)
        if len(sets) >= count:
            break
    return sets


def _garnet_ok(state: BackToTheWallState, seat: int) -> list[bool]:
    """Per board: spend a garnet there this round.  Free garnets (a match that does not count
    them) are always spent with walls; counted ones only in the last round, biggest board first."""
    unspent = [not state.spends[seat - 1][i] for i in range(3)]
    left = state.garnets_left(seat)
    if left is None:
        return unspent
    if state.round < 3:
        return [False, False, False]
    out = [False, False, False]
    for i in (2, 1, 0):
        if unspent[i] and left > 0:
            out[i] = True
            left -= 1
    return out


class _Judge:
    """Values a trial's orders on every board, over the same sampled orders of the other seats.

    Each board resolves alone (wallsim.py: resolve.py's walls, movement kept to the owners), the
    walls once per sample and wall choice of ours, as most trials change directions only."""

    def __init__(self, state: BackToTheWallState, seat: int,
                 samples: list[tuple[dict[int, BoardOrders], ...]]) -> None:
        self.state = state
        self.seat = seat
        self.samples = samples
        self.spawn = state.round < ROUNDS
        self.calls = 0
        self.walls: dict[tuple[int, int, tuple[tuple[int, int], ...]], tuple[frozenset[int], dict[int, int], Any]] = {}

    def values(self, boards: tuple[BoardOrders, BoardOrders, BoardOrders]) -> list[float]:
        seat = self.seat
        totals = [0.0, 0.0, 0.0]
        for i, sample in enumerate(self.samples):
            self.calls += 1
            for b, board in enumerate(self.state.boards):
                orders = dict(sample[b])
                mine = orders[seat] = boards[b]
                key = (b, i, mine.walls)
                known = self.walls.get(key)
                if known is None:
                    walls, placed = board_walls(board, orders)
                    known = self.walls[key] = (walls, placed, ray_cache(board.size, walls))
                walls, placed, rays = known
                owners = board_owners(board, walls, orders, rays, self.spawn)
                scores = {s: self.state.bonus[s - 1][b] + owners.count(s) for s in SEATS}
                for s, theirs in orders.items():
                    if theirs is not None and theirs.garnet:
                        scores[s] += placed[s]
                points = place_points(scores)
                best_other = max(v for s, v in scores.items() if s != seat)
                totals[b] += points[seat] + MARGIN * (scores[seat] - best_other)
        return [t / len(self.samples) for t in totals]


def _random(game: Game[Any, Any], state: BackToTheWallState, other: int, rng: random.Random) -> tuple[BoardOrders, ...]:
    orders = game.random_action(state, other, rng)
    assert isinstance(orders, Orders)
    return tuple(orders.boards)


def plans_walls(state: BackToTheWallState, other: int) -> bool:
    """Whether `other` submitted a full set of walls on every board in every round resolved so far
    (the resolution logs are public), as the planners do: a random player submits 0 to the limit,
    so it does so in one round of 24.  False before the first resolution."""
    if not state.logs:
        return False
    for logs in state.logs:
        for board, log in zip(state.boards, logs, strict=True):
            if sum(1 for note in log.walls if note.seat == other) != board.wall_limit:
                return False
    return True


def _as_planner(state: BackToTheWallState, other: int, drawn: tuple[BoardOrders, ...],
                rng: random.Random) -> tuple[BoardOrders, ...]:
    """`drawn` (random orders of `other`) with the walls and garnets a planner submits: a full set of
    walls that stand (`_wall_sets`), a garnet where `_garnet_ok` would spend one.  Their spends are
    hidden, so a garnet this round stands in for the bonus they earned in an earlier one.  The
    directions stay random: greedy ones judged no better (bench/bot_decisions.py)."""
    garnets = _garnet_ok(state, other)
    out: list[BoardOrders] = []
    for b, board in enumerate(state.boards):
        sets = _wall_sets(board, other, rng, 1)
        walls = sets[0] if sets else ()
        out.append(BoardOrders(walls, drawn[b].moves, garnets[b] and bool(walls)))
    return tuple(out)


def _plan(knobs: Strength) -> Plan:
    """How `knobs`'s strength plans (a strength of another name plans as normal does)."""
    return PLANS.get(knobs.name, PLANS["normal"])


def modelled(state: BackToTheWallState, seat: int, knobs: Strength) -> set[int]:
    """The other seats `knobs`'s strength samples with a planner's walls and garnets: for strong, those
    that have shown they plan (random walls are half as many, and many of them are dropped)."""
    if not _plan(knobs).model:
        return set()
    return {other for other in SEATS if other != seat and plans_walls(state, other)}


def plan_orders(game: Game[Any, Any], state: Any, seat: int, knobs: Strength, rng: random.Random) -> Any:
    """`seat`'s orders for this round: coordinate ascent over walls and each piece's directions,
    judged by resolving the round against sampled orders of the other seats, as `PLANS` says for
    the strength."""
    plan = _plan(knobs)
    started = time.perf_counter()
    deadline = None if knobs.seconds is None else started + knobs.seconds
    evals = knobs.iterations * plan.evals_per_iteration
    # more sampled rounds per trial for a bigger budget (less luck, fewer trials)
    sample_count = max(1, min(10, evals // 150))
    if plan.clock and deadline is not None:
        evals = 10**9  # the clock ends the search: the quick judge would leave most of it unused
    others = [s for s in SEATS if s != seat]
    planners = modelled(state, seat, knobs)

    def draw(count: int) -> list[tuple[dict[int, BoardOrders], ...]]:
        samples: list[tuple[dict[int, BoardOrders], ...]] = []
        for _ in range(count):
            drawn = {o: _random(game, state, o, rng) for o in others}
            drawn.update({o: _as_planner(state, o, drawn[o], rng) for o in planners})
            samples.append(tuple({o: drawn[o][b] for o in others} for b in range(3)))
        return samples

    judge = _Judge(state, seat, draw(sample_count))
    # easy makes a beginner's mistake: it forgets the garnet bonus (up to 1 + 2 + 3 squares),
    # which costs it places against seats as good as it and few against random players
    garnets = _garnet_ok(state, seat) if plan.garnets else [False, False, False]
    boards: list[Board] = list(state.boards)
    wall_choices: list[list[tuple[tuple[tuple[int, int], ...], bool]]] = []
    for b, board in enumerate(boards):
        sets = _wall_sets(board, seat, rng, WALL_CHOICES)
        wall_choices.append([((), False)] + [(w, garnets[b]) for w in sets])
    # start: a random wall set (with the garnet) and random directions
    current: list[BoardOrders] = []
    for b, board in enumerate(boards):
        walls, garnet = wall_choices[b][1] if len(wall_choices[b]) > 1 else wall_choices[b][0]
        moves = tuple((p.number, rng.choice(TRIPLES)) for p in board.pieces_of(seat))
        current.append(BoardOrders(walls, moves, garnet))
    game.check_orders(state, seat, Orders((current[0], current[1], current[2])))  # type: ignore[attr-defined]
    best = judge.values((current[0], current[1], current[2]))
    parts = 1 + max(len(board.pieces_of(seat)) for board in boards)  # walls, then each piece

    def out_of_budget() -> bool:
        if judge.calls >= evals:
            return True
        return deadline is not None and time.perf_counter() > deadline

    # trials per part: as many as the budget allows for one sweep, at least a few
    per_eval = (time.perf_counter() - started) / max(1, judge.calls)
    available = evals
    if deadline is not None and per_eval > 0:
        available = min(evals, int(max(0.0, deadline - time.perf_counter()) / per_eval))
    # with several samples, at most WIDE alternatives per part: a bigger budget buys more samples
    # (less luck in each judgement), not more alternatives judged on the same few samples
    widest = len(TRIPLES) if sample_count == 1 else WIDE
    width = max(6, min(widest, available // max(1, sample_count * parts)))
    improved = True
    while not out_of_budget():
        if not improved:
            # a sweep changed nothing: the orders are the best these samples tell.  With budget left,
            # a strength that resamples judges them on more samples and fresh wall sets
            if not plan.resample or len(judge.samples) >= MAX_EXTENDED:
                break
            judge.samples.extend(draw(len(judge.samples)))
            for b, board in enumerate(boards):
                wall_choices[b] += [(w, garnets[b]) for w in _wall_sets(board, seat, rng, WALL_CHOICES)]
            best = judge.values((current[0], current[1], current[2]))
        improved = _sweep(judge, current, best, parts, wall_choices, width, rng, out_of_budget)
    return Orders((current[0], current[1], current[2]))


def _sweep(judge: _Judge, current: list[BoardOrders], best: list[float], parts: int,
           wall_choices: list[list[tuple[tuple[tuple[int, int], ...], bool]]], width: int, rng: random.Random,
           out_of_budget: Callable[[], bool]) -> bool:
    """One pass of coordinate ascent: each part in turn (the walls, then each piece's directions),
    `width` alternatives of it tried on all three boards at once, each board keeping its best.
    Changes `current` and `best` in place; whether anything improved."""
    improved = False
    boards = judge.state.boards
    for part in range(parts):
        if out_of_budget():
            break
        choices: list[list[Any]] = []
        for b, board in enumerate(boards):
            if part == 0:
                options: list[Any] = list(wall_choices[b])
            else:
                options = list(TRIPLES) if part - 1 < len(board.pieces_of(judge.seat)) else []
            rng.shuffle(options)
            choices.append(options[:width])
        for k in range(max(len(c) for c in choices)):
            if out_of_budget():
                break
            trial = [_with(current[b], part, choices[b][k]) if k < len(choices[b]) else current[b]
                     for b in range(3)]
            values = judge.values((trial[0], trial[1], trial[2]))
            for b in range(3):
                if k < len(choices[b]) and values[b] > best[b] + 1e-9:
                    current[b] = trial[b]
                    best[b] = values[b]
                    improved = True
    return improved


def _with(orders: BoardOrders, part: int, choice: Any) -> BoardOrders:
    """`orders` with one part replaced: 0 the walls and garnet, k the k-th piece's directions."""
    if part == 0:
        walls, garnet = choice
        return BoardOrders(walls, orders.moves, garnet)
    moves = list(orders.moves)
    number, _ = moves[part - 1]
    moves[part - 1] = (number, choice)
    return BoardOrders(orders.walls, tuple(moves), orders.garnet)
