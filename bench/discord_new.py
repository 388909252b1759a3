"""How long `/deathmatch new` takes on the server, from the signed post to the reply: Discord wants
an answer within 3 s, and the endpoint answers at once (no deferred reply) because creating a match
is a few inserts.  Prints p50/p95/max and the queries of one command, for 2, 4 and 16 players.

    .venv/bin/python bench/discord_new.py [--rounds 30]     # DATABASE_URL picks the database

It makes a test database of its own (`test_<name>_bench<pid>` on PostgreSQL), signs the
interactions with a key made here, and posts them through Django's test client (the whole request
path but the socket)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()

    import django

    django.setup()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from tests.discordserver import APPLICATION, BOT_TOKEN
    from tests.matches.discord.conftest import PEOPLE, Person, new_command, sign

    key = Ed25519PrivateKey.generate()
    settings.DISCORD_APPLICATION_ID, settings.DISCORD_BOT_TOKEN = APPLICATION, BOT_TOKEN
    settings.DISCORD_PUBLIC_KEY = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    settings.DEATHMATCH_RATE_LIMITS = {**settings.DEATHMATCH_RATE_LIMITS, "matches": "100000/m"}
    setup_test_environment()
    for db in settings.DATABASES.values():
        db.get("OPTIONS", {}).pop("pool", None)
        if "postgresql" in db["ENGINE"]:
            db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_bench{os.getpid()}"
    old = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        client = Client()
        load = os.getloadavg()[0]
        print(f"database {connection.vendor}, load average {load:.2f}")
        for game, count in (("grid-master", 2), ("back-to-the-wall", 4), ("custom", 16)):
            players: list[Person] = PEOPLE[:count]
            times = []
            queries = 0
            for n in range(args.rounds + 2):
                body = json.dumps(new_command(game, players)).encode()
                headers = sign(key, body)
                with CaptureQueriesContext(connection) as seen:
                    start = time.perf_counter()
                    response = client.post("/discord/interactions/", body, content_type="application/json",
                                           headers=headers)
                    spent = time.perf_counter() - start
                assert response.status_code == 200 and "host link" in response.json()["data"]["content"]
                if n >= 2:  # the first two warm caches and code paths
                    times.append(spent * 1000)
                    queries = len(seen)
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(f"{count:>2} players ({game}): p50 {statistics.median(times):6.1f} ms  p95 {p95:6.1f} ms  "
                  f"max {times[-1]:6.1f} ms  {queries} queries")
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)


if __name__ == "__main__":
    main()
