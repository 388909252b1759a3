"""Outgoing HTTP that a user-chosen URL cannot point into the server's own network.

A season host types the webhook URL.  Checking its host once and then letting
the HTTP client resolve the name again would let a DNS answer that changes in
between (a rebind) reach a private address, and `ipaddress` does not know the
forms the system resolver accepts (`127.1`, `2130706433`, `0x7f000001`,
`0177.0.0.1` all mean 127.0.0.1).  So the check is made where the connection
is: `GuardedBackend`, an httpcore network backend, resolves the host once,
refuses it if ANY of its addresses is not public, and connects to the very
addresses it checked.  TLS still verifies the URL's host name (httpcore passes
the origin's host as `server_hostname`), and the Host header is the URL's.

`client()` is an httpx client on that backend that follows no redirect and
reads no proxy from the environment (a proxy would make the connection, and
its address, not ours to check).
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

NAT64 = ipaddress.ip_network("64:ff9b::/96")


class RefusedAddress(httpx.ConnectError):
    """The URL's host is (or resolves to) an address the server will not post to."""


class _Refused(httpcore.ConnectError):
    pass


def resolve(host: str) -> list[str]:
    """Every address `host` resolves to (the seam tests replace with a rebinding resolver)."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_public(address: str) -> bool:
    """True for a globally routable unicast address; an IPv6 address carrying
    an IPv4 one (mapped, or NAT64) is judged by the IPv4 address too."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 scope ("fe80::1%eth0")
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped
        if inner is None and ip in NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None and not is_public(str(inner)):
            return False
    return ip.is_global and not (
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
        or ip.is_unspecified
    )  # fmt: skip


def refusal(host: str) -> str | None:
    """Why `host` may not be posted to (a sentence), or None with every address it has public."""
    try:
        addresses = resolve(host.strip("[]"))
    except (OSError, UnicodeError):
        addresses = []
    if not addresses:
        return f"the webhook host {host} could not be found"
    if not all(is_public(a) for a in addresses):
        return "the webhook URL points at a private or local address; use the public URL of the channel"
    return None


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's own socket backend, reached only through addresses checked here."""

    def __init__(self, *, allow_private: bool = False) -> None:
        self.allow_private = allow_private
        self._sockets = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = resolve(host.strip("[]"))
        except (OSError, UnicodeError) as error:
            raise _Refused(f"the webhook host {host} could not be found") from error
        if not addresses:
            raise _Refused(f"the webhook host {host} could not be found")
        if not self.allow_private and not all(is_public(a) for a in addresses):
            raise _Refused("the webhook host resolves to a private or local address")
        failure: Exception | None = None
        for address in addresses:  # the checked addresses, never the name again
            try:
                return self._sockets.connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as error:
                failure = error
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise _Refused("unix sockets are never posted to")

    def sleep(self, seconds: float) -> None:
        self._sockets.sleep(seconds)


# httpcore's errors as httpx's, the most specific first (httpx does the same for its own transport)
_ERRORS: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (_Refused, RefusedAddress),
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


@contextmanager
def _as_httpx() -> Iterator[None]:
    try:
        yield
    except Exception as error:
        for theirs, ours in _ERRORS:
            if isinstance(error, theirs):
                raise ours(str(error)) from error
        raise


class _Body(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes]) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx():
            yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One verifying context per process, shared by every pool (a context is safe to share between
    threads): building one reads the whole CA bundle, tens of milliseconds a client."""
    return httpx.create_ssl_context()


class GuardedTransport(httpx.BaseTransport):
    """An httpx transport over an httpcore pool on `GuardedBackend`."""

    def __init__(self, *, allow_private: bool = False) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=_ssl_context(),
            network_backend=GuardedBackend(allow_private=allow_private),
            max_connections=10,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx():
            response = self._pool.handle_request(core)
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


def client(*, timeout: float, allow_private: bool = False) -> httpx.Client:
    """An httpx client whose connections go only to checked public addresses
    (any address with `allow_private`, still connecting to what it resolved)."""
    return httpx.Client(
        transport=GuardedTransport(allow_private=allow_private),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
    )
