"""A fair duel between two players of one game: what bench/bots.py measures strength with.

Two bots that replay one game from the empty board measure who moved first, not which is
stronger.  So each opening (a few random plies from a seed; none in the sealed games, whose
rounds are simultaneous) is played once for every seating: with two seats, once with the
seats swapped; with more (Back to the Wall), the player under test takes each seat in turn
against the other player in every other seat.  Every bot in a seat gets a seed of its own
for the game (from the opening's seed and the seat), mixed with the ply it moves at, as a
seat of a real match does (matches/play/bots.py: match, bout, version, seat).

A player is a strength name, a `Strength`, or None for a uniformly random player.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from games.core import Game, Result

from . import choose
from .search import Strength, reward

Player = str | Strength | None


def opening(game: Game[Any, Any], seed: int, plies: int = 2) -> Any:
    """The position after `plies` uniformly random plies drawn from `seed` (the same seed gives the
    same position).  Sealed games open at the start: a random round there is a third of the game,
    so their openings differ by the bots' seeds alone.  An opening that would end the bout is
    drawn again from the next numbers of the same generator."""
    rng = random.Random(seed)
    start = game.new({})
    if game.sealed or plies <= 0:
        return start
    for _ in range(100):
        state = start
        for _ in range(plies):
            seat = acting(game, state)
            action = game.random_action(state, seat, rng)
            if action is None:
                break
            state = game.apply(state, seat, action)
        if game.result(state) is None:
            return state
    return start


def acting(game: Game[Any, Any], state: Any) -> int:
    """The seat that acts next (in a sealed round, the lowest that has not submitted)."""
    return sorted(game.pending(state) or game.to_act(state))[0]


def seatings(seats: int) -> list[int]:
    """The seat the player under test takes in each game of an opening: every seat once (two
    seats: swapped; four: rotated), the other player in all the others."""
    return list(range(1, seats + 1))


def bot_seed(game_seed: int, seat: int, ply: int) -> int:
    """A bot's seed for one decision: per game (opening and seating) and seat, and per ply, as a
    match's seat derives it from the match, bout and version."""
    return zlib.crc32(f"{game_seed}:{seat}:{ply}".encode())


@dataclass
class Played:
    """One game played: its result (None when cut at the limit), the actions in order, and think
    times per seat."""

    result: Result | None
    actions: list[str]
    times: dict[int, list[float]] = field(default_factory=dict)


def play(game: Game[Any, Any], state: Any, players: dict[int, Player], game_seed: int,
         limit: int | None = None, clock: Callable[[], float] = time.perf_counter) -> Played:
    """Plays `state` to the end (or `limit` plies: then without a result), each seat by its player."""
    rng = random.Random(game_seed)  # the random players' moves
    actions: list[str] = []
    times: dict[int, list[float]] = {seat: [] for seat in players}
    ply = 0
    while (result := game.result(state)) is None:
        if limit is not None and ply >= limit:
            return Played(None, actions, times)
        seat = acting(game, state)
        player = players[seat]
        if player is None:
            action = game.random_action(state, seat, rng)
        else:
            started = clock()
            action = choose(game, state, seat, player, seed=bot_seed(game_seed, seat, ply))
            times[seat].append(clock() - started)
        actions.append(f"{seat}:{game.format(action)}")
        state = game.apply(state, seat, action)
        ply += 1
    return Played(result, actions, times)


@dataclass(frozen=True)
class Bout:
    """One game of a duel: the opening's seed, the seat the player under test takes, and the
    seed of the game (its bots' seeds derive from it)."""

    opening_seed: int
    seat: int

    @property
    def game_seed(self) -> int:
        return self.opening_seed * 16 + self.seat


def schedule(game: Game[Any, Any], openings: int, first_seed: int = 0) -> Iterator[Bout]:
    """Every opening once per seating, an opening's games one after the other."""
    for opening_seed in range(first_seed, first_seed + openings):
        for seat in seatings(game.seats):
            yield Bout(opening_seed, seat)


def players_for(game: Game[Any, Any], bout: Bout, tested: Player, other: Player) -> dict[int, Player]:
    return {seat: tested if seat == bout.seat else other for seat in range(1, game.seats + 1)}


def score(result: Result, seat: int, seats: int) -> float:
    """The tested seat's score: 1 a sole win, 0 a loss, a draw half; with more than two seats the
    share of the other seats it placed above (ties half), so 0.5 is even."""
    return reward(result, seat, seats)
