"""Defect 5: a Redis outage never breaks the match.

A live match on its own daphne and its own Redis, with spectators, both
seats and the host connected.  Redis is killed, then restarted; later frozen
(SIGSTOP), then thawed.  While it is away:

- moves over the websocket are saved and acknowledged, the host dashboard and
  the player page load, a host action is applied (how long each takes, against
  Redis up, is bench/redis_outage.py's figure: this test asserts no time);
- the dashboard shows presence as "unknown"; the skipped broadcast is logged;
- no socket is closed.

When Redis is back every page resyncs by itself (no reconnect, no reload):
bench/redis_outage.py runs this scenario and prints its figures.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Daphne, Http, RedisServer, Socket, host_seq, make_match, version_of

pytestmark = [pytest.mark.chaos, pytest.mark.redis]

WATCHERS = 3


def test_redis_killed_and_frozen_under_a_live_match(chaos_db: str, redis_server: RedisServer, workdir: Path) -> None:
    server = Daphne(workdir, chaos_db, redis_server.url,
                    DEATHMATCH_REDIS_SOCKET_TIMEOUT="6")
    try:
        match = make_match(server)
        try:
            figures = asyncio.run(_scenario(server, redis_server, match))
        except AssertionError as error:
            raise AssertionError(f"{error}\n--- daphne log ---\n{server.log_text()[-4000:]}") from None
        log = server.log_text()
        print("\n" + "\n".join(figures))
        assert "skipped" in log, log[-3000:]
        assert "Timeout reading" not in log
    finally:
        server.stop()


async def _timed_move(seat: Socket, text: str) -> float:
    count = len(seat.frames)
    started = time.monotonic()
    await seat.send({"type": "move", "text": text, "version": version_of(_last_board(seat))})
    deadline = started + 30
    while time.monotonic() < deadline:
        for frame in seat.frames[count:]:
            if 'id="move-error"' in frame:
                assert " hidden" in frame.split('id="move-error"', 1)[1].split(">", 1)[0], (
                    frame[:300], [re.findall(r'data-(?:base|version)="\d+"', f)[:3] for f in seat.frames])
                return time.monotonic() - started
        await asyncio.sleep(0.01)
    raise AssertionError(f"no answer to the move {text}")


def _last_board(sock: Socket) -> str:
    for frame in reversed(sock.frames):
        if "data-version" in frame:
            return frame
    raise AssertionError("no board yet")


async def _shows(watchers: list[Socket], coord: str, since: list[int], timeout: float = 60) -> float:
    """Seconds until every watcher got a frame showing a piece on `coord`."""
    started = time.monotonic()
    # the cell, whole (a full update) or as a patch of what changed (a delta names it by its id)
    pattern = re.compile(rf'id="sq-{coord}"[^>]*data-value="[A-Z]')
    while time.monotonic() - started < timeout:
        if all(any(pattern.search(f) for f in w.frames[n:]) for w, n in zip(watchers, since, strict=True)):
            return time.monotonic() - started
        await asyncio.sleep(0.02)
    raise AssertionError(f"watchers never showed {coord}")


async def _reached(sockets: list[Socket], version: int, timeout: float = 30) -> None:
    """Every page got a state of at least `version` (what was broadcast before Redis goes)."""
    deadline = time.monotonic() + timeout
    while not all(any(version_of(f) >= version for f in s.frames if "data-version" in f) for s in sockets):
        assert time.monotonic() < deadline, f"a page never reached version {version}"
        await asyncio.sleep(0.02)


async def _requests(http: Http, match: dict[str, Any], label: str, figures: list[str],
                    redis_away: bool) -> dict[str, float]:
    """The host page, a player page and a host action: each answered (and timed, for the figures)."""
    times: dict[str, float] = {}
    status, html, times["host page"] = await asyncio.to_thread(http.get, f"/h/{match['host']}/")
    assert status == 200
    presence = html.split('id="presence"', 1)[1].split("</section>", 1)[0]
    status, _, times["player page"] = await asyncio.to_thread(http.get, f"/p/{match['seats'][1]}/")
    assert status == 200
    status, body, times["host action"] = await asyncio.to_thread(
        http.post, f"/h/{match['host']}/act/",
        {"action": "clock", "seat": "2", "seconds": "30", "host_seq": host_seq(html)})
    assert status == 200 and "clock changed by +30 s" in body, body[:300]
    figures.append(f"{label}: " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items())
                   + f"; presence {'unknown' if 'unknown' in presence else 'known'}")
    if redis_away:
        assert "unknown" in presence, presence
    return times


async def _scenario(server: Daphne, redis: RedisServer, match: dict[str, Any]) -> list[str]:
    figures: list[str] = []
    http = Http(server.url)
    watchers = [Socket(f"{server.ws}/ws/m/{match['watch']}/", server.url) for _ in range(WATCHERS)]
    seat1 = Socket(f"{server.ws}/ws/m/{match['seats'][1]}/", server.url)
    seat2 = Socket(f"{server.ws}/ws/m/{match['seats'][2]}/", server.url)
    host = Socket(f"{server.ws}/ws/m/{match['host']}/", server.url)
    sockets = [*watchers, seat1, seat2, host]
    for sock in sockets:
        await sock.open()
        assert await sock.wait_frames(1)
    # Redis up: the figures' baseline
    since = [len(w.frames) for w in watchers]
    moved = await _timed_move(seat1, "place C3")
    await _shows(watchers, "C3", since)
    version = version_of(_last_board(seat1))
    await _reached(sockets, version)
    await _requests(http, match, "Redis up", figures, redis_away=False)
    await _reached(sockets, version + 1)  # the host action's broadcast reaches the pages before Redis goes
    figures.append(f"Redis up: move acknowledged in {moved:.2f} s")

    for outage, stop, resume in (("killed", redis.kill, redis.start), ("frozen", redis.freeze, redis.thaw)):
        move, coord = ("place D4", "D4") if outage == "killed" else ("place E5", "E5")
        mover = seat2
        if outage == "frozen":  # seat 1 moves first (seat 2 just moved)
            since = [len(w.frames) for w in watchers]
            await _timed_move(seat1, "place B2")
            await _shows(watchers, "B2", since)
            await _reached(sockets, version_of(_last_board(seat1)))
        stop()
        await asyncio.sleep(0.2)
        since = [len(w.frames) for w in watchers]
        seconds = await _timed_move(mover, move)
        figures.append(f"Redis {outage}: move acknowledged in {seconds:.2f} s")
        await _requests(http, match, f"Redis {outage}", figures, redis_away=True)
        assert all(s.open_now for s in sockets), [(s.closed_code) for s in sockets]
        await asyncio.sleep(1.0)
        resumed = time.monotonic()
        resume()
        recovered = await _shows(watchers, coord, since)
        figures.append(f"Redis {outage}: every watcher resynced {recovered:.2f} s after Redis returned "
                       f"({time.monotonic() - resumed:.2f} s)")
        assert all(s.open_now for s in sockets)
        # presence is known again (the pages re-registered), and the live path works
        deadline = time.monotonic() + 30
        while True:
            _, html, _ = await asyncio.to_thread(http.get, f"/h/{match['host']}/")
            presence = html.split('id="presence"', 1)[1].split("</section>", 1)[0]
            if "unknown" not in presence and f"\u00d7{WATCHERS}" in presence:
                break
            assert time.monotonic() < deadline, presence
            await asyncio.sleep(0.5)
    for sock in sockets:
        await sock.close()
    return figures
