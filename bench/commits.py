"""How long a PostgreSQL commit takes on this machine, waiting for the disk and not (core/commits.py).

    .venv/bin/python bench/commits.py                    # 2,000 small commits each way
    .venv/bin/python bench/commits.py --commits 500 --pause 0.3

Each commit inserts one row (a move writes one log row and updates three), then commits, with
`synchronous_commit` on (every commit waits for its write-ahead log on disk) and off (a move inside
a bout: the walwriter flushes it within 0.6 s).  Commits are spaced by `--pause` seconds, as moves
are.  Prints the percentiles of each; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.stats import pct


def run(url: str, setting: str, commits: int, pause: float) -> list[float]:
    # a plain table: a temporary one writes no write-ahead log, so its commits never wait for the disk
    table = f"bench_commits_{os.getpid()}"
    with psycopg.connect(url, options=f"-c synchronous_commit={setting}") as conn:
        conn.execute(f"CREATE TABLE {table} (id serial PRIMARY KEY, v int)")
        conn.commit()
        took = []
        try:
            for i in range(commits):
                conn.execute(f"INSERT INTO {table} (v) VALUES (%s)", (i,))
                started = time.perf_counter()
                conn.commit()
                took.append((time.perf_counter() - started) * 1000)
                time.sleep(pause)
        finally:
            conn.rollback()
            conn.execute(f"DROP TABLE {table}")
            conn.commit()
        return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default=os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--pause", type=float, default=0.005, help="seconds between commits")
    args = parser.parse_args()
    print(f"{args.commits} commits each, {args.pause} s apart; load average before: {os.getloadavg()[0]:.2f}")
    print("| synchronous_commit | p50 | p95 | p99 | max | over 10 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for setting in ("on", "off"):
        took = run(args.database, setting, args.commits, args.pause)
        over = sum(1 for t in took if t > 10)
        print(f"| {setting} | {pct(took, 50):.2f} ms | {pct(took, 95):.2f} ms | {pct(took, 99):.2f} ms "
              f"| {max(took):.1f} ms | {over} |")


if __name__ == "__main__":
    main()
