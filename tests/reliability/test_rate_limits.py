"""Defect 9 of issue 21: no rate limits (2,000 move posts all 200, 300 seasons in
2.3 s, 300 matches).  Per-client budgets (config/ratelimits.py, django-ratelimit):

- the 11th new season, or the 11th new match, from one address within a minute
  gets 429 with Retry-After, and the window frees after exactly that long;
- the 31st secret link that opens nothing gets 429, and so does every unknown link
  from that address until the window frees; a valid link from that address (a
  page, a move, a host action, a socket) still opens: issue 37, item 4 (players
  behind one NAT lost their match when one of them mistyped a link);
- legal play with valid links (moves, pages, sockets) never gets 429;
- when the shared cache does not answer (Redis down or frozen), each process
  counts on its own: unknown links still get 429 past the budget (issue 37: all
  40 got 404);
- the season manage page's test post: a few a minute;
- with REDIS_URL the counts live in Redis, shared by every process;
- /seasons/ lists only seasons that have a match.

Time is frozen with time_machine: the windows move because the clock is moved.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.core.cache import caches
from django.test import Client

from config import ratelimits
from config.asgi import application
from matches.models import Match, Season
from matches.play import season_matches
from matches.seasons import ledger as seasons
from tests.conftest import REDIS
from tests.hostform import seq
from tests.wsclient import Communicator

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = [(b"origin", b"http://testserver")]
NOON = dt.datetime(2030, 5, 1, 12, 0, 0, tzinfo=dt.UTC)
MATCH_FORM = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob", "bouts": "1", "per_move": "",
              "reserve": "", "round_seconds": ""}
OTHER = "203.0.113.9"  # another client


def _retry_after(response: Any) -> int:
    assert response.status_code == 429, response.content[:300]
    seconds = int(response["Retry-After"])
    assert 1 <= seconds <= 60
    return seconds


def _misses(client: Client, count: int, **extra: Any) -> list[int]:
    """`count` requests for links that open nothing, across every kind of secret link."""
    paths = ["/p/{}/", "/h/{}/", "/w/{}/", "/f/{}/", "/s/{}/", "/p/{}/bouts/1/", "/w/{}/record.txt",
             "/h/{}/bouts/1/record.txt"]
    return [client.get(paths[n % len(paths)].format(secrets.token_urlsafe(24)), **extra).status_code
            for n in range(count)]


# -- creating seasons and matches ----------------------------------------------------------------


@pytest.mark.django_db
def test_the_eleventh_season_in_a_minute_gets_429_until_the_window_frees(client: Client) -> None:
    with time_machine.travel(NOON, tick=False) as clock:
        made = [client.post("/seasons/", {"name": f"Season {n}"}).status_code for n in range(10)]
        assert made == [302] * 10
        refused = client.post("/seasons/", {"name": "One too many"})
        seconds = _retry_after(refused)
        assert refused.content.decode() == (
            f"Too many new seasons from your address; try again in {seconds} second{'s' if seconds > 1 else ''}.")
        assert Season.objects.count() == 10  # nothing created
        # a browser gets the sentence as a page
        page = client.post("/seasons/", {"name": "One too many"}, HTTP_ACCEPT="text/html")
        assert page.status_code == 429 and "Too many new seasons from your address" in page.content.decode()
        assert "<html" in page.content.decode()
        assert client.post("/seasons/", {"name": "Other"}, REMOTE_ADDR=OTHER).status_code == 302
        clock.shift(seconds - 1)
        assert client.post("/seasons/", {"name": "Still too soon"}).status_code == 429
        clock.shift(1)
        assert client.post("/seasons/", {"name": "Next window"}).status_code == 302
    assert Season.objects.count() == 12


@pytest.mark.django_db
def test_the_eleventh_match_in_a_minute_gets_429_until_the_window_frees(client: Client) -> None:
    with time_machine.travel(NOON, tick=False) as clock:
        assert [client.post("/", MATCH_FORM).status_code for _ in range(10)] == [302] * 10
        refused = client.post("/", MATCH_FORM)
        seconds = _retry_after(refused)
        assert refused.content.decode().startswith("Too many new matches from your address; try again in ")
        assert Match.objects.count() == 10
        assert client.get("/").status_code == 200  # the form itself still opens
        assert client.post("/", MATCH_FORM, REMOTE_ADDR=OTHER).status_code == 302
        clock.shift(seconds)
        assert client.post("/", MATCH_FORM).status_code == 302
    assert Match.objects.count() == 12


# -- guessing secret links -----------------------------------------------------------------------


@pytest.mark.django_db
def test_past_thirty_unknown_links_only_unknown_links_get_429_until_the_window_frees(client: Client,
                                                                                    roles: Any) -> None:
    valid = [f"/p/{roles.player1.token}/", f"/h/{roles.host}/", f"/w/{roles.spectator}/", f"/f/{roles.host}/",
             f"/w/{roles.spectator}/record.txt"]
    with time_machine.travel(NOON, tick=False) as clock:
        assert _misses(client, 30) == [404] * 30
        refused = client.get(f"/p/{secrets.token_urlsafe(24)}/")
        seconds = _retry_after(refused)
        assert refused.content.decode().startswith("Too many links from your address opened nothing; try again in ")
        assert _misses(client, 16) == [429] * 16  # every kind of link that opens nothing
        # the players and the host behind the same address go on playing
        assert [client.get(url).status_code for url in valid] == [200] * len(valid)
        move = client.post(f"/p/{roles.player1.token}/move/", {"text": "place C3", "version": "1"})
        assert move.status_code == 200 and "C3" in move.content.decode()
        pause = client.post(f"/h/{roles.host}/act/", {"action": "pause", "host_seq": seq(roles.host)})
        assert pause.status_code == 200 and "clocks paused" in pause.content.decode()
        assert _misses(client, 1) == [429]  # and the valid links did not free the budget
        # another address is not held back
        assert _misses(client, 1, REMOTE_ADDR=OTHER) == [404]
        clock.shift(seconds)
        assert _misses(client, 1) == [404]


@pytest.mark.django_db
def test_a_season_manage_link_that_opens_nothing_counts_and_a_valid_one_still_opens(client: Client) -> None:
    season = seasons.create_season("Guessed")
    with time_machine.travel(NOON, tick=False):
        assert [client.get(f"/s/{secrets.token_urlsafe(24)}/").status_code for _ in range(31)] == [404] * 30 + [429]
        assert client.get(f"/s/{season.manage_token}/").status_code == 200
        assert client.post(f"/s/{season.manage_token}/act/", {"action": "add_player", "name": "Ann"}).status_code == 302
        assert client.get(f"/s/{secrets.token_urlsafe(24)}/").status_code == 429


@pytest.mark.django_db
def test_legal_play_with_valid_links_never_gets_429(client: Client, roles: Any) -> None:
    """40 moves and page loads from one address (more than the largest budget, token-misses' 30 a
    minute), then 30 misses: still 404, not 429 (valid links never count against the budget)."""
    player, host = roles.player1.token, roles.host
    statuses = []
    with time_machine.travel(NOON, tick=False):
        for n in range(20):
            version = roles.match.bouts.get(number=1).version
            token = player if n % 2 == 0 else roles.player2.token
            text = f"place {'ABCDE'[n % 5]}{1 + n // 5 % 5}"
            statuses.append(client.post(f"/p/{token}/move/", {"text": text, "version": str(version)}).status_code)
            url = [f"/p/{player}/", f"/h/{host}/", f"/w/{roles.spectator}/", f"/f/{player}/"][n % 4]
            statuses.append(client.get(url).status_code)
        assert statuses == [200] * 40
        assert _misses(client, 30) == [404] * 30


@pytest.mark.django_db(transaction=True)
async def test_websockets_of_unknown_links_count_and_a_valid_one_still_opens(make_match: Any,
                                                                             settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"  # presence of this test only
    settings.CACHES = caches
    match = await database_sync_to_async(make_match)("lance-assembly")

    async def close_code(token: str, address: str) -> int | None:
        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            await application({**scope, "client": (address, 50000)}, receive, send)

        comm = Communicator(app, f"/ws/m/{token}/", headers=ORIGIN)
        assert (await comm.connect())[0]
        output = await comm.receive_output(timeout=5)
        await comm.disconnect()
        return output.get("code") if output["type"] == "websocket.close" else None

    with time_machine.travel(NOON, tick=False) as clock:
        for _ in range(30):
            assert await close_code(secrets.token_urlsafe(24), "198.51.100.7") == 4404
        assert await close_code(secrets.token_urlsafe(24), "198.51.100.7") == 4429
        # valid links from the same address still open: the board arrived, no close
        seat = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
        for token in (match.watch_token, seat, match.host_token):
            assert await close_code(token, "198.51.100.7") is None
        assert await close_code(secrets.token_urlsafe(24), "198.51.100.7") == 4429
        assert await close_code(secrets.token_urlsafe(24), OTHER) == 4404
        client = Client(REMOTE_ADDR="198.51.100.7")
        assert (await database_sync_to_async(client.get)(f"/w/{match.watch_token}/")).status_code == 200
        assert (await database_sync_to_async(client.get)(f"/w/{secrets.token_urlsafe(24)}/")).status_code == 429
        clock.shift(60)
        assert await close_code(secrets.token_urlsafe(24), "198.51.100.7") == 4404


# -- webhook test posts ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_webhook_test_posts_are_limited_per_season_and_per_client(client: Client) -> None:
    spring = seasons.create_season("Spring", webhook_url="https://example.org/hook")
    autumn = seasons.create_season("Autumn", webhook_url="https://example.org/hook")

    def test_post(season: Season, address: str = "127.0.0.1") -> Any:
        return client.post(f"/s/{season.manage_token}/act/", {"action": "webhook", "do": "test"},
                           REMOTE_ADDR=address)

    with time_machine.travel(NOON, tick=False) as clock:
        assert [test_post(spring).status_code for _ in range(3)] == [302] * 3
        refused = test_post(spring)
        _retry_after(refused)
        assert refused.content.decode().startswith("Too many test posts for this season; try again in ")
        assert test_post(spring, OTHER).status_code == 429  # the season's budget, whoever asks
        assert test_post(autumn).content.decode().startswith("Too many test posts from your address")
        assert test_post(autumn, OTHER).status_code == 302
        # the season's other forms are not limited
        assert client.post(f"/s/{spring.manage_token}/act/", {"action": "add_player", "name": "Ann"}).status_code == 302
        clock.shift(60)  # every window (the season's and the client's) has moved on
        assert test_post(spring).status_code == 302
    assert spring.events.filter(text__startswith="test announcement").count() == 4


# -- client address ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_address_it_adds_is_the_client(client: Client, settings: Any) -> None:
    names = (f"Season {n}" for n in range(100))

    def create(forwarded: str) -> int:
        return client.post("/seasons/", {"name": next(names)}, HTTP_X_FORWARDED_FOR=forwarded).status_code

    settings.DEATHMATCH_TRUSTED_PROXIES = 1
    with time_machine.travel(NOON, tick=False):
        # the client writes its own X-Forwarded-For; the proxy appends the real address
        assert [create(f"10.0.0.{n}, 192.0.2.1") for n in range(12)] == [302] * 10 + [429] * 2
        assert create("192.0.2.2") == 302
        assert create("nonsense") == 302  # not an address: the proxy's own (REMOTE_ADDR) counts
    settings.DEATHMATCH_TRUSTED_PROXIES = 0  # REMOTE_ADDR only: the header is ignored
    with time_machine.travel(NOON + dt.timedelta(minutes=5), tick=False):
        assert [create(f"192.0.2.{n}") for n in range(11)] == [302] * 10 + [429]


# -- shared across processes -------------------------------------------------------------------------

COUNT_ELSEWHERE = """
import sys, django, time_machine, datetime as dt
django.setup()
from django.test import RequestFactory, override_settings
from config import ratelimits
prefix, when, address, count = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
with override_settings(RATELIMIT_CACHE_PREFIX=prefix), time_machine.travel(when, tick=False):
    for _ in range(count):
        ratelimits.missed(RequestFactory().get("/p/nothing/", REMOTE_ADDR=address))
