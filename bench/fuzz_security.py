"""Fuzzed requests anyone could send, counting 500s and tracebacks (issues 21 and 37), then
searching the logs the run wrote for every token in the database.

    .venv/bin/python bench/fuzz_security.py              # 10,000 inputs, seed 21, in-process
    .venv/bin/python bench/fuzz_security.py 2000 --seed 7 --show 5
    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/fuzz_security.py --daphne

With DATABASE_URL (PostgreSQL) and REDIS_URL set the inputs reach the real
services (the database is a throwaway test database of this process); else a
throwaway SQLite file and the in-memory channel layer.  With --daphne (PostgreSQL
only) the HTTP inputs go to a daphne process with production settings (DEBUG off,
CSRF checked) serving that same test database.  Five kinds share N:

- paths: token links (p, h, w, f, s and the replay/record pages) with hostile
  bytes in or after the token, GET and POST;
- forms: posts with odd content types, charsets and bodies;
- chat: every chat and moderation URL (/p/ /h/ /w/ chat/, /w/ chat/name/, /h/ chat/mod/
  and export.txt) with a random subset of their fields, plausible or hostile (NUL,
  zero-width characters, tokens split by them, long text), with and without htmx;
- websockets: paths through config.asgi.application (origin check included)
  with WebsocketCommunicator: each must be accepted or closed with a 4xxx code; a
  socket that opens sends chat lines (and some moves) with hostile rooms and text
  (lone surrogates too) and must answer each, or close with a 4xxx code;
- records: mutations of a real exported record through `import_record`: each
  must import, or be refused with one line and exit status 2.

Each input comes from a client address of its own (X-Forwarded-For, one trusted
proxy), so the inputs reach the views rather than one address's rate limits.

Prints per kind how many inputs were sent and how many ended in a 500 (or an
exception out of the app, or a traceback): 0 is expected everywhere.  Then the
log search: this process's log (every record, through settings.LOGGING's token
filter, to a file) and the daphne process's (its access log and Django's),
each line against every seat, host, watch and manage token in the database
before it is dropped: 0 lines holding one is expected.  --logs DIR keeps them.
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
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    _DB = tempfile.NamedTemporaryFile(suffix=".sqlite3", delete=False)  # noqa: SIM115 - a throwaway file
    os.environ["DATABASE_URL"] = f"sqlite:///{_DB.name}"

#: the answers' status codes, per kind (printed: a kind that only met 403s or 429s tested nothing)
STATUSES: dict[str, Counter[int]] = {"paths": Counter(), "forms": Counter(), "chat": Counter()}
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


class InProcess:
    """Requests through Django's test client (this process's database, settings and logs)."""

    name = "in-process"

    def __init__(self) -> None:
        from django.test import Client

        self.client = Client(raise_request_exception=False)

    def send(self, method: str, path: str, body: bytes = b"", content_type: str = "", headers: dict[str, str] | None = None) -> int:
        extra: dict[str, Any] = {f"HTTP_{k.upper().replace('-', '_')}": v for k, v in (headers or {}).items()}
        if method == "GET":
            return int(self.client.get(path, **extra).status_code)
        # generic(): the body's bytes as they are (post() would re-encode them in the charset)
        return int(self.client.generic(method, path, body, content_type=content_type or "application/octet-stream",
                                       **extra).status_code)


class OverHttp:
    """The same requests to a daphne process over HTTP, as a browser sends them: the path
    percent-encoded where HTTP needs it, and a CSRF cookie with its header (DEBUG is off there:
    CSRF is checked, as in production)."""

    name = "daphne"

    def __init__(self, port: int) -> None:
        self.port = port
        self.csrf = "fuzz" + "c" * 28  # a CSRF secret of the 32 characters Django's cookie holds

    def send(self, method: str, path: str, body: bytes = b"", content_type: str = "", headers: dict[str, str] | None = None) -> int:
        import http.client
        from urllib.parse import quote

        sent = {"Host": "127.0.0.1", "X-CSRFToken": self.csrf, **(headers or {})}
        sent["Cookie"] = "; ".join(filter(None, [f"csrftoken={self.csrf}", sent.pop("Cookie", "")]))
        if method != "GET":
            sent["Content-Type"] = content_type or "application/octet-stream"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(method, quote(path, safe="/%?#=&;:+,~*'()!$@"), body=body if method != "GET" else None,
                               headers=sent)
            response = connection.getresponse()
            response.read()
            return int(response.status)
        except (OSError, http.client.HTTPException):
            return 599  # the server dropped the request
        finally:
            connection.close()


def _client_address(rng: random.Random) -> dict[str, str]:
    """A client address of its own (DEATHMATCH_TRUSTED_PROXIES = 1): the inputs reach the views
    instead of the rate limits of one address."""
    return {"X-Forwarded-For": f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"}


def fuzz_paths(target: Any, rng: random.Random, tokens: list[str], n: int, counts: Counter[str]) -> None:
    for _ in range(n):
        path = f"/{rng.choice(['p', 'h', 'w', 'f', 's', 'ws/m', '%70', 'P'])}/{_token_like(rng, tokens)}/{rng.choice(TAILS)}"
        method = rng.choice(["GET", "GET", "POST"])
        try:
            status = target.send(method, path, headers=_client_address(rng))
        except Exception:  # raised out of the app
            status = 599
        counts["paths sent"] += 1
        STATUSES["paths"][status] += 1
        counts["paths 500"] += status >= 500
        if status >= 500:
            FAILED.append(f"paths: {method} {path!r}")


def fuzz_forms(target: Any, rng: random.Random, tokens: list[str], n: int, counts: Counter[str]) -> None:
    targets = ["/seasons/", "/", *(f"/p/{t}/move/" for t in tokens), *(f"/h/{t}/act/" for t in tokens),
               *(f"/s/{t}/act/" for t in tokens)]
    for _ in range(n):
        path, body, content_type = rng.choice(targets), rng.choice(BODIES), rng.choice(CONTENT_TYPES)
        try:
            status = target.send("POST", path, body, content_type, _client_address(rng))
        except Exception:
            status = 599
        counts["forms sent"] += 1
        STATUSES["forms"][status] += 1
        counts["forms 500"] += status >= 500
        if status >= 500:
            FAILED.append(f"forms: POST {path} {content_type!r} {body[:60]!r}")


#: what each chat and moderation field plausibly holds (else a hostile value is sent)
CHAT_FIELDS = {
    "room": ["announce", "table", "spectators", "seat-1", "seat-2", "seat-9", "seat-01", "seat-\x00"],
    "text": ["hello", "good move", "/p/{token}/", "{token}", "see /h/{zw}", "{zw}", "https://x.example/s/{token}/"],
    "webhook": ["on", "off"],
    "name": ["Zed", "host", "The Host", "{token}", "{zw}"],
    "action": ["remove", "mute", "unmute", "close", "open", "options", "delete"],
    "message": ["1", "2", "999999999999999999999", "-1"],
    "writer": ["seat-1", "seat-2", "seat-0", "seat-99", "spectator-abc123", "spectator-", "host", "spectator-\x00"],
    "duration": ["15", "60", "match", "0", "forever"],
    "reason": ["spam", "rude", "{token}"],
    "table": ["on", "1", "true", "off"],
    "spectators": ["on", "off", "delayed", "later"],
}
CHAT_HOSTILE = [*HOSTILE, "\u200b", "\u2060", "\ufeff", "\U000e0041", "\x00" * 600, "a" * 501, "\U0001f600" * 300,
                "%00", "\r\n", "<b>x</b>"]


def fuzz_chat(target: Any, rng: random.Random, match: Any, n: int, counts: Counter[str]) -> None:
    """Posts to every chat and moderation URL with a random subset of their fields, each plausible
    or hostile (NUL, zero-width characters, tokens split by them, long text); GETs of the panels."""
    from urllib.parse import urlencode

    from matches.pages import chat_panel

    seats = list(match.seats.values_list("token", flat=True))
    tokens = [match.host_token, match.watch_token, *seats]
    urls = [*(f"/p/{t}/chat/" for t in seats), f"/h/{match.host_token}/chat/", f"/w/{match.watch_token}/chat/",
            f"/w/{match.watch_token}/chat/name/", f"/h/{match.host_token}/chat/mod/",
            f"/h/{match.host_token}/chat/mod/", f"/h/{match.host_token}/chat/export.txt"]
    for _ in range(n):
        url = rng.choice(urls)
        token = rng.choice(tokens)
        cut = rng.randrange(len(token))
        fill = {"token": token, "zw": token[:cut] + rng.choice(["\u200b", "\u2060", "\u00ad"]) + token[cut:]}
        data: list[tuple[str, str]] = []
        for field in rng.sample(sorted(CHAT_FIELDS), k=rng.randint(1, len(CHAT_FIELDS))):
            value = rng.choice(CHAT_FIELDS[field]) if rng.random() < 0.6 else rng.choice(CHAT_HOSTILE)
            data.append((field, value.format(**fill) if "{" in value and "}" in value and len(value) < 80 else value))
        headers = _client_address(rng)
        if rng.random() < 0.5:
            headers["HX-Request"] = "true"
        if "/w/" in url and rng.random() < 0.7:  # a spectator who chose a name (or a forged cookie)
            ident = f"{rng.getrandbits(32):08x}"
            value = chat_panel.spectator_cookie(ident, rng.choice(["Zed", "Fan"])) if rng.random() < 0.9 else "x" + ident
            headers["Cookie"] = f"{chat_panel.COOKIE}={value}"
        method = "GET" if url.endswith(("export.txt",)) or rng.random() < 0.1 else "POST"
        body = urlencode(data, encoding="utf-8", errors="surrogatepass").encode() if method == "POST" else b""
        try:
            status = target.send(method, url, body, "application/x-www-form-urlencoded", headers)
        except Exception:
            status = 599
        counts["chat sent"] += 1
        STATUSES["chat"][status] += 1
        counts["chat 500"] += status >= 500
        if status >= 500:
            FAILED.append(f"chat: {method} {url} {data!r}"[:300])


async def fuzz_websockets(rng: random.Random, tokens: list[str], n: int, counts: Counter[str]) -> None:
    """Handshakes with hostile paths and origins; on a socket that opens, a few chat lines with
    hostile rooms and text (a JSON string may hold a lone surrogate, which no form can carry)."""
    from asgiref.typing import ASGIApplication
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from matches.pages import chat_panel

    for _ in range(n):
        path = rng.choice([f"/ws/m/{_token_like(rng, tokens)}/", f"/ws/{rng.choice(HOSTILE)}/", "/ws/m/", "/",
                           f"/ws/m/{rng.choice(tokens)}/{rng.choice(HOSTILE)}", f"/ws/m/{rng.choice(tokens)}/",
                           f"/ws/m/{rng.choice(tokens)}/"])
        origin = rng.choice([b"http://testserver"] * 4 + [b"http://evil.example", b"null"])
        headers = [(b"host", b"testserver"), (b"origin", origin)]
        if rng.random() < 0.5:
            cookie = chat_panel.spectator_cookie(f"{rng.getrandbits(32):08x}", "Zed")
            headers.append((b"cookie", f"{chat_panel.COOKIE}={cookie}".encode()))
        # config.asgi types its app with plain mappings (config/drain.py), asgiref with its TypedDicts
        comm = WebsocketCommunicator(cast(ASGIApplication, application), path, headers=headers)
        bad, sent = False, []
        try:
            connected, _ = await comm.connect(timeout=10)
            if connected:
                first = await comm.receive_output(timeout=10)
                bad = first["type"] == "websocket.close" and not 4000 <= first.get("code", 0) < 5000
                if not bad and first["type"] != "websocket.close":
                    for _ in range(rng.randint(1, 3)):
                        sent.append(_chat_frame(rng, tokens))
                        answer = await _answered(comm, sent[-1])
                        bad = answer == "bad"
                        if answer != "answered":
                            break
            await comm.disconnect()
        except Exception:  # raised out of the app (a 500 at the handshake, or a consumer that crashed)
            bad = True
        counts["websockets sent"] += 1
        counts["websockets 500"] += bad
        if bad:
            FAILED.append(f"websockets: {path!r} from {origin!r} {sent!r}"[:300])


def _chat_frame(rng: random.Random, tokens: list[str]) -> str:
    import json

    hostile = [*CHAT_HOSTILE, "\ud800", "x\udfff", "\ud83d"]
    room = rng.choice(CHAT_FIELDS["room"]) if rng.random() < 0.6 else rng.choice(hostile)
    text = rng.choice(["hi", rng.choice(tokens), "/h/" + rng.choice(tokens)]) if rng.random() < 0.4 else rng.choice(hostile)
    frame: dict[str, Any] = {"type": "chat", "room": room, "text": text}
    if rng.random() < 0.2:  # a move with the same text (a seat's socket: refused or played, in words)
        frame = {"type": "move", "text": rng.choice(["place C3", "answer 7", "answer "]) + text,
                 "version": rng.choice([0, 1, 2, 3])}
    if rng.random() < 0.1:
        frame[rng.choice(["text", "room", "extra"])] = rng.choice([None, 7, [], {"a": 1}])
    return json.dumps(frame)  # ensure_ascii: a lone surrogate travels as its \\u escape


async def _answered(comm: Any, frame: str) -> str:
    """Send a chat frame: the socket must answer with the room's error line (hidden when the line
    was taken), or close with a 4xxx code (a malformed message); never crash or close otherwise."""
    await comm.send_to(text_data=frame)
    for _ in range(20):
        out = await comm.receive_output(timeout=10)
        if out["type"] == "websocket.close":
            return "closed" if 4000 <= out.get("code", 0) < 5000 else "bad"
        if 'class="chat-error"' in out.get("text", "") or 'id="move-error"' in out.get("text", ""):
            return "answered"
    return "bad"


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
    parser.add_argument("--daphne", action="store_true",
                        help="send the HTTP inputs (paths, forms, chat) to a daphne process (PostgreSQL only)")
    parser.add_argument("--logs", type=Path, default=None, metavar="DIR",
                        help="keep the logs the run wrote here (default: a temporary directory)")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.test.utils import setup_databases, setup_test_environment, teardown_databases

    from bench.fuzz_logs import Daphne, capture_logs, search_logs
    from games.core import HOST
    from matches.play import services
    from matches.replays import records as record

    postgres = "postgresql" in settings.DATABASES["default"]["ENGINE"]
    if args.daphne and not postgres:
        parser.error("--daphne needs DATABASE_URL on PostgreSQL (the daphne process opens the run's test database)")
    for db in settings.DATABASES.values():  # a test database of this process's own, as tests/conftest.py
        db.get("OPTIONS", {}).pop("pool", None)
        db.setdefault("TEST", {})["NAME"] = f"test_fuzz_security_{os.getpid()}" if "postgresql" in db["ENGINE"] else None
    layer: dict[str, Any] = settings.CHANNEL_LAYERS.get("default", {})
    if "redis" in layer.get("BACKEND", "").lower():
        layer.setdefault("CONFIG", {})["prefix"] = f"fuzz{os.getpid()}"
    logs = args.logs or Path(tempfile.mkdtemp(prefix="fuzz-logs-"))
    logs.mkdir(parents=True, exist_ok=True)
    capture_logs(logs / "in-process.log")  # a 500 is counted and its log line searched, not printed
    settings.DEBUG = args.debug
    settings.DEATHMATCH_TRUSTED_PROXIES = 1  # each input from an address of its own (_client_address)
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    server = None
    try:
        from matches.seasons import ledger as seasons

        match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"], clock=False)
        services.start_match(match)
        bout = match.current_bout
        assert bout is not None  # start_match made it
        services.submit(match, 1, "place C3", bout.version)
        services.award_bout(match, 2)
        services.start_next_bout(match)
        match.refresh_from_db()
        services.forfeit(match, 1, "match")
        match.refresh_from_db()
        season = seasons.create_season("Fuzz")
        tokens = [match.host_token, match.watch_token, season.manage_token,
                  *match.seats.values_list("token", flat=True)]
        text = record.export(match, HOST)
        chatting = services.create_match("lance-assembly", seat_names=["Cy", "Di"], clock=False)
        services.start_match(chatting)

        target: Any = InProcess()
        if args.daphne:
            db = settings.DATABASES["default"]
            url = f"postgres://{db['USER']}:{db.get('PASSWORD') or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
            server = Daphne(logs / "daphne.log", url, settings.SECRET_KEY)  # (the spectator cookies it signs)
            target = OverHttp(server.port)

        rng = random.Random(args.seed)
        share = {"paths": 0.4, "forms": 0.2, "chat": 0.25, "websockets": 0.1, "records": 0.05}
        sizes = {kind: max(1, round(args.n * part)) for kind, part in share.items()}
        counts: Counter[str] = Counter()
        started = time.perf_counter()
        fuzz_paths(target, rng, tokens, sizes["paths"], counts)
        fuzz_forms(target, rng, tokens, sizes["forms"], counts)
        fuzz_chat(target, rng, chatting, sizes["chat"], counts)
        asyncio.run(fuzz_websockets(rng, [*tokens, chatting.host_token, chatting.watch_token], sizes["websockets"], counts))
        fuzz_records(rng, text, sizes["records"], counts)
        elapsed = time.perf_counter() - started
        if server is not None:
            server.stop()
            server = None
        logging.shutdown()
        read, leaked, shapes = search_logs(sorted(logs.glob("*.log")))
    finally:
        if server is not None:
            server.stop()
        _close_other_sessions()
        teardown_databases(old, verbosity=0)
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"fuzz_security: {sum(sizes.values())} inputs, seed {args.seed}, {engine}, DEBUG {args.debug}, "
          f"channel layer {layer.get('BACKEND', '').rsplit('.', 1)[-1]}, HTTP {target.name}, {elapsed:.0f} s")
    for kind in share:
        bad = counts[f"{kind} 500"] + counts[f"{kind} tracebacks"]
        answers = ", ".join(f"{code}: {k}" for code, k in sorted(STATUSES.get(kind, Counter()).items()))
        print(f"  {kind:<11} {counts[f'{kind} sent']:>6} sent  {bad:>4} 500s/tracebacks" + (f"  ({answers})" if answers else ""))
    print(f"  (records refused in one line with exit status 2: {counts['records refused']})")
    total = sum(counts[f"{kind} 500"] + counts[f"{kind} tracebacks"] for kind in share)
    print(f"  500s in all: {total}")
    print(f"  log search: {read} lines of {', '.join(p.name for p in sorted(logs.glob('*.log')))} ({logs}), "
          f"{leaked} hold a token from the database")
    for count, example in shapes[: max(args.show, 10)]:
        print(f"  token in log ({count} lines like): {example}")
    for line in FAILED[: args.show]:
        print("  failed:", line)


if __name__ == "__main__":
    main()
