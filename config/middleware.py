"""Answer overload with 503 + Retry-After instead of a 500.

With the database connection pool (settings: DEATHMATCH_DB_POOL_SIZE) a
request that finds no free connection within DEATHMATCH_DB_POOL_TIMEOUT
seconds fails with psycopg_pool.PoolTimeout (wrapped in Django's
OperationalError); a server that refuses connections says "too many
clients".  Both mean "busy, try again shortly", not a bug.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse

log = logging.getLogger("deathmatch.overload")

RETRY_AFTER = 2  # seconds
OVERLOAD_WORDS = ("too many clients", "remaining connection slots", "couldn't get a connection")


def is_overload(error: BaseException) -> bool:
    if not isinstance(error, OperationalError):
        return False
    try:
        from psycopg_pool import PoolTimeout
    except ImportError:  # pragma: no cover - psycopg_pool is a dependency
        PoolTimeout = ()  # type: ignore[assignment,misc]
    cause = error.__cause__
    if PoolTimeout and isinstance(cause, PoolTimeout):
        return True
    return any(word in str(error).lower() for word in OVERLOAD_WORDS)


class OverloadMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_overload(exception):
            return None
        log.warning("busy: no database connection for %s %s (%s)", request.method, request.path,
                    type(exception.__cause__ or exception).__name__)
        response = HttpResponse("The server is busy: please try again in a moment.", status=503,
                                content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(RETRY_AFTER)
        return response
