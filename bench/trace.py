"""Where a move's time goes: reads the file of `bench/fanout.py --trace FILE` (daphne and the
benchmark on one machine share perf_counter's clock) and prints, per step, the median time since
the mover's send.

    .venv/bin/python bench/fanout.py --n 10 --moves 20 --trace /tmp/trace.txt
    .venv/bin/python bench/trace.py /tmp/trace.txt
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict


def main(path: str) -> None:
    moves: list[dict[str, float]] = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            name, at = line.split()
            if name == "MOVE":
                moves.append({"MOVE": float(at)})
            elif moves and (name not in moves[-1] or name.endswith("*")):
                moves[-1][name] = float(at)  # the first of each step after the move (the last: "name*")
    steps: dict[str, list[float]] = defaultdict(list)
    for move in moves:
        start = move["MOVE"]
        for name, at in move.items():
            steps[name].append((at - start) * 1000)
    order = sorted(steps, key=lambda n: statistics.median(steps[n]))
    print(f"{len(moves)} moves; median ms after the mover's send:")
    for name in order:
        print(f"  {name:24s} {statistics.median(steps[name]):7.2f}  (n={len(steps[name])})")


if __name__ == "__main__":
    main(sys.argv[1])
