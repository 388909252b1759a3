"""Defects 8 and 9 (and the 503 of defect 3): small gaps closed.

- the websocket Origin must match scheme, host AND port;
- no token reaches a log line (daphne's access log, Django's own logging);
- `check --deploy` is clean with the documented production settings and
  pages carry a Content-Security-Policy;
- a request that finds no free database connection gets 503 + Retry-After.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from config.asgi import application
from tests.wsclient import Communicator

ROOT = Path(__file__).resolve().parents[2]


# -- origin ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("host", "origin", "accepted"),
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000", True),
        ("127.0.0.1:8000", "http://127.0.0.1:9999", False),  # another port of an allowed host
        ("127.0.0.1:8000", "https://127.0.0.1:8000", False),  # another scheme
        ("127.0.0.1:8000", "http://127.0.0.1", False),
        ("localhost", "http://localhost", True),
        ("localhost", "http://localhost:80", True),
        ("localhost", "http://evil.example", False),
        ("evil.example", "http://evil.example", False),  # not an allowed host
        ("127.0.0.1:8000", "null", False),
        ("127.0.0.1:8000", None, False),
    ],
)
async def test_websocket_origin_must_match_scheme_host_and_port(make_match: Any, host: str, origin: str | None,
                                                                accepted: bool) -> None:
    from channels.db import database_sync_to_async

    match = await database_sync_to_async(make_match)("lance-assembly")
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    comm = Communicator(application, f"/ws/m/{match.watch_token}/", headers=headers)
    connected, _ = await comm.connect(timeout=10)
    assert connected is accepted
    await comm.disconnect()


def test_csrf_trusted_origins_are_accepted_exactly(settings: Any) -> None:
    from config.origin import allowed

    settings.CSRF_TRUSTED_ORIGINS = ["https://match.example.org"]
    settings.ALLOWED_HOSTS = ["match.example.org"]
    scope: dict[str, Any] = {"type": "websocket", "scheme": "ws",
             "headers": [(b"host", b"match.example.org"), (b"origin", b"https://match.example.org")]}
    assert allowed(scope)
    scope["headers"][1] = (b"origin", b"https://match.example.org:8443")
    assert not allowed(scope)


# -- tokens in logs -----------------------------------------------------------------------------


def test_access_log_lines_name_the_audience_not_the_token() -> None:
    from daphne.access import AccessLogGenerator

    from config import logredact

    logredact.install_daphne_access_log()
    logredact.remember("S3cretSeatToken_abcdefgh", "match 7 seat-1")
    stream = io.StringIO()
    access = AccessLogGenerator(stream)
    for path in ("/p/S3cretSeatToken_abcdefgh/", "/h/HostTokenXYZ123456/act/", "/w/WatchTok123456789/",
                 "/ws/m/S3cretSeatToken_abcdefgh/", "/f/Unknown12345678/", "/p/S3cretSeatToken_abcdefgh/bouts/1/"):
        access("http", "complete", {"client": ["127.0.0.1", 1], "method": "GET", "path": path,
                                    "status": 200, "size": 10})
        access("websocket", "connected", {"client": ["127.0.0.1", 1], "path": path})
    log = stream.getvalue()
    for token in ("S3cretSeatToken_abcdefgh", "HostTokenXYZ123456", "WatchTok123456789", "Unknown12345678"):
        assert token not in log
    assert "/p/[match 7 seat-1]/" in log and "/h/[host]/act/" in log and "/w/[spectators]/" in log
    assert "/ws/m/[match 7 seat-1]/" in log and "/f/[page]/" in log


@pytest.mark.django_db
def test_django_logging_never_writes_a_token(roles: Any) -> None:
    handler = logging.getLogger().handlers[0] if logging.getLogger().handlers else None
    assert handler is not None and any(type(f).__name__ == "RedactTokensFilter" for f in handler.filters)
    stream = io.StringIO()
    capture = logging.StreamHandler(stream)
    capture.filters = list(handler.filters)
    logging.getLogger("django").addHandler(capture)
    try:
        Client(raise_request_exception=False).get(f"/p/{roles.player1.token}x/")  # 404: "Not Found: /p/..."
        Client(raise_request_exception=False).post(f"/h/{roles.host}/")  # 405
    finally:
        logging.getLogger("django").removeHandler(capture)
    text = stream.getvalue()
    assert "Not Found" in text and "/p/[seat]/" in text
    assert roles.player1.token not in text and roles.host not in text


# -- deploy settings -------------------------------------------------------------------------


PRODUCTION = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "x7" * 30 + "-a-long-random-production-key",
              "DJANGO_ALLOWED_HOSTS": "match.example.org", "DJANGO_SECURE_COOKIES": "1",
              "DJANGO_CSRF_TRUSTED_ORIGINS": "https://match.example.org"}


def test_check_deploy_is_clean_with_the_documented_production_settings() -> None:
    env = {**os.environ, **PRODUCTION}
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_empty_database_url_counts_as_unset() -> None:
    env = {**os.environ, "DATABASE_URL": ""}
    out = subprocess.run([sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings';"
                          "django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "django.db.backends.sqlite3"


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy(client: Client, roles: Any, settings: Any) -> None:
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": settings.CSP_DIRECTIVES}  # on by default with debug off
    for url in ("/", f"/h/{roles.host}/", f"/p/{roles.player1.token}/", f"/w/{roles.spectator}/"):
        policy = client.get(url)["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "default-src 'self'" in policy
        assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";", 1)[0]


# -- overload --------------------------------------------------------------------------------


def test_no_free_database_connection_gives_503_with_retry_after(rf: Any) -> None:
    from django.db import OperationalError
    from psycopg_pool import PoolTimeout

    from config.middleware import OverloadMiddleware

    middleware = OverloadMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    try:
        try:
            raise PoolTimeout("couldn't get a connection after 20.00 sec")
        except PoolTimeout as cause:
            raise OperationalError("couldn't get a connection") from cause
    except OperationalError as error:
        response = middleware.process_exception(rf.get("/"), error)
    assert response is not None and response.status_code == 503 and response["Retry-After"] == "2"
    assert middleware.process_exception(rf.get("/"), ValueError("a bug")) is None
