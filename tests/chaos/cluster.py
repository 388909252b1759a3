"""A local cluster: nginx with the repository's proxy template (config/nginx/) in front of N daphne
processes and one clock worker, on free loopback ports, sharing a database and Redis.

Tests use `Cluster` (tests/chaos/test_cluster*.py), benchmarks too (bench/fanout.py --procs); by
hand:

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python -m tests.chaos.cluster --procs 3

migrates the database, starts everything and prints the address until Ctrl-C.  nginx runs as a
process of ours (`nginx -p <dir> -c <conf>`, never the system's service) with the template
rendered as the official image renders it (envsubst of the DEATHMATCH_ variables).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests import live_pages
from tests.chaos.conftest import PRODUCTION, ROOT, Daphne, Http, version_of
from tests.servers import free_port, wait_port

TEMPLATE = ROOT / "config" / "nginx" / "deathmatch.conf.template"
VARIABLE = re.compile(r"\$\{(DEATHMATCH_[A-Z_]+)\}")
#: Debian's nginx (.ci/install --test installs it); /usr/sbin is not on every user's PATH
NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
#: nginx's failure accounting off (config/nginx/deathmatch.conf.template says why)
UPSTREAM_OPTIONS = "max_fails=0"


def render(values: dict[str, str], template: Path = TEMPLATE) -> str:
    """The template with its ${DEATHMATCH_...} variables replaced, as the official image's envsubst
    does (nginx's own $variables are left alone); a variable without a value is an error."""
    missing = sorted({name for name in VARIABLE.findall(template.read_text())} - set(values))
    if missing:
        raise KeyError(f"no value for {', '.join(missing)}")
    return VARIABLE.sub(lambda found: values[found.group(1)], template.read_text())


def upstream_servers(ports: list[int], options: str = UPSTREAM_OPTIONS) -> str:
    return "\n    ".join(f"server 127.0.0.1:{port} {options};" for port in ports)


def main_conf(prefix: Path, site: Path) -> str:
    """nginx's main configuration around the rendered template (what the official image's
    /etc/nginx/nginx.conf is in compose): every path under `prefix`, never the system's."""
    temp = prefix / "temp"
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers read the worktree's static files
    paths = "".join(f"    {name}_temp_path {temp / name};\n" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return (f"{user}worker_processes 1;\nworker_rlimit_nofile 20000;\nerror_log {prefix / 'error.log'} error;\n"
            "events { worker_connections 16000; }\n"
            "http {\n    include /etc/nginx/mime.types;\n    default_type application/octet-stream;\n"
            f"{paths}    include {site};\n}}\n")


class Nginx:
    """nginx in front of `ports`, listening on a free port of its own."""

    def __init__(self, workdir: Path, ports: list[int], static_root: Path = ROOT / "staticfiles",
                 options: str = UPSTREAM_OPTIONS) -> None:
        self.prefix = workdir / f"nginx-{free_port()}"
        (self.prefix / "temp").mkdir(parents=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        site = self.prefix / "deathmatch.conf"
        site.write_text(render({
            "DEATHMATCH_LISTEN": f"127.0.0.1:{self.port}",
            "DEATHMATCH_UPSTREAM_SERVERS": upstream_servers(ports, options),
            "DEATHMATCH_RESOLVER": "127.0.0.1",  # no name to resolve here: every server is an address
            "DEATHMATCH_STATIC_ROOT": str(static_root),
        }))
        self.conf = self.prefix / "nginx.conf"
        self.conf.write_text(main_conf(self.prefix, site))
        self.log = self.prefix / "output.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self, *extra: str) -> list[str]:
        assert NGINX is not None, "nginx is not installed"
        return [NGINX, "-p", str(self.prefix), "-c", str(self.conf),
                "-g", f"daemon off; pid {self.prefix / 'nginx.pid'};", *extra]

    def check(self) -> subprocess.CompletedProcess[str]:
        """`nginx -t`: the configuration parses and every path in it is usable."""
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=30)

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_port(self.port, self.proc)
        except RuntimeError:
            raise RuntimeError(self.log.read_text() + (self.prefix / "error.log").read_text()) from None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGQUIT)  # nginx's graceful stop
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None

    def access_log(self) -> str:
        return self.log.read_text(errors="replace")


class Cluster:
    """nginx + `procs` daphne processes + one clock worker, on `database_url` and `redis_url`."""

    def __init__(self, workdir: Path, database_url: str, redis_url: str, procs: int = 3,
                 app: str = "config.asgi:application", **env: str) -> None:
        self.workdir = workdir
        self.env = {**PRODUCTION, "DEATHMATCH_TRUSTED_PROXIES": "1", "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
                    **env}
        self.web: list[Daphne] = []
        self.clocks: subprocess.Popen[bytes] | None = None
        self.nginx: Nginx | None = None
        try:
            for _ in range(procs):
                self.web.append(Daphne(workdir, database_url, redis_url, app=app, **self.env))
            self.nginx = Nginx(workdir, [server.port for server in self.web])
            self.nginx.start()
            self._start_clocks()
        except BaseException:
            self.stop()
            raise
        self.url = self.nginx.url
        self.ws = self.nginx.ws

    def _start_clocks(self) -> None:
        first = self.web[0]
        with open(self.workdir / "clocks.log", "ab") as log:
            self.clocks = subprocess.Popen([sys.executable, "manage.py", "run_clocks"], cwd=ROOT, env=first.env,
                                           stdout=log, stderr=subprocess.STDOUT)

    def terminate(self, index: int) -> subprocess.Popen[bytes]:
        """SIGTERM one web process (it drains, config/drain.py); returns it to wait on."""
        proc = self.web[index].proc
        assert proc is not None
        proc.terminate()
        self.web[index].proc = None
        return proc

    def kill(self, index: int) -> None:
        proc = self.web[index].proc
        assert proc is not None
        proc.kill()
        proc.wait(timeout=10)
        self.web[index].proc = None

    def start(self, index: int) -> None:
        """Start web process `index` again, on its port (nginx still lists it)."""
        self.web[index].start()

    def restart(self, index: int, timeout: float = 30) -> float:
        """SIGTERM, wait until it has exited, start it again; returns how long it drained."""
        started = time.monotonic()
        self.terminate(index).wait(timeout=timeout)
        drained = time.monotonic() - started
        self.start(index)
        return drained

    def stop(self) -> None:
        if self.nginx is not None:
            self.nginx.stop()
        if self.clocks is not None:
            self.clocks.terminate()
            self.clocks.wait(timeout=10)
            self.clocks = None
        for server in self.web:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 2, help="daphne processes (default: cores)")
    args = parser.parse_args()
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database or not redis:
        raise SystemExit("set DATABASE_URL and REDIS_URL")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    with tempfile.TemporaryDirectory(prefix="deathmatch-cluster-") as workdir:
        cluster = Cluster(Path(workdir), database, redis, procs=args.procs)
        print(f"{cluster.url}  ({args.procs} web processes: {', '.join(str(s.port) for s in cluster.web)}; "
              f"logs in {workdir})", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()


# -- pages: sockets that reconnect as the page's websocket extension does -----------------------

META = re.compile(r'id="live-meta"[^>]*?data-bout="(\d+)"[^>]*?data-version="(\d+)"(?:[^>]*?data-base="(\d*)")?')
#: the close codes on which htmx's websocket extension reconnects (and 1006 is a drop)
RECONNECT_CODES = (1006, 1011, 1012, 1013)


class Page:
    """One page's socket through the proxy.  When it is closed with a code htmx's websocket extension
    reconnects on, it reconnects as that extension does (`full-jitter`: a random delay below
    1 s, 2 s, 4 s... for the 1st, 2nd, 3rd try), to whichever process the proxy picks, and takes
    the state the server sends on connect.  It keeps the versions it showed, in order."""

    def __init__(self, url: str, origin: str) -> None:
        self.url = url
        self.origin = origin
        self.version: int | None = None
        self.shown: list[int] = []  # every version the page showed, in order
        self.shown_at: dict[int, float] = {}  # when it first showed each (time.perf_counter)
        #: updates made from a version the page did not show: live.js drops them and refetches the
        #: fragments (each process's relay makes a socket's delta from what it sent it, whichever
        #: process drew it, and drops what is older: matches/live/relay.py, delta.py)
        self.gaps = 0
        self.older = 0  # updates older than the version the page showed then
        self.whole = 0  # updates to a newer version that were whole, not deltas (a reconnect's state too)
        #: what the page swapped in, in order (its state on connect, and every update live.js applies);
        #: None once it refetched (its fragments then come from the server: `markup` cannot tell)
        self.applied: list[str] | None = []
        self.closes: list[int] = []
        self.opened = 0
        self.lost_at: float | None = None
        self.back_after: list[float] = []  # from losing the socket to showing the current state again
        self.stopping = False
        self.ready = asyncio.Event()  # set when it shows a state
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        tries = 0
        while not self.stopping:
            conn: Any = None
            try:
                async with connect(self.url, origin=self.origin, open_timeout=30,  # type: ignore[arg-type]
                                   ping_interval=None, max_size=2**23) as conn:
                    tries = 0
                    self.opened += 1
                    async for frame in conn:
                        self._frame(frame if isinstance(frame, str) else frame.decode())
            except (OSError, TimeoutError, WebSocketException):  # refused, reset, refused handshake, closed
                pass
            code = (conn.close_code if conn is not None else None) or 1006
            if self.stopping:
                return
            self.closes.append(code)
            if code not in RECONNECT_CODES:
                return
            if self.lost_at is None:
                self.lost_at = time.monotonic()
            await asyncio.sleep(random.random() * 2 ** min(tries, 6))
            tries += 1

    def _frame(self, text: str) -> None:
        found = META.search(text)
        if not found:
            return
        version, base = int(found.group(2)), found.group(3)
        if self.version is not None and version <= self.version:
            # the same version again (a socket's first state, a redraw) or an older one: the page
            # keeps what it shows (live.js); an older one would be out of order
            self.older += version < self.version
            if version == self.version and not base and self.applied is not None:
                self.applied.append(text)  # a whole redraw of the version shown: live.js swaps it in
        else:
            self.whole += not base and self.version is not None
            if base and self.version is not None and int(base) != self.version:
                self.gaps += 1  # live.js drops it and refetches: the page ends current all the same
                self.applied = None
            elif self.applied is not None:
                self.applied.append(text)
            self.shown.append(version)
            self.shown_at[version] = time.perf_counter()
            self.version = version
        if self.lost_at is not None:
            self.back_after.append(time.monotonic() - self.lost_at)
            self.lost_at = None
        self.ready.set()

    def markup(self, loaded: str) -> str | None:
        """What the page holds now, as htmx and idiomorph made it from `loaded` (the page as its
        browser loaded it) and what it swapped in since (None after a refetch): from the last whole
        message on, which swapped every live fragment (status, board, clocks, log) in whole.  Pages
        that swapped in the same messages since share one computation."""
        if self.applied is None:
            return None
        wholes = [i for i, text in enumerate(self.applied) if (found := META.search(text)) and not found.group(3)]
        return _markup(loaded, tuple(self.applied[wholes[-1] if wholes else 0:]))

    async def stop(self) -> None:
        self.stopping = True
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


@functools.lru_cache(maxsize=64)
def _markup(page: str, applied: tuple[str, ...]) -> str:
    for message in applied:
        page = live_pages.apply_update(page, message)
    return page


async def wait_for(condition: Any, what: str, timeout: float = 60.0) -> float:
    """Wait for `condition()` (an event: pages back, versions caught up); the seconds it took."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


#: what a page does with a move cut off by a process going away (static/js/retry.js)
GONE = (502, 503, 504)
RETRIES = 4


class Mover:
    """The two seats of a Gomoku match, moving through the proxy as their pages' forms do (HTTP POST
    with the version the page shows); every answer's status is counted."""

    def __init__(self, cluster: Cluster, match: dict[str, Any]) -> None:
        from games.registry import get_game

        self.match = match
        self.game = get_game("gomoku")
        self.state = self.game.new({"starting_seat": 1})
        self.http = {seat: Http(cluster.url) for seat in (1, 2)}
        for seat, http in self.http.items():
            status, html, _ = http.get(f"/p/{match['seats'][seat]}/")
            assert status == 200, html[:300]
            self.version = version_of(html)
        self.statuses: Counter[int] = Counter()
        self.applied = 0
        self.retried = 0
        self.errors: list[str] = []

    def _choose(self) -> tuple[int, Any]:
        seat = min(self.game.to_act(self.state))
        for action in self.game.legal_actions(self.state, seat):  # the first that does not end the bout
            if self.game.result(self.game.apply(self.state, seat, action)) is None:
                return seat, action
        raise AssertionError("no move keeps the bout going")

    async def move(self) -> None:
        """One move, sent again as static/js/retry.js sends it when the proxy answers 502/503/504 (the
        web process serving it went away): the same fields, the same expected version."""
        seat, action = self._choose()
        fields = {"text": self.game.format(action), "version": str(self.version)}
        for tried in range(RETRIES + 1):
            status, body, _ = await asyncio.to_thread(self.http[seat].post, f"/p/{self.match['seats'][seat]}/move/",
                                                      fields)
            self.statuses[status] += 1
            if status not in GONE:
                break
            self.retried += 1
            await asyncio.sleep(random.random() * 0.4 * 2 ** tried)
        error = re.search(r'id="move-error"[^>]*>([^<]*)<', body)
        if status == 200 and error is not None and not error.group(1).strip():
            self.state = self.game.apply(self.state, seat, action)
            self.version += 1
            self.applied += 1
        else:
            self.errors.append(f"{status}: {error.group(1) if error else body[:200]}")

    async def every(self, seconds: float, until: asyncio.Event) -> None:
        while not until.is_set():
            started = time.monotonic()
            await self.move()
            await asyncio.sleep(max(0.0, seconds - (time.monotonic() - started)))
