"""Lance Assembly speed figures (part of the shared rules benchmark).

Run alone: `python bench/rules_lance_assembly.py`.  Positions are sampled
from seeded random playouts; "midgame" means 10-24 tiles on the board.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.lance_assembly.notation import Turn
from games.lance_assembly.rules import LanceAssembly, LanceState

T = TypeVar("T")


def _samples(game: LanceAssembly, playouts: int = 40) -> list[tuple[LanceState, Turn]]:
    """(state, the random turn played there) from seeded playouts."""
    out: list[tuple[LanceState, Turn]] = []
    for seed in range(playouts):
        rng = random.Random(seed)
        state = game.new()
        while game.result(state) is None:
            action = game.random_action(state, state.to_move, rng)
            assert action is not None
            out.append((state, action))
            state = game.apply(state, state.to_move, action)
    return out


def _median_us(fn: Callable[[T], object], items: list[T], repeat: int) -> float:
    times = []
    for item in items:
        start = time.perf_counter()
        for _ in range(repeat):
            fn(item)
        times.append((time.perf_counter() - start) / repeat)
    return statistics.median(times) * 1e6


def bench() -> list[tuple[str, float, str]]:
    game = LanceAssembly()
    samples = _samples(game)
    rows: list[tuple[str, float, str]] = []

    picked = samples[:: max(1, len(samples) // 400)]
    apply_us = _median_us(lambda sa: game.apply(sa[0], sa[0].to_move, sa[1]), picked, 20)
    rows.append(("lance-assembly apply() median", apply_us, "µs"))
    rows.append(("lance-assembly apply() per second", 1e6 / apply_us, "/s"))

    mid = [s for s, _ in samples if 10 <= 36 - s.empty_count <= 24][::5][:200]
    slides_us = _median_us(game.legal_slides, mid, 50)
    rows.append(("lance-assembly all legal slides, midgame, median", slides_us, "µs"))
    rows.append(("lance-assembly legal slides per midgame position (mean)",
                 statistics.mean(len(game.legal_slides(s)) for s in mid), "slides"))

    # full enumeration of every legal turn (all place/slide/neutral orders)
    few = mid[:20]
    count = 0
    start = time.perf_counter()
    for state in few:
        for _ in game.legal_actions(state, state.to_move):
            count += 1
    elapsed = time.perf_counter() - start
    rows.append(("lance-assembly legal turns enumerated per second", count / elapsed, "/s"))
    rows.append(("lance-assembly legal turns per midgame position (mean)", count / len(few), "turns"))

    random_us = _median_us(lambda s: game.random_action(s, s.to_move, random.Random(1)), mid, 20)
    rows.append(("lance-assembly random_action() median", random_us, "µs"))

    lengths = []
    start = time.perf_counter()
    for seed in range(100, 150):
        rng = random.Random(seed)
        state = game.new()
        turns = 0
        while game.result(state) is None:
            action = game.random_action(state, state.to_move, rng)
            assert action is not None
            state = game.apply(state, state.to_move, action)
            turns += 1
        lengths.append(turns)
    playout_ms = (time.perf_counter() - start) / 50 * 1e3
    rows.append(("lance-assembly random playout (mean)", playout_ms, "ms"))
    rows.append(("lance-assembly random playout length (mean)", statistics.mean(lengths), "turns"))
    rows.append(("lance-assembly random playout length (max of 50)", float(max(lengths)), "turns"))
    return rows


if __name__ == "__main__":
    for name, value, unit in bench():
        print(f"{name:60s} {value:12.1f} {unit}")
