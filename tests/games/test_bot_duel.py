"""games.bots.duel (what bench/bots.py measures strength with) is fair, and bots vary their play
by their seed.  No win rate or time is asserted here: those are figures of bench/bots.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from games.bots import STRENGTHS, choose
from games.bots.duel import Player, opening, play, players_for, schedule, score
from games.registry import get_game

#: iteration budgets, no clock: a decision depends on the position and the seed alone
QUICK = {name: replace(knobs, seconds=None, iterations=20, candidates=8, playout_depth=10, tactic_checks=200)
         for name, knobs in STRENGTHS.items()}


@pytest.mark.parametrize(("slug", "seats"), [("squava", 2), ("bidding-ttt", 2), ("back-to-the-wall", 4)])
def test_every_opening_is_played_once_from_every_seat(slug: str, seats: int) -> None:
    game = get_game(slug)
    bouts = list(schedule(game, openings=3))
    assert len(bouts) == 3 * seats
    for seed in range(3):
        taken = [b.seat for b in bouts if b.opening_seed == seed]
        assert sorted(taken) == list(range(1, seats + 1))
    for bout in bouts:
        players = players_for(game, bout, "strong", "normal")
        assert players[bout.seat] == "strong"
        assert [s for s, p in players.items() if p == "normal"] == [s for s in range(1, seats + 1) if s != bout.seat]
    # each game of a duel has a seed of its own (its bots' seeds derive from it)
    assert len({b.game_seed for b in bouts}) == len(bouts)


@pytest.mark.parametrize("slug", ["squava", "gomoku", "lance-assembly", "two-connect", "yinsh", "grid-master"])
def test_an_opening_is_the_same_for_its_seed_and_differs_between_seeds(slug: str) -> None:
    game = get_game(slug)
    first = [game.dump(opening(game, seed, plies=2)) for seed in range(6)]
    again = [game.dump(opening(game, seed, plies=2)) for seed in range(6)]
    assert first == again
    assert len({repr(d) for d in first}) >= 4
    for seed in range(6):
        state = opening(game, seed, plies=2)
        assert game.result(state) is None
        assert game.dump(state) != game.dump(game.new({}))


def test_a_sealed_game_opens_at_the_start() -> None:
    game = get_game("bidding-ttt")
    assert game.dump(opening(game, 3, plies=2)) == game.dump(game.new({}))


def test_the_tested_player_acts_from_its_seat_in_both_games_of_an_opening() -> None:
    game = get_game("squava")
    for bout in schedule(game, openings=1):
        start = opening(game, bout.opening_seed)
        played = play(game, start, players_for(game, bout, QUICK["easy"], None), bout.game_seed)
        assert played.result is not None
        # only bots' moves are timed: the random player's seat has none
        assert played.times[bout.seat]
        assert not played.times[3 - bout.seat]
        assert score(played.result, bout.seat, 2) in (0.0, 0.5, 1.0)


def test_a_game_is_replayed_exactly_from_its_seeds() -> None:
    game = get_game("squava")
    players: dict[int, Player] = {1: QUICK["normal"], 2: QUICK["easy"]}
    start = opening(game, 4)
    assert play(game, start, players, 65).actions == play(game, start, players, 65).actions


def test_four_seat_score_is_the_share_of_seats_placed_above() -> None:
    from games.core import Result

    result = Result(winners=frozenset({2}), reason="points", scores={1: 5, 2: 9, 3: 5, 4: 1})
    assert score(result, 2, 4) == 1.0
    assert score(result, 1, 4) == pytest.approx((0.5 + 1.0) / 3)
    assert score(result, 4, 4) == 0.0


@pytest.mark.parametrize("slug", ["squava", "gomoku"])
@pytest.mark.parametrize("strength", ["normal", "strong"])
def test_the_seed_chooses_among_moves_of_nearly_equal_value(slug: str, strength: str) -> None:
    """From the empty board normal played one and the same game for every seed: now the seed
    chooses among the moves of nearly equal value, and the same seed chooses the same move."""
    game = get_game(slug)
    knobs = replace(STRENGTHS[strength], seconds=None, iterations=50)
    state = opening(game, 0, plies=1)  # Gomoku's first stone goes to the centre
    moves = [choose(game, state, 2, knobs, seed=seed) for seed in range(10)]
    assert len(set(moves)) >= 3
    assert moves == [choose(game, state, 2, knobs, seed=seed) for seed in range(10)]


@pytest.mark.parametrize("slug", ["squava", "gomoku"])
def test_games_from_one_opening_differ_by_the_seeds(slug: str) -> None:
    game = get_game(slug)
    knobs = replace(STRENGTHS["normal"], seconds=None, iterations=50)
    start = game.new({})
    games: set[tuple[Any, ...]] = set()
    for seed in range(10):  # five different games among the ten seeds: no need to play the rest
        games.add(tuple(play(game, start, {1: knobs, 2: knobs}, seed, limit=12).actions))
        if len(games) >= 5:
            break
    assert len(games) >= 5
