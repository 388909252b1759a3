"""What a web process costs while nobody uses it: one daphne on the embedded defaults (an SQLite
file in a temporary directory, its clock sweeper and bot lanes in-process), its CPU over a window.

    .venv/bin/python bench/idle_server.py [--seconds 30]

Prints the share of one core the process used (user + system, from /proc) once it listens and
its workers have started.  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import servers  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/db.sqlite3", "DJANGO_DEBUG": "1",
               "DJANGO_SETTINGS_MODULE": "config.settings"}
        env.pop("REDIS_URL", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        port = servers.free_port()
        proc = servers.start_daphne(port, env, Path(workdir) / "daphne.log")
        try:
            time.sleep(3)  # the workers start once Django is ready
            start, began = cpu_seconds(proc.pid), time.monotonic()
            time.sleep(args.seconds)
            used, took = cpu_seconds(proc.pid) - start, time.monotonic() - began
        finally:
            servers.stop(proc)
    print(f"idle web process: {100 * used / took:.1f} % of a core over {took:.0f} s")


if __name__ == "__main__":
    main()
