"""`bash .ci/serve [HOST:PORT]`, the README's run command, serves on the address it is given.

The script installs first (`.ci/install`: pip and npm), which a test must not do, so each test runs
a copy of the real script in a tree whose `.ci/install` does nothing; the rest of the script is
the real one.  One test reads the daphne endpoint each form of the argument becomes (a stub daphne
prints it); the other starts the real daphne on a free port and fetches the home page there.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the whole test is bounded: the server answers within this many seconds or the test fails
START_LIMIT = 60.0


def _tree(tmp_path: Path) -> Path:
    """A copy of .ci/serve beside a do-nothing .ci/install."""
    tree = tmp_path / "repo"
    (tree / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "serve", tree / ".ci" / "serve")
    (tree / ".ci" / "install").write_text("#!/usr/bin/env bash\nexit 0\n")
    return tree


def _stub(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/usr/bin/env bash\n{body}\n")
    path.chmod(0o755)


@pytest.mark.parametrize(("argument", "endpoint"), [
    (None, "tcp:port=8000:interface=127.0.0.1:backlog=2048"),
    ("0.0.0.0:8000", "tcp:port=8000:interface=0.0.0.0:backlog=2048"),
    ("192.168.1.20:9000", "tcp:port=9000:interface=192.168.1.20:backlog=2048"),
    ("8123", "tcp:port=8123:interface=127.0.0.1:backlog=2048"),
    ("[::1]:8001", r"tcp:port=8001:interface=\:\:1:backlog=2048"),
])
def test_the_argument_becomes_daphnes_endpoint(tmp_path: Path, argument: str | None, endpoint: str) -> None:
    tree = _tree(tmp_path)
    _stub(tree / ".venv" / "bin" / "python", "exit 0")  # manage.py migrate
    _stub(tree / ".venv" / "bin" / "daphne", 'printf "%s\\n" "$@"')
    result = subprocess.run(["bash", str(tree / ".ci" / "serve"), *([argument] if argument else [])],
                            capture_output=True, text=True, timeout=30, check=True)
    assert result.stdout.splitlines() == ["-e", endpoint, "config.asgi:application"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_answers_on_the_host_and_port_given(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    for name in ("manage.py", "config", "games", "matches", "templates", "static", ".venv"):
        (tree / name).symlink_to(ROOT / name)
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "DEATHMATCH_INPROCESS_CLOCKS": "0",
           "DEATHMATCH_INPROCESS_WEBHOOKS": "0"}
    env.pop("REDIS_URL", None)  # the embedded defaults, as a newcomer runs it
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(["bash", str(tree / ".ci" / "serve"), f"127.0.0.1:{port}"], cwd=tmp_path, env=env,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_LIMIT
        page = None
        while page is None:
            assert server.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-3000:]
            try:  # the port opens once migrate is done and daphne listens
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
            except OSError:
                time.sleep(0.2)
        assert page.status == 200 and b"Host a match" in page.read()
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=20)
        log.close()
