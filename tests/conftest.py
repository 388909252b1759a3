"""Shared fixtures: matches built through the real services, and the people
around them (healthchecks' alice/bob/charlie, for a match):

    roles.host        the host token (host page, every moderation action)
    roles.player1/2   Seat rows (their `.token` opens the seat page)
    roles.spectator   the public watch token
    roles.outsider    a well-formed token that opens nothing
"""

from __future__ import annotations

import os
import secrets
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests import testdb

POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
REDIS = bool(os.environ.get("REDIS_URL"))
#: this xdist worker's test database is a copy of the run's migrated template (tests/testdb.py)
TEMPLATED = POSTGRES and testdb.templated()


def pytest_configure(config: pytest.Config) -> None:
    """WhiteNoise looks a static file up when it is asked for (as with DEBUG on) instead of indexing
    every file of STATIC_ROOT each time the middleware is built: every test client builds its own
    chain, and the index was ~220 s of a CI run's CPU."""
    from django.conf import settings

    settings.WHITENOISE_AUTOREFRESH = True


@pytest.fixture(scope="session")
def django_db_keepdb(request: pytest.FixtureRequest) -> bool:
    """A templated worker's database is already there when pytest-django's setup looks for it (and
    is dropped by django_db_setup below)."""
    return TEMPLATED or bool(request.config.getvalue("reuse_db"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    if TEMPLATED or not POSTGRES or hasattr(session.config, "workerinput"):
        return
    from django.conf import settings

    testdb.drop_template(settings.DATABASES["default"])  # the xdist controller, once its workers are done


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Own test database and channel prefix per pytest process, so several
    test runs sharing one PostgreSQL/Redis never drop or read each other's."""
    from django.conf import settings

    for db in settings.DATABASES.values():
        # No connection pool in the test process: async tests leave a connection behind in each
        # event loop's worker threads, which a pool's cap turns into "couldn't get a connection".
        # The pool itself is exercised against real daphne processes in tests/chaos.
        db.get("OPTIONS", {}).pop("pool", None)
        if "postgresql" in db["ENGINE"]:
            # always this process's own name: pytest-django's xdist suffix ("test_postgres_gw0") is
            # the same in every run, so two runs at once dropped each other's database mid-run
            db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"
            if TEMPLATED:
                testdb.prepare(db, db["TEST"]["NAME"])
    layer: dict[str, Any] = settings.CHANNEL_LAYERS.get("default", {})
    if "redis" in layer.get("BACKEND", "").lower():  # (config.channel_layer.ResilientRedisChannelLayer too)
        layer.setdefault("CONFIG", {}).setdefault("prefix", f"test{os.getpid()}")
    # The default cache too (presence, the shared drawings of live parts): every worker's test
    # database numbers its matches alike, so without a prefix of its own another worker's match 1
    # was this one's (test_live's deltas came whole once).  Not the ratelimit cache: a test counts
    # there from another process, apart by RATELIMIT_CACHE_PREFIX (fresh_rate_limits below).
    cache = settings.CACHES.get("default", {})
    if "redis" in cache.get("BACKEND", "").lower():
        cache["KEY_PREFIX"] = f"test{os.getpid()}:{cache.get('KEY_PREFIX', '')}"


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> Iterator[None]:
    """Each test counts its rate limits (config/ratelimits.py) from zero: many create seasons and
    matches, or open unknown links, from the test client's one address.  A key prefix of its own,
    so nothing has to be cleared in a Redis that other runs share (its keys expire in a minute)."""
    from django.test import override_settings

    with override_settings(RATELIMIT_CACHE_PREFIX=f"rl:test{os.getpid()}:{uuid.uuid4().hex}:"):
        yield


@dataclass
class Roles:
    match: Any
    host: str
    player1: Any
    player2: Any
    spectator: str
    outsider: str

    @property
    def seats(self) -> list[Any]:
        return list(self.match.seats.order_by("number"))


@pytest.fixture
def make_match(db: None) -> Callable[..., Any]:
    """make_match(slug="lance-assembly", start=True, starting_seat=1, **create_match kwargs)."""
    from matches.play import services

    def make(game_slug: str = "lance-assembly", *, start: bool = True, starting_seat: int = 1, **kwargs: Any) -> Any:
        from games.registry import get_game

        seats = get_game(game_slug).seat_count(kwargs.get("options"))
        kwargs.setdefault("seat_names", ["Ann", "Bob", "Cy", "Di"][:seats])
        match = services.create_match(game_slug, **kwargs)
        if start:
            services.start_match(match, starting_seat=starting_seat)
        match.refresh_from_db()
        return match

    return make


def _roles(match: Any) -> Roles:
    return Roles(
        match=match,
        host=match.host_token,
        player1=match.seats.get(number=1),
        player2=match.seats.get(number=2),
        spectator=match.watch_token,
        outsider=secrets.token_urlsafe(24),
    )


@pytest.fixture
def roles(make_match: Callable[..., Any]) -> Roles:
    """A started best-of-3 Lance Assembly match (seat 1 starts bout 1)."""
    return _roles(make_match("lance-assembly"))


@pytest.fixture
def grid_roles(make_match: Callable[..., Any]) -> Roles:
    """A started single-game Grid Master match."""
    return _roles(make_match("grid-master"))


@pytest.fixture
def play() -> Callable[..., Any]:
    """play(match, seat, text): submit with the current version (as a page that is up to date)."""
    from matches.play import services

    def _play(match: Any, seat: int, text: str) -> Any:
        bout = match.bouts.order_by("-number").first()
        return services.submit(match, seat, text, bout.version)

    return _play


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database, whose drop at the end of the run no longer fails ("being
    accessed by other users", leaving the database behind on the shared server): the async tests
    leave connections open in their worker threads' contexts (see django_db_modify_db_settings) and
    in the live-update thread, which nothing closes.  They are ended just before the drop.
    A templated worker drops its database itself (pytest-django keeps what it found)."""
    from django.db import connection, connections

    if TEMPLATED:
        testdb.finish_first(connection.settings_dict, connection.settings_dict["NAME"])
    yield
    if not POSTGRES:
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                       " WHERE datname = current_database() AND pid <> pg_backend_pid()")
    if TEMPLATED:
        connections.close_all()
        testdb.drop(connection.settings_dict, connection.settings_dict["NAME"])
