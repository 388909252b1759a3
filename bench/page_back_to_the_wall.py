"""Back to the Wall page shaping: time of page.context() per audience, and the size of what the click script gets.

    .venv/bin/python bench/page_back_to_the_wall.py

Measured at the start of round 3 (three pieces per seat on every board), the
heaviest point: the host's builder carries path previews for all four seats.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.back_to_the_wall import page
from games.back_to_the_wall.rules import BackToTheWall
from games.core import HOST, SPECTATOR

NAMES = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"}


def main() -> None:
    game = BackToTheWall()
    rng = random.Random(2026)
    state = game.new()
    while state.round < 3:
        for seat in (1, 2, 3, 4):
            action = game.random_action(state, seat, rng)
            assert action is not None
            state = game.apply(state, seat, action)
    for label, viewer in (("host", HOST), ("seat 1", 1), ("spectator", SPECTATOR)):
        ctx = {"viewer": viewer, "names": NAMES, "seats": [], "my_turn": True, "bout_number": 1}
        view = game.view(state, viewer)
        samples = []
        for _ in range(30):
            started = time.perf_counter()
            out = page.context(view, ctx)
            samples.append(time.perf_counter() - started)
        size = len(json.dumps(out["bttw"]["script"], separators=(",", ":")))
        print(f"{label:10s} page.context median {statistics.median(samples) * 1000:6.1f} ms   script data {size} bytes")


if __name__ == "__main__":
    main()
