"""Discord's REST API as the sender uses it: the settings, a client that reaches only the configured
API's host, and one call turned into an `Outcome` the outbox acts on.

Where requests may go is one explicit rule: the scheme, host and port of `DISCORD_API_BASE`, nothing
else (`OnlyOrigin`).  No redirect is followed and no proxy is read from the environment.  The
connection goes through the season webhooks' `safe_http` transport: a host name must resolve to
public addresses only (a poisoned answer for discord.com cannot make the bot post into the server's
own network), connected to as checked; an address written in the setting itself (a stand-in on
127.0.0.1 in tests, a local relay) is the operator's choice and is connected to as written.

Secrets: the bot token travels only in the Authorization header, the interaction token only in a
follow-up's path; neither is ever part of an error sentence or a log line (an `Outcome` names the
status, Discord's error code and message, never the URL).
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings

from matches.seasons import safe_http

#: seconds an API call may take
TIMEOUT = 10.0
#: Discord's ids (snowflakes) and interaction tokens, as they may appear in a path we build
SNOWFLAKE = re.compile(r"^[0-9]{1,24}$")
INTERACTION_TOKEN = re.compile(r"^[A-Za-z0-9_.\-]{1,500}$")


def application_id() -> str:
    return str(getattr(settings, "DISCORD_APPLICATION_ID", "") or "")


def public_key() -> str:
    return str(getattr(settings, "DISCORD_PUBLIC_KEY", "") or "")


def bot_token() -> str:
    return str(getattr(settings, "DISCORD_BOT_TOKEN", "") or "")


def base() -> str:
    return str(getattr(settings, "DISCORD_API_BASE", "") or "https://discord.com/api/v10").rstrip("/")


def configured() -> bool:
    """All three settings are there: without them the app is not a Discord application at all."""
    return bool(application_id() and public_key() and bot_token())


class OnlyOrigin(httpx.BaseTransport):
    """Refuses every request whose scheme, host or port is not the API base's."""

    def __init__(self, origin: httpx.URL, inner: httpx.BaseTransport) -> None:
        self.origin = _origin(origin)
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if _origin(request.url) != self.origin:
            raise safe_http.RefusedAddress("the bot only talks to the configured Discord API address")
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host.lower(), url.port or default


def client(api_base: str | None = None) -> httpx.Client:
    """An httpx client that reaches the API base's host only (see the module's docstring)."""
    origin = httpx.URL(api_base or base())
    try:
        ipaddress.ip_address(origin.host)
        literal = True
    except ValueError:
        literal = False
    inner = safe_http.GuardedTransport(allow_private=literal)
    return httpx.Client(transport=OnlyOrigin(origin, inner), timeout=TIMEOUT, follow_redirects=False,
                        trust_env=False)


@dataclass(frozen=True)
class Outcome:
    """What one call came to: `ok`, or why not (a sentence with no secret in it), whether to try again
    and when (seconds; None: the sender's backoff), and whether Discord's limit was global."""

    ok: bool
    status: int | None = None
    body: Any = None
    error: str = ""
    retry: bool = False
    retry_after: float | None = None
    global_limit: bool = False
    code: int | None = None
    #: the route's bucket is empty after this call: its next call waits this long (X-RateLimit-Reset-After)
    bucket_wait: float | None = None
    #: the call carried the bot token (a 401 to it is a refusal of the token, not of one message)
    bot_token: bool = False


def call(http: httpx.Client, method: str, path: str, payload: Any = None, *,
         auth: bool = True) -> Outcome:
    """One request to `base() + path`.  `auth`: send the bot token (a follow-up's path carries the
    interaction token instead, and Discord wants no bot token with it)."""
    headers = {"User-Agent": "DiscordBot (https://github.com/deathmatch, 1.0)"}
    if auth:
        headers["Authorization"] = f"Bot {bot_token()}"
    try:
        response = http.request(method, base() + path, json=payload, headers=headers)
    except httpx.TimeoutException:
        return Outcome(False, error=f"Discord did not answer within {TIMEOUT:g} s", retry=True)
    except safe_http.RefusedAddress as refused:
        return Outcome(False, error=str(refused))
    except httpx.HTTPError as failure:  # its text may carry the URL (an interaction token): the kind only
        return Outcome(False, error=f"could not reach Discord ({type(failure).__name__})", retry=True)
    body = _json(response)
    wait = _float(response.headers.get("x-ratelimit-reset-after"))
    empty = response.headers.get("x-ratelimit-remaining") == "0"
    if 200 <= response.status_code < 300:
        return Outcome(True, response.status_code, body, bucket_wait=wait if empty else None, bot_token=auth)
    fields = body if isinstance(body, dict) else {}
    code = fields.get("code") if isinstance(fields.get("code"), int) else None
    said = str(fields.get("message") or "")[:200]
    error = f"Discord answered HTTP {response.status_code}" + (f" (code {code}: {said})" if code or said else "")
    if response.status_code == 429:
        after = _float(body.get("retry_after")) if isinstance(body, dict) else None
        after = after if after is not None else _float(response.headers.get("retry-after")) or wait
        is_global = (isinstance(body, dict) and body.get("global") is True) or (
            response.headers.get("x-ratelimit-global", "").lower() == "true")
        return Outcome(False, 429, body, error, retry=True, retry_after=min(3600.0, max(0.0, after or 1.0)),
                       global_limit=is_global, code=code, bot_token=auth)
    return Outcome(False, response.status_code, body, error, retry=response.status_code >= 500, code=code,
                   bot_token=auth)


def _json(response: httpx.Response) -> Any:
    try:
        return json.loads(response.content[:100_000] or b"null")
    except ValueError:
        return None


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and number >= 0 else None  # not NaN, not negative
