"""Live fan-out benchmark: a move on every screen vs a bare Channels group_send.

    .venv/bin/python bench/fanout.py                    # N = 10,100,1000,2000, 12 moves each
    .venv/bin/python bench/fanout.py --n 10,100 --moves 8 --layer pubsub
    .venv/bin/python bench/fanout.py --procs 2 --layer core   # over 2 processes behind nginx: fanout_procs.py

Starts one daphne (DEBUG off) on PostgreSQL + Redis (DATABASE_URL /
REDIS_URL, defaults: the local services, database `bench_fanout`), then for
each N: opens N spectator sockets plus the host and both seats of a fresh
Lance Assembly match, plays moves over a seat's socket and times each one
from the send until the LAST spectator socket holds the new version; then
the host's chat lines in the spectators' room the same way, and the moves
again in alternating blocks with and without 5 chat lines a second flowing (issue 24).  In the
same run it times a bare Channels consumer `group_send`ing a full page (the
spectator's whole-page update, as sent on connect) to N other sockets on the
same daphne and Redis.  It prints p50/p95 per N, the app/bare ratio, the
bytes per update and, measured in this process against the same database,
the server time of a move (lock, rules, log, commit, render of every
audience, hand-off) and its query count.  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stats import pct  # noqa: E402
from bench.wsclient import WebSocket  # noqa: E402

META = re.compile(r'id="live-meta"[^>]*?data-bout="(\d+)"[^>]*?data-version="(\d+)"(?:[^>]*?data-base="(\d*)")?')
HOST = "127.0.0.1"
#: a chat line of the chat phase (the host writes in the spectators' room)
CHAT = re.compile(r"bench chat (\d+)")
TRACE: Any = None  # --trace: this process's moves and arrivals, beside daphne's steps
#: moves timed in a row with chat flowing, then without (issue 24's comparison)
BLOCK = 5


# -- setup --------------------------------------------------------------------------------


def environment(args: argparse.Namespace) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": args.database,
        "REDIS_URL": args.redis,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "bench-only",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEATHMATCH_INPROCESS_CLOCKS": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
        "DEATHMATCH_CHANNEL_LAYER": args.layer,
        "DEATHMATCH_REDIS_PREFIX": f"bench{os.getpid()}",
        "DATABASE_CONN_MAX_AGE": "60",
        "BENCH_TRACE": args.trace,
    }
    return env


def create_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def django_setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def new_match() -> Any:
    from matches.play import services

    match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"])
    services.start_match(match, starting_seat=1)
    match.refresh_from_db()
    return match


class Chooser:
    """Legal Lance Assembly moves that keep the bout going (seeded, repeatable)."""

    def __init__(self, match: Any, seed: int) -> None:
        self.game = match.game
        bout = match.current_bout
        self.state = self.game.load(bout.state)
        self.version = bout.version
        self.random = random.Random(seed)

    def next(self) -> tuple[int, str]:
        seat = min(self.game.to_act(self.state))
        options = list(itertools.islice(self.game.legal_actions(self.state, seat), 400))
        self.random.shuffle(options)
        for action in options:
            after = self.game.apply(self.state, seat, action)
            if self.game.result(after) is None:
                self.state = after
                return seat, self.game.format(action)
        raise RuntimeError("no move keeps the bout going")


# -- server time of a move (in this process) --------------------------------------------------


def server_time(moves: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches.core import events
    from matches.live import drawing, fanout
    from matches.play import services

    prepare = drawing.prepare
    handed: list[tuple[Any, ...]] = []
    # the broadcast is handed off after commit: render here, in line, and time it
    events.unsubscribe(fanout.notify)
    events.subscribe(lambda *args: handed.append(args))
    match = new_match()
    chooser = Chooser(match, 7)
    totals, submits, queries = [], [], []
    for _ in range(moves):
        seat, text = chooser.next()
        t0 = time.perf_counter()
        with CaptureQueriesContext(connection) as ctx:
            services.submit(match, seat, text, chooser.version)
            t1 = time.perf_counter()
            while handed:
                prepare(*handed.pop())
        t2 = time.perf_counter()
        chooser.version += 1
        totals.append((t2 - t0) * 1000)
        submits.append((t1 - t0) * 1000)
        queries.append(len(ctx.captured_queries))
    return {
        "total_ms": statistics.median(totals),
        "submit_ms": statistics.median(submits),
        "queries": statistics.median(queries),
        "queries_max": max(queries),
    }


# -- the live run ---------------------------------------------------------------------------


class Tracker:
    """Which version each spectator socket holds; when all N reached one."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.reached: dict[int, int] = {}
        self.done: dict[int, asyncio.Event] = {}
        self.done_at: dict[int, float] = {}
        self.errors = 0
        self.retries = 0
        self.gaps = 0
        self.sizes: dict[int, int] = {}
        self.chat_reached: dict[int, int] = {}
        self.chat_done: dict[int, asyncio.Event] = {}
        self.chat_at: dict[int, float] = {}

    def chat_event(self, line: int) -> asyncio.Event:
        return self.chat_done.setdefault(line, asyncio.Event())

    def saw_chat(self, line: int) -> None:
        count = self.chat_reached.get(line, 0) + 1
        self.chat_reached[line] = count
        if count == self.n:
            self.chat_at[line] = time.perf_counter()
            self.chat_event(line).set()

    def event(self, version: int) -> asyncio.Event:
        return self.done.setdefault(version, asyncio.Event())

    def saw(self, old: int, new: int) -> None:
        now = time.perf_counter()
        for v in range(old + 1, new + 1):
            count = self.reached.get(v, 0) + 1
            self.reached[v] = count
            if count == self.n:
                self.done_at[v] = now
                self.event(v).set()


