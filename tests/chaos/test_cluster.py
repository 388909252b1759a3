"""Scale-out (issue 40): three daphne processes behind the repository's nginx template
(tests/chaos/cluster.py), 300 spectator pages spread over them, the seats moving through the proxy.

- every page gets every version in order, each a delta on the version it shows (never one a page
  would refetch for), and ends equal to a fresh load: each process's relay writes a socket what a
  drawing adds to the one it sent it, whichever process drew it, and drops a drawing older than
  that (matches/live/relay.py, delta.py);
- SIGTERM one process: it closes its sockets with 1012 and drains; its pages come back on the
  others and catch up: no version missed (no update made from a version a page did not show);
- SIGKILL one: its pages come back (1006), presence forgets the dead sockets by itself;
- a rolling restart of all three while a move comes every 200 ms: no move lost or applied twice,
  no 5xx, every page ends on the latest version;
- in each, no page ever gets a delta made from a version it does not show (check_pages).

How long pages took to come back is printed (run with -s): a figure, not a requirement (the
product's targets, 3 s after SIGTERM and 5 s after SIGKILL, are measured in bench/README.md);
the tests wait for the event itself with a generous limit.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tests import live_pages

from .cluster import NGINX, Cluster, Mover, Page, wait_for
from .conftest import Http, RedisServer, make_match, version_of

pytestmark = [pytest.mark.chaos, pytest.mark.redis]

PAGES = 300
PROCS = 3
MOVE_EVERY = 0.2
#: a generous limit for an event (pages back, versions caught up), never a requirement
WAIT = 60.0
#: sockets that close leave presence at once; those of a killed process expire after this (a heartbeat
#: is a third of it)
PRESENCE_TTL = "6"


@pytest.fixture(scope="module")
def cluster(chaos_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if NGINX is None:
        pytest.skip("nginx is not installed (.ci/install --test installs it)")
    workdir = tmp_path_factory.mktemp("cluster")
    redis = RedisServer(workdir)
    running = Cluster(workdir, chaos_db, redis.url, procs=PROCS, DEATHMATCH_PRESENCE_TTL=PRESENCE_TTL)
    yield running
    running.stop()
    redis.kill()


async def open_pages(cluster: Cluster, match: dict[str, Any], count: int = PAGES) -> list[Page]:
    """`count` spectator pages, opened at once (as after a link is shared)."""
    pages = [Page(f"{cluster.ws}/ws/m/{match['watch']}/", cluster.url) for _ in range(count)]
    for page in pages:
        page.start()
    await wait_for(lambda: all(p.ready.is_set() for p in pages), "pages open")
    return pages


def socket_counts(cluster: Cluster, logs_from: list[int]) -> list[int]:
    """Sockets each process accepted since `logs_from` (its log's length then), from its access log."""
    return [server.log_text()[start:].count('"WSCONNECT /ws/m/') for server, start in zip(cluster.web, logs_from,
                                                                                          strict=True)]


def log_marks(cluster: Cluster) -> list[int]:
    return [len(server.log_text()) for server in cluster.web]


def fresh_version(cluster: Cluster, match: dict[str, Any]) -> int:
    status, html, _ = Http(cluster.url).get(f"/w/{match['watch']}/")
    assert status == 200
    return version_of(html)


def spectators_shown(cluster: Cluster, match: dict[str, Any]) -> str:
    status, html, _ = Http(cluster.url).get(f"/w/{match['watch']}/")
    assert status == 200
    found = re.search(r'id="spectator-count">([^<]*)<', html)
    return found.group(1).strip() if found else ""


def check_pages(pages: list[Page], latest: int) -> None:
    """Every page shows `latest`, the version a fresh load shows, and never got a delta made from a
    version it did not show (live.js would refetch): a delta is made from the version before, shared
    only once that version's own updates were published (so it reaches every relay first: a relay's
    channel is one queue), a version whose drawing was lost (its process killed) is followed by a
    whole update, and a reconnecting socket gets its state on connect before any relayed update.
    Printed: updates a page dropped as older than what it showed (a reconnected page was sent the
    current state; updates in flight then came after it), and versions skipped by pages that kept
    their socket (a version whose drawing died with its process)."""
    assert all(p.version == latest for p in pages), Counter(p.version for p in pages)
    assert sum(p.gaps for p in pages) == 0, Counter(p.gaps for p in pages)
    kept = [p for p in pages if not p.closes]
    skipped = sum(p.shown[-1] - p.shown[0] + 1 - len(p.shown) for p in kept)
    print(f"updates older than the page's version: {sum(p.older for p in pages)}; versions skipped by the "
          f"{len(kept)} pages that kept their socket: {skipped}")


def load(cluster: Cluster, match: dict[str, Any]) -> str:
    """The spectators' page as a browser loads it before its socket opens."""
    status, html, _ = Http(cluster.url).get(f"/w/{match['watch']}/")
    assert status == 200
    return html


def equal_to_a_fresh_load(cluster: Cluster, pages: list[Page], loaded: str) -> None:
    """What each page holds, from `loaded` (the page as loaded before its socket opened) and what
    htmx swapped in since, is what a fresh load shows (the fragments the page's refetch gets): the
    board, the status, the clocks, the turn log."""
    http = Http(cluster.url)
    found = re.search(r'data-fragments-url="([^"]+)"', loaded)
    assert found is not None
    status, fresh, _ = http.get(found.group(1))
    assert status == 200 and 'id="board"' in fresh and live_pages.rows(fresh), fresh[:300]
    for page in pages:
        markup = page.markup(loaded)
        assert markup is not None
        assert live_pages.board(markup) == live_pages.board(fresh)
        assert live_pages.cells(markup) == live_pages.cells(fresh)
        assert live_pages.rows(markup) == live_pages.rows(fresh)


def figures(label: str, seconds: list[float]) -> str:
    if not seconds:
        return f"{label}: none"
    seconds = sorted(seconds)
    p99 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))]
    return (f"{label}: {len(seconds)} pages back, p50 {statistics.median(seconds):.2f} s, p99 {p99:.2f} s, "
            f"max {seconds[-1]:.2f} s")


