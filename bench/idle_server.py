"""What a web process costs while nobody uses it: one daphne as the browser tests start it (the
embedded defaults: an SQLite file in a temporary directory, its clock sweeper and bot lanes
in-process), its CPU over a window.

    .venv/bin/python bench/idle_server.py [--seconds 30]

Prints the share of one core the process used (user + system, from /proc) once it listens and
its workers have started.  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import Server  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        server = Server(Path(workdir))
        try:
            assert server.proc is not None
            time.sleep(3)  # the workers start once Django is ready
            start, began = cpu_seconds(server.proc.pid), time.monotonic()
            time.sleep(args.seconds)
            used, took = cpu_seconds(server.proc.pid) - start, time.monotonic() - began
        finally:
            server.stop()
    print(f"idle web process: {100 * used / took:.1f} % of a core over {took:.0f} s")


if __name__ == "__main__":
    main()
