"""Back to the Wall: speed of submissions, round resolution and random playouts.

    .venv/bin/python bench/rules_back_to_the_wall.py

Target (bench/README.md): a round resolution under 5 ms.  Positions are
sampled from random playouts: round 3, three pieces per seat on every board.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.back_to_the_wall.rules import BackToTheWall, BackToTheWallState

game = BackToTheWall()


def _round_three(rng: random.Random) -> BackToTheWallState:
    state = game.new()
    while state.round < 3:
        for seat in (1, 2, 3, 4):
            action = game.random_action(state, seat, rng)
            assert action is not None
            state = game.apply(state, seat, action)
    return state


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def bench() -> list[tuple[str, float, str]]:
    rng = random.Random(2026)
    resolve_times: list[float] = []
    submit_times: list[float] = []
    parse_times: list[float] = []
    for _ in range(60):
        state = _round_three(rng)
        for seat in (1, 2, 3):
            action = game.random_action(state, seat, rng)
            assert action is not None
            started = time.perf_counter()
            after = game.apply(state, seat, action)
            submit_times.append(time.perf_counter() - started)
            text = game.format(action)
            started = time.perf_counter()
            game.parse(state, seat, text)
            parse_times.append(time.perf_counter() - started)
            state = after
        last = game.random_action(state, 4, rng)
        assert last is not None
        for _rep in range(5):
            started = time.perf_counter()
            game.apply(state, 4, last)  # the fourth submission resolves the round
            resolve_times.append(time.perf_counter() - started)

    playouts: list[float] = []
    for seed in range(30):
        prng = random.Random(seed)
        started = time.perf_counter()
        state = game.new()
        while game.result(state) is None:
            for seat in sorted(game.pending(state)):
                action = game.random_action(state, seat, prng)
                assert action is not None
                state = game.apply(state, seat, action)
        playouts.append(time.perf_counter() - started)

    state = _round_three(random.Random(5))
    started = time.perf_counter()
    count = 0
    for _action in game.legal_actions(state, 1):
        count += 1
        if count == 10000:
            break
    listing = (time.perf_counter() - started) / count

    return [
        ("round 3 resolution (4th submission) median", _median_us(resolve_times) / 1000, "ms"),
        ("round 3 resolution 95th percentile", statistics.quantiles(resolve_times, n=20)[-1] * 1000, "ms"),
        ("apply() of a sealed submission median", _median_us(submit_times), "µs"),
        ("parse() of a full round-3 submission median", _median_us(parse_times), "µs"),
        ("legal_actions() listing", 1 / listing, "actions/s"),
        ("random playout (3 rounds) median", statistics.median(playouts) * 1000, "ms"),
    ]


if __name__ == "__main__":
    for figure, value, unit in bench():
        print(f"  {figure:<48} {value:>12,.2f} {unit}")
