"""Issue 37, item 6: tokens reached the logs wherever a path did not start with a link's prefix.

Only /p/<token>, /h/<token>... were redacted; a token in a query string
(/p/<seat>/?x=<host token>), after /P/ or //h/, in any other path (/x/, /seasons/,
/static/, /admin/) or in an unrouted websocket path (/ws/<token>/) was written as
is.  Now any run of the token alphabet as long as a token is redacted, wherever
it is: checked through the logging filter and daphne's access log writer, and
through a real daphne process (its access log and Django's request log).
"""

from __future__ import annotations

import io
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Origin

from config import logredact
from matches.core import tokens
from matches.models import new_token
from tests.browser.conftest import Server

SEAT, HOST, OTHER = new_token(), new_token(), new_token()
HEXED = "E" + new_token()[1:]  # begins with a hex digit: after a stray "%3" it decodes as "%3E"
SECRETS = (SEAT, HOST, OTHER, HEXED)

#: (a path as a client may send it, what the log line says instead)
SHAPES = [
    (f"/p/{SEAT}/?x={HOST}", "/p/[seat]/?x=[token]"),
    (f"/w/{SEAT}/?next=/h/{HOST}/", "/w/[spectators]/?next=/h/[host]/"),
    (f"/P/{OTHER}/", "/P/[token]/"),
    (f"/me/{OTHER}/poll/?v=12", "/me/[personal page]/poll/?v=12"),  # a roster player's personal page (issue 52)
    (f"//h/{OTHER}/", "//h/[host]/"),
    (f"/x/{OTHER}", "/x/[token]"),
    (f"/seasons/{OTHER}", "/seasons/[token]"),
    (f"/seasons/{OTHER}/", "/seasons/[token]/"),
    (f"/static/{OTHER}", "/static/[token]"),
    (f"/admin/{OTHER}", "/admin/[token]"),
    (f"/ws/{OTHER}/", "/ws/[token]/"),
    (f"/ws/m/{SEAT}/?t={OTHER}", "/ws/m/[page]/?t=[token]"),
    (f"/?next={OTHER}", "/?next=[token]"),
    (f"/x/{OTHER}-and-more_", "/x/[token]"),  # a longer run of the alphabet is one run
    # a stray "%3" before a token: decoded, "%3E" eats its first character; as written it is whole
    (f"/p/%3{HEXED}/move/", "/p/%[token]/move/"),
    (f"/s/%3Cscript%3{HEXED}/bouts/-1/", "/s/%3Cscript%[token]/bouts/"),
]
IDS = [label for _, label in SHAPES]


def _emit(message: str, *args: object) -> str:
    """One record through the project's logging filter, formatted as a handler writes it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logredact.RedactTokensFilter())
    logger = logging.getLogger("tests.redaction.shapes")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning(message, *args)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


def test_tokens_are_as_long_as_the_shape_rule_says() -> None:
    assert {len(new_token()) for _ in range(50)} == {tokens.LENGTH}


@pytest.mark.parametrize(("path", "label"), SHAPES, ids=IDS)
def test_a_token_anywhere_in_a_log_record_is_redacted(path: str, label: str) -> None:
    for written in (_emit("Not Found: %s", path), _emit(f"Not Found: {path}"), _emit("%(p)s", {"p": path}),
                    _emit("GET %s%s", path[:5], path[5:])):  # a token split between format and argument
        assert not any(secret in written for secret in SECRETS), written
        assert label in written, written


@pytest.mark.parametrize(("path", "label"), SHAPES, ids=IDS)
def test_a_token_anywhere_in_daphnes_access_log_is_redacted(path: str, label: str) -> None:
    from daphne.access import AccessLogGenerator

    logredact.install_daphne_access_log()
    stream = io.StringIO()
    access = AccessLogGenerator(stream)
    access("http", "complete", {"client": "127.0.0.1:1", "method": "GET", "path": path, "status": 404, "size": 1})
    access("websocket", "connecting", {"client": "127.0.0.1:1", "path": path})
    log = stream.getvalue()
    assert not any(secret in log for secret in SECRETS), log
    assert log.count(label) == 2, log


def test_a_token_in_an_exception_or_its_traceback_is_redacted() -> None:
    try:
        raise ValueError(f"No route found for path '/ws/{OTHER}/'.")
    except ValueError as error:
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.addFilter(logredact.RedactTokensFilter())
        logger = logging.getLogger("tests.redaction.shapes.exc")
        logger.addHandler(handler)
        logger.propagate = False
        try:
            logger.error("Exception inside application: %s", error, exc_info=error)
        finally:
            logger.removeHandler(handler)
    written = stream.getvalue()
    assert OTHER not in written and written.count("/ws/[token]/") == 2, written


def test_a_remembered_token_is_named_by_its_audience_anywhere() -> None:
    token = new_token()
    logredact.remember(token, "match 7 host")
    assert logredact.redact(f"/w/x/?back={token} /h/{token}/") == "/w/[spectators]/?back=[match 7 host] /h/[match 7 host]/"


def test_text_shorter_than_a_token_is_left_alone() -> None:
    short = "a" * (tokens.LENGTH - 1)
    for text in (f"/x/{short}", "matches.web.consumers.MatchConsumer", "presence_arrive took 12 ms",
                 "/seasons/spring-league-2026/", "/static/vendor/htmx.min.js", f"?next={short}",
                 "GET /admin/matches/match/12/change/ 200"):
        assert logredact.redact(text) == text
    assert logredact.redact("a" * tokens.LENGTH) == "[token]"


# -- through a real daphne process ---------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("redaction"))
    yield server
    server.stop()


def _raw_get(port: int, path: str) -> bytes:
    """The request line exactly as written (no client library's normalising of // or case)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_daphne_and_django_logs_of_a_real_server_hold_no_token(daphne: Server) -> None:
    for path, _ in SHAPES:
        assert _raw_get(daphne.port, path).startswith(b"HTTP/1.1 "), path
    for path in (f"/ws/{OTHER}/", f"/ws/m/{SEAT}/?t={OTHER}"):
        with connect(f"ws://127.0.0.1:{daphne.port}{path}", origin=Origin(daphne.url), open_timeout=10) as ws, \
                pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404  # opens nothing
    _raw_get(daphne.port, "/seasons/")  # a last request: every line before it is written
    daphne.stop()
    log = Path(daphne.workdir / f"daphne-{daphne.port}.log").read_text(errors="replace")
    assert not any(secret in log for secret in SECRETS), log
    # daphne's access log and Django's request log both wrote the requests, redacted
    assert '"GET /P/[token]/"' in log and '"GET /p/[seat]/?x=[token]"' in log and '"GET //h/[host]/"' in log, log
    assert "Not Found: /P/[token]/" in log and "Not Found: /x/[token]" in log, log
    assert "WSCONNECTING /ws/[token]/" in log and "WSCONNECTING /ws/m/[page]/" in log, log
