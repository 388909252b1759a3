"""GET /healthz (config/health.py): answered whatever DJANGO_ALLOWED_HOSTS is, 200 when the database
and Redis answer, 503 with a sentence naming what does not (issue 51: under compose, web's
healthcheck asked `/` for the host 127.0.0.1:8000, got Django's 400 and web never became healthy).
Through Django's test client, and through daphne started as the compose file starts it (production
settings, a site name that is not the address asked)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client, override_settings

from config.drain import drain
from tests import servers
from tests.chaos.conftest import RedisServer

SITE = "match.example.org"


def redis_layer(url: str) -> dict[str, object]:
    return {"default": {"BACKEND": "config.channel_layer.ResilientRedisChannelLayer",
                        "CONFIG": {"hosts": [{"address": url}]}}}


@pytest.mark.django_db
@override_settings(ALLOWED_HOSTS=[SITE])
def test_health_answers_an_address_that_is_not_an_allowed_host() -> None:
    client = Client(HTTP_HOST="127.0.0.1:8000")
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert response["Cache-Control"] == "no-store"
    assert client.head("/healthz").status_code == 200
    # every other path still checks the host
    assert client.get("/").status_code == 400
    assert client.post("/healthz").status_code == 400
    assert Client(HTTP_HOST=SITE).get("/healthz").status_code == 200


@pytest.mark.django_db
def test_health_names_a_redis_server_that_does_not_answer(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    redis = RedisServer(tmp_path)
    try:
        with override_settings(CHANNEL_LAYERS=redis_layer(redis.url)):
            assert Client().get("/healthz").status_code == 200
            redis.kill()
            response = Client().get("/healthz")
    finally:
        redis.kill()
    assert response.status_code == 503
    assert response.content.decode() == "Not ready: Redis (the channel layer) does not answer.\n"
    assert str(redis.port) not in response.content.decode()  # no address in a public answer


@pytest.mark.django_db
def test_health_is_503_while_the_process_drains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drain, "draining", True)  # what SIGTERM sets (config/drain.py)
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.content == b"Not ready: this process is shutting down.\n"


def _daphne(tmp_path: Path, **env: str) -> tuple[int, subprocess.Popen[bytes]]:
    port = servers.free_port()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0",
                   "DJANGO_SECRET_KEY": "health-" + "k" * 44, "DJANGO_ALLOWED_HOSTS": SITE,
                   "DEATHMATCH_INPROCESS_CLOCKS": "0", "DEATHMATCH_INPROCESS_DISCORD": "0",
                   "DEATHMATCH_INPROCESS_WEBHOOKS": "0", "PYTHONUNBUFFERED": "1", **env}
    if "REDIS_URL" not in env:
        environment.pop("REDIS_URL", None)  # the in-memory channel layer: nothing of Redis to check
    proc = servers.start_daphne(port, environment, tmp_path / f"daphne-{port}.log")
    return port, proc


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        servers.stop(proc)


def test_daphne_in_production_answers_health_for_its_container_address(tmp_path: Path, started: list[subprocess.Popen[bytes]]) -> None:
    """As web's compose healthcheck asks it: plain http to 127.0.0.1:8000, the site another name."""
    port, proc = _daphne(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    started.append(proc)
    assert _get(port, "/healthz") == (200, "ok\n")
    assert _get(port, "/")[0] == 400  # the site itself: only under its own name


def test_daphne_names_the_database_that_does_not_answer(tmp_path: Path, started: list[subprocess.Popen[bytes]]) -> None:
    # a database file in a directory that does not exist: SQLite cannot open it
    port, proc = _daphne(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}")
    started.append(proc)
    assert _get(port, "/healthz") == (503, "Not ready: the database does not answer.\n")


def test_daphne_names_redis_and_the_database_together(tmp_path: Path, started: list[subprocess.Popen[bytes]]) -> None:
    closed = servers.free_port()  # nothing listens there
    port, proc = _daphne(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}",
                         REDIS_URL=f"redis://127.0.0.1:{closed}/0")
    started.append(proc)
    assert _get(port, "/healthz") == (
        503, "Not ready: the database does not answer; Redis (the channel layer) does not answer.\n")


def test_the_compose_healthcheck_command_passes_and_fails_with_health(tmp_path: Path, started: list[subprocess.Popen[bytes]]) -> None:
    """docker-compose.yml's web healthcheck, run as Docker runs it (exit 0 = healthy), against a
    ready and an unready process."""
    compose = (Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text()
    found = re.search(r'test: \["CMD", "python", "-c", "([^"]+)"\]', compose)
    assert found, "web's healthcheck is not a python -c command"
    code = found.group(1)
    assert "127.0.0.1:8000/healthz" in code
    ready, proc = _daphne(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    started.append(proc)
    unready, proc = _daphne(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}")
    started.append(proc)
    for port, healthy in ((ready, 0), (unready, 1)):
        run = subprocess.run([sys.executable, "-c", code.replace("127.0.0.1:8000", f"127.0.0.1:{port}")],
                             capture_output=True, timeout=30)
        assert run.returncode == healthy, run.stderr
