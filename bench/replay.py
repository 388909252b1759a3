"""Speed of replays and records, per game, on a throwaway SQLite database.

    .venv/bin/python bench/replay.py             # every game, 2 random bouts each
    .venv/bin/python bench/replay.py 5 yinsh     # 5 bouts, games whose slug contains "yinsh"

Per game: moves per bout, time to open a replay page at its last step (the
whole bout is replayed through the rules on every request), one step
fragment (what replay.js fetches per key press), the record export, and
`import_record` of the host's record.  Figures, not assertions.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
_DB = tempfile.NamedTemporaryFile(suffix=".sqlite3", delete=False)  # noqa: SIM115 - removed at exit
os.environ.update(DATABASE_URL=f"sqlite:///{_DB.name}", DJANGO_SETTINGS_MODULE="config.settings")
os.environ.pop("REDIS_URL", None)


def main(argv: list[str]) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from games.core import HOST
    from games.registry import get_game, slugs
    from matches.play import services
    from matches.replays import records as record

    setup_test_environment()
    call_command("migrate", verbosity=0)
    count = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 2
    wanted = [a for a in argv[1:] if not a.isdigit()]
    client = Client()
    print(f"{'game':<18}{'moves':>7}{'page ms':>10}{'step ms':>10}{'export ms':>11}{'import ms':>11}")
    for slug in slugs():
        if wanted and not any(w in slug for w in wanted):
            continue
        game = get_game(slug)
        rows = []
        for n in range(count):
            rng = random.Random(f"{slug}-{n}")
            match = services.create_match(slug, clock=False)
            services.start_match(match)
            moves = 0
            while True:
                bout = match.bouts.order_by("-number").first()
                assert bout is not None  # start_match made the first
                if bout.finished is not None or moves > 2000:
                    break
                state = services.bout_state(bout)
                if game.host_moves and (not game.pending(state) or rng.random() < 0.2):
                    # the host's game: the host opens rounds, reveals, scores and ends the bout
                    services.host_apply(match, game.format(game.random_action(state, 0, rng)), bout.version)
                    moves += 1
                    continue
                for seat in sorted(game.pending(state)):
                    latest = match.bouts.order_by("-number").first()
                    assert latest is not None
                    services.submit(match, seat, game.format(game.random_action(state, seat, rng)), latest.version)
                    moves += 1
                    if not game.sealed:
                        break
            url = f"/w/{match.watch_token}/bouts/1/"
            started = time.perf_counter()
            assert client.get(url).status_code == 200
            page = time.perf_counter() - started
            started = time.perf_counter()
            assert client.get(url + "?step=1&partial=1").status_code == 200
            step = time.perf_counter() - started
            started = time.perf_counter()
            text = record.export(match, HOST)
            export = time.perf_counter() - started
            started = time.perf_counter()
            record.import_record(text)  # as manage.py import_record
            imported = time.perf_counter() - started
            rows.append((moves, page, step, export, imported))
        med = [statistics.median(r[i] for r in rows) for i in range(5)]
        print(f"{slug:<18}{med[0]:>7.0f}{med[1] * 1000:>10.0f}{med[2] * 1000:>10.0f}"
              f"{med[3] * 1000:>11.0f}{med[4] * 1000:>11.0f}")


if __name__ == "__main__":
    try:
        main(sys.argv)
    finally:
        os.unlink(_DB.name)
