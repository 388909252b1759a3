"""Defect 1: idle websockets over Redis must stay open.

redis-py 8 gives every connection a 5 s socket read timeout, which was the same as the
list-based layer's blocking read: an idle consumer's receive died with "Timeout reading" and
close code 1011 every few seconds (the pub/sub layer's subscriber reads must not either).  Here a daphne with
its own Redis is configured with a SHORT read timeout (so the test idles
more than twice that in well under a minute) and ten idle spectator sockets
must all stay open, answer a refresh and still get a live move afterwards.
The 10-minute variant is in `bench/chaos_heavy.sh`.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

from .conftest import Daphne, RedisServer, Socket, make_match

pytestmark = [pytest.mark.chaos, pytest.mark.redis]

#: DEATHMATCH_REDIS_SOCKET_TIMEOUT given to the server (bench/chaos_heavy.sh: the default)
READ_TIMEOUT = float(os.environ.get("DEATHMATCH_CHAOS_READ_TIMEOUT", "4"))
#: the idle time is what this test proves, so it is waited out: more than twice the read timeout
#: (bench/chaos_heavy.sh: 10 minutes)
IDLE = float(os.environ.get("DEATHMATCH_CHAOS_IDLE", "0")) or 2 * READ_TIMEOUT + 4
SOCKETS = 10


def test_idle_sockets_stay_open_over_redis(chaos_db: str, redis_server: RedisServer, workdir: Path) -> None:
    server = Daphne(workdir, chaos_db, redis_server.url,
                    DEATHMATCH_REDIS_SOCKET_TIMEOUT=str(READ_TIMEOUT))
    try:
        match = make_match(server)
        asyncio.run(_idle(server, match))
        log = server.log_text()
        assert "Timeout reading" not in log, log[-3000:]
        assert "Traceback" not in log, log[-3000:]
    finally:
        server.stop()


async def _idle(server: Daphne, match: dict) -> None:  # type: ignore[type-arg]
    watchers = [Socket(f"{server.ws}/ws/m/{match['watch']}/", server.url) for _ in range(SOCKETS)]
    seat = Socket(f"{server.ws}/ws/m/{match['seats'][1]}/", server.url)
    for sock in [*watchers, seat]:
        await sock.open()
    for sock in [*watchers, seat]:
        assert await sock.wait_frames(1), "no current state on connect"
    start = time.monotonic()
    await asyncio.sleep(IDLE)
    held = sum(s.open_now for s in watchers)
    closed = [(s.closed_code, round((s.closed_at or start) - start, 1)) for s in watchers if not s.open_now]
    print(f"\nidle sockets over Redis: {held}/{SOCKETS} open after {IDLE:.0f} s idle "
          f"(socket read timeout {READ_TIMEOUT:.0f} s); closed: {closed}")
    assert held == SOCKETS, f"idle sockets were closed (code, seconds): {closed}"
    assert seat.open_now
    # still alive both ways: a refresh is answered, and a move is broadcast to every watcher
    before = [len(s.frames) for s in watchers]
    await watchers[0].send({"type": "refresh"})
    assert await watchers[0].wait_match('id="live-meta"', since=before[0])
    seen = [len(s.frames) for s in watchers]
    await seat.send({"type": "move", "text": "place C3", "version": _version(seat.last_state())})
    for sock, count in zip(watchers, seen, strict=True):
        assert await sock.wait_match(r'id="sq-C3"[^>]*data-value="R"', since=count), "the move did not reach an idle watcher"
    # the cell, whole (a full update) or as a patch of what changed (a delta names it by its id)
    assert any(re.search(r'id="sq-C3"[^>]*data-value="R"', f) for f in watchers[-1].frames[seen[-1]:])
    for sock in [*watchers, seat]:
        await sock.close()


def _version(fragment: str) -> int:
    import re

    found = re.search(r'data-version="(\d+)"', fragment)
    assert found, fragment[:500]
    return int(found.group(1))
