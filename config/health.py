"""GET /healthz: is this web process ready to serve?  200 "ok", or 503 with one sentence naming
what is not (the database, a Redis server of the channel layer, a drain under way).

Container healthchecks (docker-compose.yml), load balancers and monitors ask it by whatever address
they reach the process at (`127.0.0.1:8000` inside a container), which is rarely a name in
DJANGO_ALLOWED_HOSTS (`match.example.org`).  Django checks the host only in
`HttpRequest.get_host()`, which the middlewares after this one call (SecurityMiddleware,
CommonMiddleware, CsrfViewMiddleware...).  So this is a middleware, and the first one: it answers
/healthz before any of them runs and reads nothing of the request but its method and path, so no
Host header is ever trusted for anything.  A middleware rather than a wrapper around the ASGI
application: the same code answers under daphne, WSGI and Django's test client, and every other
path keeps Django's host validation exactly as it is.  Being first it also skips the https
redirect (DJANGO_SECURE_COOKIES=1): a healthcheck speaks plain http to the container.

The answer names no address, user or driver message (the endpoint is reachable through the proxy);
the details go to the log (logger "deathmatch.health").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

from config.drain import drain

log = logging.getLogger("deathmatch.health")

PATH = "/healthz"
#: seconds a Redis server has to answer PING (connect and read each)
REDIS_TIMEOUT = 2.0

#: one client (and connection pool) per Redis server, made on first use
_clients: dict[str, redis.Redis] = {}


def _redis_urls() -> list[str]:
    """The Redis servers the channel layer uses (none with the in-memory layer)."""
    layer: dict[str, Any] = settings.CHANNEL_LAYERS.get("default", {})
    if "redis" not in str(layer.get("BACKEND", "")).lower():
        return []
    hosts: list[Any] = layer.get("CONFIG", {}).get("hosts", [])
    return [str(host["address"] if isinstance(host, dict) else host) for host in hosts]


def _database_problem() -> str | None:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        log.warning("not ready: the database: %s: %s", type(error.__cause__ or error).__name__, error)
        return "the database does not answer"
    return None


def _redis_problem() -> str | None:
    urls = _redis_urls()
    down = []
    for number, url in enumerate(urls, 1):
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = redis.Redis.from_url(
                url, socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT)
        try:
            client.ping()
        except (redis.RedisError, OSError) as error:
            # the server's number, never its URL (it may carry a password)
            log.warning("not ready: Redis server %d of %d: %s: %s", number, len(urls), type(error).__name__, error)
            down.append(number)
    if not down:
        return None
    if len(urls) == 1:
        return "Redis (the channel layer) does not answer"
    return f"Redis server {', '.join(map(str, down))} of {len(urls)} (the channel layer) does not answer"


def problems() -> list[str]:
    """What keeps this process from serving, each as a phrase; empty when it is ready."""
    if drain.draining:
        return ["this process is shutting down"]
    return [problem for problem in (_database_problem(), _redis_problem()) if problem]


def health_response() -> HttpResponse:
    found = problems()
    if found:
        text, status = f"Not ready: {'; '.join(found)}.\n", 503
    else:
        text, status = "ok\n", 200
    response = HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


class HealthMiddleware:
    """First in settings.MIDDLEWARE: /healthz is answered before anything validates the host."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == PATH and request.method in ("GET", "HEAD"):
            return health_response()
        return self.get_response(request)
