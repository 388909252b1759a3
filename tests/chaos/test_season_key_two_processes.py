"""Issue 37, item 1, as it was found: a season form's key, replayed by another client through
the other web process, redirected to the first client's manage link.  Two daphne processes on
one database (and one Redis); each client a browser-like cookie jar of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import Daphne, Http, RedisServer

pytestmark = [pytest.mark.chaos]

MANAGE = re.compile(r"/s/([A-Za-z0-9_-]{16,})/")


def _form(client: Http) -> str:
    status, page, _ = client.get("/seasons/")  # (also gives the client its CSRF cookie and token)
    assert status == 200
    found = re.search(r'name="key" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_a_key_replayed_through_the_other_process_never_opens_the_first_season(
        chaos_db: str, redis_server: RedisServer, workdir: Path) -> None:
    first, second = Daphne(workdir, chaos_db, redis_server.url), Daphne(workdir, chaos_db, redis_server.url)
    try:
        alice, mallory = Http(first.url), Http(second.url)
        key = _form(alice)
        status, page, _ = alice.post("/seasons/", {"name": "Two Process Cup", "key": key})
        assert status == 200 and "Season created" in page  # (the redirect, followed: the manage page)
        mine = set(MANAGE.findall(page))
        assert mine, page[:2000]
        _form(mallory)  # her own page and CSRF cookie, then alice's key
        status, page, _ = mallory.post("/seasons/", {"name": "Another Cup", "key": key})
        assert status == 200 and "Season created" in page
        assert mine.isdisjoint(MANAGE.findall(page)), "the replayed key opened the first client's season"
    finally:
        first.stop()
        second.stop()
