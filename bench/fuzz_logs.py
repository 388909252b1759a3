"""The logs of a fuzz run (bench/fuzz_security.py) and their search for tokens (issue 37).

- `capture_logs(path)`: this process's log records to a file, through settings.LOGGING's filter;
- `Daphne(log, database_url, secret_key)`: a daphne process with production settings on the run's
  test database, its access log and Django's log to `log`;
- `search_logs(paths)`: every token in the database against every line.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def capture_logs(path: Path) -> None:
    """Every log record of this process (INFO and up, as deployed) to `path` instead of the
    console, through the project's own token filter (settings.LOGGING)."""
    from config.logredact import RedactTokensFilter

    handler = logging.FileHandler(path, encoding="utf-8")
    handler.addFilter(RedactTokensFilter())
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    for name in ("", "django", "django.channels.server"):
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)


class Daphne:
    """One daphne process (production settings: DEBUG off) on this run's test database, its
    access log and its Django log to one file (as .ci/serve and the Dockerfile run it)."""

    def __init__(self, log: Path, database_url: str, secret_key: str) -> None:
        import socket
        import subprocess

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_DEBUG": "0", "DJANGO_SECURE_COOKIES": "0",
               "DEATHMATCH_TRUSTED_PROXIES": "1", "DEATHMATCH_INPROCESS_CLOCKS": "0", "PYTHONUNBUFFERED": "1",
               "PYTHONPATH": str(ROOT), "DJANGO_SECRET_KEY": secret_key, "DEATHMATCH_REDIS_PREFIX": f"fuzz{os.getpid()}"}
        daphne = str(Path(sys.executable).with_name("daphne"))
        with open(log, "ab") as out:
            self.proc = subprocess.Popen([daphne, "-e", f"tcp:port={self.port}:interface=127.0.0.1",
                                          "config.asgi:application"], cwd=ROOT, env=env, stdout=out,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.2)
        raise RuntimeError(f"daphne did not start: {log.read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=10)


def search_logs(logs: list[Path]) -> tuple[int, int, list[tuple[int, str]]]:
    """Every token in the database (seats, hosts, watch links, season manage links) against every
    line of `logs`: (lines read, lines holding a token, shapes: how many lines, and one of them with
    the token as <TOKEN>, per kind of text that came just before the token)."""
    import re

    from matches.models import Match, Season, Seat

    tokens = {t for t in Seat.objects.values_list("token", flat=True) if t}
    for host, watch in Match.objects.values_list("host_token", "watch_token"):
        tokens.update(t for t in (host, watch) if t)
    tokens.update(t for t in Season.objects.values_list("manage_token", flat=True) if t)
    read = found = 0
    shapes: dict[str, list[Any]] = {}
    for log in logs:
        if not log.exists():
            continue
        with open(log, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                read += 1
                held = [t for t in tokens if t in line]
                if not held:
                    continue
                found += 1
                shown = line.strip()
                for token in held:
                    shown = shown.replace(token, "<TOKEN>")
                at = shown.index("<TOKEN>")
                access = '"' in shown[:at]  # daphne's access log quotes the request line
                kind = ("access: " if access else "django: ") + re.sub(r"[0-9]", "9", shown[max(0, at - 6):at])
                shapes.setdefault(kind, [0, shown[:200]])[0] += 1
    ranked = sorted(((count, example) for count, example in shapes.values()), reverse=True)
    return read, found, ranked