print("counted")
"""


@pytest.mark.redis
@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
@pytest.mark.django_db
def test_with_redis_the_misses_of_another_process_count_here(client: Client) -> None:
    """20 misses counted by another process, 10 here: the 11th here is the 31st."""
    assert "Redis" in django_settings.CACHES["ratelimit"]["BACKEND"]
    address = "198.51.100.20"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    # this test's own prefix (tests/conftest.py's fresh_rate_limits), a setting config.settings does not name
    prefix: str = cast(Any, django_settings).RATELIMIT_CACHE_PREFIX
    out = subprocess.run([sys.executable, "-c", COUNT_ELSEWHERE, prefix,
                          str(NOON.timestamp()), address, "20"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "counted" in out.stdout, out.stderr
    with time_machine.travel(NOON, tick=False):
        assert _misses(client, 10, REMOTE_ADDR=address) == [404] * 10
        assert _misses(client, 1, REMOTE_ADDR=address) == [429]
        assert _misses(client, 1, REMOTE_ADDR=OTHER) == [404]


@pytest.fixture
def unreachable_redis(request: pytest.FixtureRequest, tmp_path: Path, settings: Any,
                      monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The ratelimit cache pointed at a Redis that does not answer: a port nothing listens on
    ("closed"), or a redis-server of this test's own stopped with SIGSTOP ("frozen": connections
    open, no reply comes)."""
    from tests.chaos.conftest import RedisServer
    from tests.servers import free_port

    monkeypatch.setattr(ratelimits, "_failed_at", None)  # put back as it was (None) afterwards
    server = None
    if request.param == "frozen":
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        server = RedisServer(tmp_path)
        url = server.url
    else:
        url = f"redis://127.0.0.1:{free_port()}/0"
    settings.CACHES = {**settings.CACHES, "ratelimit": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
        "OPTIONS": {"socket_timeout": 0.2, "socket_connect_timeout": 0.2}}}
    if server is not None:
        assert caches["ratelimit"].add("probe", 1)  # it answered before it froze
        server.freeze()
    try:
        yield str(request.param)
    finally:
        if server is not None:
            server.kill()


