"""Full garbage collections and loop stalls of one daphne holding 2,000 sockets.

    .venv/bin/python bench/gcpause.py                 # 2,000 spectator sockets, 3 rounds
    .venv/bin/python bench/gcpause.py --sockets 1000 --rounds 5

Starts a daphne of its own (`bench/gcpause_asgi.py`: the app, plus a log of every
generation-2 collection and every stall of the event loop of 20 ms or more) on a database of
its own (bench/backlog.py) and the Redis of REDIS_URL (a key prefix of its own; none: the
in-memory layer).  Each round: N spectator sockets open (in batches of 200) and get the page;
while all are open every socket asks for the page again (`refresh`, in waves of 200: the
allocations of real traffic); then all close.  Prints, per phase, the full collections (count,
longest) and the longest loop stall, and the process's RSS after each round.  Compare two
commits by running it on each; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.backlog import HOST, environment, make_match, start_daphne
from bench.wsclient import WebSocket

BATCH = 200


async def _drain(ws: WebSocket, got: asyncio.Queue[None]) -> None:
    while await ws.recv() is not None:
        got.put_nowait(None)


async def _round(port: int, path: str, n: int, marks: list[tuple[str, float]]) -> None:
    sockets: list[tuple[WebSocket, asyncio.Task[None], asyncio.Queue[None]]] = []
    marks.append(("open", time.time()))
    for first in range(0, n, BATCH):
        opened = await asyncio.gather(*(WebSocket.connect(HOST, port, path, timeout=120)
                                        for _ in range(min(BATCH, n - first))))
        for ws in opened:
            got: asyncio.Queue[None] = asyncio.Queue()
            sockets.append((ws, asyncio.create_task(_drain(ws, got)), got))
    await asyncio.gather(*(asyncio.wait_for(got.get(), 120) for _, _, got in sockets))
    marks.append(("hold", time.time()))
    for first in range(0, n, BATCH):
        wave = sockets[first:first + BATCH]
        for ws, _, _ in wave:
            ws.send('{"type": "refresh"}')
        await asyncio.gather(*(asyncio.wait_for(got.get(), 120) for _, _, got in wave))
    marks.append(("close", time.time()))
    for ws, task, _ in sockets:
        await ws.close()
        task.cancel()
    await asyncio.sleep(3)  # the server finishes the disconnects (the figures are the server's)


def _rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _report(log: Path, marks: list[tuple[str, float]]) -> None:
    events = [line.split() for line in log.read_text().splitlines() if line.startswith(("gc2 ", "stall "))]
    bounds = [*marks, ("end", float("inf"))]
    for (phase, start), (_, end) in itertools.pairwise(bounds):
        full = [float(e[2]) for e in events if e[0] == "gc2" and start <= float(e[1]) < end]
        stalls = [float(e[2]) for e in events if e[0] == "stall" and start <= float(e[1]) < end]
        print(f"    {phase:>5}: {len(full)} full collections, longest {max(full, default=0):.0f} ms; "
              f"longest loop stall {max(stalls, default=0):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    workdir = Path(tempfile.mkdtemp(prefix="bench-gcpause-"))
    gclog = workdir / "gc.log"
    env = environment(workdir, "bench_gcpause", REDIS_URL=os.environ.get("REDIS_URL", ""),
                      DEATHMATCH_REDIS_PREFIX=f"benchgc{os.getpid()}", BENCH_GC_LOG=str(gclog))
    path = f"/ws/m/{make_match(env)['watch']}/"
    proc, port = start_daphne(env, workdir / "daphne.log", app="bench.gcpause_asgi:application")
    try:
        print(f"{args.sockets} spectator sockets a round; daphne RSS {_rss(proc.pid):.0f} MB at start")
        for n in range(1, args.rounds + 1):
            marks: list[tuple[str, float]] = []
            asyncio.run(_round(port, path, args.sockets, marks))
            print(f"  round {n}: RSS {_rss(proc.pid):.0f} MB", flush=True)
            _report(gclog, marks)
        killed = (workdir / "daphne.log").read_text(errors="replace").count("took too long to shut down")
        print(f"  applications killed after their socket closed: {killed}")
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
