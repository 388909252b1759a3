"""Defect 2: one web process holds 2,000 sockets over Redis.

channels_redis's plain pool capped at 100 connections: 1,000 sockets opening
at once gave 893 MaxConnectionsError, dead channels in groups and presence
counters that never went down.  Here 2,000 sockets open on ONE daphne
process (its own Redis), each gets the current state, the dashboard counts
2,000, then all leave: 0 errors, the group is empty and presence counts 0.
The sockets hold no channel-layer channel (web/consumers.py): the one member of the
audience's group in Redis is this process's relay.
`bench/chaos_heavy.sh` opens more (DEATHMATCH_CHAOS_SOCKETS).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

from .conftest import PRODUCTION, Daphne, Http, RedisServer, Socket, make_match

pytestmark = [pytest.mark.chaos, pytest.mark.redis]

SOCKETS = int(os.environ.get("DEATHMATCH_CHAOS_SOCKETS", "2000"))
BATCH = 200


def test_two_thousand_sockets_connect_and_leave_on_one_process(chaos_db: str, redis_server: RedisServer,
                                                              workdir: Path) -> None:
    server = Daphne(workdir, chaos_db, redis_server.url, **PRODUCTION)
    try:
        match = make_match(server)
        figures = asyncio.run(_storm(server, redis_server, match))
        print("\n" + "\n".join(figures))
        log = server.log_text()
        # ("took too long to shut down": daphne killed a disconnect still running 10 s after its socket
        # closed, as it did to hundreds when each socket held a layer channel)
        for bad in ("MaxConnectionsError", "Traceback", "Too many connections", "No connection available",
                    "took too long to shut down"):
            assert bad not in log, log[-3000:]
    finally:
        server.stop()


def _group_size(redis: RedisServer, match_id: int, *, relay: bool = False) -> int:
    """Subscribers of the spectators' own group (none: sockets hold no layer channel), or of its relay
    group (one per web process: matches/live/relay.py), as Redis counts them (PUBSUB NUMSUB)."""
    names = [n for n in redis.command("PUBSUB", "CHANNELS", f"*match-{match_id}-watch").split()
             if n and ("relay-" in n) == relay]
    counts = redis.command("PUBSUB", "NUMSUB", *names).split()[1::2] if names else []
    return sum(int(count) for count in counts)


def _presence(http: Http, host: str) -> str:
    _, html, _ = http.get(f"/h/{host}/")
    return html.split('id="presence"', 1)[1].split("</section>", 1)[0]


async def _storm(server: Daphne, redis: RedisServer, match: dict) -> list[str]:  # type: ignore[type-arg]
    figures: list[str] = []
    http = Http(server.url)
    sockets = [Socket(f"{server.ws}/ws/m/{match['watch']}/", server.url) for _ in range(SOCKETS)]
    started = time.monotonic()
    errors: list[BaseException] = []
    for first in range(0, SOCKETS, BATCH):
        batch = sockets[first:first + BATCH]
        results = await asyncio.gather(*(s.open(timeout=120) for s in batch), return_exceptions=True)
        errors += [r for r in results if isinstance(r, BaseException)]
    # daphne drops a handshake its application has not accepted within 5 s (--websocket_connect_timeout)
    waits = sorted(s.open_seconds for s in sockets if s.open_seconds is not None)
    if errors:  # what daphne said about them (rejections, errors), for the failure's message
        said = [line for line in server.log_text().splitlines() if "WSCONNECT" not in line and "WSCONNECTING" not in line]
        raise AssertionError(f"{len(errors)} of {SOCKETS} handshakes failed ({errors[:2]}); the slowest accepted "
                             f"took {waits[-1] if waits else 0:.1f} s; daphne's log:\n" + "\n".join(said[-40:]))
    figures.append(f"handshakes, {BATCH} at a time: median {waits[len(waits) // 2]:.2f} s, "
                   f"95th percentile {waits[len(waits) * 95 // 100]:.2f} s, slowest {waits[-1]:.2f} s")
    got = await asyncio.gather(*(s.wait_frames(1, timeout=120) for s in sockets))
    opened = time.monotonic() - started
    held = sum(s.open_now for s in sockets)
    figures.append(f"{SOCKETS} sockets on one process: {held} open with the current state "
                   f"({sum(got)} got it) in {opened:.1f} s; {len(errors)} connection errors")
    assert all(got) and held == SOCKETS
    in_group = _group_size(redis, match["id"])
    deadline = time.monotonic() + 30
    while True:
        presence = await asyncio.to_thread(_presence, http, match["host"])
        shown = re.search(r"Spectators <span class=\"muted\">\u00d7(\d+)", presence)
        if (shown and int(shown.group(1)) == SOCKETS) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    figures.append(f"group members in Redis: {in_group}; dashboard shows spectators "
                   f"x{shown.group(1) if shown else '?'}")
    assert in_group == 0  # no channel per socket: nothing of each socket is kept in Redis but presence
    assert _group_size(redis, match["id"], relay=True) == 1  # one process: one relay member carries the moves
    assert shown and int(shown.group(1)) == SOCKETS, presence
    # a broadcast reaches every one of them
    _, html, _ = await asyncio.to_thread(http.get, f"/h/{match['host']}/")
    seq = re.search(r'id="host-seq" name="host_seq" value="(\d+)"', html)
    counts = [len(s.frames) for s in sockets]
    status, _, _ = await asyncio.to_thread(
        http.post, f"/h/{match['host']}/act/", {"action": "pause", "host_seq": seq.group(1) if seq else ""})
    assert status == 200
    reached = await asyncio.gather(*(s.wait_match('data-paused="1"', since=n, timeout=120)
                                     for s, n in zip(sockets, counts, strict=True)))
    figures.append(f"a host action's broadcast reached {sum(reached)}/{SOCKETS} sockets")
    assert all(reached)
    started = time.monotonic()
    await asyncio.gather(*(s.close() for s in sockets))
    deadline = time.monotonic() + 60
    gone = '<li class="off"><span class="dot"></span>Spectators'
    # (one spectator left is shown "on" without a count: wait for "off", not for the count to go)
    while (_group_size(redis, match["id"]) or _group_size(redis, match["id"], relay=True) or gone not in (presence := await asyncio.to_thread(
            _presence, http, match["host"]))) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    left = _group_size(redis, match["id"]) + _group_size(redis, match["id"], relay=True)
    figures.append(f"all left in {time.monotonic() - started:.1f} s: group members {left}, "
                   f"spectators on the dashboard: {'none' if 'Spectators' in presence and chr(215) not in presence else presence}")
    assert left == 0
    assert gone in presence, presence
    return figures
