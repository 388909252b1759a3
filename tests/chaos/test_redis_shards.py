"""The channel layer on two Redis servers (REDIS_URL listing both): channels_redis's consistent
hashing puts each group (a pub/sub channel) on one of them, and a server that fails costs only the live updates that
pass through it.

Two web processes: the moves are posted to the first, the spectators' pages are on the second, so
every update goes through Redis (a process hands its own sockets an update it drew without it).
The groups of the matches land on both servers.  The server that does not carry the second
process's channel is killed: moves are still applied; the pages of matches whose group lives on the
surviving server get them live, the others do not; when the killed server is back (empty) those
pages resync by themselves, as after a single Redis's outage (test_redis_outage.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from .cluster import NGINX, Cluster, Page, wait_for
from .conftest import Http, RedisServer, make_match, version_of

pytestmark = [pytest.mark.chaos, pytest.mark.redis]

PAGES = 3  # per match
MATCHES = 10


@pytest.fixture(scope="module")
def sharded(chaos_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, list[RedisServer]]]:
    if NGINX is None:
        pytest.skip("nginx is not installed (.ci/install --test installs it)")
    workdir = tmp_path_factory.mktemp("shards")
    servers = [RedisServer(workdir), RedisServer(workdir)]
    running = Cluster(workdir, chaos_db, ",".join(s.url for s in servers), procs=2)
    yield running, servers
    running.stop()
    for server in servers:
        server.kill()


def subscribed(server: RedisServer, pattern: str) -> list[str]:
    """The pub/sub channels some connection subscribes to on `server` (groups and process channels)."""
    return [name for name in server.command("PUBSUB", "CHANNELS", pattern).split() if name]


def holder(servers: list[RedisServer], match_id: int) -> int:
    """The server that holds the spectators' relay group of a match."""
    found = [i for i, s in enumerate(servers) if subscribed(s, f"*group*relay-match-{match_id}-watch")]
    assert len(found) == 1, found
    return found[0]


def test_a_redis_server_down_costs_only_the_updates_that_pass_through_it(
        sharded: tuple[Cluster, list[RedisServer]]) -> None:
    cluster, servers = sharded
    mover, watched = cluster.web
    matches = [make_match(mover, slug="gomoku") for _ in range(MATCHES)]

    async def scenario() -> None:
        pages = {m["id"]: [Page(f"{watched.ws}/ws/m/{m['watch']}/", watched.url) for _ in range(PAGES)]
                 for m in matches}
        for group in pages.values():
            for page in group:
                page.start()
        await wait_for(lambda: all(p.ready.is_set() for g in pages.values() for p in g), "pages open")
        where = {m["id"]: holder(servers, m["id"]) for m in matches}
        print(f"\ngroups per server: {[list(where.values()).count(i) for i in range(2)]}")
        assert set(where.values()) == {0, 1}, where  # the groups land on both
        # the second process's channel (its relay's, the one process channel: the first has no socket)
        # lives on one server: the other goes
        carriers = [i for i, s in enumerate(servers) if subscribed(s, "*specific.*")]
        assert len(carriers) == 1, carriers
        down = 1 - carriers[0]
        servers[down].kill()
        versions = {}
        for match in matches:  # moves are applied all the same (the broadcast is skipped and logged)
            http = Http(mover.url)
            _, html, _ = await asyncio.to_thread(http.get, f"/p/{match['seats'][1]}/")
            status, body, _ = await asyncio.to_thread(
                http.post, f"/p/{match['seats'][1]}/move/", {"text": "H8", "version": str(version_of(html))})
            assert status == 200 and re.search(r'id="move-error"[^>]*hidden', body), body[:300]
            versions[match["id"]] = version_of(html) + 1
        live = [m for m in versions if where[m] != down]
        cut = [m for m in versions if where[m] == down]
        await wait_for(lambda: all(p.version == versions[m] for m in live for p in pages[m]),
                       "pages of matches on the surviving server updated live")
        await asyncio.sleep(1)  # the same broadcasts, had they gone out, would have arrived by now
        assert all(p.version == versions[m] - 1 for m in cut for p in pages[m])
        servers[down].start()  # empty: the layer re-adds its groups and the pages resync
        try:
            await wait_for(lambda: all(p.version == versions[m] for m in versions for p in pages[m]),
                           "every page resynced")
        except AssertionError as error:
            logs = ["\n".join(line for line in server.log_text().splitlines() if "WS" not in line and "HTTP" not in line)
                    [-2000:] for server in cluster.web]
            raise AssertionError(f"{error}; down {down}; web logs:\n" + "\n----\n".join(logs)) from None
        assert all(not p.closes for g in pages.values() for p in g)  # no socket was closed
        await asyncio.gather(*(p.stop() for g in pages.values() for p in g))

    asyncio.run(scenario())