async def reader(ws: WebSocket, tracker: Tracker, first: asyncio.Future[str], record: bool, greet: bool) -> None:
    """Follow one socket; `greet`: its first message is the page on connect (not an update)."""
    held = 0
    while True:
        text = await ws.recv()
        if text is None:
            if not getattr(ws, "leaving", False):
                tracker.errors += 1
            return
        found = META.search(text)
        if not found:
            line = CHAT.search(text) if first.done() else None
            if line is not None and "beforeend:#chat-list-spectators" in text:
                tracker.saw_chat(int(line.group(1)))
            continue
        version = int(found.group(2))
        if not first.done():
            first.set_result(text)
            if greet:
                held = version
                continue
        base = found.group(3)
        if held and base and int(base) != held:
            tracker.gaps += 1
        if record and held:
            tracker.sizes[version] = len(text.encode())
        if version > held:
            tracker.saw(held, version)
            held = version


async def open_many(paths: list[str], port: int, tracker: Tracker, batch: int = 100,
                    greet: bool = True) -> tuple[list[Any], list[str]]:
    sockets: list[Any] = []
    firsts: list[str] = []
    for start in range(0, len(paths), batch):
        chunk = paths[start:start + batch]

        async def one(index: int, path: str) -> tuple[Any, str]:
            for attempt in range(3):  # a reset connection is tried again, like a browser's reconnect
                try:
                    ws = await WebSocket.connect(HOST, port, path)
                    break
                except ConnectionResetError:
                    if attempt == 2:
                        raise
                    tracker.retries += 1
                    await asyncio.sleep(0.5)
            first: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(reader(ws, tracker, first, index == 0, greet))
            text = await asyncio.wait_for(first, 60) if greet else ""
            return (ws, task), text

        results = await asyncio.gather(*(one(start + i, p) for i, p in enumerate(chunk)), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                tracker.errors += 1
                print(f"    connect failed: {result!r}", file=sys.stderr)
                continue
            sockets.append(result[0])
            firsts.append(result[1])
    return sockets, firsts


async def close_all(sockets: list[Any]) -> None:
    for ws, task in sockets:
        ws.leaving = True
        await ws.close()
        task.cancel()
    await asyncio.sleep(0.5)


async def app_phase(n: int, moves: int, port: int, match: Any, pause: float, warmup: int = 0) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    seats = await sync_to_async(lambda: {s.number: s.token for s in match.seats.all()})()
    tracker = Tracker(n)
    sockets, firsts = await open_many([f"/ws/m/{match.watch_token}/"] * n, port, tracker)
    if len(sockets) < n:
        tracker.n = len(sockets)
    others = Tracker(10**9)
    extra, _ = await open_many([f"/ws/m/{match.host_token}/", f"/ws/m/{seats[1]}/", f"/ws/m/{seats[2]}/"], port, others)
    movers = {1: extra[1][0], 2: extra[2][0]}
    chooser = await sync_to_async(Chooser)(match, n)
    latencies = []
    sent_at: dict[int, float] = {}  # version -> wall clock when its move was sent (timed moves)
    await asyncio.sleep(1.0)
    for index in range(warmup + moves):
        seat, text = chooser.next()
        target = chooser.version + 1
        event = tracker.event(target)
        if index >= warmup:
            sent_at[target] = time.time()
        t0 = time.perf_counter()
        if TRACE:
            TRACE.write(f"MOVE {t0:.6f}\n")
        movers[seat].send(json.dumps({"type": "move", "text": text, "version": chooser.version}))
        try:
            await asyncio.wait_for(event.wait(), 60)
        except TimeoutError:
            tracker.errors += 1
            print(f"    N={n}: version {target} did not reach every socket "
                  f"({tracker.reached.get(target, 0)}/{tracker.n})", file=sys.stderr)
            break
        if index >= warmup:
            latencies.append((tracker.done_at[target] - t0) * 1000)
        if TRACE:
            TRACE.write(f"DONE {tracker.done_at[target]:.6f}\n")
        chooser.version = target
        await asyncio.sleep(pause)
    # chat: a line of the host in the spectators' room, timed until the last spectator holds it
    host_ws, chat_lat, chat_no = extra[0][0], [], itertools.count()
    for _ in range(moves):
        line = next(chat_no)
        event = tracker.chat_event(line)
        t0 = time.perf_counter()
        host_ws.send(json.dumps({"type": "chat", "room": "spectators", "text": f"bench chat {line}"}))
        try:
            await asyncio.wait_for(event.wait(), 60)
        except TimeoutError:
            tracker.errors += 1
            break
        chat_lat.append((tracker.chat_at[line] - t0) * 1000)
        await asyncio.sleep(pause)

    # moves again, in blocks of BLOCK with and without 5 chat lines a second flowing (alternated, so
    # both see the same background load; the first move of each block settles and is not timed)
    chatting = asyncio.Event()

    async def chatter() -> None:
        while True:
            await chatting.wait()
            host_ws.send(json.dumps({"type": "chat", "room": "spectators", "text": f"bench chat {next(chat_no)}"}))
            await asyncio.sleep(0.2)

    flowing = asyncio.create_task(chatter())
    with_chat: list[float] = []
    without_chat: list[float] = []
    # this client's CPU share (process time / wall time) without and with chat: it reads every frame
    # on the same two cores as the server it measures
    cpu, wall = [0.0, 0.0], [0.0, 0.0]
    for index in range(2 * moves * (BLOCK + 1) // BLOCK):
        on = (index // (BLOCK + 1)) % 2 == 1
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        if on:
            chatting.set()
        else:
            chatting.clear()
        seat, text = chooser.next()
        target = chooser.version + 1
        event = tracker.event(target)
        t0 = time.perf_counter()
        if TRACE and index % (BLOCK + 1):
            TRACE.write(f"MOVE {t0:.6f}\n" + (f"CHAT {t0:.6f}\n" if on else ""))
        movers[seat].send(json.dumps({"type": "move", "text": text, "version": chooser.version}))
        try:
            await asyncio.wait_for(event.wait(), 60)
        except TimeoutError:
            tracker.errors += 1
            break
        if TRACE and index % (BLOCK + 1):
            TRACE.write(f"DONE {tracker.done_at[target]:.6f}\n")
        if index % (BLOCK + 1):
            (with_chat if on else without_chat).append((tracker.done_at[target] - t0) * 1000)
        chooser.version = target
        await asyncio.sleep(pause)
        cpu[on] += time.process_time() - cpu_start
        wall[on] += time.perf_counter() - wall_start
    flowing.cancel()
    full = firsts[0] if firsts else ""
    await close_all(sockets + extra)
    return {"lat": latencies, "sent_at": sent_at, "chat": chat_lat, "with_chat": with_chat, "without_chat": without_chat,
            "client_cpu": [c / w if w else 0.0 for c, w in zip(cpu, wall, strict=True)],
            "errors": tracker.errors + others.errors, "gaps": tracker.gaps,
            "retries": tracker.retries + others.retries,
            "bytes": statistics.median(tracker.sizes.values()) if tracker.sizes else 0, "full": full,
            "sockets": len(sockets)}


async def bare_phase(n: int, moves: int, port: int, pause: float, warmup: int = 0) -> dict[str, Any]:
    tracker = Tracker(n)
    sockets, _ = await open_many([f"/ws/bench/bare/n{n}/"] * n, port, tracker, greet=False)
    tracker.n = len(sockets)
    # the bare consumer sends no first message: count from version 0
    await asyncio.sleep(1.0)
    latencies = []
    trigger = sockets[0][0]
    for version in range(1, warmup + moves + 1):
        event = tracker.event(version)
        t0 = time.perf_counter()
        if TRACE:
            TRACE.write(f"MOVE {t0:.6f}\n")
        trigger.send(json.dumps({"fire": version}))
        try:
            await asyncio.wait_for(event.wait(), 60)
        except TimeoutError:
            tracker.errors += 1
            break
        if version > warmup:
            latencies.append((tracker.done_at[version] - t0) * 1000)
        if TRACE:
            TRACE.write(f"DONE {tracker.done_at[version]:.6f}\n")
        await asyncio.sleep(pause)
    await close_all(sockets)
    return {"lat": latencies, "errors": tracker.errors}


def start_daphne(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    daphne = str(Path(sys.executable).with_name("daphne"))
    handle = open(log, "wb")  # noqa: SIM115 (kept open for the child's lifetime)
    # a listen backlog for 2,000 sockets arriving at once (Twisted's default is 50: resets)
    endpoint = f"tcp:port={port}:interface={HOST}:backlog=2048"
    app = "bench.trace_asgi:application" if env.get("BENCH_TRACE") else "bench.fanout_asgi:application"
    proc = subprocess.Popen([daphne, "-e", endpoint, app],
                            cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    import socket

    for _ in range(150):
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(log.read_text()) from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("daphne did not start")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


async def run(args: argparse.Namespace, env: dict[str, str], page: Path) -> list[dict[str, Any]]:
    from asgiref.sync import sync_to_async

    port = free_port()
    log = Path(tempfile.gettempdir()) / f"bench-fanout-{port}.log"
    proc = start_daphne(env, port, log)
    rows = []
    try:
        for n in args.n:
            match = await sync_to_async(new_match)()
            app = await app_phase(n, args.moves, port, match, args.pause, args.warmup)
            if not page.read_text():
                page.write_text(META.sub(lambda m: m.group(0).replace(f'data-version="{m.group(2)}"',
                                                                      'data-version="0"'), app["full"], count=1))
            bare = await bare_phase(n, args.moves, port, args.pause, args.warmup)
            rows.append({"n": n, "app": app, "bare": bare})
            print(f"  N={n}: app p50 {pct(app['lat'], 50):.0f} ms, bare p50 {pct(bare['lat'], 50):.0f} ms, "
                  f"errors {app['errors'] + bare['errors']}", flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    errors = [line for line in log.read_text(errors="replace").splitlines() if "Traceback" in line or " 500 " in line]
    if errors:
        print(f"  daphne log {log}: {len(errors)} error lines", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="10,100,1000,2000", type=lambda s: [int(x) for x in s.split(",") if x])
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between moves")
    parser.add_argument("--warmup", type=int, default=2,
                        help="moves played first and not timed, on both paths (the first moves after the sockets "
                             "open also pay for cold caches: the database connection's, the first run of code)")
    parser.add_argument("--layer", choices=["core", "pubsub"], default=os.environ.get("DEATHMATCH_CHANNEL_LAYER", "pubsub"))
    parser.add_argument("--database", default=os.environ.get("BENCH_DATABASE_URL",
                                                             "postgres://postgres@127.0.0.1:5432/bench_fanout"))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    parser.add_argument("--server-moves", type=int, default=30)
    parser.add_argument("--trace", default="", help="a file: timestamps of each step of every move (bench/trace.py reads it)")
    parser.add_argument("--procs", type=int, default=0,
                        help="spread the spectators over this many daphne processes behind nginx (bench/fanout_procs.py)")
    parser.add_argument("--restart-sockets", type=int, default=0,
                        help="with --procs: also time a rolling restart of 3 processes holding this many pages")
    args = parser.parse_args()
    global TRACE
    if args.trace:
        Path(args.trace).write_text("")
        TRACE = open(args.trace, "a", buffering=1)  # noqa: SIM115

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    create_database(args.database)
    env = environment(args)
    django_setup(env)
    if args.procs:
        from bench.fanout_procs import main_procs

        main_procs(args, env)
        return

    st = server_time(args.server_moves)
    page = Path(tempfile.mkstemp(suffix=".html")[1])
    env["BENCH_BARE_PAGE"] = str(page)
    print(f"layer: {args.layer}; {args.moves} moves timed after "
          f"{args.warmup} untimed, on each path; load average before the run: {os.getloadavg()[0]:.2f}")
    rows = asyncio.run(run(args, env, page))
    bare_bytes = len(page.read_text().encode())
    page.unlink()

    print()
    print("| spectators | app p50 / p95 | bare group_send p50 / p95 | ratio p95 | errors |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        app, bare = row["app"], row["bare"]
        ratio = pct(app["lat"], 95) / pct(bare["lat"], 95) if bare["lat"] else float("nan")
        print(f"| {row['n']} | {pct(app['lat'], 50):.0f} / {pct(app['lat'], 95):.0f} ms "
              f"| {pct(bare['lat'], 50):.0f} / {pct(bare['lat'], 95):.0f} ms | {ratio:.2f}x "
              f"| {app['errors'] + bare['errors']} (gaps {app['gaps']}, connects retried {app['retries']}) |")
    print()
    print(f"| spectators | chat line p50 / p95 | move p50 / p95 without / with 5 chat lines a second "
          f"(blocks of {BLOCK} alternated) | p95 increase | client CPU without / with chat |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        app = row["app"]
        alone, chat = pct(app["without_chat"], 95), pct(app["with_chat"], 95)
        print(f"| {row['n']} | {pct(app['chat'], 50):.0f} / {pct(app['chat'], 95):.0f} ms "
              f"| {pct(app['without_chat'], 50):.0f} / {alone:.0f} ms, {pct(app['with_chat'], 50):.0f} / {chat:.0f} ms "
              f"| {100 * (chat / alone - 1):+.0f} % "
              f"| {100 * app['client_cpu'][0]:.0f} / {100 * app['client_cpu'][1]:.0f} % |")
    update = statistics.median([r["app"]["bytes"] for r in rows if r["app"]["bytes"]] or [0])
    print()
    print(f"bytes per spectator update (median): {update:.0f}; bare full page: {bare_bytes}")
    print(f"server time of a move (submit + render of every audience + hand-off), median: {st['total_ms']:.1f} ms "
          f"(submit alone {st['submit_ms']:.1f} ms); queries a move: median {st['queries']:.0f}, max {st['queries_max']}")
    print(f"load average after the run: {os.getloadavg()[0]:.2f} (2 cores, shared: load distorts these figures)")


if __name__ == "__main__":
    main()
