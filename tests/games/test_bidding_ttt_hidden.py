"""Bidding 3D Tic-Tac-Toe: sealed bids and chips seen only by their seat and the host (during a round,
after it, at the end), the listed and random actions, dump/load.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from itertools import islice

import pytest

from games.bidding_ttt.rules import (
    BiddingAction,
    Resolve,
    Submit,
)
from games.core import HOST, SPECTATOR, IllegalAction
from tests.games.test_bidding_ttt import game, play_round


def submissions(actions: Iterable[BiddingAction]) -> list[Submit]:
    """`actions` as a seat's bids (what a seat may do is never the host's Resolve)."""
    out = []
    for action in actions:
        assert isinstance(action, Submit)
        out.append(action)
    return out


def _others(seat: int) -> list[int]:
    return [s for s in (1, 2) if s != seat] + [SPECTATOR]


# -- hidden information ----------------------------------------------------------


def test_a_seat_sees_its_own_bids_and_chips() -> None:
    state = game.play(game.new(), 1, "A1 3; E5 2")
    private = game.view(state, 1)["private"]
    assert private["chips"] == 80
    assert private["submitted"] is True
    assert private["bids"] == [{"tile": "A1", "chips": 3}, {"tile": "E5", "chips": 2}]
    assert private["committed"] == 5


def test_the_opponent_and_spectators_never_see_bids_or_chips() -> None:
    a = game.play(game.new(), 1, "A1 3; E5 2")
    b = game.play(game.new(), 1, "pass")
    for viewer in _others(1):
        assert game.view(a, viewer) == game.view(b, viewer)
        assert "A1" not in json.dumps(game.view(a, viewer))
    assert game.view(a, SPECTATOR)["public"]["submitted"] == {"1": True, "2": False}
    assert game.view(a, 2)["private"]["bids"] is None


def test_remaining_chips_stay_hidden_after_resolution() -> None:
    # same ownership, different spending: the other side sees no difference
    a = play_round(game.new(), "A1 40", "B1 1")
    b = play_round(game.new(), "A1 1", "B1 1")
    assert a.chips != b.chips
    for viewer in _others(1):
        assert game.view(a, viewer) == game.view(b, viewer)
    assert game.view(a, 1)["private"]["chips"] == 40
    assert game.view(a, 1)["private"]["history"] == [
        {"round": 1, "bids": [{"tile": "A1", "chips": 40}], "spent": 40}
    ]


def test_ties_are_not_revealed() -> None:
    a = play_round(game.new(), "E5 4", "E5 4")
    b = play_round(game.new(), "pass", "pass")
    assert game.view(a, SPECTATOR) == game.view(b, SPECTATOR)


def test_bids_and_chips_stay_hidden_once_the_bout_is_over() -> None:
    # the same line won on 1 chip a tile or on 9: only Red and the host can tell the two apart
    cheap = play_round(game.position(red="A1 A2 G1 G2", round=2), "A3 1; G3 1", "pass")
    dear = play_round(game.position(red="A1 A2 G1 G2", round=2), "A3 9; G3 9", "pass")
    assert game.result(cheap) == game.result(dear) and game.result(cheap) is not None
    for viewer in _others(1):
        assert game.view(cheap, viewer) == game.view(dear, viewer)
    assert game.view(cheap, HOST) != game.view(dear, HOST)
    assert game.view(cheap, 1) != game.view(dear, 1)


def test_the_host_sees_everything() -> None:
    state = game.play(game.new(), 2, "C1 6")
    host = game.view(state, HOST)
    assert host["hidden"]["2"]["bids"] == [{"tile": "C1", "chips": 6}]
    assert host["hidden"]["1"]["chips"] == 80
    assert host["hidden"]["2"]["chips"] == 80
    assert "private" not in host


# -- legal actions, random actions, persistence ---------------------------------------


def test_legal_actions_start_with_pass_then_single_bids() -> None:
    first = list(islice(game.legal_actions(game.new(), 1), 3))
    assert first == [Submit(()), Submit(((0, 1),)), Submit(((0, 2),))]


def test_the_hosts_only_legal_action_is_resolve() -> None:
    state = game.new()
    assert list(game.legal_actions(state, HOST)) == [Resolve()]
    assert game.random_action(state, HOST, random.Random(0)) == Resolve()
    assert list(game.legal_actions(state, SPECTATOR)) == []


def test_an_action_naming_a_tile_off_the_boards_cannot_be_built() -> None:
    with pytest.raises(IllegalAction, match="there is no tile number 81"):
        Submit(((81, 1),))


def test_legal_actions_are_exact_on_a_tiny_position() -> None:
    # every board controlled except I, where only I8 and I9 are free
    red = "A1 A2 A3 B1 B2 B3 C1 C2 C3 E1 E2 E3 G1 G2 G3 H1 H2 H3 I1 I3 I6 I7"
    state = game.position(red=red, blue="I2 I4 I5", round=3, chips=(2, 2))
    listed = {game.format(a) for a in game.legal_actions(state, 1)}
    assert listed == {"pass", "I8 1", "I8 2", "I9 1", "I9 2", "I8 1; I9 1"}


def test_legal_actions_end_when_no_chips_are_left() -> None:
    state = game.position(chips=(0, 80))
    assert list(game.legal_actions(state, 1)) == [Submit(())]


def test_listed_actions_are_legal_in_every_round() -> None:
    rng = random.Random(7)
    for rnd in (1, 2, 3):
        state = game.position(red="A1 A5", blue="B2", round=rnd, chips=(6, 6))
        sample = submissions(islice(game.legal_actions(state, 1), 30000))
        for action in rng.sample(sample, 200):
            game.apply(state, 1, action)
        if rnd == 2:
            assert any(len({t // 9 for t, _ in a.bids}) == 2 for a in sample)


def test_round_1_legal_actions_never_hold_a_line() -> None:
    state = game.position(chips=(4, 4))
    sample = submissions(islice(game.legal_actions(state, 1), 20000))
    assert any(len(a.bids) == 3 for a in sample)
    for action in sample:
        game.apply(state, 1, action)


def test_random_actions_are_legal_and_varied() -> None:
    rng = random.Random(3)
    seen_pass = seen_multi = False
    for rnd in (1, 2, 3):
        state = game.position(red="E1 E2", blue="H9", round=rnd, chips=(25, 80))
        for _ in range(200):
            action = game.random_action(state, 1, rng)
            assert isinstance(action, Submit)
            game.apply(state, 1, action)
            seen_pass |= not action.bids
            seen_multi |= len(action.bids) > 1
    assert seen_pass and seen_multi


def test_dump_and_load_round_trip_mid_round_and_at_the_end() -> None:
    state = game.new({"garnets": {1: 2}})
    state = play_round(state, "A1 5; B2 3", "A1 5; C3 9")
    state = game.play(state, 2, "C1 4")
    assert game.load(json.loads(json.dumps(game.dump(state)))) == state
    state = game.play(state, 1, "pass")  # completes round 2
    state = play_round(state, "pass", "pass")
    assert game.result(state) is not None
    assert game.load(json.loads(json.dumps(game.dump(state)))) == state


def test_random_playouts_keep_sealed_bids_private() -> None:
    """Like the conformance test, with the resolution detected by the round number."""
    for seed in range(15):
        rng = random.Random(seed)
        state = game.new()
        while game.result(state) is None:
            seat = rng.choice(sorted(game.pending(state)))
            first = game.random_action(state, seat, rng)
            second = game.random_action(state, seat, rng)
            assert first is not None and second is not None
            after_a, after_b = game.apply(state, seat, first), game.apply(state, seat, second)
            if game.pending(state) != {seat} and first != second:  # the round stays open
                for viewer in _others(seat):
                    assert game.view(after_a, viewer) == game.view(after_b, viewer)
            if rng.random() < 0.1:
                state = game.apply(state, HOST, Resolve())
            else:
                assert game.parse(state, seat, game.format(first)) == first
                state = after_a
            assert game.load(json.loads(json.dumps(game.dump(state)))) == state
