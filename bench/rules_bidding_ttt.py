"""Speed of Bidding 3D Tic-Tac-Toe's rules (run alone or through bench/rules.py).

    .venv/bin/python bench/rules_bidding_ttt.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bidding_ttt.rules import BiddingState, BiddingTTT, Resolve, Submit
from games.core import HOST

game = BiddingTTT()


def _median_us(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def _samples(count: int, seed: int = 1) -> list[tuple[BiddingState, int, Submit, Submit]]:
    """(state at the start of a round, seat, its submission, the other seat's) from random playouts."""
    rng = random.Random(seed)
    out: list[tuple[BiddingState, int, Submit, Submit]] = []
    while len(out) < count:
        state = game.new()
        while game.result(state) is None:
            first, second = rng.sample((1, 2), 2)
            a = game.random_action(state, first, rng)
            b = game.random_action(state, second, rng)
            assert isinstance(a, Submit) and isinstance(b, Submit)
            out.append((state, first, a, b))
            state = game.apply(game.apply(state, first, a), second, b)
    return out[:count]


def _playout(rng: random.Random) -> None:
    state = game.new()
    while game.result(state) is None:
        seat = rng.choice(sorted(game.pending(state)))
        action = game.random_action(state, seat, rng)
        assert action is not None
        state = game.apply(state, seat, action)


def bench() -> list[tuple[str, float, str]]:
    samples = _samples(600)
    submit_times, resolve_times, host_times = [], [], []
    for state, first, a, b in samples:
        started = time.perf_counter()
        half = game.apply(state, first, a)  # records a sealed submission
        submit_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        game.apply(half, 3 - first, b)  # the second submission resolves the round
        resolve_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        game.apply(half, HOST, Resolve())
        host_times.append(time.perf_counter() - started)
    sizes = [len(a.bids) for _, _, a, _ in samples]

    rng = random.Random(2)
    start_state = game.new()
    random_us = _median_us(lambda: game.random_action(start_state, 1, rng), 2000)
    playout_us = _median_us(lambda: _playout(rng), 300)
    enum_started = time.perf_counter()
    listed = sum(1 for _ in islice(game.legal_actions(start_state, 1), 20000))
    enum_per_s = listed / (time.perf_counter() - enum_started)
    parse_us = _median_us(lambda: game.parse(start_state, 1, "I bid 3 chips on A1, and E5 - 2 chips"), 2000)
    return [
        ("apply() submission median", statistics.median(submit_times) * 1e6, "µs"),
        ("apply() submission + round resolution median", statistics.median(resolve_times) * 1e6, "µs"),
        ("host resolve median", statistics.median(host_times) * 1e6, "µs"),
        ("tiles per sampled submission (mean)", statistics.mean(sizes), "tiles"),
        ("random_action() median", random_us, "µs"),
        ("random playout (3 rounds) median", playout_us, "µs"),
        ("legal_actions() enumeration", enum_per_s, "actions/s"),
        ("parse() natural phrasing median", parse_us, "µs"),
    ]


if __name__ == "__main__":
    for figure, value, unit in bench():
        print(f"{figure:<48} {value:>12,.1f} {unit}")
