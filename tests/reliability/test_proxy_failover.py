"""The proxy template (config/nginx/deathmatch.conf.template) routes around a web process that is
going away, with the real nginx in front of real daphne processes (issue 51: under compose a
stopped replica cost 502/504s).

- A process stopped (SIGTERM: it drains, then exits) while GETs go through the proxy: every GET
  is answered 200; the ones nginx sent to it were retried on the other process.
- An address that takes connections and never answers them (what a container that has exited is
  until the proxy's next DNS look-up: nothing refuses): each GET is answered 200 after the connect
  timeout, and with compose's failure marking (docker-compose.yml's server options, without
  `resolve`, which this nginx may not know) only the first ones pay that, not every other one.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import servers
from tests.chaos.cluster import NGINX, Nginx

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (.ci/install --test installs it)")


def compose_server_options() -> str:
    """The failure marking docker-compose.yml gives the proxy's `server web:8000 resolve ...;`."""
    compose = (ROOT / "docker-compose.yml").read_text()
    found = re.search(r'DEATHMATCH_UPSTREAM_SERVERS: "server web:8000 resolve ([^";]*);"', compose)
    assert found, "docker-compose.yml gives the proxy no `server web:8000 resolve` line"
    return found.group(1)


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@pytest.fixture
def daphnes(tmp_path: Path) -> Iterator[list[tuple[int, subprocess.Popen[bytes]]]]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0",
           "DJANGO_SECRET_KEY": "proxy-" + "k" * 44, "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
           "DJANGO_SECURE_COOKIES": "0", "DEATHMATCH_TRUSTED_PROXIES": "1",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "DEATHMATCH_INPROCESS_CLOCKS": "0",
           "DEATHMATCH_INPROCESS_DISCORD": "0", "DEATHMATCH_INPROCESS_WEBHOOKS": "0"}
    env.pop("REDIS_URL", None)
    started: list[tuple[int, subprocess.Popen[bytes]]] = []
    try:
        for _ in range(2):
            port = servers.free_port()
            started.append((port, servers.start_daphne(port, env, tmp_path / f"daphne-{port}.log")))
        yield started
    finally:
        for _, proc in started:
            if proc.poll() is None:
                servers.stop(proc)


@pytest.fixture
def proxies() -> Iterator[list[Nginx]]:
    made: list[Nginx] = []
    yield made
    for proxy in made:
        proxy.stop()


def test_a_process_stopped_behind_the_proxy_costs_no_5xx(
        tmp_path: Path, daphnes: list[tuple[int, subprocess.Popen[bytes]]], proxies: list[Nginx]) -> None:
    (kept, _), (stopped, proc) = daphnes
    proxy = Nginx(tmp_path, [kept, stopped])
    proxies.append(proxy)
    proxy.start()
    stopping = threading.Thread(target=servers.stop, args=(proc,))
    statuses = [get(proxy.url + "/healthz") for _ in range(10)]
    stopping.start()  # SIGTERM: it drains (closes its port) and exits, while the GETs go on
    while stopping.is_alive():
        statuses.append(get(proxy.url + "/healthz"))
    statuses += [get(proxy.url + "/healthz") for _ in range(20)]
    stopping.join()
    assert proc.returncode is not None
    assert set(statuses) == {200}, statuses
    log = proxy.access_log()
    # nginx sent some to the stopped process and retried them on the other one ("A, B" upstreams)
    assert re.search(rf"127\.0\.0\.1:{stopped}, 127\.0\.0\.1:{kept} 502, 200", log), log[-2000:]


def test_an_address_that_never_answers_is_marked_as_compose_marks_it(
        tmp_path: Path, daphnes: list[tuple[int, subprocess.Popen[bytes]]], proxies: list[Nginx]) -> None:
    (live, _), _ = daphnes
    # a port that takes no connection: its accept queue (backlog 0) is full and never read, so the
    # kernel drops new handshakes without refusing them, as for an address nobody holds any more
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(0)
    address = silent.getsockname()
    fillers = []
    for _ in range(2):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(address)
        fillers.append(filler)
    try:
        proxy = Nginx(tmp_path, [live, address[1]], options=compose_server_options())
        proxies.append(proxy)
        proxy.start()
        requests = 20
        statuses = [get(proxy.url + "/healthz") for _ in range(requests)]
    finally:
        for sock in (*fillers, silent):
            sock.close()
    assert set(statuses) == {200}, statuses
    log = proxy.access_log()
    tried = len(re.findall(rf"127\.0\.0\.1:{address[1]}, 127\.0\.0\.1:{live} 504, 200", log))
    assert tried >= 1, log[-2000:]  # the silent one was tried, timed out, and the GET retried
    # set aside after its failure: without marking, least_conn alternated and every other GET paid
    assert tried < requests / 4, log[-2000:]