@pytest.mark.parametrize("unreachable_redis", ["closed", "frozen"], indirect=True)
@pytest.mark.django_db
def test_with_the_shared_counter_unreachable_each_process_still_limits(client: Client, roles: Any,
                                                                       unreachable_redis: str) -> None:
    """Issue 37: with Redis stopped or frozen, 40 unknown links all got 404 (the limit failed open)."""
    with time_machine.travel(NOON, tick=False) as clock:
        statuses = _misses(client, 40)
        assert statuses == [404] * 30 + [429] * 10
        refused = client.get(f"/h/{secrets.token_urlsafe(24)}/")
        seconds = _retry_after(refused)
        assert client.get(f"/p/{roles.player1.token}/").status_code == 200  # a valid link still opens
        assert _misses(client, 1, REMOTE_ADDR=OTHER) == [404]
        clock.shift(seconds)
        assert _misses(client, 1) == [404]


# -- the public season list ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_season_list_shows_only_seasons_with_a_match(client: Client) -> None:
    empty = seasons.create_season("Nothing Played Yet")
    played = seasons.create_season("Has A Match")
    for name in ("Ann", "Bob"):
        seasons.add_player(played, name)
    season_matches.create_season_match(played, "squava", list(played.players.values_list("pk", flat=True)))
    page = client.get("/seasons/").content.decode()
    assert "Has A Match" in page and f"/seasons/{played.slug}/" in page
    assert "Nothing Played Yet" not in page and f"/seasons/{empty.slug}/" not in page
    assert page.count(f"/seasons/{played.slug}/") == 1  # one row, however many matches it has
