"""Chaos plumbing: every test starts what it breaks.

- `RedisServer`: its own `redis-server` on a free port (no persistence), that
  a test may kill, restart, freeze (SIGSTOP) and thaw.  The shared Redis is
  never touched.
- `Daphne`: its own daphne process pointed at that Redis and at the chaos
  database, with extra environment (short Redis timeouts, pool sizes...).
- `chaos_db`: a fresh PostgreSQL database on the CI server (created and
  dropped here) when DATABASE_URL points at PostgreSQL, else a SQLite file.
- `Client`: a small websocket client (the `websockets` package) for many
  sockets at once.
- cluster.py: nginx with the repository's proxy template in front of several
  `Daphne`s and a clock worker, and pages that reconnect as the browser's do.

Figures are printed (run with `-s` to see them) and the requirements asserted.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests import servers
from tests.servers import free_port, wait_port

ROOT = Path(__file__).resolve().parents[2]
PG_URL = os.environ.get("DATABASE_URL", "")
POSTGRES = PG_URL.startswith(("postgres://", "postgresql://"))
#: daphne's listen backlog, as in the Dockerfile's CMD and .ci/serve (tests/chaos/test_backlog.py)
BACKLOG = 2048
#: a daphne's environment with production settings: DEBUG off (a secret key is then required; no
#: HTTPS here).  With DEBUG, Django keeps each database connection's last 9,000 queries: memory
#: and time the product never spends.
PRODUCTION = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "chaos-" + "k" * 44, "DJANGO_SECURE_COOKIES": "0"}

pytestmark = pytest.mark.chaos


class RedisServer:
    """A private redis-server: kill/start to lose it, freeze/thaw to hang it."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        binary = shutil.which("redis-server") or "redis-server"
        log = open(self.workdir / f"redis-{self.port}.log", "ab")  # noqa: SIM115 - kept for the process' life
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--maxclients", "20000"],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_port(self.port, self.proc)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def freeze(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def command(self, *args: str) -> str:
        return subprocess.run(["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True,
                              timeout=10).stdout


class Daphne:
    """One daphne process serving config.asgi on a free port."""

    def __init__(self, workdir: Path, database_url: str, redis_url: str = "", app: str = "config.asgi:application",
                 **env: str) -> None:
        self.workdir = workdir
        self.app = app  # the ASGI application (benchmarks wrap the app's own to time it)
        self.env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_DEBUG": "1",
                    "DJANGO_SETTINGS_MODULE": "config.settings", "DEATHMATCH_INPROCESS_CLOCKS": "0",
                    "PYTHONUNBUFFERED": "1", **env}
        self.env.pop("REDIS_URL", None)
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        self.log = workdir / f"daphne-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = servers.start_daphne(self.port, self.env, self.log, app=self.app, backlog=BACKLOG)

    def stop(self) -> None:
        if self.proc is not None:
            servers.stop(self.proc)
            self.proc = None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def manage(self, code: str) -> str:
        """Run Python in a Django shell against the same database and Redis."""
        out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=self.env,
                             capture_output=True, text=True, timeout=120)
        if out.returncode:
            raise RuntimeError(out.stderr)
        return out.stdout


MAKE_MATCH = """
import json
from matches.play import services
m = services.create_match({slug!r}, seat_names=["Ann", "Bob"], bouts={bouts})
services.start_match(m, starting_seat=1)
seats = {{s.number: s.token for s in m.seats.all()}}
print(json.dumps({{"id": m.id, "host": m.host_token, "watch": m.watch_token, "seats": seats}}))
"""


def make_match(server: Daphne, slug: str = "lance-assembly", bouts: int = 1) -> dict[str, Any]:
    out = server.manage(MAKE_MATCH.format(slug=slug, bouts=bouts))
    data: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    data["seats"] = {int(k): v for k, v in data["seats"].items()}
    return data


