"""A stand-in for Discord's REST API (v10) for tests: a real local HTTP server (threads) on 127.0.0.1
that answers the calls the bot makes with the shapes Discord documents, records every call, and
fails on demand.

- `POST /users/@me/channels {"recipient_id"}` opens a DM channel (the same one for a user each time);
- `POST /channels/{id}/messages` posts in it (403 code 50007 for a user in `closed_dms`);
- `PATCH /channels/{id}/messages/{message}` edits a message it sent (404 code 10008 otherwise);
- `POST /webhooks/{application}/{token}` is an interaction's follow-up (no bot token: the
  interaction token in the path is the credential, and it must be one `interaction()` registered);
- `PUT /applications/{application}/commands` and `…/guilds/{guild}/commands`: bulk overwrite;
- OAuth2's authorization code flow ("Sign in with Discord"): `GET /oauth2/authorize` is the page a
  browser is sent to: it checks the query (the application's `client_id`, `response_type=code`,
  the `identify` scope, a `state`) and redirects at once to `redirect_uri` with a one-use `code` and
  the `state` for the user `sign_in_as()` named, or with `error=access_denied` after `deny()`;
  `POST /api/oauth2/token` (versioned or not, form-encoded, the client secret in the body or as
  HTTP Basic) trades the code for a bearer token (400 `invalid_grant` for a code it did not issue,
  used twice or for another `redirect_uri`; 401 `invalid_client` for a wrong secret);
  `GET /api/users/@me` with `Authorization: Bearer <token>` is that user (401 otherwise).

Every other route needs `Authorization: Bot <token>` (401 `{"message": "401: Unauthorized", "code": 0}`
otherwise, as Discord answers a refused bot token).  Every request is checked against what Discord's
API description says it takes (tests/discordspec.py); what is wrong is kept in `violations`, which
the tests' fixtures require to stay empty.  `fail(route, status, ...)`
queues answers for a route ("open-dm", "send", "followup", "commands", "token", "me"): 429 with `retry_after` and
the rate-limit headers, 403, 500...  `delivered()` classifies every message that went out: a DM to
whom, an ephemeral reply to whom, or a post in which channel.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests import discordspec

APPLICATION = "1100000000000000001"
BOT_TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.stand-in.bot-token"
CLIENT_SECRET = "stand-in-client-secret-0123456789"


@dataclass
class Call:
    method: str
    path: str
    route: str
    authorization: str
    body: Any
    status: int
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Delivered:
    """A message as its readers see it: kind "dm" (to a user), "ephemeral" (to the interaction's
    invoker) or "channel" (everyone in it); `to` is the user's or the channel's id."""

    kind: str
    to: str
    content: str
    flags: int = 0


@dataclass
class _Interaction:
    user_id: str
    channel_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)


ROUTES = [
    ("open-dm", "POST", re.compile(r"^/api/v10/users/@me/channels$")),
    ("send", "POST", re.compile(r"^/api/v10/channels/(?P<channel>\d+)/messages$")),
    ("edit", "PATCH", re.compile(r"^/api/v10/channels/(?P<channel>\d+)/messages/(?P<message>\d+)$")),
    ("followup", "POST", re.compile(r"^/api/v10/webhooks/(?P<app>\d+)/(?P<token>[^/]+)$")),
    ("commands", "PUT", re.compile(r"^/api/v10/applications/(?P<app>\d+)(?:/guilds/(?P<guild>\d+))?/commands$")),
    ("authorize", "GET", re.compile(r"^/oauth2/authorize(?:\?.*)?$")),
    ("token", "POST", re.compile(r"^/api(?:/v\d+)?/oauth2/token$")),
    ("me", "GET", re.compile(r"^/api(?:/v\d+)?/users/@me$")),
]
#: the routes of OAuth2: a browser's page, and the calls that carry a client secret or a bearer token
OAUTH_ROUTES = {"authorize", "token", "me"}


@dataclass
class _Grant:
    user: dict[str, Any]
    redirect_uri: str
    used: bool = False


class FakeDiscord:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.failures: dict[str, list[tuple[int, Any, dict[str, str]]]] = {}
        self.closed_dms: set[str] = set()
        self.dm_channels: dict[str, str] = {}  # channel id -> user id
        self.guild_channels: set[str] = {"1000000000000000002"}  # the server's channels the bot may post in
        self.interactions: dict[str, _Interaction] = {}
        self.messages: dict[str, tuple[str, Any]] = {}  # message id -> its channel and what it shows now
        self.commands: dict[str, Any] = {}  # "global" or a guild id -> the command set
        self.exhausted: dict[str, float] = {}  # route -> its next success empties its bucket for so long
        self.violations: list[str] = []  # what a request did that Discord's API description does not allow
        self._ids = iter(range(1200000000000000000, 1300000000000000000))
        self.oauth_user: dict[str, Any] | None = None  # who signs in at the authorize page
        self.denying = False  # the authorize page's user presses Cancel
        self.grants: dict[str, _Grant] = {}  # code -> what it was issued for
        self.bearers: dict[str, dict[str, Any]] = {}  # access token -> its user
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._handle(self, "POST")

            def do_PATCH(self) -> None:
                fake._handle(self, "PATCH")

            def do_PUT(self) -> None:
                fake._handle(self, "PUT")

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.base = f"{self.origin}/api/v10"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    # -- what tests set up ---------------------------------------------------------------------

    def interaction(self, token: str, user_id: str, channel_id: str) -> None:
        """Discord knows this interaction token: its follow-ups go to `channel_id`, its ephemeral
        ones to `user_id` only."""
        with self.lock:
            self.interactions[token] = _Interaction(user_id, channel_id)

    def sign_in_as(self, user: dict[str, Any]) -> None:
        """The browser at the authorize page is this Discord user (a User object: id, username,
        global_name...), who authorizes the application."""
        with self.lock:
            self.oauth_user, self.denying = user, False

    def deny(self) -> None:
        """The user at the authorize page cancels: Discord redirects back with error=access_denied."""
        with self.lock:
            self.denying = True

    def fail(self, route: str, status: int, body: Any = None, headers: dict[str, str] | None = None,
             times: int = 1) -> None:
        with self.lock:
            self.failures.setdefault(route, []).extend([(status, body, headers or {})] * times)

    def exhaust(self, route: str, reset_after: float) -> None:
        """The route's next success says its bucket is empty (`X-RateLimit-Remaining: 0`) for `reset_after` s."""
        with self.lock:
            self.exhausted[route] = reset_after

    def rate_limit(self, route: str, retry_after: float, *, is_global: bool = False, times: int = 1) -> None:
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": is_global}
        headers = {"Retry-After": str(int(retry_after + 0.999)), "X-RateLimit-Limit": "5",
                   "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(retry_after),
                   "X-RateLimit-Bucket": "stand-in", "X-RateLimit-Scope": "global" if is_global else "user"}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        self.fail(route, 429, body, headers, times)

    # -- what tests read -----------------------------------------------------------------------

    def delivered(self) -> list[Delivered]:
        out = []
        with self.lock:
            for call in self.calls:
                if call.status >= 300 or not isinstance(call.body, dict):
                    continue
                if call.route in ("send", "edit"):
                    channel = call.path.split("/")[-2 if call.route == "send" else -3]
                    if channel in self.guild_channels:
                        out.append(Delivered("channel", channel, _text(call.body)))
                    else:
                        out.append(Delivered("dm", self.dm_channels[channel], _text(call.body)))
                elif call.route == "followup":
                    known = self.interactions[call.path.split("/")[-1]]
                    flags = int(call.body.get("flags") or 0)
                    ephemeral = bool(flags & 64)
                    out.append(Delivered("ephemeral" if ephemeral else "channel",
                                         known.user_id if ephemeral else known.channel_id,
                                         _text(call.body), flags))
        return out

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Delivered]:
        """Block until at least `count` messages went out (a live server's worker sends them)."""
        with self.changed:
            self.changed.wait_for(lambda: len([c for c in self.calls if c.route in ("send", "followup")
                                               and c.status < 300]) >= count, timeout)
        return self.delivered()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- the server ----------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        path = handler.path
        route, found = next(((name, m) for name, verb, pattern in ROUTES
                             if verb == method and (m := pattern.match(path))), ("", None))
        body: Any
        if route == "token":  # application/x-www-form-urlencoded, as OAuth2 takes it
            body = {k: v[-1] for k, v in parse_qs(raw.decode(errors="replace")).items()} if raw else None
        elif route == "authorize":
            body = {k: v[-1] for k, v in parse_qs(urlsplit(path).query).items()}
        else:
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
        authorization = handler.headers.get("Authorization", "")
        sent = {name: value for name, value in handler.headers.items()}
        with self.changed:
            status, answer, headers = self._answer(route, found, authorization, body)
            self.violations += [f"{method} {route or path}: {w}" for w in discordspec.request(route, method, sent, body)]
            self.calls.append(Call(method, path, route, authorization, body, status, sent))
            self.changed.notify_all()
        data = json.dumps(answer).encode() if answer is not None else b""
        if route == "authorize" and status == 302:
            data = b""
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _answer(self, route: str, found: re.Match[str] | None, authorization: str,
                body: Any) -> tuple[int, Any, dict[str, str]]:
        if found is None:
            return 404, {"message": "404: Not Found", "code": 0}, {}
        if route in OAUTH_ROUTES:
            return self._oauth(route, authorization, body)
        if route != "followup" and authorization != f"Bot {BOT_TOKEN}":
            return 401, {"message": "401: Unauthorized", "code": 0}, {}
        if self.failures.get(route):
            return self.failures[route].pop(0)
        ok = {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset-After": "1.000"}
        if route in self.exhausted:
            ok.update({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(self.exhausted.pop(route))})
        if route == "open-dm":
            user = str((body or {}).get("recipient_id", ""))
            if not user.isdigit():
                return 400, {"message": "Invalid Form Body", "code": 50035}, {}
            channel = next((c for c, u in self.dm_channels.items() if u == user), None) or str(next(self._ids))
            self.dm_channels[channel] = user
            return 200, {"id": channel, "type": 1, "recipients": [{"id": user}]}, ok
        if route == "send":
            channel = found.group("channel")
            if channel in self.guild_channels:
                return 200, {"id": str(next(self._ids)), "channel_id": channel, "content": (body or {}).get("content")}, ok
            if channel not in self.dm_channels:
                return 404, {"message": "Unknown Channel", "code": 10003}, {}
            if self.dm_channels[channel] in self.closed_dms:
                return 403, {"message": "Cannot send messages to this user", "code": 50007}, {}
            message_id = str(next(self._ids))
            self.messages[message_id] = (channel, body)
            return 200, {"id": message_id, "channel_id": channel, "content": (body or {}).get("content")}, ok
        if route == "edit":
            shown = self.messages.get(found.group("message"))
            if shown is None or shown[0] != found.group("channel"):
                return 404, {"message": "Unknown Message", "code": 10008}, {}
            self.messages[found.group("message")] = (shown[0], {**(shown[1] or {}), **(body or {})})
            return 200, {"id": found.group("message"), "channel_id": shown[0], **(body or {})}, ok
        if route == "followup":
            known = self.interactions.get(found.group("token"))
            if found.group("app") != APPLICATION or known is None:
                return 401, {"message": "Invalid Webhook Token", "code": 50027}, {}
            message = {"id": str(next(self._ids)), "channel_id": known.channel_id, **(body or {})}
            known.messages.append(message)
            return 200, message, ok
        if route == "commands":
            if found.group("app") != APPLICATION or not isinstance(body, list):
                return 400, {"message": "Invalid Form Body", "code": 50035}, {}
            created = [{"id": str(next(self._ids)), "application_id": APPLICATION, "version": "1", **c} for c in body]
            self.commands[found.group("guild") or "global"] = created
            return 200, created, ok
        return 404, {"message": "404: Not Found", "code": 0}, {}

    def _oauth(self, route: str, authorization: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        """OAuth2's answers, in the shapes RFC 6749 gives and Discord sends (error, error_description)."""
        if route == "authorize":
            query = body or {}
            back = query.get("redirect_uri", "")
            if (query.get("client_id") != APPLICATION or query.get("response_type") != "code"
                    or "identify" not in query.get("scope", "").split() or not back.startswith(("http://", "https://"))):
                return 400, {"message": "Invalid OAuth2 authorization request", "code": 50035}, {}
            state = {"state": query["state"]} if "state" in query else {}
            if self.denying or self.oauth_user is None:
                answer = {"error": "access_denied", "error_description": "The resource owner or authorization "
                          "server denied the request", **state}
            else:
                code = secrets.token_urlsafe(24)
                self.grants[code] = _Grant(dict(self.oauth_user), back)
                answer = {"code": code, **state}
            return 302, None, {"Location": f"{back}{'&' if '?' in back else '?'}{urlencode(answer)}"}
        if self.failures.get(route):
            return self.failures[route].pop(0)
        if route == "token":
            form = body or {}
            client, secret = form.get("client_id", ""), form.get("client_secret", "")
            if authorization.startswith("Basic "):
                client, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
            if client != APPLICATION or secret != CLIENT_SECRET:
                return 401, {"error": "invalid_client"}, {}
            if form.get("grant_type") != "authorization_code":
                return 400, {"error": "unsupported_grant_type"}, {}
            grant = self.grants.get(form.get("code", ""))
            if grant is None or grant.used or grant.redirect_uri != form.get("redirect_uri"):
                return 400, {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'}, {}
            grant.used = True
            access = secrets.token_urlsafe(24)
            self.bearers[access] = grant.user
            return 200, {"access_token": access, "token_type": "Bearer", "expires_in": 604800,
                         "refresh_token": secrets.token_urlsafe(24), "scope": "identify"}, {}
        user = self.bearers.get(authorization.removeprefix("Bearer ")) if authorization.startswith("Bearer ") else None
        if user is None:
            return 401, {"message": "401: Unauthorized", "code": 0}, {}
        return 200, user, {}


def _text(body: dict[str, Any]) -> str:
    """Everything a message shows its readers: its content, embeds and components' labels and ids."""
    parts = [str(body.get("content") or "")]
    for embed in body.get("embeds") or []:
        parts.append(json.dumps(embed))
    for row in body.get("components") or []:
        parts.append(json.dumps(row))
    return "\n".join(p for p in parts if p)
