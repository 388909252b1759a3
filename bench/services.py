"""A move's service call and a host action, in this process: `services.submit` and
`pause_clocks`/`resume_clocks`, each timed by this process's CPU (time.process_time, which other
processes' load barely moves) and by the wall clock, with the queries of each move.  PostgreSQL.

    .venv/bin/python bench/services.py                 # 3 matches x 100 moves, 100 host actions each
    .venv/bin/python bench/services.py --moves 200

Run it on two commits, alternating, to compare them; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import fanout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--moves", type=int, default=100, help="moves per match")
    parser.add_argument("--database", default=os.environ.get("BENCH_DATABASE_URL",
                                                             "postgres://postgres@127.0.0.1:5432/bench_services"))
    args = parser.parse_args()
    setup = argparse.Namespace(database=args.database, redis=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0",
                               layer="pubsub", trace="")
    fanout.create_database(args.database)
    fanout.django_setup(fanout.environment(setup))
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches.core import events
    from matches.live import fanout as live_fanout
    from matches.play import services

    events.unsubscribe(live_fanout.notify)  # the service call alone: nothing drawn after the commit
    cpu, wall, queries, host = [], [], [], []
    for seed in range(args.matches):
        match = fanout.new_match()
        chooser = fanout.Chooser(match, seed)
        for _ in range(args.moves):
            seat, text = chooser.next()
            c0, w0 = time.process_time(), time.perf_counter()
            with CaptureQueriesContext(connection) as ctx:
                services.submit(match, seat, text, chooser.version)
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - w0) * 1000)
            queries.append(len(ctx.captured_queries))
            chooser.version += 1
        for _ in range(args.moves // 2):
            for action in (services.pause_clocks, services.resume_clocks):
                c0 = time.process_time()
                action(match)
                host.append((time.process_time() - c0) * 1000)
    print(json.dumps({"submit_cpu_ms": round(statistics.median(cpu), 3), "submit_wall_ms": round(statistics.median(wall), 2),
                      "queries": statistics.median(queries), "queries_max": max(queries),
                      "host_action_cpu_ms": round(statistics.median(host), 3)}))


if __name__ == "__main__":
    main()
