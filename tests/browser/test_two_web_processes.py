"""Two daphne processes behind "a load balancer" (two ports), sharing one
database and Redis: a move made through one process reaches pages connected
to the other, live; who is here is counted across both; and the clocks pause
while the seat to move has no page open on either, and run again when it is
back on the other.  Skipped when Redis does not answer."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from .conftest import ARTIFACTS, TIMEOUT, Server, StartMatch, cell, wait_connected

pytestmark = [pytest.mark.browser, pytest.mark.redis]

#: the CI's Redis (or the local one), database 7: stray groups of other runs never mix in
_BASE = urlsplit(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
REDIS = f"{_BASE.scheme}://{_BASE.netloc}/7"


@pytest.fixture(scope="module")
def two_servers(server: Server) -> Iterator[tuple[Server, Server]]:
    try:
        socket.create_connection((_BASE.hostname or "127.0.0.1", _BASE.port or 6379), timeout=1).close()
    except OSError:
        pytest.skip("Redis is not running")
    # the module's own server (no Redis) shares the database: stopped, or its clock sweeper would be
    # a third one, whose changes (an away pause) it announces on an in-memory layer no page hears
    server.stop()
    a = Server(server.workdir, redis_url=REDIS)
    b = Server(server.workdir, redis_url=REDIS, migrate=False)
    yield a, b
    a.stop()
    b.stop()


def test_moves_reach_pages_on_another_web_process(two_servers: tuple[Server, Server], browser: Any,
                                                  start_match: StartMatch) -> None:
    a, b = two_servers
    # the clocks pause when the seat to move has had no page open for 2 s
    match = start_match("lance-assembly", fields={"#away_pause": "2"}, host=browser.new_context().new_page(), server=a)
    host, links = match.host, match.seats
    p1 = browser.new_context().new_page()
    p2 = browser.new_context().new_page()
    watch = browser.new_context().new_page()
    p1.goto(links[1])                                   # process A
    p2.goto(links[2].replace(a.url, b.url))             # process B
    watch.goto(match.watch.replace(a.url, b.url))
    # every update the spectator's page gets is a delta on the version it shows, whichever process
    # drew it (its relay makes it from what it sent the page: matches/live/relay.py): it never
    # refetches its fragments (live.js GETs /f/ for that)
    refetched: list[str] = []
    watch.on("request", lambda request: refetched.append(request.url) if "/f/" in request.url else None)
    wait_connected(host, p1, p2, watch)
    host.click("#host-start")
    for page in (p1, p2, watch):
        page.wait_for_selector(cell("A1"), timeout=TIMEOUT)
    p1.click('#board .cell[data-coord="C3"]')
    p1.click("#move-submit")
    for page in (p2, watch, host):
        page.wait_for_selector(cell("C3", "R"), timeout=TIMEOUT)
    p2.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    p2.click('#board .cell[data-coord="D4"]')
    p2.click("#move-submit")
    for page in (p1, watch, host):
        page.wait_for_selector(cell("D4", "B"), timeout=TIMEOUT)
    # A drew C3, B drew D4: A's delta of C4 is made from B's drawing, B's of E5 from A's (each from
    # its own last drawing, every page on the version before refetched)
    for page, coord, colour in ((p1, "C4", "R"), (p2, "E5", "B")):
        page.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
        page.click(f'#board .cell[data-coord="{coord}"]')
        page.click("#move-submit")
        watch.wait_for_selector(cell(coord, colour), timeout=TIMEOUT)
    watch.screenshot(path=str(ARTIFACTS / "two-processes-watch.png"), full_page=True)
    assert refetched == []
    # presence is shared too (Redis cache): the host on A sees seat 2, connected to B
    host.wait_for_selector("#presence li.on >> text=Player 2 (seat 2)", timeout=TIMEOUT)
    # so is the players' and spectators' box: a spectator on A counts on B's pages, and a page that
    # closes on B is offline on A's (each pushed once for both processes: presence.PUBLIC_DELAY)
    second = browser.new_context().new_page()
    second.goto(host.input_value("#watch-link"))         # process A
    wait_connected(second)
    for page in (p1, p2, watch, second):
        page.wait_for_function("() => document.querySelector('#spectator-count')?.textContent.trim() === '2'",
                               timeout=TIMEOUT)
    p2.context.close()
    for page in (p1, second):
        page.wait_for_selector('#watching li.offline[data-seat="2"]', timeout=TIMEOUT)
    # the away pause across processes (issue 26): Ann (to move) closes her page on A; a sweeper
    # pauses the clocks from the presence both processes share; she comes back on B: they run again
    p1.context.close()
    host.wait_for_selector("#clocks .paused-note >> text=Paused: a player has no page open", timeout=TIMEOUT)
    back = browser.new_context().new_page()
    back.goto(links[1].replace(a.url, b.url))
    wait_connected(back)
    back.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    host.wait_for_selector("#clocks .paused-note", state="detached", timeout=TIMEOUT)
    assert "Paused" not in host.inner_text("#clocks")
