"""Soak: bot-against-bot matches of every game at once, through the real server, watched live.

    .venv/bin/python bench/soak.py                                     # 50 matches, 2 spectators each, easy bots
    .venv/bin/python bench/soak.py --matches 10 --spectators 2 --seconds 90
    .venv/bin/python bench/soak.py --strength normal --games lance-assembly,yinsh

Runs what docker-compose.yml deploys, on 127.0.0.1 only: one daphne of its own (DEBUG off, listen
backlog 2,048) on a database of its own (DATABASE_URL pointing at PostgreSQL: a database
`bench_soak_<pid>`, dropped at the end; else an SQLite file in a temporary directory) and Redis
(REDIS_URL, default the local one, with a key prefix of its own), beside `manage.py run_bots` and
`manage.py run_clocks` (bench/soak_worker.py: the commands as they are, plus a line written when
each change of a match commits).  It creates --matches matches (one bout each, the games' own clocks)
with a computer player of --strength in every seat, spread over --games, opens --spectators
spectator pages of each (a GET of the watch page, then its socket), starts the matches and lets
the bots play until every match is over or --seconds have passed (then it pauses the unfinished
matches, so the bots stop at a commit, and waits 3 s for the last updates); then it stops every
process it started.

Prints: bot moves per second; move-to-screen (from the commit of a bot's move to the moment the
last spectator socket of its match holds that version), p50/p95/max, overall and per game; errors
(0 expected: pages not answered 200, sockets refused or closed by the server, Tracebacks and 500s
in daphne's log, Tracebacks in the workers' logs), and deltas whose base was not the version the
page held; the database's size (pg_database_size, or the SQLite file) and daphne's RSS before and
after, and the CPU daphne and run_bots used.  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.backlog import HOST, environment, make_match, request, start_daphne  # noqa: E402
from bench.fanout import META  # noqa: E402
from bench.stats import pct  # noqa: E402
from bench.wsclient import WebSocket  # noqa: E402

GAMES = ["lance-assembly", "grid-master", "two-connect", "bidding-ttt", "back-to-the-wall"]

#: run in `manage.py shell` (backlog.make_match) with SOAK_ARGS in the environment
SHELL = """
import json, os
from django.db import connection, transaction
from games.registry import get_game
from matches.models import Match, TurnLog
from matches.play import bots, services
ARGS = json.loads(os.environ["SOAK_ARGS"])

def database_size():
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            return cursor.fetchone()[0]
    name = str(connection.settings_dict["NAME"])
    return sum(os.path.getsize(p) for p in (name, name + "-wal") if os.path.exists(p))
"""

#: matches in setup, every seat a computer player (as the practice page makes them)
CREATE = SHELL + """
made = []
for index in range(ARGS["matches"]):
    slug = ARGS["games"][index % len(ARGS["games"])]
    seats = get_game(slug).seats
    with transaction.atomic():
        match = services.create_match(slug, seat_names=[f"Bot {n}" for n in range(1, seats + 1)], bouts=1)
        for number in range(1, seats + 1):
            bots.set_bot(match, number, ARGS["strength"])
    made.append({"id": match.id, "game": slug, "watch": match.watch_token})
print(json.dumps({"matches": made, "size": database_size()}))
"""

START = SHELL + """
for match in Match.objects.filter(pk__in=ARGS["ids"]):
    services.start_match(match, starting_seat=1)
print(json.dumps({"started": len(ARGS["ids"])}))
"""

#: the bots stop at a commit: a paused match is not theirs to move (matches/play/bots.py)
PAUSE = SHELL + """
from matches.core.errors import ServiceError
for match in Match.objects.filter(pk__in=ARGS["ids"], status=Match.RUNNING, paused=False):
    try:
        services.pause_clocks(match)
    except ServiceError:  # it finished meanwhile
        pass
print(json.dumps({"paused": True}))
"""

REPORT = SHELL + """
matches = {m["id"]: m for m in Match.objects.filter(pk__in=ARGS["ids"]).values("id", "status", "result_reason")}
for row in TurnLog.objects.filter(match_id__in=ARGS["ids"], kind=TurnLog.MOVE, undone=False, corrected=False).values("match_id"):
    matches[row["match_id"]]["moves"] = matches[row["match_id"]].get("moves", 0) + 1
