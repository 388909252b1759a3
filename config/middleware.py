"""Answers instead of a 500: overload gets 503 + Retry-After; a form post in
another charset than UTF-8 gets 400.  And every answer that holds a secret link
is never stored by a cache (`SecretLinkNoStoreMiddleware`).

With the database connection pool (settings: DEATHMATCH_DB_POOL_SIZE) a
request that finds no free connection within DEATHMATCH_DB_POOL_TIMEOUT
seconds fails with psycopg_pool.PoolTimeout (wrapped in Django's
OperationalError); a server that refuses connections says "too many
clients".  Both mean "busy, try again shortly", not a bug.
"""

from __future__ import annotations

import codecs
import logging
from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

log = logging.getLogger("deathmatch.overload")

RETRY_AFTER = 2  # seconds
#: the secret links: a seat, the host, a fragment feed, a season's manage page
SECRET_PREFIXES = ("/p/", "/h/", "/f/", "/s/")
OVERLOAD_WORDS = ("too many clients", "remaining connection slots", "couldn't get a connection")


def is_overload(error: BaseException) -> bool:
    if not isinstance(error, OperationalError):
        return False
    try:
        from psycopg_pool import PoolTimeout
    except ImportError:  # pragma: no cover - psycopg_pool is a dependency
        pass
    else:
        if isinstance(error.__cause__, PoolTimeout):
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


class FormCharsetMiddleware:
    """A form post (application/x-www-form-urlencoded) must be UTF-8.

    Django refuses any other declared charset with BadRequest each time
    request.POST is read; with DEBUG on, its error page reads request.POST
    again and the request ends in a 500.  The charset is checked here, before
    anything reads the form: a UTF-8 spelled another way ("utf8") is read as
    UTF-8, any other charset gets a 400 with a sentence (browsers always send
    UTF-8 to this site: its pages are UTF-8)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.content_type == "application/x-www-form-urlencoded":
            charset = (request.content_params or {}).get("charset", "")
            try:
                name = codecs.lookup(charset).name if charset else "utf-8"
            except LookupError:  # a charset Python does not know: Django ignores it and reads UTF-8
                name = "utf-8"
            if name != "utf-8":
                return HttpResponse(f"Forms must be sent as UTF-8, and this one says charset={charset[:40]}.",
                                    status=400, content_type="text/plain; charset=utf-8")
            if charset:
                request.encoding = "utf-8"
        return self.get_response(request)


class SecretLinkNoStoreMiddleware:
    """`Cache-Control: no-store, private` on every page under a secret link and on every
    redirect to one (the home page's and practice's new match, the season form's answer), so
    that neither a shared cache nor the browser's history cache keeps someone's link.  The views
    under the links say so themselves too; this also covers the redirects and the 404s."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        location = str(response.get("Location", ""))
        if "://" in location:  # an absolute redirect: its path
            location = "/" + location.split("://", 1)[1].partition("/")[2]
        if request.path.startswith(SECRET_PREFIXES) or location.startswith(SECRET_PREFIXES):
            patch_cache_control(response, no_store=True, private=True)
        return response
