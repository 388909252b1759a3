"""Two Connect rules speed (and its three boards alone): apply(), legal-action
enumeration, Yinsh ring-move generation, random playouts.

    .venv/bin/python bench/rules_two_connect.py

Targets (issue 2): one apply() of a turn under 100 µs median; all ring moves
of a Yinsh midgame position under 1 ms.
"""

from __future__ import annotations

import itertools
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.registry import get_game
from games.two_connect.yinsh import YinshRules

SLUGS = ("squava", "gomoku", "yinsh", "two-connect")


def _samples(game: Any, count: int, seed: int = 1) -> list[tuple[Any, int, Any]]:
    """(state, seat, legal action) triples from random playouts, every phase of the game."""
    rng = random.Random(seed)
    out: list[tuple[Any, int, Any]] = []
    while len(out) < count:
        state = game.new()
        while game.result(state) is None:
            seat = next(iter(game.to_act(state)))
            action = game.random_action(state, seat, rng)
            out.append((state, seat, action))
            state = game.apply(state, seat, action)
    rng.shuffle(out)
    return out[:count]


def _median_call_us(func: Any, items: list[tuple[Any, ...]]) -> float:
    timings = []
    for args in items:
        started = time.perf_counter()
        func(*args)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1e6


def _game_rows(slug: str) -> list[tuple[str, float, str]]:
    game = get_game(slug)
    samples = _samples(game, 1500)
    rows = [(f"{slug}: apply() median", _median_call_us(game.apply, samples), "µs")]

    # legal-action enumeration (Two Connect: the lazy pairs, capped at 2,000 per position)
    cap = 2000
    started = time.perf_counter()
    listed = 0
    for state, seat, _action in samples[:200]:
        listed += sum(1 for _ in itertools.islice(game.legal_actions(state, seat), cap))
    elapsed = time.perf_counter() - started
    rows.append((f"{slug}: legal actions listed per second", listed / elapsed, "/s"))
    rows.append((f"{slug}: positions enumerated per second (max {cap:,} each)", 200 / elapsed, "/s"))

    rng = random.Random(5)
    rows.append((
        f"{slug}: random_action() median",
        _median_call_us(lambda s, seat: game.random_action(s, seat, rng), [(s, seat) for s, seat, _ in samples[:500]]),
        "µs",
    ))

    times = []
    for seed in range(20 if slug != "gomoku" else 10):
        rng = random.Random(seed)
        state = game.new()
        started = time.perf_counter()
        while game.result(state) is None:
            seat = next(iter(game.to_act(state)))
            state = game.apply(state, seat, game.random_action(state, seat, rng))
        times.append(time.perf_counter() - started)
    rows.append((f"{slug}: random playout median", statistics.median(times) * 1e3, "ms"))
    return rows


def _yinsh_midgame_rows() -> list[tuple[str, float, str]]:
    rules = YinshRules()
    game = get_game("yinsh")
    midgame = [
        (s.board, seat)
        for s, seat, _ in _samples(game, 3000, seed=2)
        if s.board.rings == (5, 5) and s.board.markers_left <= 41
    ][:500]
    us = _median_call_us(lambda board, seat: list(rules.legal_moves(board, seat)), midgame)
    sizes = [len(list(rules.legal_moves(b, seat))) for b, seat in midgame]
    return [
        ("yinsh: all ring moves of a midgame position, median", us, "µs"),
        ("yinsh: ring moves per midgame position, mean", statistics.mean(sizes), "moves"),
    ]


def bench() -> list[tuple[str, float, str]]:
    rows: list[tuple[str, float, str]] = []
    for slug in SLUGS:
        rows.extend(_game_rows(slug))
    rows.extend(_yinsh_midgame_rows())
    return rows


if __name__ == "__main__":
    for figure, value, unit in bench():
        print(f"{figure:<56} {value:>12,.1f} {unit}")