async def close_pages(pages: list[Page]) -> None:
    await asyncio.gather(*(p.stop() for p in pages))


def test_pages_spread_over_the_processes_follow_every_move(cluster: Cluster) -> None:
    match = make_match(cluster.web[0], slug="gomoku")

    async def scenario() -> None:
        marks = log_marks(cluster)
        loaded = load(cluster, match)
        pages = await open_pages(cluster, match)
        counts = socket_counts(cluster, marks)
        print(f"\nsockets per process: {counts}")
        assert sum(counts) >= PAGES and min(counts) >= PAGES // PROCS // 2, counts  # spread, round robin
        mover = Mover(cluster, match)
        for _ in range(10):
            await mover.move()
        assert mover.statuses == Counter({200: 10}) and mover.applied == 10, mover.errors
        await wait_for(lambda: all(p.version == mover.version for p in pages), "every page current")
        latest = fresh_version(cluster, match)
        check_pages(pages, latest)
        # every socket got every version in order, each a delta on the one it showed but the first move's:
        # nobody had drawn the match while pages were open (they were sent their state on connect)
        first = latest - 10
        assert Counter(tuple(p.shown) for p in pages) == Counter({tuple(range(first, latest + 1)): PAGES})
        assert sum(p.gaps for p in pages) == 0 and sum(p.older for p in pages) == 0
        assert max(p.whole for p in pages) <= 1, Counter(p.whole for p in pages)
        equal_to_a_fresh_load(cluster, pages, loaded)
        await close_pages(pages)

    asyncio.run(scenario())
    # static files come from nginx itself (daphne answers with its own Server header)
    assert cluster.nginx is not None
    with urllib.request.urlopen(cluster.url + "/static/js/live.js", timeout=10) as response:
        assert response.headers["Server"] == "nginx"
    # the secret links reached nginx's access log only without their tokens
    logged = cluster.nginx.access_log()
    assert '"GET /ws/m/-/" 101' in logged and '"POST /p/-/move/" 200' in logged, logged[-500:]
    for token in (match["watch"], match["host"], *match["seats"].values()):
        assert token not in logged


