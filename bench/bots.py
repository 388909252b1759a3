"""Bots against a uniformly random player: win rate and think time per game and strength.

    .venv/bin/python bench/bots.py [--games N] [--slugs a,b] [--strengths easy,normal]
    .venv/bin/python bench/bots.py --versus strong:normal,normal:easy [--games N] [--slugs a,b]

Seats alternate (the bot takes seat 1, 2, ... in turn; every other seat plays
uniformly random legal actions).  Back to the Wall counts a win for a sole
first place.  Prints one row per game and strength: wins, median and max
think time per move.  Bounded: N games each (default 20; the issue asks 100).
`--versus` prints the first strength's sole wins and its average place (1 first, 2 last
of two; Back to the Wall 1-4, the issue's measure there).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import choose
from games.registry import get_game, slugs


def match(slug: str, strength: str, n: int) -> tuple[bool, list[float]]:
    game = get_game(slug)
    rng = random.Random(n)
    bot = 1 + n % game.seats
    state = game.new({})
    times: list[float] = []
    while game.result(state) is None:
        seat = sorted(game.pending(state) or game.to_act(state))[0]
        if seat == bot:
            started = time.perf_counter()
            action = choose(game, state, seat, strength, seed=n)
            times.append(time.perf_counter() - started)
        else:
            action = game.random_action(state, seat, rng)
        state = game.apply(state, seat, action)
    result = game.result(state)
    assert result is not None
    return result.winners == {bot}, times


def duel(slug: str, first: str, second: str, n: int) -> tuple[bool, float]:
    """`first` against `second` (every other seat), seats alternated: (True when `first` wins
    alone, `first`'s place: 1 + the seats with more points, ties shared half)."""
    game = get_game(slug)
    mine = 1 + n % game.seats
    state = game.new({})
    while game.result(state) is None:
        seat = sorted(game.pending(state) or game.to_act(state))[0]
        action = choose(game, state, seat, first if seat == mine else second, seed=n * 7 + seat)
        state = game.apply(state, seat, action)
    result = game.result(state)
    assert result is not None
    return result.winners == {mine}, place(result, mine)


def place(result: Any, seat: int) -> float:
    """1 for first; + 1 per seat with more points, + 0.5 per seat with as many (by winners when no scores)."""
    scores = result.scores
    if not scores:
        return 1.0 if result.winners == {seat} else 2.0 if result.winners else 1.5
    mine = scores[seat]
    return 1.0 + sum(1.0 if v > mine else 0.5 if v == mine else 0.0 for s, v in scores.items() if s != seat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    # the host's game has no winner a bot could play for: the host decides it
    parser.add_argument("--slugs", default=",".join(s for s in slugs() if not get_game(s).host_moves))
    parser.add_argument("--strengths", default="easy,normal,strong")
    parser.add_argument("--versus", default="", help="pairs a:b, e.g. strong:normal (a's sole wins over N games)")
    args = parser.parse_args()
    if args.versus:
        print(f"{'game':18} {'pair':16} {'wins':>9} {'avg place':>9}")
        for slug in args.slugs.split(","):
            for pair in args.versus.split(","):
                first, second = pair.split(":")
                runs = [duel(slug, first, second, n) for n in range(args.games)]
                won = sum(w for w, _ in runs)
                avg = statistics.mean(p for _, p in runs)
                print(f"{slug:18} {pair:16} {won:>4}/{args.games:<4} {avg:9.2f}", flush=True)
        return
    print(f"{'game':18} {'strength':8} {'wins':>9} {'median s':>9} {'max s':>7}")
    for slug in args.slugs.split(","):
        for strength in args.strengths.split(","):
            wins, times = 0, []
            for n in range(args.games):
                won, took = match(slug, strength, n)
                wins += won
                times += took
            median = statistics.median(times) if times else 0.0
            print(f"{slug:18} {strength:8} {wins:>4}/{args.games:<4} {median:9.3f} {max(times, default=0.0):7.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
