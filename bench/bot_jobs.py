"""Computer players under load: a person's easy replies while strong searches keep the workers busy,
and strong moves a minute per number of `run_bots` processes (issue 54).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME REDIS_URL=redis://127.0.0.1:6379/K \\
        .venv/bin/python bench/bot_jobs.py [--workers 1,2] [--seconds 60] [--strong 6]

For each worker count N, on a database of its own (DATABASE_URL's name + `_bench`, created and
migrated; an SQLite file in a temporary directory without DATABASE_URL) and 127.0.0.1 only: --strong
Gomoku matches with a strong computer in both seats, and one Gomoku match of a person (this
process, through `services.submit`, a random legal move as soon as it is to move) against an easy
computer; N `manage.py run_bots` processes.  Once the first strong move is made (the workers are
up), for --seconds: every easy reply is timed from the commit of the person's move until the
process sees the computer's answer committed (polled every 25 ms); a finished practice game is
replaced by a new one.  Then every match of the round is paused (the workers stop at a commit),
the workers are stopped, and the next count begins with new matches.

Prints per worker count: the easy replies (count, median, p95, max) and the strong moves a minute
made in the window.  Works on the code before the bot jobs (a loop over bot seats) and after.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.backlog import environment  # noqa: E402
from bench.stats import pct  # noqa: E402

GAME = "gomoku"


def setup(workdir: Path) -> dict[str, str]:
    url = os.environ.get("DATABASE_URL", "")
    name = (url.rsplit("/", 1)[1] if "/" in url else "deathmatch") + "_bench"
    env = environment(workdir, name, REDIS_URL=os.environ.get("REDIS_URL", ""))
    os.environ.update(env)
    import django

    django.setup()
    return env


def new_match(people: int) -> Any:
    """A running Gomoku match: seat 1 a person (people=1) or a strong computer, seat 2 a computer."""
    from matches.play import bots, services

    match = services.create_match(GAME, seat_names=["Ann", "Bob"], bouts=1)
    if people:
        bots.set_bot(match, 2, "easy")
    else:
        bots.set_bot(match, 1, "strong")
        bots.set_bot(match, 2, "strong")
    services.start_match(match, starting_seat=1)
    return match


def bot_moves(ids: list[int]) -> int:
    from matches.models import TurnLog

    return TurnLog.objects.filter(match_id__in=ids, kind=TurnLog.MOVE, undone=False).count()


def person_moves(match: Any, rng: random.Random) -> float | None:
    """The person moves (a random legal move); the seconds until the computer's answer is committed,
    None when the game ended with the person's move."""
    from matches.models import Bout
    from matches.play import services

    bout = Bout.objects.filter(match=match).order_by("-number").first()
    assert bout is not None
    if bout.finished is not None:
        return None
    game = match.game
    state = game.load(bout.state)
    action = rng.choice(list(game.legal_actions(state, 1)))
    services.submit(match.pk, 1, game.format(action), bout.version)
    start = time.monotonic()
    expected = bout.version + 1
    while True:
        bout.refresh_from_db(fields=["version", "finished", "state"])
        if bout.finished is not None:
            return None
        if bout.version > expected:
            return time.monotonic() - start
        if time.monotonic() - start > 120:
            raise SystemExit("no easy reply within 120 s: are the workers running?")
        time.sleep(0.025)  # a short poll would take the workers' CPU: this process shares the cores


def pause(ids: list[int]) -> None:
    from matches.core.errors import ServiceError
    from matches.models import Match
    from matches.play import services

    for match in Match.objects.filter(pk__in=ids, status=Match.RUNNING, paused=False):
        with contextlib.suppress(ServiceError):  # it finished meanwhile
            services.pause_clocks(match)


def round_of(workers: int, env: dict[str, str], workdir: Path, seconds: float, strong: int) -> dict[str, Any]:
    rng = random.Random(workers)
    matches = [new_match(0) for _ in range(strong)]
    strong_ids = [m.pk for m in matches]
    practice = new_match(1)
    all_ids = [*strong_ids, practice.pk]
    procs = []
    for n in range(workers):
        with (workdir / f"run_bots-{workers}-{n}.log").open("wb") as log:
            procs.append(subprocess.Popen([sys.executable, "manage.py", "run_bots"], cwd=ROOT, env=env,
                                          stdout=log, stderr=subprocess.STDOUT))
    replies: list[float] = []
    try:
        deadline = time.monotonic() + 120
        while bot_moves(strong_ids) == 0:  # the workers are up
            if time.monotonic() > deadline:
                raise SystemExit("no strong move within 120 s: see the run_bots logs in " + str(workdir))
            time.sleep(0.05)
        before, start = bot_moves(strong_ids), time.monotonic()
        while time.monotonic() - start < seconds:
            reply = person_moves(practice, rng)
            if reply is None:
                practice = new_match(1)
                all_ids.append(practice.pk)
            else:
                replies.append(reply)
        made, elapsed = bot_moves(strong_ids) - before, time.monotonic() - start
    finally:
        pause(all_ids)
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return {"workers": workers, "replies": replies, "strong_per_minute": made * 60 / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2", help="worker process counts, comma-separated")
    parser.add_argument("--seconds", type=float, default=60, help="measured window per worker count")
    parser.add_argument("--strong", type=int, default=6, help="strong-against-strong matches")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-bot-jobs-") as tmp:
        workdir = Path(tmp)
        env = setup(workdir)
        rows = [round_of(int(n), env, workdir, args.seconds, args.strong) for n in args.workers.split(",")]
    print(f"{'workers':>7}  {'replies':>7}  {'easy median':>11}  {'easy p95':>8}  {'easy max':>8}  {'strong/min':>10}")
    for row in rows:
        replies = row["replies"]
        median = statistics.median(replies) if replies else float("nan")
        print(f"{row['workers']:>7}  {len(replies):>7}  {median:>10.2f}s  {pct(replies, 95):>7.2f}s  "
              f"{max(replies, default=float('nan')):>7.2f}s  {row['strong_per_minute']:>10.1f}")
    if len(rows) > 1 and rows[0]["strong_per_minute"]:
        print(f"strong moves a minute, {rows[-1]['workers']} workers against {rows[0]['workers']}: "
              f"{rows[-1]['strong_per_minute'] / rows[0]['strong_per_minute']:.2f}x")


if __name__ == "__main__":
    main()
