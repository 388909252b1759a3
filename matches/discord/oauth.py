"""Discord's OAuth2 endpoints for "Sign in with Discord" (config/discord_signin/ wires them into
django-allauth), and the only way its calls leave the server.

The endpoints follow `DISCORD_API_BASE` (tests point it at a stand-in): the authorize page is on the
API's origin (`https://discord.com/oauth2/authorize`), the token exchange and the current user under
the versioned API (`…/api/v10/oauth2/token`, `…/api/v10/users/@me`, as Discord's OAuth2 guide calls
them).  allauth makes its calls with `requests`; `session()` is a requests session whose every
request goes through `api.client()`: the bot's httpx client, which reaches the API base's scheme,
host and port only (`api.OnlyOrigin`), connects to addresses it checked (`safe_http`), follows no
redirect and reads no proxy from the environment.  So the client secret and the user's access token
go to the configured Discord host or nowhere.
"""

from __future__ import annotations

import io
from typing import Any

import httpx
import requests
from django.conf import settings
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

from matches.discord import api

USER_AGENT = "DiscordBot (https://github.com/deathmatch, 1.0)"


def client_secret() -> str:
    return str(getattr(settings, "DISCORD_CLIENT_SECRET", "") or "")


def configured() -> bool:
    """Sign-in needs the application's id (its OAuth2 client id) and its client secret, nothing more:
    the bot's token and public key are the slash commands' business."""
    return bool(api.application_id() and client_secret())


def _origin() -> str:
    url = httpx.URL(api.base())
    return str(url.copy_with(path="/", query=None, fragment=None)).rstrip("/")


def authorize_url() -> str:
    return f"{_origin()}/oauth2/authorize"


def token_url() -> str:
    return f"{api.base()}/oauth2/token"


def me_url() -> str:
    return f"{api.base()}/users/@me"


class OnlyDiscord(BaseAdapter):
    """A requests transport that sends through `api.client()` (see the module's docstring); what
    that client refuses or cannot reach is a `requests.ConnectionError`, which allauth turns into a
    failed sign-in."""

    def __init__(self) -> None:
        super().__init__()
        self.http = api.client()

    def send(self, request: requests.PreparedRequest, stream: bool = False,
             timeout: float | tuple[float | None, float | None] | None = None,
             verify: bool | str = True, cert: bytes | str | tuple[bytes | str, bytes | str] | None = None,
             proxies: Any = None) -> requests.Response:
        body = request.body.encode() if isinstance(request.body, str) else request.body
        if body is not None and not isinstance(body, bytes):
            raise requests.ConnectionError("only whole bodies are sent to Discord", request=request)
        headers = {name: value.decode() if isinstance(value, bytes) else value
                   for name, value in request.headers.items()}
        headers["User-Agent"] = USER_AGENT
        try:
            answer = self.http.request(str(request.method), str(request.url), content=body, headers=headers)
        except httpx.HTTPError as error:
            raise requests.ConnectionError(f"Discord could not be reached: {type(error).__name__}",
                                           request=request) from None
        response = requests.Response()
        response.status_code = answer.status_code
        response.reason = answer.reason_phrase
        response.headers = CaseInsensitiveDict(dict(answer.headers))
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = io.BytesIO(answer.content)
        response.url = str(request.url)
        response.request = request
        return response

    def close(self) -> None:
        self.http.close()


def session() -> requests.Session:
    """A requests session for allauth's calls to Discord: only to the configured host, no redirect
    followed (one raises `requests.TooManyRedirects`), no proxy or .netrc from the environment."""
    out = requests.Session()
    out.trust_env = False
    out.max_redirects = 0
    transport = OnlyDiscord()
    out.mount("https://", transport)
    out.mount("http://", transport)
    return out
