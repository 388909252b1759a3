"""Per-client rate limits, counted by django-ratelimit in the "ratelimit" cache
(Redis with REDIS_URL, so every web process counts together; this process's
memory in the embedded one-process setup).  Budgets: settings.DEATHMATCH_RATE_LIMITS.

- `seasons`, `matches`: each POST that creates a season (/seasons/) or a match
  (the home page's form) counts, whether or not the form is valid, so a burst
  of parallel posts cannot slip past (one atomic increment each).
- `token-misses`: a secret link (/p/, /h/, /w/, /f/, /s/ and the pages under
  them, the websocket /ws/m/) that opens nothing counts.  A client past its
  budget gets 429 on every link, valid or not, until its window frees:
  otherwise a lucky guess would still open the page.  Valid links never count.
- `webhook-tests`: "send a test post" on a season's manage page, per season and
  per client.

A limited request gets 429 with Retry-After (seconds until the window frees) and
one sentence; a limited websocket is closed with CLOSE_TOO_MANY.  Legal play
(moves, host actions, pages and sockets opened with a valid link) is never
limited.  If Redis does not answer, requests go through (logged) rather than fail.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django_ratelimit.core import get_usage
from redis.exceptions import RedisError

log = logging.getLogger("deathmatch.ratelimits")

F = TypeVar("F", bound=Callable[..., Any])

CLOSE_TOO_MANY = 4429  # websocket close code: over the budget of unknown links
RETRY_AFTER = 1.0  # seconds without asking the cache after it failed
UNKNOWN_CLIENT = "0.0.0.0"  # no address at all (a unix socket without a trusted proxy): one shared budget

MESSAGES = {
    "seasons": "Too many new seasons from your address",
    "matches": "Too many new matches from your address",
    "token-misses": "Too many links from your address opened nothing",
    "webhook-tests": "Too many test posts from your address",
    "webhook-tests-season": "Too many test posts for this season",
    "chat-names": "Too many new chat names from your address",
}

_failed_at: float | None = None


# -- who the client is --------------------------------------------------------------------------


def client_ip(request: HttpRequest) -> str:
    """The client's address (settings.RATELIMIT_IP_META_KEY): REMOTE_ADDR, or with
    DEATHMATCH_TRUSTED_PROXIES = n the n-th address from the end of X-Forwarded-For,
    the one the outermost trusted proxy wrote.  Anything that is not an address falls back."""
    remote = _address(request.META.get("REMOTE_ADDR", ""))
    proxies = int(getattr(settings, "DEATHMATCH_TRUSTED_PROXIES", 0))
    if proxies > 0:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
        if len(hops) >= proxies:
            forwarded = _address(hops[-proxies])
            if forwarded:
                return forwarded
    return remote or UNKNOWN_CLIENT


def _address(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return ""


def scope_request(scope: Mapping[str, Any]) -> HttpRequest:
    """A request carrying what client_ip reads, for a websocket's ASGI scope."""
    request = HttpRequest()
    request.method = "GET"
    request.path = request.path_info = str(scope.get("path", ""))
    client = scope.get("client") or ("", 0)
    request.META["REMOTE_ADDR"] = str(client[0] or "")
    for name, value in scope.get("headers", []):
        if name.lower() == b"x-forwarded-for":
            request.META["HTTP_X_FORWARDED_FOR"] = value.decode("latin-1")
    return request


# -- counting ----------------------------------------------------------------------------------


def _rate(group: str, request: HttpRequest) -> str:
    return str(settings.DEATHMATCH_RATE_LIMITS[group.removesuffix("-season")])


def over(request: HttpRequest, group: str, *, key: Any = "ip", increment: bool = True) -> int | None:
    """Count this request in `group` (unless increment=False) and return the seconds until
    the window frees if the client is over the budget, else None."""
    global _failed_at
    if _failed_at is not None and time.monotonic() - _failed_at < RETRY_AFTER:
        return None
    try:
        usage = get_usage(request, group=group, key=key, rate=_rate, increment=increment)
    except (RedisError, OSError) as error:
        _failed_at = time.monotonic()
        log.warning("rate limits not counted for a second: the cache did not answer (%s)", type(error).__name__)
        return None
    _failed_at = None
    if usage is None or not usage["should_limit"]:
        return None
    # the window is named by its last second (time_left 0 is still inside it): it frees one later
    return max(1, int(usage["time_left"]) + 1)


def too_many(request: HttpRequest, group: str, seconds: int) -> HttpResponse:
    """429 with Retry-After and one sentence: a page for browsers, plain text for other clients."""
    unit = "second" if seconds == 1 else "seconds"
    message = f"{MESSAGES[group]}; try again in {seconds} {unit}."
    if "text/html" in request.headers.get("Accept", ""):
        body = render_to_string("429.html", {"message": message}, request=request)
        response = HttpResponse(body, status=429)
    else:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    return response


def limit_posts(group: str) -> Callable[[F], F]:
    """A view whose POSTs count in `group`: past the budget it answers 429."""

    def decorator(view: F) -> F:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if request.method == "POST":
                seconds = over(request, group)
                if seconds is not None:
                    return too_many(request, group, seconds)
            return view(request, *args, **kwargs)

        return cast(F, wrapped)  # functools.wraps keeps the view's signature

    return decorator


# -- secret links ------------------------------------------------------------------------------


class TokenMiss(Http404):
    """A secret link that opens nothing (a 404 that counts against the client's misses)."""


def token_lookup(helper: F) -> F:
    """Mark a helper's 404 (the link's token matches nothing) as a miss."""

    @functools.wraps(helper)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return helper(*args, **kwargs)
        except TokenMiss:
            raise
        except Http404 as error:
            raise TokenMiss(*error.args) from error

    return cast(F, wrapped)  # functools.wraps keeps the helper's signature


def guessing(request: HttpRequest) -> int | None:
    """Seconds to wait if the client is past its budget of misses (nothing counted), else None."""
    return over(request, "token-misses", increment=False)


def missed(request: HttpRequest) -> int | None:
    """Count a miss; seconds to wait if that put the client past its budget, else None."""
    return over(request, "token-misses")


class TokenGuessMiddleware:
    """Every view with a `token` in its URL (the secret links): refused with 429 while the
    client is past its misses; a TokenMiss raised by the view counts one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> HttpResponse | None:
        if "token" not in kwargs:
            return None
        seconds = guessing(request)
        return too_many(request, "token-misses", seconds) if seconds is not None else None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, TokenMiss):
            return None
        seconds = missed(request)
        return too_many(request, "token-misses", seconds) if seconds is not None else None