@pytest.mark.parametrize("kill", [False, True], ids=["sigterm", "sigkill"])
def test_pages_of_a_stopped_process_come_back_on_the_others(cluster: Cluster, kill: bool) -> None:
    match = make_match(cluster.web[0], slug="gomoku")

    async def scenario() -> None:
        marks = log_marks(cluster)
        loaded = load(cluster, match)
        pages = await open_pages(cluster, match)
        mover = Mover(cluster, match)
        stop_moving = asyncio.Event()
        moving = asyncio.get_running_loop().create_task(mover.every(MOVE_EVERY, stop_moving))
        await asyncio.sleep(1)
        counts = socket_counts(cluster, marks)
        print(f"\nsockets per process: {counts}")
        victim = counts[0]
        assert victim >= PAGES // PROCS // 2, counts
        started = time.monotonic()
        if kill:
            cluster.kill(0)
        else:
            proc = cluster.terminate(0)
            await asyncio.to_thread(proc.wait, 30)
            drain_lines = re.findall(r"(?:SIGTERM|drain): .*", cluster.web[0].log_text())[-2:]
            print(f"SIGTERM: exited in {time.monotonic() - started:.2f} s ({'; '.join(drain_lines)})")
        await wait_for(lambda: sum(1 for p in pages if p.closes) >= victim, "the stopped process's pages see it")
        await wait_for(lambda: all(p.lost_at is None for p in pages), "every page back")
        lost = [p for p in pages if p.closes]
        await asyncio.sleep(1)
        stop_moving.set()
        await moving
        latest = mover.version
        await wait_for(lambda: all(p.version == latest for p in pages), "every page current")
        print(figures("SIGKILL" if kill else "SIGTERM", [s for p in lost for s in p.back_after]))
        assert len(lost) == victim, (len(lost), victim)  # exactly the sockets of the stopped process
        assert {p.closes[0] for p in lost} == ({1006} if kill else {1012})
        assert 500 not in mover.statuses and not mover.errors, (mover.statuses, mover.errors)
        check_pages(pages, fresh_version(cluster, match))
        equal_to_a_fresh_load(cluster, pages, loaded)
        if kill:  # the dead process's sockets expire from presence: the count is the pages open
            await wait_for(lambda: spectators_shown(cluster, match) == str(PAGES), "presence corrected")
        await close_pages(pages)
        cluster.start(0)

    asyncio.run(scenario())


def test_rolling_restart_while_moves_keep_coming(cluster: Cluster) -> None:
    match = make_match(cluster.web[0], slug="gomoku")

    async def scenario() -> None:
        loaded = load(cluster, match)
        pages = await open_pages(cluster, match)
        mover = Mover(cluster, match)
        start = mover.version
        stop_moving = asyncio.Event()
        moving = asyncio.get_running_loop().create_task(mover.every(MOVE_EVERY, stop_moving))
        drained = []
        for index in range(PROCS):
            drained.append(await asyncio.to_thread(cluster.restart, index))
            await wait_for(lambda: all(p.lost_at is None for p in pages), "every page back")
        await asyncio.sleep(1)
        stop_moving.set()
        await moving
        print(f"\nrolling restart: drains {', '.join(f'{s:.2f}' for s in drained)} s; {mover.applied} moves "
              f"(answers {dict(mover.statuses)}, {mover.retried} sent again); "
              + figures("pages", [s for p in pages for s in p.back_after]))
        assert 500 not in mover.statuses and not mover.errors, (mover.statuses, mover.errors)
        latest = fresh_version(cluster, match)
        assert latest == start + mover.applied  # every move applied, each once
        await wait_for(lambda: all(p.version == latest for p in pages), "every page current")
        check_pages(pages, latest)
        equal_to_a_fresh_load(cluster, pages, loaded)
        await close_pages(pages)

    asyncio.run(scenario())

