"""Server processes for tests and benchmarks: a free loopback port, waiting for a process to listen,
starting daphne and stopping a process.  The chaos tests' `Daphne` (tests/chaos/conftest.py, which
the local cluster of tests/chaos/cluster.py runs several of) and the browser tests' `Server`
(tests/browser/conftest.py) start theirs here."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 30) -> None:
    """Return once something listens on `port`; RuntimeError when `proc` exits first or time is up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"process on port {port} exited with {proc.returncode}") from None
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def start_daphne(port: int, env: dict[str, str], log: Path, app: str = "config.asgi:application",
                 backlog: int | None = None) -> subprocess.Popen[bytes]:
    """daphne serving `app` on 127.0.0.1:`port` (its output appended to `log`), once it listens; when
    it does not, it is stopped and the RuntimeError carries its log."""
    daphne = str(Path(sys.executable).with_name("daphne"))
    endpoint = f"tcp:port={port}:interface=127.0.0.1" + (f":backlog={backlog}" if backlog is not None else "")
    with open(log, "ab") as out:
        proc = subprocess.Popen([daphne, "-e", endpoint, app], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_port(port, proc)
    except RuntimeError:
        stop(proc)
        raise RuntimeError(log.read_text(errors="replace")) from None
    return proc


def stop(proc: subprocess.Popen[bytes], hard: bool = False, timeout: float = 10) -> None:
    """SIGTERM (SIGKILL when `hard`), and SIGKILL if it has not exited within `timeout` s."""
    if hard:
        proc.kill()
    else:
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)
