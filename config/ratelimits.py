"""Per-client rate limits, counted by django-ratelimit in the "ratelimit" cache
(Redis with REDIS_URL, so every web process counts together; this process's
memory in the embedded one-process setup).  Budgets: settings.DEATHMATCH_RATE_LIMITS.

- `seasons`, `matches`: each POST that creates a season (/seasons/) or a match
  counts, whether or not the form is valid, so a burst of parallel posts cannot
  slip past (one atomic increment each).  Every way of creating a match shares
  the one `matches` budget: the home page's form, practice against the
  computer, a season manage page's new match and the host's rematch; and
  Discord's `/deathmatch new`, counted per Discord user (every interaction
  comes from Discord's own addresses).
- `token-misses`: a secret link (/p/, /h/, /w/, /f/, /s/ and the pages under
  them, the websocket /ws/m/) that opens nothing counts.  Past the budget such
  a link gets 429 instead of 404 (a websocket closes with CLOSE_TOO_MANY
  instead of 4404) until the window frees.  A valid link is never refused by
  this limit and never counts: players behind one address (a NAT, a school's
  proxy) share a budget, and one of them mistyping a link must not stop the
  others' play.  What keeps a link from being guessed is its 192 random bits
  (models.new_token), not this budget: refusing valid links too would not
  make a guess likelier to fail, only cost the link's real holders their
  match.  The limit makes a guesser's misses loud (429 and a log line) and
  tells a well-behaved client to back off.
- `webhook-tests`: "send a test post" on a season's manage page, per season and
  per client.

Every budget counts a client by `client_network`: an IPv4 address by itself (an IPv4-mapped IPv6
address is its IPv4 address), an IPv6 one by its /64, which one host holds whole.

A limited request gets 429 with Retry-After (seconds until the window frees) and
one sentence; a limited websocket is closed with CLOSE_TOO_MANY.  Legal play
(moves, host actions, pages and sockets opened with a valid link) is never
limited.  When the shared cache does not answer (Redis down, frozen, or out of
connections), each process counts on its own in memory (`LocalCounter`) until
it answers again: a limit per process, never no limit.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import re
import threading
import time
import zlib
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
RETRY_AFTER = 1.0  # seconds without asking the cache after it failed (counted in this process meanwhile)
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
    """The address in its one spelling; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a
    dual-stack socket reports for an IPv4 client) is that IPv4 address: masked as IPv6 by its /64,
    every IPv4 client would share the one budget of "::"."""
    try:
        found = ipaddress.ip_address(text.strip())
    except ValueError:
        return ""
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return str(found.ipv4_mapped)
    return str(found)


def client_network(request: HttpRequest) -> str:
    """Who the client is for every per-client limit and hold (the budgets here, the practice
    matches an address may run, the address a chat mute holds): an IPv4 address by itself, an IPv6
    one by its /64, as one host is given a whole /64 and picks any address of
    it: the /64's first address ("2001:db8:1:2::"), an address still (a chat line keeps it in an
    address field).  The same key django-ratelimit makes of `client_ip` (settings.RATELIMIT_IPV6_MASK)."""
    return _masked(client_ip(request))


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
    the window frees if the client is over the budget, else None.  Counted in the shared cache,
    or in this process while the cache does not answer."""
    global _failed_at
    if _failed_at is not None and time.monotonic() - _failed_at < RETRY_AFTER:
        return _local.over(request, group, key=key, increment=increment)
    try:
        usage = get_usage(request, group=group, key=key, rate=_rate, increment=increment)
    except (RedisError, OSError) as error:
        _failed_at = time.monotonic()
        log.warning("rate limits counted in this process for a second: the cache did not answer (%s)",
                    type(error).__name__)
        return _local.over(request, group, key=key, increment=increment)
    _failed_at = None
    if usage is None or not usage["should_limit"]:
        return None
    # the window is named by its last second (time_left 0 is still inside it): it frees one later
    return max(1, int(usage["time_left"]) + 1)


class LocalCounter:
    """The budgets counted in this process's memory: what `over` falls back to while the shared
    cache does not answer.  Not a second django-ratelimit cache: the library reads its one cache
    from settings (RATELIMIT_USE_CACHE) on each call, so it cannot be pointed elsewhere for one
    request without changing settings under every other thread.  Windows as django-ratelimit
    makes them: `period` seconds, ending at a time of their own for each client, so clients'
    windows do not all free in the same second."""

    _PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, str, int], int] = {}
        self._lock = threading.Lock()  # sync views run in several threads
        self._swept_at = 0

    def over(self, request: HttpRequest, group: str, *, key: Any = "ip", increment: bool = True) -> int | None:
        limit, period = self._split(_rate(group, request))
        # the two kinds of key `over` is given here: "ip" or a function (group, request) -> str
        value = key(group, request) if callable(key) else _masked(client_ip(request))
        now = int(time.time())
        end = now - now % period + zlib.crc32(value.encode()) % period  # the window's last second
        if end < now:
            end += period
        prefix = str(getattr(settings, "RATELIMIT_CACHE_PREFIX", "rl:"))  # tests count apart
        slot = (prefix, group, value, end)
        with self._lock:
            self._forget_before(now)
            count = self._counts.get(slot, 0) + (1 if increment else 0)
            if increment:
                self._counts[slot] = count
        return max(1, end - now + 1) if count > limit else None

    def _forget_before(self, now: int) -> None:
        # windows that have ended, looked for once a second: the counts never hold more than the
        # clients of the current windows, and a flood of requests does not scan them each time
        if now != self._swept_at:
            self._swept_at = now
            for slot in [slot for slot in self._counts if slot[3] < now]:
                del self._counts[slot]

    @classmethod
    def _split(cls, rate: str) -> tuple[int, int]:
        found = re.fullmatch(r"(\d+)/(\d*)([smhd])", rate)
        if found is None:
            raise ValueError(f"not a rate: {rate!r} (count/period, e.g. 30/m)")
        return int(found.group(1)), int(found.group(2) or 1) * cls._PERIODS[found.group(3)]


def _masked(address: str) -> str:
    """The address as django-ratelimit counts it: an IPv6 client by its /64 (settings.RATELIMIT_IPV6_MASK)."""
    mask = getattr(settings, "RATELIMIT_IPV6_MASK", 64) if ":" in address else getattr(settings, "RATELIMIT_IPV4_MASK", 32)
    return str(ipaddress.ip_network(f"{address}/{mask}", strict=False).network_address)


_local = LocalCounter()


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


def missed(request: HttpRequest) -> int | None:
    """Count a miss; seconds to wait if the client is past its budget of misses, else None."""
    return over(request, "token-misses")


class TokenGuessMiddleware:
    """A TokenMiss raised by a view with a `token` in its URL (a secret link that opens nothing)
    counts one miss, and past the budget answers 429 instead of 404.  A view that finds its
    token is never refused here, however many misses its client has."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, TokenMiss):
            return None
        seconds = missed(request)
        return too_many(request, "token-misses", seconds) if seconds is not None else None
