"""Fuzzed requests anyone could send, in-process, counting 500s and tracebacks (issue 21).

    .venv/bin/python bench/fuzz_security.py              # 10,000 inputs, seed 21
    .venv/bin/python bench/fuzz_security.py 2000 --seed 7

With DATABASE_URL (PostgreSQL) and REDIS_URL set the inputs reach the real
services (the database is a throwaway test database of this process); else a
throwaway SQLite file and the in-memory channel layer.  Four kinds share N:

- paths: token links (p, h, w, f, s and the replay/record pages) with hostile
  bytes in or after the token, GET and POST, through the Django test client;
- forms: posts with odd content types, charsets and bodies;
- websockets: paths through config.asgi.application (origin check included)
  with WebsocketCommunicator: each must be accepted or closed with a 4xxx code;
- records: mutations of a real exported record through `import_record`: each
  must import, or be refused with one line and exit status 2.

Prints per kind how many inputs were sent and how many ended in a 500 (or an
exception out of the app, or a traceback): 0 is expected everywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    _DB = tempfile.NamedTemporaryFile(suffix=".sqlite3", delete=False)  # noqa: SIM115 - a throwaway file
    os.environ["DATABASE_URL"] = f"sqlite:///{_DB.name}"

#: what failed (printed with --show)
FAILED: list[str] = []
HOSTILE = ["%00", "\x00", "%FF", "%C3%A9", "é", "%2F", "%2f..%2f", "/", ".", "..", ")", ",", ";", "%20", " ", "%3E",
           ">", "<script>", "'", '"', "\\", "%0A", "\n", "\t", "\u202e", "%ED%A0%80", "x" * 129, "x" * 5000, "%", "%%",
           "?a=%00", "#", "+", "~", "*", ""]
TAILS = ["", "move/", "act/", "bouts/1/", "bouts/0/", "bouts/99999999999999999999/", "bouts/1/record.txt",
         "record.txt", "bouts/-1/", "x/"]
CONTENT_TYPES = ["application/x-www-form-urlencoded; charset=latin-1", "application/x-www-form-urlencoded; charset=utf8",
                 "application/x-www-form-urlencoded; charset=utf-16", "application/x-www-form-urlencoded; charset=nope",
                 "application/x-www-form-urlencoded", "multipart/form-data", "multipart/form-data; boundary=x",
                 "application/json", "text/plain; charset=utf-7", "application/x-www-form-urlencoded; charset="]
BODIES = [b"name=Caf%E9", b"name=%00", b"name=" + b"A" * 5000, b"text=place+C3&version=1", b"\xff\xfe\x00",
          b"action=pause&key=%00", b"a=1&" * 2000, b"", b"--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--",
          b"{\"name\": \"x\"}", b"name=" + b"[" * 3000]


def _token_like(rng: random.Random, tokens: list[str]) -> str:
    token = rng.choice(tokens)
    cut = rng.randrange(len(token) + 1)
    return rng.choice([token[:cut] + rng.choice(HOSTILE) + token[cut:], token + rng.choice(HOSTILE),
                       rng.choice(HOSTILE), token[:cut], token])


def fuzz_paths(client: Any, rng: random.Random, tokens: list[str], n: int, counts: Counter[str]) -> None:
    for _ in range(n):
        path = f"/{rng.choice(['p', 'h', 'w', 'f', 's', 'ws/m', '%70', 'P'])}/{_token_like(rng, tokens)}/{rng.choice(TAILS)}"
        method = rng.choice([client.get, client.get, client.post])
        try:
            status = method(path).status_code
        except Exception:  # raised out of the app
            status = 599
        counts["paths sent"] += 1
        counts["paths 500"] += status >= 500
        if status >= 500:
            FAILED.append(f"paths: {method.__name__.upper()} {path!r}")


def fuzz_forms(client: Any, rng: random.Random, tokens: list[str], n: int, counts: Counter[str]) -> None:
    targets = ["/seasons/", "/", *(f"/p/{t}/move/" for t in tokens), *(f"/h/{t}/act/" for t in tokens),
               *(f"/s/{t}/act/" for t in tokens)]
    for _ in range(n):
        target, body, content_type = rng.choice(targets), rng.choice(BODIES), rng.choice(CONTENT_TYPES)
        try:
            # generic(): the body's bytes as they are (post() would re-encode them in the charset)
            status = client.generic("POST", target, body, content_type=content_type).status_code
        except Exception:
            status = 599
        counts["forms sent"] += 1
        counts["forms 500"] += status >= 500
        if status >= 500:
            FAILED.append(f"forms: POST {target} {content_type!r} {body[:60]!r}")


async def fuzz_websockets(rng: random.Random, tokens: list[str], n: int, counts: Counter[str]) -> None:
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    for _ in range(n):
        path = rng.choice([f"/ws/m/{_token_like(rng, tokens)}/", f"/ws/{rng.choice(HOSTILE)}/", "/ws/m/", "/",
                           f"/ws/m/{rng.choice(tokens)}/{rng.choice(HOSTILE)}"])
        origin = rng.choice([b"http://testserver"] * 4 + [b"http://evil.example", b"null"])
        comm = WebsocketCommunicator(application, path, headers=[(b"host", b"testserver"), (b"origin", origin)])
        bad = False
        try:
            connected, _ = await comm.connect(timeout=10)
            if connected:
                first = await comm.receive_output(timeout=10)
                bad = first["type"] == "websocket.close" and not 4000 <= first.get("code", 0) < 5000
            await comm.disconnect()
        except Exception:  # raised out of the app (a 500 at the handshake)
            bad = True
        counts["websockets sent"] += 1
        counts["websockets 500"] += bad
        if bad:
            FAILED.append(f"websockets: {path!r} from {origin!r}")


def fuzz_records(rng: random.Random, text: str, n: int, counts: Counter[str]) -> None:
    from django.core.management import CommandError, call_command

    from matches.models import Match

    lines = text.splitlines()
    hostile = [*HOSTILE, "[" * 3000, '{"a": ' * 3000, "9" * 40, "-1", "null", "[]", "{}", "B" * 90,
               '{"nonsense": 1}', '{"winners": [1, "x"]}', "End of bout 1", "Bout 2", "1. seat 9: place C3"]
    path = Path(tempfile.mkdtemp()) / "record.txt"
    for _ in range(n):
        mutated = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(mutated))
            op = rng.choice(["delete", "duplicate", "replace", "append", "cut", "number"])
            if op == "delete" and len(mutated) > 1:
                del mutated[i]
            elif op == "duplicate":
                mutated.insert(i, mutated[i])
            elif op == "replace":
                mutated[i] = rng.choice(hostile)
            elif op == "append":
                mutated[i] += rng.choice(hostile)
            elif op == "cut":
                mutated[i] = mutated[i][: rng.randrange(len(mutated[i]) + 1)]
            else:
                head, _, tail = mutated[i].partition(": ")
                mutated[i] = f"{head}: {rng.choice(['0', '-3', '9' * 25, '1.5'])}" if tail else head
        path.write_text("\n".join(mutated) + "\n", encoding="utf-8", errors="surrogatepass")
        before = Match.objects.count()
        bad = False
        try:
            call_command("import_record", str(path), stdout=io.StringIO())
        except CommandError as error:
            bad = error.returncode != 2 or "\n" in str(error) or Match.objects.count() != before
            counts["records refused"] += 1
        except Exception as error:  # a traceback
            bad = True
            FAILED.append(f"records: {type(error).__name__}: {str(error)[:200]}")
        counts["records sent"] += 1
        counts["records tracebacks"] += bad


def _close_other_sessions() -> None:
    """The websocket consumers' worker threads keep connections to this process's own test
    database open: closed so that it can be dropped."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", nargs="?", type=int, default=10_000, help="inputs in all (default 10,000)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--show", type=int, default=0, metavar="K", help="print the first K inputs that failed")
    parser.add_argument("--debug", action="store_true", help="with DEBUG on (default: off, as in production and tests)")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.test import Client
    from django.test.utils import setup_databases, setup_test_environment, teardown_databases

    from games.core import HOST
    from matches.play import services
    from matches.replays import records as record

    for db in settings.DATABASES.values():  # a test database of this process's own, as tests/conftest.py
        db.get("OPTIONS", {}).pop("pool", None)
        db.setdefault("TEST", {})["NAME"] = f"test_fuzz_security_{os.getpid()}" if "postgresql" in db["ENGINE"] else None
    layer = settings.CHANNEL_LAYERS.get("default", {})
    if "redis" in layer.get("BACKEND", ""):
        layer.setdefault("CONFIG", {})["prefix"] = f"fuzz{os.getpid()}"
    logging.disable(logging.CRITICAL)  # a 500 is counted, not printed
    settings.DEBUG = args.debug
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        from matches.seasons import ledger as seasons

        match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"], clock=False)
        services.start_match(match)
        services.submit(match, 1, "place C3", match.current_bout.version)
        services.award_bout(match, 2)
        services.start_next_bout(match)
        match.refresh_from_db()
        services.forfeit(match, 1, "match")
        match.refresh_from_db()
        season = seasons.create_season("Fuzz")
        tokens = [match.host_token, match.watch_token, season.manage_token,
                  *match.seats.values_list("token", flat=True)]
        text = record.export(match, HOST)

        rng = random.Random(args.seed)
        client = Client(raise_request_exception=False)
        share = {"paths": 0.5, "forms": 0.3, "websockets": 0.15, "records": 0.05}
        sizes = {kind: max(1, round(args.n * part)) for kind, part in share.items()}
        counts: Counter[str] = Counter()
        started = time.perf_counter()
        fuzz_paths(client, rng, tokens, sizes["paths"], counts)
        fuzz_forms(client, rng, tokens, sizes["forms"], counts)
        asyncio.run(fuzz_websockets(rng, tokens, sizes["websockets"], counts))
        fuzz_records(rng, text, sizes["records"], counts)
        elapsed = time.perf_counter() - started
    finally:
        _close_other_sessions()
        teardown_databases(old, verbosity=0)
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"fuzz_security: {sum(sizes.values())} inputs, seed {args.seed}, {engine}, DEBUG {args.debug}, "
          f"channel layer {layer.get('BACKEND', '').rsplit('.', 1)[-1]}, {elapsed:.0f} s")
    for kind in share:
        bad = counts[f"{kind} 500"] + counts[f"{kind} tracebacks"]
        print(f"  {kind:<11} {counts[f'{kind} sent']:>6} sent  {bad:>4} 500s/tracebacks")
    print(f"  (records refused in one line with exit status 2: {counts['records refused']})")
    for line in FAILED[: args.show]:
        print("  failed:", line)


if __name__ == "__main__":
    main()
