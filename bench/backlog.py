"""Listen backlog: 1,000 HTTP requests arriving at once, all answered?

    .venv/bin/python bench/backlog.py                  # backlog 2048 (the deployed one), 1,000 requests
    .venv/bin/python bench/backlog.py --backlog 50     # Twisted's default, as daphne had before
    .venv/bin/python bench/backlog.py --requests 3000 --rounds 3

Starts one daphne of its own (`-e tcp:...:backlog=N`) on a database of its own (DATABASE_URL
pointing at PostgreSQL: a database `bench_backlog`; else a temporary SQLite file), creates a
match, then sends the requests for its spectator page at once, each on its own connection, and
counts the answers by status, the connections reset and other failures.  Also prints how many
connections the kernel dropped because a listen queue was full (TcpExtListenOverflows in
/proc/net/netstat, before and after: that counter is the whole machine's, so other programs'
overflows are counted too).  The kernel caps any backlog at /proc/sys/net/core/somaxconn.

tests/chaos/test_backlog.py runs `load()` against a daphne of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
RESET = "reset"  # the connection was reset (or closed) without any answer
TIMEOUT = "timeout"  # no answer within the timeout


def listen_overflows() -> int:
    """TcpExtListenOverflows: connections the kernel dropped because a listen queue was full."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    names, values = lines[0], lines[1]
    return int(values[names.index("ListenOverflows")])


def listen_backlog(port: int) -> int | None:
    """The backlog the kernel gives the socket listening on `port` (`ss`'s Send-Q), None without `ss`."""
    import shutil

    if shutil.which("ss") is None:
        return None
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return int(out.split()[2])


def somaxconn() -> int:
    return int(Path("/proc/sys/net/core/somaxconn").read_text())


async def request(port: int, path: str, timeout: float = 120) -> tuple[int | str, bool]:
    """One GET on its own connection: (status, Retry-After given), or (RESET, TIMEOUT or the name of
    another error, False)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)
        writer.close()
    except ConnectionResetError:
        return RESET, False
    except TimeoutError:
        return TIMEOUT, False
    except OSError as error:
        return type(error).__name__, False
    if not data.startswith(b"HTTP/"):
        return RESET, False  # closed without a byte of answer
    head = data.split(b"\r\n\r\n", 1)[0].lower()
    return int(data.split(b" ", 2)[1]), b"\r\nretry-after:" in head


async def load(port: int, path: str, requests: int) -> tuple[Counter[int | str], int]:
    """`requests` GETs at once: their outcomes counted, and how many 503s lacked a Retry-After."""
    results = await asyncio.gather(*(request(port, path) for _ in range(requests)))
    outcomes: Counter[int | str] = Counter(status for status, _ in results)
    no_retry = sum(1 for status, retry in results if status == 503 and not retry)
    return outcomes, no_retry


# -- the benchmark's own daphne (bench/gcpause.py uses these too) ----------------------------


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def environment(workdir: Path, name: str, **extra: str) -> dict[str, str]:
    """A daphne's environment: DEBUG off, a database of its own (DATABASE_URL pointing at
    PostgreSQL: database `name`, else an SQLite file in `workdir`), migrated."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        base = url.rsplit("/", 1)[0]
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                conn.execute(f'CREATE DATABASE "{name}"')
        url = f"{base}/{name}"
    else:
        url = f"sqlite:///{workdir / 'bench.sqlite3'}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "bench-only",
           "DJANGO_SETTINGS_MODULE": "config.settings", "DEATHMATCH_INPROCESS_CLOCKS": "0",
           "DEATHMATCH_INPROCESS_WEBHOOKS": "0", "DJANGO_SECURE_COOKIES": "0", **extra}
    if not extra.get("REDIS_URL"):
        env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    return env


MAKE_MATCH = """
import json
from matches.play import services
m = services.create_match("lance-assembly", seat_names=["Ann", "Bob"])
services.start_match(m, starting_seat=1)
print(json.dumps({"watch": m.watch_token, "host": m.host_token}))
"""


def make_match(env: dict[str, str], script: str = MAKE_MATCH) -> dict[str, Any]:
    """Run `script` in `manage.py shell` on the daphne's database; its last line of output, as JSON
    (MAKE_MATCH: a running Lance Assembly match's watch and host tokens; bench/soak.py passes its own)."""
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    tokens: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return tokens


def start_daphne(env: dict[str, str], log: Path, backlog: int = 2048,
                 app: str = "config.asgi:application") -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    with open(log, "wb") as handle:
        proc = subprocess.Popen([str(Path(sys.executable).with_name("daphne")), "-e",
                                 f"tcp:port={port}:interface={HOST}:backlog={backlog}", app],
                                cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    import socket

    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(log.read_text()) from None
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backlog", type=int, default=2048)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    workdir = Path(tempfile.mkdtemp(prefix="bench-backlog-"))
    env = environment(workdir, "bench_backlog")
    path = f"/w/{make_match(env)['watch']}/"
    proc, port = start_daphne(env, workdir / "daphne.log", args.backlog)
    try:
        print(f"backlog {args.backlog} (somaxconn {somaxconn()}, the kernel's: {listen_backlog(port)}), "
              f"{args.requests} concurrent GETs of a spectator page")
        asyncio.run(load(port, path, 20))  # warm up: imports, templates, the database pool
        for n in range(1, args.rounds + 1):
            before = listen_overflows()
            started = time.monotonic()
            outcomes, no_retry = asyncio.run(load(port, path, args.requests))
            print(f"  round {n}: {time.monotonic() - started:.1f} s, answers {dict(sorted(outcomes.items(), key=str))}, "
                  f"503 without Retry-After {no_retry}, TcpExtListenOverflows +{listen_overflows() - before}",
                  flush=True)
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
