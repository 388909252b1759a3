"""bench/fanout.py --procs K: the spectators through the repository's nginx (config/nginx/), spread
over K daphne processes (tests/chaos/cluster.py starts them), against one process.

    .venv/bin/python bench/fanout.py --procs 2 --layer core              # N = 100, 1000, 2000
    .venv/bin/python bench/fanout.py --procs 2 --layer core --n 2000 --restart-sockets 1500

For each N (fanout.py's app phase: a move sent on a seat's socket, timed until the LAST spectator
socket holds the new version):
- one process, its sockets connected to it directly, then through nginx: the proxy's own cost;
- K processes behind nginx: p95 against the same run's one-process p95 (the issue's target: at
  most 0.6 x for N = 2,000 over 2 processes on 2 cores);
- when the servers had written it: from the mover's send until the last process wrote the update to
  its last spectator socket (the servers' part, without the client that reads every socket on the
  same two cores);
- the longest loop stall of any process during each (collections included: every daphne runs
  bench/gcpause_asgi.py's wrapper of the app, which logs each stall of 20 ms or more).
Then a rolling restart of 3 processes holding --restart-sockets pages (SIGTERM one at a time, each
started again before the next; a move every 200 ms meanwhile): for each restart the seconds until
every page is back and shows the current version, and each page's time from losing its socket
to showing the current state again (p50 / p99 / max).  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.stats import pct

APP = "bench.gcpause_asgi:application"


def _cluster_env(env: dict[str, str], gclog: Path) -> dict[str, str]:
    keep = ("DEATHMATCH_CHANNEL_LAYER", "DEATHMATCH_REDIS_PREFIX", "DATABASE_CONN_MAX_AGE", "DJANGO_LOG_LEVEL")
    return {**{k: env[k] for k in keep if k in env}, "BENCH_GC_LOG": str(gclog)}


def _written(gclog: Path, sent_at: dict[int, float], start: float, end: float) -> list[float]:
    """Per timed move: ms from the move's send until the last process wrote it to its last spectator
    socket (the servers' part of the figure, without the client reading 2,000 sockets)."""
    last: dict[int, float] = {}
    for parts in (line.split() for line in gclog.read_text().splitlines()):
        if (parts and parts[0] == "wrote" and start <= float(parts[1]) <= end and parts[2].isdigit()
                and int(parts[2]) in sent_at):
            last[int(parts[2])] = max(last.get(int(parts[2]), 0.0), float(parts[1]))
    return [(last[v] - sent_at[v]) * 1000 for v in sent_at if v in last]


def _longest_stall(gclog: Path, start: float, end: float) -> float:
    stalls = [float(parts[2]) for parts in (line.split() for line in gclog.read_text().splitlines())
              if parts and parts[0] in ("stall", "gc2") and start <= float(parts[1]) <= end]
    return max(stalls, default=0.0)


async def _timed(label: str, n: int, port: int, args: argparse.Namespace, gclog: Path) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    from bench.fanout import app_phase, new_match

    match = await sync_to_async(new_match)()
    start = time.time()
    result = await app_phase(n, args.moves, port, match, args.pause, args.warmup)
    end = time.time()
    result["stall"] = _longest_stall(gclog, start, end)
    result["written"] = _written(gclog, result["sent_at"], start, end)
    print(f"  {label} N={n}: p50 {pct(result['lat'], 50):.0f} ms, p95 {pct(result['lat'], 95):.0f} ms, "
          f"written by the servers p50 {pct(result['written'], 50):.0f} ms, p95 {pct(result['written'], 95):.0f} ms, "
          f"longest stall {result['stall']:.0f} ms, errors {result['errors']}", flush=True)
    return result


async def _spread(args: argparse.Namespace, env: dict[str, str], workdir: Path) -> list[dict[str, Any]]:
    from tests.chaos.cluster import Cluster

    gclog = workdir / "gc.log"
    gclog.write_text("")
    extra = _cluster_env(env, gclog)
    rows: list[dict[str, Any]] = []
    one = Cluster(workdir, env["DATABASE_URL"], env["REDIS_URL"], procs=1, app=APP, **extra)
    try:
        assert one.nginx is not None
        for n in args.n:
            rows.append({"n": n, "direct": await _timed("1 process, direct", n, one.web[0].port, args, gclog),
                         "proxied": await _timed("1 process, nginx", n, one.nginx.port, args, gclog)})
    finally:
        one.stop()
    many = Cluster(workdir, env["DATABASE_URL"], env["REDIS_URL"], procs=args.procs, app=APP, **extra)
    try:
        assert many.nginx is not None
        for row in rows:
            row["spread"] = await _timed(f"{args.procs} processes, nginx", row["n"], many.nginx.port, args, gclog)
    finally:
        many.stop()
    return rows


async def _rolling(args: argparse.Namespace, env: dict[str, str], workdir: Path) -> dict[str, Any]:
    from tests.chaos.cluster import Cluster, Mover, Page, wait_for
    from tests.chaos.conftest import make_match

    gclog = workdir / "gc-rolling.log"
    gclog.write_text("")
    cluster = Cluster(workdir, env["DATABASE_URL"], env["REDIS_URL"], procs=3, app=APP, **_cluster_env(env, gclog))
    try:
        match = make_match(cluster.web[0], slug="gomoku")
        pages = [Page(f"{cluster.ws}/ws/m/{match['watch']}/", cluster.url) for _ in range(args.restart_sockets)]
        for start in range(0, len(pages), 100):
            batch = pages[start:start + 100]
            for page in batch:
                page.start()
            await wait_for(lambda batch=batch: all(p.ready.is_set() for p in batch), "pages open", 120)
        mover = await asyncio.to_thread(Mover, cluster, match)
        stop = asyncio.Event()
        moving = asyncio.get_running_loop().create_task(mover.every(0.2, stop))
        await asyncio.sleep(2)
        until_current = []
        for index in range(3):
            started = time.monotonic()
            closes = sum(len(p.closes) for p in pages)
            stopping = cluster.terminate(index)
            await wait_for(lambda closes=closes: sum(len(p.closes) for p in pages) > closes,
                           "its pages notice", 30)
            # back, and current (a move may be on its way meanwhile: one version behind counts as current)
            await wait_for(lambda: all(p.lost_at is None and p.version is not None and p.version >= mover.version - 1
                                       for p in pages), "every page back and current", 120)
            until_current.append(time.monotonic() - started)
            await asyncio.to_thread(stopping.wait, 30)
            await asyncio.to_thread(cluster.start, index)
        stop.set()
        await moving
        back = sorted(s for p in pages for s in p.back_after)
        await asyncio.gather(*(p.stop() for p in pages))
        return {"until_current": until_current, "back": back, "moves": mover.applied,
                "statuses": dict(mover.statuses), "retried": mover.retried,
                "lost": sum(1 for p in pages if p.closes)}
    finally:
        cluster.stop()


def main_procs(args: argparse.Namespace, env: dict[str, str]) -> None:
    import os

    workdir = Path(tempfile.mkdtemp(prefix="bench-procs-"))
    print(f"load average before the run: {os.getloadavg()[0]:.2f}", flush=True)
    rows = asyncio.run(_spread(args, env, workdir)) if args.n else []
    print()
    print(f"| spectators | 1 process direct p50 / p95 | 1 process via nginx p50 / p95 | {args.procs} processes via nginx "
          "p50 / p95 | p95: K procs / 1 direct | written by the servers p95 (1 direct / K procs) "
          "| longest loop stall (1 direct / K procs) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        d, p, s = row["direct"], row["proxied"], row["spread"]
        print(f"| {row['n']} | {pct(d['lat'], 50):.0f} / {pct(d['lat'], 95):.0f} ms "
              f"| {pct(p['lat'], 50):.0f} / {pct(p['lat'], 95):.0f} ms "
              f"| {pct(s['lat'], 50):.0f} / {pct(s['lat'], 95):.0f} ms "
              f"| {pct(s['lat'], 95) / pct(d['lat'], 95):.2f}x "
              f"| {pct(d['written'], 95):.0f} / {pct(s['written'], 95):.0f} ms "
              f"({pct(s['written'], 95) / pct(d['written'], 95):.2f}x) "
              f"| {d['stall']:.0f} / {s['stall']:.0f} ms |")
    if args.restart_sockets:
        rolled = asyncio.run(_rolling(args, env, workdir))
        back = rolled["back"]
        print()
        print(f"rolling restart of 3 processes holding {args.restart_sockets} pages, a move every 200 ms "
              f"({rolled['moves']} moves, answers {rolled['statuses']}, {rolled['retried']} sent again): "
              f"until every page was back and current after each SIGTERM: "
              f"{', '.join(f'{s:.1f}' for s in rolled['until_current'])} s; "
              f"{len(back)} reconnections, a page back with the current state after "
              f"p50 {statistics.median(back) if back else 0:.2f} / p99 {pct(back, 99) if back else 0:.2f} / "
              f"max {max(back, default=0):.2f} s")
    print(f"load average after the run: {os.getloadavg()[0]:.2f} (2 cores, shared: load distorts these figures)")
