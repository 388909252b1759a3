"""One conformance test over every registered game (OpenSpiel's random_sim_test).

Random playouts through the whole interface: every listed action is
accepted, `apply` never mutates its input, format/parse and dump/load round
trips hold, games end, views are JSON-safe and no seat or spectator view
carries another seat's hidden data.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Mapping
from typing import Any

import pytest

from games.core import HOST, SPECTATOR, Game, IllegalAction, Result
from games.registry import get_game, registered, slugs

PLAYOUTS = int(os.environ.get("CONFORMANCE_PLAYOUTS", "4"))
MAX_STEPS = 4000


def _roundtrip(game: Game[Any, Any], state: Any) -> Any:
    data = game.dump(state)
    text = json.dumps(data, sort_keys=True)
    again = game.load(json.loads(text))
    assert json.dumps(game.dump(again), sort_keys=True) == text
    return again


def _check_views(game: Game[Any, Any], state: Any) -> dict[int, dict[str, Any]]:
    seats = game.seats_of(state)
    views = {v: game.view(state, v) for v in [*range(1, seats + 1), SPECTATOR, HOST]}
    public = json.dumps(views[SPECTATOR]["public"], sort_keys=True)
    for viewer, view in views.items():
        json.dumps(view)  # JSON-safe
        # the public part is the same for every audience: nothing seat-specific leaks into it
        assert json.dumps(view["public"], sort_keys=True) == public, viewer
        if viewer == HOST:
            assert "private" not in view
            assert set(view["hidden"]) == {str(s) for s in range(1, seats + 1)}
        elif viewer == SPECTATOR:
            assert "private" not in view and "hidden" not in view
        else:
            assert "hidden" not in view
            assert view["private"] == game.hidden(state, viewer)
    return views


def _check_sealed_privacy(game: Game[Any, Any], state: Any, seat: int, rng: random.Random) -> None:
    """Two different sealed submissions by one seat look the same to everyone else."""
    first = game.random_action(state, seat, rng)
    second = game.random_action(state, seat, rng)
    if first is None or second is None or first == second:
        return
    if game.pending(state) <= {seat}:
        return  # this submission completes the round, which resolves: its outcome is public by design
    after_a = game.apply(state, seat, first)
    after_b = game.apply(state, seat, second)
    for viewer in [*range(1, game.seats_of(state) + 1), SPECTATOR]:
        if viewer == seat:
            continue
        assert game.view(after_a, viewer) == game.view(after_b, viewer), (
            f"seat {viewer if viewer != SPECTATOR else 'spectator'} can tell two sealed submissions apart"
        )


def _check_listed_actions(game: Game[Any, Any], state: Any, seat: int, rng: random.Random) -> list[Any]:
    sample: list[Any] = []
    for count, action in enumerate(game.legal_actions(state, seat), start=1):
        if len(sample) < 8:
            sample.append(action)
        elif rng.randrange(count) < 8:
            sample[rng.randrange(8)] = action
        if count > 20000:
            break
    for action in sample:
        game.apply(state, seat, action)  # raises if a listed action is refused
    return sample


def _playout(game: Game[Any, Any], seed: int, options: Mapping[str, Any] | None = None) -> Result:
    rng = random.Random(seed)
    state = game.new(options or {})
    seats = game.seats_of(state)
    assert 2 <= seats <= game.seats
    _roundtrip(game, state)
    for _step in range(MAX_STEPS):
        result = game.result(state)
        _check_views(game, state)
        if result is not None:
            assert isinstance(result, Result)
            assert not game.to_act(state)
            assert result.winners <= set(range(1, seats + 1))
            # the end banner says why in the game's own words (Game.reason_words), never the bare code
            assert result.reason in game.reason_words, f"{game.slug}: no words for the reason {result.reason!r}"
            return result
        acting = sorted(game.pending(state)) or sorted(game.to_act(state))
        if game.host_moves and (not acting or rng.random() < 0.2):
            # the host's game: the host opens rounds, reveals, scores and ends the bout
            action = game.random_action(state, HOST, rng)
            assert action is not None, "the host has no action"
            assert game.parse(state, HOST, game.format(action)) == action, game.format(action)
            state = _roundtrip(game, game.apply(state, HOST, action))
            continue
        assert acting, "no result, yet nobody may act"
        for idle in set(range(1, seats + 1)) - game.to_act(state):
            some = next(iter(game.legal_actions(state, acting[0])), None)
            if some is not None:
                with pytest.raises(IllegalAction):
                    game.apply(state, idle, some)
        seat = rng.choice(acting)
        if rng.random() < 0.15:
            _check_listed_actions(game, state, seat, rng)
        if game.sealed and rng.random() < 0.3:
            _check_sealed_privacy(game, state, seat, rng)
        if game.sealed and rng.random() < 0.05:
            seat = HOST
            action = game.parse(state, HOST, "resolve")
        else:
            action = game.random_action(state, seat, rng)
            assert action is not None, f"seat {seat} must act but has no legal action"
        text = game.format(action)
        assert game.parse(state, seat, text) == action, text
        before = copy.deepcopy(game.dump(state))
        new_state = game.apply(state, seat, action)
        assert game.dump(state) == before, "apply mutated its input"
        state = _roundtrip(game, new_state)
    pytest.fail(f"{game.slug}: no result after {MAX_STEPS} actions (seed {seed})")


@pytest.mark.parametrize("slug", slugs())
def test_random_playouts_conform(slug: str) -> None:
    game = get_game(slug)
    assert game.slug == slug
    # the host's game seats 2 to 16 (its "seats" option); every other game 2 or 4
    assert game.seats in (2, 4) or (game.host_moves and game.seats == 16)
    for seed in range(PLAYOUTS):
        _playout(game, seed)


@pytest.mark.parametrize("slug", slugs())
def test_every_game_says_how_its_first_mover_is_given(slug: str) -> None:
    """The host's starting seat and the match's alternating starter reach a game through its option
    `starting_seat` when it says it takes one (matches/play/engine.py), and the option makes that
    seat the first to act; a game that takes none says so and has no such option."""
    game = get_game(slug)
    assert game.takes_starting_seat is not None, f"{slug}: set Game.takes_starting_seat to True or False"
    if not game.takes_starting_seat:
        assert "starting_seat" not in game.default_options
        with pytest.raises(IllegalAction):
            game.new({"starting_seat": 1})
        return
    assert "starting_seat" in game.default_options
    count = game.seat_count()
    for seat in range(1, count + 1):
        state = game.new({"starting_seat": seat})
        assert game.to_act(state) == {seat} or (game.sealed and seat in game.to_act(state)), seat
    with pytest.raises(IllegalAction):
        game.new({"starting_seat": count + 1})


def test_the_check_fails_a_game_that_does_not_say() -> None:
    """Even one with a `starting_seat` option: it is not guessed from the options."""
    from tests.games.toy.rules import TicTacToe

    unsaid = type("Unsaid", (TicTacToe,), {"slug": "unsaid-toe", "takes_starting_seat": None})()
    with registered(unsaid, app="toy_ttt"), pytest.raises(AssertionError, match=r"set Game\.takes_starting_seat"):
        test_every_game_says_how_its_first_mover_is_given("unsaid-toe")


@pytest.mark.parametrize("seats", [2, 6, 16])
def test_the_hosts_game_conforms_with_any_seat_count(seats: int) -> None:
    game = get_game("custom")
    assert game.seat_count({"seats": seats}) == seats
    for seed in range(PLAYOUTS):
        _playout(game, seed, {"seats": seats})


def test_unknown_slug_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        get_game("chess")
