"""Clock precision: how long after its deadline a time-out is applied.

    .venv/bin/python bench/clocks.py                    # 200 matches, deadlines spread over 20 s
    .venv/bin/python bench/clocks.py --poll 0.5         # the old fixed poll, for comparison

Creates N running Lance Assembly matches on PostgreSQL (DATABASE_URL or the
local server, database `bench_clocks`) whose seat to move runs out of time
at a spread of moments, starts `manage.py run_clocks` (deadline-scheduled:
it sleeps until the next deadline) -- or with `--poll S` a loop that sweeps
every S seconds, as the sweeper did before -- and prints how late each
time-out was applied: `Bout.finished` (stamped when the sweeper claims the
bout, before its transaction commits) minus the deadline the flag falls at
(the visible deadline extended by the lag grace, play/lag.py).  p50/p95/p99/max.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stats import pct  # noqa: E402

POLL = """
import os, time, django
django.setup()
from django.db import close_old_connections
from matches.play.sweeper import sweep_clocks
while True:
    close_old_connections()
    sweep_clocks()
    time.sleep(float(os.environ["BENCH_POLL"]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--spread", type=float, default=20.0, help="seconds over which the deadlines fall")
    parser.add_argument("--lead", type=float, default=8.0, help="seconds from creation to the first deadline")
    parser.add_argument("--poll", type=float, default=0.0, help="sweep every S seconds instead (the old way)")
    parser.add_argument("--database", default=os.environ.get("BENCH_DATABASE_URL",
                                                             "postgres://postgres@127.0.0.1:5432/bench_clocks"))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0",
                        help="presence and broadcasts, as in production ('' for none)")
    args = parser.parse_args()

    from bench.fanout import create_database

    create_database(args.database)
    env = {**os.environ, "DATABASE_URL": args.database, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "bench-only",
           "DJANGO_SETTINGS_MODULE": "config.settings", "DEATHMATCH_INPROCESS_CLOCKS": "0",
           "DJANGO_LOG_LEVEL": "WARNING", "BENCH_POLL": str(args.poll),
           "REDIS_URL": args.redis, "DEATHMATCH_REDIS_PREFIX": f"benchclocks{os.getpid()}"}
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from matches.models import Bout, Match
    from matches.play import engine, services

    call_command("migrate", verbosity=0, interactive=False)
    Match.objects.filter(status=Match.RUNNING).update(status=Match.FINISHED)  # earlier runs' leftovers
    engine.notify = lambda match_id, **written: None  # creating matches broadcasts nothing

    from datetime import timedelta

    from matches.models import Clock

    bouts = []
    for _ in range(args.matches):
        match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"],
                                      clock={"per_move": 3600, "reserve": 0})
        bouts.append(services.start_match(match, starting_seat=1).id)
    # then the deadlines, spread evenly from `lead` seconds on (seat 1 is to move in every bout)
    first = timezone.now() + timedelta(seconds=args.lead)
    deadlines: dict[int, object] = {}
    from matches.play import clocks

    for index, bout_id in enumerate(bouts):
        at = first + timedelta(seconds=args.spread * index / max(1, args.matches - 1))
        Clock.objects.filter(bout_id=bout_id, seat=1).update(deadline=at)
        # the flag falls at the deadline extended by the lag grace (issue 26: lag compensation is
        # on by default): the sweeper's deadline, and what each time-out's lateness is measured from
        flag = clocks.flag_at(Clock.objects.get(bout_id=bout_id, seat=1))
        Bout.objects.filter(pk=bout_id).update(deadline=flag)
        deadlines[bout_id] = flag
    from django.core.cache import cache

    from matches.live import presence

    for bout in Bout.objects.filter(id__in=bouts):  # presence known: nobody watches these matches
        cache.set(presence.complete_key(bout.match_id), 1, 600)
    print(f"{args.matches} matches; deadlines from {args.lead:g} s to {args.lead + args.spread:g} s from now")

    command = [sys.executable, "-c", POLL] if args.poll else [sys.executable, "manage.py", "run_clocks"]
    sweeper = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        limit = time.time() + args.lead + args.spread + 60
        while time.time() < limit:
            left = Bout.objects.filter(id__in=deadlines, finished__isnull=True).count()
            if not left:
                break
            time.sleep(1.0)
    finally:
        sweeper.terminate()
        sweeper.wait(10)
    late = []
    for bout_id, finished, reason in Bout.objects.filter(id__in=deadlines).values_list("id", "finished", "reason"):
        if finished is not None and reason == "time":
            late.append((finished - deadlines[bout_id]).total_seconds() * 1000)  # type: ignore[operator]
    missing = len(deadlines) - len(late)
    mode = f"fixed poll every {args.poll:g} s" if args.poll else "run_clocks, scheduled by the next deadline"
    print(f"sweeper: {mode}; load average {os.getloadavg()[0]:.2f} (2 shared cores: load distorts these)")
    print(f"time-outs applied: {len(late)} of {len(deadlines)} ({missing} not applied)")
    if late:
        print(f"lateness after the deadline: p50 {statistics.median(late):.0f} ms, p95 {pct(late, 95):.0f} ms, "
              f"p99 {pct(late, 99):.0f} ms, max {max(late):.0f} ms")


if __name__ == "__main__":
    main()
