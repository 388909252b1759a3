"""Websocket Origin check: scheme, host AND port.

Channels' AllowedHostsOriginValidator compares only the host name with
ALLOWED_HOSTS, so a page served from any port of an allowed host (say
http://127.0.0.1:9999, another app on the same machine) could open our
websockets with the visitor's links.  Here the Origin must be the very site
the browser reached (Django's CSRF origin rule):

- one of CSRF_TRUSTED_ORIGINS exactly (e.g. https://match.example.org behind
  a TLS proxy), or
- same origin as the request: scheme (http for ws, https for wss or a proxy's
  X-Forwarded-Proto: https when SECURE_PROXY_SSL_HEADER is set), host and
  port equal to the Host header's (default ports filled in), and the host in
  ALLOWED_HOSTS.

A request without Origin (not a browser) is refused like a foreign one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from asgiref.typing import ASGI3Application, ASGIReceiveCallable, ASGISendCallable, Scope, WebSocketCloseEvent
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_tuple(scheme: str, host: str, port: int | None) -> tuple[str, str, int]:
    return scheme, host.lower().strip("[]"), port if port is not None else DEFAULT_PORTS.get(scheme, 0)


def _parse(origin: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return _origin_tuple(parts.scheme, parts.hostname, port)


def allowed(scope: Mapping[str, Any]) -> bool:
    headers = {name.lower(): value.decode("latin1") for name, value in scope.get("headers", [])}
    origin = _parse(headers.get(b"origin", ""))
    if origin is None:
        return False
    trusted = {_parse(o) for o in getattr(settings, "CSRF_TRUSTED_ORIGINS", [])}
    if origin in trusted:
        return True
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy and headers.get(b"x-forwarded-proto", "").split(",")[0].strip() == "https":
        scheme = "https"
    host_header = headers.get(b"host")
    if host_header is None:  # test clients: the origin's own host, on the scheme's default port
        expected = _origin_tuple(scheme, origin[1], None)
    else:
        domain, port = split_domain_port(host_header)
        if not domain:
            return False
        expected = _origin_tuple(scheme, domain, int(port) if port else None)
    return origin == expected and validate_host(origin[1], settings.ALLOWED_HOSTS)


class SameOriginValidator:
    """ASGI middleware: websockets from a foreign origin are denied before the consumer runs."""

    def __init__(self, application: ASGI3Application) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if scope["type"] == "websocket" and not allowed(scope):
            await deny(receive, send)
            return
        await self.application(scope, receive, send)


async def deny(receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
    """Refuse the handshake (the client sees HTTP 403) and end at once.  Not channels'
    WebsocketDenier: a consumer, it opens a channel-layer channel and waits on it (a Redis read)
    until the client goes, for a socket nobody may use."""
    message = await receive()
    if message["type"] == "websocket.connect":
        close: WebSocketCloseEvent = {"type": "websocket.close", "code": 1008, "reason": None}
        await send(close)
