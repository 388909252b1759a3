"""Defects 3 and 4 under load: 1,000 concurrent requests, 0 x 500, doubles applied once.

One daphne process on PostgreSQL (its own database) with Django's connection
pool.  1,000 requests are sent at once: 400 identical "+30 s for seat 2"
host actions (one form, one host_seq, as 400 clicks and retries), 400 moves
posted by the two seats (mostly stale or out of turn: refused in words) and
200 page loads.  Without a pool each request held its own connection and
PostgreSQL refused the excess ("too many clients": HTTP 500).  Required: no
500 (a request that finds no free connection in time may get 503 with
Retry-After), and the doubled host action applied exactly once.
`bench/chaos_heavy.sh` sends more (DEATHMATCH_CHAOS_REQUESTS).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import urllib.parse
from collections import Counter
from pathlib import Path

import pytest

from .conftest import POSTGRES, Daphne, Http, RedisServer, host_seq, make_match

pytestmark = [pytest.mark.chaos, pytest.mark.postgres]

REQUESTS = int(os.environ.get("DEATHMATCH_CHAOS_REQUESTS", "1000"))


async def _request(port: int, method: str, path: str, form: dict[str, str] | None, cookie: str,
                   csrf: str) -> tuple[int, str]:
    body = urllib.parse.urlencode(form).encode() if form is not None else b""
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
            f"Cookie: {cookie}", f"X-CSRFToken: {csrf}", f"Content-Length: {len(body)}"]
    if form is not None:
        head.append("Content-Type: application/x-www-form-urlencoded")
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 60)
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 180)
        writer.close()
    except (TimeoutError, OSError) as error:
        return 0, repr(error)
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, data.decode(errors="replace")


@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
def test_a_thousand_concurrent_requests_give_no_500_and_apply_doubles_once(
        chaos_db: str, redis_server: RedisServer, workdir: Path) -> None:
    server = Daphne(workdir, chaos_db, redis_server.url)
    try:
        match = make_match(server)
        http = Http(server.url)
        _, html, _ = http.get(f"/h/{match['host']}/")
        cookie = "; ".join(f"{c.name}={c.value}" for c in http.jar)
        seq = host_seq(html)
        jobs: list[tuple[str, str, dict[str, str] | None]] = []
        for n in range(REQUESTS):
            kind = n % 5
            if kind in (0, 1):
                jobs.append(("POST", f"/h/{match['host']}/act/",
                             {"action": "clock", "seat": "2", "seconds": "30", "host_seq": seq}))
            elif kind in (2, 3):
                seat = 1 + n % 2
                jobs.append(("POST", f"/p/{match['seats'][seat]}/move/", {"text": "place C3", "version": "2"}))
            else:
                jobs.append(("GET", f"/w/{match['watch']}/" if n % 2 else f"/p/{match['seats'][1]}/", None))

        async def run() -> list[tuple[int, str]]:
            return await asyncio.gather(*(_request(server.port, m, p, f, cookie, http.csrf) for m, p, f in jobs))

        started = time.monotonic()
        results = asyncio.run(run())
        elapsed = time.monotonic() - started
        statuses = Counter(status for status, _ in results)
        applied = server.manage(
            "from matches.models import TurnLog; "
            f"print(TurnLog.objects.filter(match_id={match['id']}, kind='host', text__contains='30 s for').count())"
        ).strip().splitlines()[-1]
        told = sum("already done" in text for _, text in results)
        retry_after = all(re.search(r"(?i)retry-after: \d+", text) for status, text in results if status == 503)
        print(f"\n{REQUESTS} concurrent requests on one process in {elapsed:.1f} s: statuses "
              f"{dict(sorted(statuses.items()))}; identical '+30 s' host actions: {REQUESTS * 2 // 5} posted, "
              f"{applied.strip()} applied, {told} told 'already done'")
        assert statuses[500] == 0, [t[:300] for s, t in results if s == 500][:3]
        assert statuses[0] == 0, [t for s, t in results if s == 0][:3]
        assert set(statuses) <= {200, 302, 503}
        assert retry_after
        assert applied.strip() == "1"
        log = server.log_text()
        assert "too many clients" not in log and "Traceback" not in log, log[-3000:]
    finally:
        server.stop()
