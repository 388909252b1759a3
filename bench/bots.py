"""Computer players measured fairly: duels from varied openings with the seats swapped.

    .venv/bin/python bench/bots.py --pairs strong:normal,normal:easy [--openings 15] [--slugs a,b]
    .venv/bin/python bench/bots.py --random easy,normal,strong [--openings 15] [--slugs a,b]
    .venv/bin/python bench/bots.py --variety easy,normal,strong [--seeds 10] [--slugs a,b]
    .venv/bin/python bench/bots.py --all [--json /tmp/bots.jsonl]     # the issue's figures
    .venv/bin/python bench/bots.py --pairs strong:normal --openings 8 &                     # one core,
    .venv/bin/python bench/bots.py --pairs strong:normal --openings 7 --first-opening 8     # the other

Each opening (`--plies` random plies from its seed; the sealed games open at the start and differ
by the bots' seeds) is played once per seating: two seats swapped, Back to the Wall's four rotated
(the first player in one seat, the second in the other three), so `--openings 15` is 30 games a
pair (Back to the Wall: 8 openings, 32 games).  A pair's row: the first player's wins, draws and
losses (Back to the Wall: sole first places), its score (a draw half; with four seats the share of
the other seats it placed above), the 95 % Wilson interval of that score, the share of decisive
games won by seat 1 (near 100 % or 0 %: the seat decides, not the player; with seats swapped
that also shows a replayed game), and each side's think times (median, max, moves over 5 s).

`--random`: the strength against a uniformly random player, the same schedule.
`--variety`: the strength against itself from the empty board, once per seed (`--seeds`), and
how many different games that gave (compared over their first `--variety-plies` plies: games
that differ there differ).  Every figure is printed as its row ends; `--json FILE` appends each
row as a JSON line.  Nothing here asserts a figure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots.duel import opening, play, players_for, schedule, score
from games.registry import get_game, slugs

#: openings a pair plays by default (each once per seating)
OPENINGS = {"back-to-the-wall": 8}
DEFAULT_OPENINGS = 15


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % interval of a share measured over n games."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def times_of(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values) if values else 0.0, "max": max(values, default=0.0),
            "over5": sum(1 for v in values if v > 5.0), "moves": len(values)}


def duel_row(slug: str, tested: str | None, other: str | None, openings: int, plies: int,
             first: int = 0) -> dict[str, Any]:
    """`tested` against `other` over every opening (seeds `first` on) and seating."""
    game = get_game(slug)
    wins = draws = losses = 0
    total = 0.0
    seat_one = decisive = 0
    mine: list[float] = []
    theirs: list[float] = []
    for bout in schedule(game, openings, first):
        start = opening(game, bout.opening_seed, plies)
        played = play(game, start, players_for(game, bout, tested, other), bout.game_seed)
        result = played.result
        assert result is not None
        value = score(result, bout.seat, game.seats)
        total += value
        if result.winners == {bout.seat}:
            wins += 1
        elif not result.winners or value == 0.5:
            draws += 1
        else:
            losses += 1
        if len(result.winners) == 1:
            decisive += 1
            seat_one += result.winners == {1}
        for seat, took in played.times.items():
            (mine if seat == bout.seat else theirs).extend(took)
    n = openings * game.seats
    share = total / n
    low, high = wilson(share, n)
    return {"slug": slug, "tested": tested or "random", "other": other or "random", "games": n, "first": first,
            "wins": wins, "draws": draws, "losses": losses, "score": share, "low": low, "high": high,
            "seat_one": seat_one, "decisive": decisive, "tested_times": times_of(mine),
            "other_times": times_of(theirs)}


def variety_row(slug: str, strength: str, seeds: int, limit: int) -> dict[str, Any]:
    """`strength` against itself from the start, once per seed: how many different games."""
    game = get_game(slug)
    seen: set[tuple[str, ...]] = set()
    for seed in range(seeds):
        played = play(game, game.new({}), dict.fromkeys(range(1, game.seats + 1), strength), 1000 + seed,
                      limit=limit)
        seen.add(tuple(played.actions))
    return {"slug": slug, "variety": strength, "seeds": seeds, "different": len(seen), "plies": limit}


def print_duel(row: dict[str, Any]) -> None:
    t, o = row["tested_times"], row["other_times"]
    pair = f"{row['tested']}:{row['other']}"
    first = f"{row['seat_one']}/{row['decisive']}"
    print(f"{row['slug']:17} {pair:14} {row['games']:>3} {row['wins']:>3}/{row['draws']}/{row['losses']:<3} "
          f"{100 * row['score']:5.1f} % [{100 * row['low']:4.1f}-{100 * row['high']:5.1f}] {first:>7} "
          f"{t['median']:6.3f} {t['max']:6.3f} {t['over5']:>2} | {o['median']:6.3f} {o['max']:6.3f} {o['over5']:>2}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    playable = [s for s in slugs() if not get_game(s).host_moves]
    parser.add_argument("--slugs", default=",".join(playable))
    parser.add_argument("--pairs", default="", help="a:b,... (a is measured against b)")
    parser.add_argument("--random", default="", help="strengths measured against a random player")
    parser.add_argument("--variety", default="", help="strengths replayed from the start with --seeds seeds")
    parser.add_argument("--all", action="store_true", help="the issue's figures: every pair, random, variety")
    parser.add_argument("--openings", type=int, default=0, help=f"openings a pair (default {DEFAULT_OPENINGS}; "
                        "Back to the Wall 8)")
    parser.add_argument("--plies", type=int, default=2, help="random plies of an opening")
    parser.add_argument("--first-opening", type=int, default=0,
                        help="seed of the first opening (two processes, one a core: 0 and N with --openings N)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--variety-plies", type=int, default=16)
    parser.add_argument("--json", default="", help="append every row to this file as a JSON line")
    args = parser.parse_args()
    if args.all:
        args.pairs = args.pairs or "strong:normal,normal:easy"
        args.random = args.random or "easy,normal,strong"
        args.variety = args.variety or "easy,normal,strong"
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} cpus {os.cpu_count()} load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'game':17} {'pair':14} {'n':>3} {'W/D/L':9} {'score':7} {'95 % interval':13} {'seat 1':>7} "
          f"{'median':>6} {'max':>6} >5 | {'median':>6} {'max':>6} >5")
    for slug in args.slugs.split(","):
        openings = args.openings or OPENINGS.get(slug, DEFAULT_OPENINGS)
        rows: list[dict[str, Any]] = []
        for pair in filter(None, args.pairs.split(",")):
            tested, other = pair.split(":")
            rows.append(duel_row(slug, tested, other, openings, args.plies, args.first_opening))
            print_duel(rows[-1])
            _dump(args.json, rows[-1])
        for strength in filter(None, args.random.split(",")):
            rows.append(duel_row(slug, strength, None, openings, args.plies, args.first_opening))
            print_duel(rows[-1])
            _dump(args.json, rows[-1])
        for strength in filter(None, args.variety.split(",")):
            row = variety_row(slug, strength, args.seeds, args.variety_plies)
            print(f"{slug:17} variety {strength:7} {row['different']}/{row['seeds']} different games "
                  f"(first {row['plies']} plies)", flush=True)
            _dump(args.json, row)
    print(f"# done {time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}", flush=True)


def _dump(path: str, row: dict[str, Any]) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({**row, "at": time.time(), "load": os.getloadavg()[0]}) + "\n")


if __name__ == "__main__":
    main()
