"""A Redis outage under a live match: what it adds to a move, a page and a host action.

    .venv/bin/python -m bench.redis_outage

Runs tests/chaos/test_redis_outage.py's scenario (its own daphne, its own redis-server killed then
restarted, frozen then thawed, three watchers, both seats and the host connected) on a migrated
SQLite file of its own, and prints each request's seconds with Redis up, killed and frozen, and
how long after Redis came back every watcher showed the move made while it was away.  The test
asserts the behaviour (saved, acknowledged, resynced, no socket closed); the times are these.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.chaos.conftest import Daphne, RedisServer, make_match
from tests.chaos.test_redis_outage import _scenario

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-redis-outage-") as tmp:
        workdir = Path(tmp)
        database = f"sqlite:///{workdir / 'db.sqlite3'}"
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                       env={**env, "DATABASE_URL": database, "DJANGO_SETTINGS_MODULE": "config.settings"})
        redis = RedisServer(workdir)
        server = Daphne(workdir, database, redis.url,
                        DEATHMATCH_REDIS_SOCKET_TIMEOUT="6")
        try:
            print(f"load average {os.getloadavg()[0]:.1f}")
            print("\n".join(asyncio.run(_scenario(server, redis, make_match(server)))))
        finally:
            server.stop()
            redis.kill()


if __name__ == "__main__":
    main()
