"""Grid Master rules speed: apply(), legal-action enumeration, random playouts.

    .venv/bin/python bench/rules_grid_master.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.grid_master.rules import GridMaster, GridState, Turn

GAME = GridMaster()


def _samples(count: int, seed: int = 1) -> list[tuple[GridState, Turn]]:
    """(state, legal action) pairs sampled from random playouts, all phases of the game."""
    rng = random.Random(seed)
    out: list[tuple[GridState, Turn]] = []
    while len(out) < count:
        state = GAME.new()
        while GAME.result(state) is None:
            action = GAME.random_action(state, state.to_move, rng)
            assert action is not None
            out.append((state, action))
            state = GAME.apply(state, state.to_move, action)
    return out[:count]


def _median_us(func: Callable[..., object], items: Sequence[tuple[Any, ...]], repeat: int) -> float:
    """Median over `repeat` rounds of the mean time of one call, in µs."""
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        for item in items:
            func(*item)
        timings.append((time.perf_counter() - started) / len(items))
    return statistics.median(timings) * 1e6


def bench() -> list[tuple[str, float, str]]:
    pairs = _samples(2000)
    apply_args = [(state, state.to_move, action) for state, action in pairs]
    apply_us = _median_us(GAME.apply, apply_args, 7)

    # per-call median over individual applies (the target is a median of single calls)
    single = []
    for args in apply_args[:1000]:
        started = time.perf_counter()
        GAME.apply(*args)
        single.append(time.perf_counter() - started)
    single_median = statistics.median(single) * 1e6

    def enumerate_all(state: GridState, seat: int) -> int:
        return sum(1 for _ in GAME.legal_actions(state, seat))

    states = [(state, state.to_move) for state, _ in pairs]
    enum_us = _median_us(enumerate_all, states, 5)
    midgame = [(s, seat) for s, seat in states if sum(s.turns) in (4, 5)]
    mid_us = _median_us(enumerate_all, midgame, 5)

    parse_args = [(state, state.to_move, GAME.format(action)) for state, action in pairs]
    parse_us = _median_us(GAME.parse, parse_args, 5)

    rng = random.Random(7)
    playouts = 300
    turns = 0
    started = time.perf_counter()
    for _ in range(playouts):
        state = GAME.new()
        while GAME.result(state) is None:
            action = GAME.random_action(state, state.to_move, rng)
            assert action is not None
            state = GAME.apply(state, state.to_move, action)
            turns += 1
    playout_ms = (time.perf_counter() - started) / playouts * 1e3

    return [
        ("apply() median (single calls)", single_median, "µs"),
        ("apply() mean over sampled turns", apply_us, "µs"),
        ("apply() per second", 1e6 / apply_us, "/s"),
        ("legal_actions() full enumeration, mean", enum_us, "µs"),
        ("legal_actions() enumerations per second", 1e6 / enum_us, "/s"),
        ("legal_actions() midgame (moves 5-6), mean", mid_us, "µs"),
        ("parse() of canonical text, mean", parse_us, "µs"),
        ("random playout (random_action + apply)", playout_ms, "ms"),
        ("random playout length, mean", turns / playouts, "turns"),
    ]


if __name__ == "__main__":
    for figure, value, unit in bench():
        print(f"  {figure:<48} {value:>12,.1f} {unit}")