@pytest.fixture(scope="session")
def chaos_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A migrated database of our own for the chaos servers."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    workdir = tmp_path_factory.mktemp("chaos-db")
    if POSTGRES:
        import psycopg

        name = f"chaos_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        parts = urlsplit(PG_URL)
        url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    else:
        url = f"sqlite:///{workdir / 'chaos.sqlite3'}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    yield url
    if POSTGRES:
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def redis_server(workdir: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    srv = RedisServer(workdir)
    yield srv
    srv.kill()


class Socket:
    """One websocket page: counts what it received and when it was closed."""

    def __init__(self, url: str, origin: str) -> None:
        self.url = url
        self.origin = origin
        self.conn: Any = None
        self.frames: list[str] = []
        self.closed_code: int | None = None
        self.closed_at: float | None = None
        self._reader: asyncio.Task[None] | None = None
        self.open_seconds: float | None = None  # how long its handshake took

    async def open(self, timeout: float = 30) -> None:
        from websockets.asyncio.client import connect

        started = time.monotonic()
        self.conn = await asyncio.wait_for(
            connect(self.url, origin=self.origin, open_timeout=timeout, ping_interval=None,  # type: ignore[arg-type]
                    max_size=2**23), timeout)
        self.open_seconds = time.monotonic() - started
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for frame in self.conn:
                self.frames.append(frame if isinstance(frame, str) else frame.decode())
        except ConnectionClosed:
            pass
        self.closed_code = self.conn.close_code
        self.closed_at = time.monotonic()

    async def wait_frames(self, count: int, timeout: float = 10) -> bool:
        deadline = time.monotonic() + timeout
        while len(self.frames) < count and self.closed_code is None:
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return len(self.frames) >= count

    async def wait_match(self, pattern: str, since: int = 0, timeout: float = 10) -> bool:
        """Wait for a frame received after the first `since` that matches `pattern` (a page also
        gets presence boxes, which hold no state of the match)."""
        found = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while not any(found.search(f) for f in self.frames[since:]):
            if self.closed_code is not None or time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    def last_state(self) -> str:
        """The newest frame that carries the match's state (its live meta)."""
        return next((f for f in reversed(self.frames) if 'id="live-meta"' in f), "")

    async def send(self, data: dict[str, Any]) -> None:
        await self.conn.send(json.dumps(data))

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    @property
    def open_now(self) -> bool:
        return self.closed_code is None


class Http:
    """A browser-like HTTP client (cookies, CSRF token) that times each request."""

    def __init__(self, base: str) -> None:
        import http.cookiejar
        import urllib.request

        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def request(self, path: str, data: dict[str, Any] | None = None, timeout: float = 30) -> tuple[int, str, float]:
        import re
        import urllib.error
        import urllib.parse
        import urllib.request

        body = urllib.parse.urlencode(data, doseq=True).encode() if data is not None else None
        req = urllib.request.Request(self.base + path, data=body, method="POST" if data is not None else "GET")
        if data is not None:
            req.add_header("X-CSRFToken", self.csrf)
            req.add_header("HX-Request", "true")
        started = time.monotonic()
        try:
            with self.opener.open(req, timeout=timeout) as response:
                status, text = response.status, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode(errors="replace")
        elapsed = time.monotonic() - started
        found = re.search(r'"X-CSRFToken": "([^"]+)"', text)
        if found:
            self.csrf = found.group(1)
        return status, text, elapsed

    def get(self, path: str) -> tuple[int, str, float]:
        return self.request(path)

    def post(self, path: str, data: dict[str, Any]) -> tuple[int, str, float]:
        return self.request(path, data)


def host_seq(html: str) -> str:
    import re

    found = re.search(r'id="host-seq" name="host_seq" value="(\d+)"', html)
    assert found, "no host_seq on the dashboard"
    return found.group(1)


def version_of(fragment: str) -> int:
    import re

    found = re.search(r'id="live-meta"[^>]*data-version="(\d+)"', fragment) or re.search(
        r'data-version="(\d+)"', fragment)
    assert found, fragment[:300]
    return int(found.group(1))