print(json.dumps({"matches": list(matches.values()), "size": database_size()}))
"""


# -- what the spectators hold ------------------------------------------------------------------


@dataclass
class Screen:
    """One spectator socket of a match: the version it holds, and when it first held each one."""

    match_id: int
    bout: int = 0
    version: int = 0
    seen: dict[tuple[int, int], float] = field(default_factory=dict)


@dataclass
class Errors:
    pages: Counter[int | str] = field(default_factory=Counter)  # watch pages not answered 200, by status
    refused: int = 0  # sockets whose handshake or first page failed
    closed: int = 0  # sockets the server closed
    gaps: int = 0  # deltas whose base was not the version the page held (a browser refetches)


async def follow(ws: WebSocket, screen: Screen, errors: Errors, first: asyncio.Future[None]) -> None:
    while True:
        text = await ws.recv()
        if text is None:
            if not first.done():  # counted as refused by watch()
                first.set_exception(ConnectionError("closed before the page arrived"))
            elif not getattr(ws, "leaving", False):
                errors.closed += 1
            return
        found = META.search(text)
        if not first.done():
            first.set_result(None)
        if not found:
            continue
        now = time.monotonic()
        bout, version, base = int(found.group(1)), int(found.group(2)), found.group(3)
        if (bout, version) <= (screen.bout, screen.version):
            continue
        if bout == screen.bout:
            if base and int(base) != screen.version:
                errors.gaps += 1
            start = screen.version + 1
        else:
            start = 1
        for v in range(start, version + 1):
            screen.seen.setdefault((bout, v), now)
        screen.bout, screen.version = bout, version


async def watch(port: int, match: dict[str, Any], errors: Errors) -> tuple[WebSocket, asyncio.Task[None], Screen] | None:
    """A spectator: the watch page, then its socket (held until the run ends)."""
    status, _ = await request(port, f"/w/{match['watch']}/", timeout=60)
    if status != 200:
        errors.pages[status] += 1
    screen = Screen(match["id"])
    try:
        ws = await WebSocket.connect(HOST, port, f"/ws/m/{match['watch']}/", timeout=60)
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(follow(ws, screen, errors, first))
        await asyncio.wait_for(first, 60)
    except Exception as error:  # counted and shown: the run goes on
        errors.refused += 1
        print(f"  spectator of match {match['id']} failed: {error!r}", file=sys.stderr)
        return None
    return ws, task, screen


# -- the run ------------------------------------------------------------------------------------


def read_commits(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def log_errors(path: Path) -> tuple[int, int]:
    """(Tracebacks, 500s) in a process's log."""
    lines = path.read_text(errors="replace").splitlines() if path.exists() else []
    return (sum("Traceback" in line for line in lines),
            sum(" 500 " in line or "Internal Server Error" in line for line in lines))


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def worker(env: dict[str, str], command: str, commits: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as handle:
        return subprocess.Popen([sys.executable, str(ROOT / "bench" / "soak_worker.py"), command], cwd=ROOT,
                                env={**env, "SOAK_COMMITS": str(commits)}, stdout=handle, stderr=subprocess.STDOUT)


def shell(env: dict[str, str], script: str, **args: Any) -> dict[str, Any]:
    try:
        return make_match({**env, "SOAK_ARGS": json.dumps(args)}, script)
    except subprocess.CalledProcessError as error:
        raise RuntimeError(f"manage.py shell failed:\n{error.stderr}") from None


async def play(args: argparse.Namespace, env: dict[str, str], workdir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    created = await asyncio.to_thread(shell, env, CREATE, matches=args.matches, games=args.games,
                                      strength=args.strength)
    matches: list[dict[str, Any]] = created["matches"]
    ids = [m["id"] for m in matches]
    out.update(matches=matches, size_before=created["size"])
    bots_commits, clocks_commits = workdir / "commits-bots.txt", workdir / "commits-clocks.txt"
    daphne = bots = clocks = None
    errors = Errors()
    sockets: list[tuple[WebSocket, asyncio.Task[None], Screen]] = []
    try:
        daphne, port = start_daphne(env, workdir / "daphne.log")
        out["rss_start"] = rss_mb(daphne.pid)
        bots = worker(env, "run_bots", bots_commits, workdir / "run_bots.log")
        clocks = worker(env, "run_clocks", clocks_commits, workdir / "run_clocks.log")
        opened = await asyncio.gather(*(watch(port, m, errors) for m in matches for _ in range(args.spectators)))
        sockets = [s for s in opened if s is not None]
        out["sockets"] = len(sockets)
        out["rss_before"] = rss_mb(daphne.pid)
        out["load_before"] = os.getloadavg()[0]
        began = time.monotonic()
        await asyncio.to_thread(shell, env, START, ids=ids)
        deadline = began + args.seconds
        out["ended"] = "--seconds reached"
        while time.monotonic() < deadline:
            await asyncio.sleep(1.0)
            finished = {int(row[1]) for row in read_commits(bots_commits) + read_commits(clocks_commits)
                        if row[4] == "finished"}
            if finished >= set(ids):
                out["ended"] = "every match finished"
                break
            if bots.poll() is not None or clocks.poll() is not None:
                out["ended"] = "a worker stopped (see its log)"
                break
        out["played"] = time.monotonic() - began
        if out["ended"] != "every match finished":
            await asyncio.to_thread(shell, env, PAUSE, ids=ids)
        # the last moves' updates on their way to the sockets (the workers draw and send them)
        await asyncio.sleep(3.0)
        out["bots_rss"] = rss_mb(bots.pid) if bots.poll() is None else float("nan")
        out["bots_cpu"] = cpu_seconds(bots.pid) if bots.poll() is None else float("nan")
        out["rss_after"] = rss_mb(daphne.pid)
        out["daphne_cpu"] = cpu_seconds(daphne.pid)
        stop(bots)
        stop(clocks)
    finally:
        for ws, task, _ in sockets:
            ws.leaving = True  # type: ignore[attr-defined]
            await ws.close()
            task.cancel()
        stop(bots)
        stop(clocks)
        stop(daphne)
    out["errors"] = errors
    out["screens"] = [screen for _, _, screen in sockets]
    out["moves"] = [row for row in read_commits(bots_commits) if row[0] == "move"]
    out["clock_changes"] = len(read_commits(clocks_commits))
    out["logs"] = {name: log_errors(workdir / f"{name}.log") for name in ("daphne", "run_bots", "run_clocks")}
    report = await asyncio.to_thread(shell, env, REPORT, ids=ids)
    out["final"], out["size_after"] = report["matches"], report["size"]
    return out


def drop_database(env: dict[str, str]) -> None:
    url = env["DATABASE_URL"]
    if not url.startswith(("postgres://", "postgresql://")):
        return
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def forget_redis(url: str, prefix: str) -> None:
    """Delete this run's keys (the channel layer's groups last a day, presence and rate limits less)."""
    import redis

    client = redis.Redis.from_url(url)
    for pattern in (f"{prefix}:*", f"{prefix}ratelimit:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        if keys:
            client.delete(*keys)
    client.close()


# -- the figures --------------------------------------------------------------------------------


def move_to_screen(out: dict[str, Any]) -> tuple[dict[str, list[float]], list[str]]:
    """Per game, each bot move's time from its commit until every spectator socket of its match held
    its version (ms); and the moves some socket never held (with the versions the sockets hold)."""
    screens: dict[int, list[Screen]] = defaultdict(list)
    for screen in out["screens"]:
        screens[screen.match_id].append(screen)
    game = {m["id"]: m["game"] for m in out["matches"]}
    times: dict[str, list[float]] = defaultdict(list)
    unseen: list[str] = []
    for _, match_id, bout, version, _, committed in out["moves"]:
        key = (int(bout), int(version))
        mine = screens.get(int(match_id), [])
        held = [s.seen[key] for s in mine if key in s.seen]
        if not mine or len(held) < len(mine):
            unseen.append(f"match {match_id} bout {bout} version {version} (the sockets hold "
                          f"{', '.join(f'{s.bout}/{s.version}' for s in mine) or 'nothing'})")
            continue
        times[game[int(match_id)]].append((max(held) - float(committed)) * 1000)
    return times, unseen


def report(args: argparse.Namespace, out: dict[str, Any], database: str) -> None:
    errors: Errors = out["errors"]
    moves = out["moves"]
    stamps = sorted(float(row[5]) for row in moves)
    window = stamps[-1] - stamps[0] if len(stamps) > 1 else 0.0
    rate = (len(stamps) - 1) / window if window else 0.0
    times, unseen = move_to_screen(out)
    every = [t for values in times.values() for t in values]
    final = out["final"]
    finished = [m for m in final if m["status"] == "finished"]
    logs = out["logs"]
    log_total = logs["daphne"][0] + logs["daphne"][1] + logs["run_bots"][0] + logs["run_clocks"][0]
    total = sum(errors.pages.values()) + errors.refused + errors.closed + log_total

    print(f"soak: {args.matches} matches over {', '.join(args.games)}, every seat a bot ({args.strength}), "
          f"{args.spectators} spectator(s) each ({out.get('sockets', 0)} sockets open); {database}")
    print(f"load average (1 min) before play {out.get('load_before', float('nan')):.2f}, after {os.getloadavg()[0]:.2f} "
          f"(2 shared cores: load distorts these figures)")
    print(f"played {out.get('played', 0):.0f} s ({out.get('ended', 'stopped early')}); matches finished "
          f"{len(finished)}/{len(final)} {dict(Counter(m['result_reason'] for m in finished))}; "
          f"changes by the clocks (time-outs) {out['clock_changes']}")
    print(f"bot moves {len(moves)} (turn log: {sum(m.get('moves', 0) for m in final)}): {rate:.1f} moves/s "
          f"(first to last bot move's commit, {window:.0f} s)")
    print(f"move-to-screen (a bot's commit -> the last spectator socket of its match holds the version): "
          f"p50 {pct(every, 50):.0f} ms, p95 {pct(every, 95):.0f} ms, max {max(every, default=float('nan')):.0f} ms "
          f"over {len(every)} moves; moves not held by every socket at the end: {len(unseen)}")
    for line in unseen[:5]:
        print(f"  not held: {line}")
    print(f"errors: {total} (watch pages not 200: {dict(errors.pages) or 0}, sockets refused {errors.refused}, "
          f"closed by the server {errors.closed}, daphne log Tracebacks {logs['daphne'][0]} / 500s {logs['daphne'][1]}, "
          f"run_bots Tracebacks {logs['run_bots'][0]}, run_clocks Tracebacks {logs['run_clocks'][0]}); "
          f"deltas on a base the page did not hold: {errors.gaps}")
    print(f"database: {out['size_before'] / 2**20:.1f} MB before, {out['size_after'] / 2**20:.1f} MB after")
    print(f"daphne RSS: {out.get('rss_start', float('nan')):.0f} MB at start, "
          f"{out.get('rss_before', float('nan')):.0f} MB with the sockets open, {out.get('rss_after', float('nan')):.0f} MB after; "
          f"run_bots RSS at the end {out.get('bots_rss', float('nan')):.0f} MB")
    print(f"CPU used: daphne {out.get('daphne_cpu', float('nan')):.0f} s, run_bots "
          f"{out.get('bots_cpu', float('nan')):.0f} s (each from its start, over {out.get('played', 0):.0f} s of play)")
    print()
    print("| game | matches | finished | bot moves | move-to-screen p50 / p95 |")
    print("| --- | --- | --- | --- | --- |")
    game = {m["id"]: m["game"] for m in out["matches"]}
    for slug in args.games:
        mine = [m for m in final if game[m["id"]] == slug]
        if not mine:
            continue
        print(f"| {slug} | {len(mine)} | {sum(m['status'] == 'finished' for m in mine)} "
              f"| {sum(m.get('moves', 0) for m in mine)} | {pct(times[slug], 50):.0f} / {pct(times[slug], 95):.0f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=2, help="spectator sockets per match")
    parser.add_argument("--seconds", type=float, default=120, help="stop playing after this long")
    parser.add_argument("--strength", choices=["easy", "normal", "strong"], default="easy")
    parser.add_argument("--games", type=lambda s: [g.strip() for g in s.split(",") if g.strip()], default=GAMES,
                        help="comma-separated slugs, dealt out in turn (default: the five games)")
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    if args.matches < 1 or args.spectators < 1 or args.seconds <= 0:
        parser.error("--matches and --spectators need at least 1, --seconds more than 0")
    if not args.redis.startswith(("redis://127.0.0.1", "redis://localhost")):
        parser.error("--redis must be on 127.0.0.1: the soak plays against this machine only")

    workdir = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    prefix = f"soak{os.getpid()}"
    env = environment(workdir, f"bench_soak_{os.getpid()}", REDIS_URL=args.redis, DEATHMATCH_REDIS_PREFIX=prefix)
    url = env["DATABASE_URL"]
    database = (f"PostgreSQL database {url.rsplit('/', 1)[1]}" if url.startswith("postgres")
                else f"SQLite {url.removeprefix('sqlite:///')}")
    try:
        out = asyncio.run(play(args, env, workdir))
    finally:
        drop_database(env)
        forget_redis(args.redis, prefix)
    report(args, out, database + f", Redis {args.redis}; logs in {workdir}")


if __name__ == "__main__":
    main()
