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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.stats import pct


def main(path: str) -> None:
    moves: list[dict[str, float]] = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            name, stamp = line.split()
            if name == "MOVE":
                moves.append({"MOVE": float(stamp)})
            elif moves and (name not in moves[-1] or name.endswith("*")):
                moves[-1][name] = float(stamp)  # the first of each step after the move (the last: "name*")
    # moves timed while chat lines flowed (fanout.py's chat blocks write CHAT) apart from the others
    for label, chosen in (("", [m for m in moves if "CHAT" not in m]), ("with chat flowing: ", [m for m in moves if "CHAT" in m])):
        if not chosen:
            continue
        steps: dict[str, list[float]] = defaultdict(list)
        for move in chosen:
            start = move["MOVE"]
            for name, at in move.items():
                if name != "CHAT":
                    steps[name].append((at - start) * 1000)
        order = sorted(steps, key=lambda n: statistics.median(steps[n]))
        print(f"{label}{len(chosen)} moves; median (p95) ms after the mover's send:")
        for name in order:
            values = steps[name]
            print(f"  {name:24s} {statistics.median(values):7.2f} ({pct(values, 95):7.2f})  (n={len(values)})")


if __name__ == "__main__":
    main(sys.argv[1])
