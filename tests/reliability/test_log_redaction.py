"""Defect 4 of issue 21: no secret link reaches a log line, whatever follows it.

Every kind of link (seat, host, watch, fragments, season manage, websocket,
and the replay/record pages under each) is written into log lines with a
hostile character right after its token, through the real logging path: the
RedactTokensFilter on a record (settings.LOGGING) and daphne's access log.
"""

from __future__ import annotations

import io
import json
import logging
import secrets

import pytest

from config import logredact

TOKEN = secrets.token_urlsafe(24)  # as models.new_token makes every link's token

#: (path with {t} for the token, what the log line must say instead)
LINKS = [
    ("/p/{t}/", "/p/[seat]/"),
    ("/h/{t}/act/", "/h/[host]/act/"),
    ("/w/{t}/", "/w/[spectators]/"),
    ("/f/{t}/", "/f/[page]/"),
    ("/s/{t}/", "/s/[season manager]/"),
    ("/s/{t}/act/", "/s/[season manager]/act/"),
    ("/ws/m/{t}/", "/ws/m/[page]/"),
    ("/w/{t}/bouts/2/", "/w/[spectators]/bouts/2/"),
    ("/h/{t}/bouts/1/record.txt", "/h/[host]/bouts/1/record.txt"),
    ("/p/{t}/record.txt", "/p/[seat]/record.txt"),
]
#: what may follow a token in a log line (its path cut short, or text around it)
SUFFIXES = [")", ".", ",", "%20", "%3E", "%00", ">", ";", "", "\n", '"', "'", "\x00", "%2F", "\\u0000", "]", "|"]


def _paths() -> list[tuple[str, str]]:
    out = []
    for template, label in LINKS:
        bare = template.format(t=TOKEN).rstrip("/")  # the path cut right after its last segment
        cut = template.split("{t}")[0] + TOKEN  # the path cut right after the token
        out += [(template.format(t=TOKEN), label), (cut, label.split("]")[0] + "]"), (bare, label.rstrip("/"))]
    return out


def _emit(message: str, *args: object) -> str:
    """One record through the project's logging filter, formatted as a handler writes it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logredact.RedactTokensFilter())
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning(message, *args)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


@pytest.mark.parametrize("suffix", SUFFIXES, ids=repr)
def test_no_token_in_a_log_record_whatever_follows_it(suffix: str) -> None:
    for path, label in _paths():
        line = path + suffix
        for written in (_emit(f"Not Found: {line}"), _emit("Not Found: %s", line),
                        _emit("request %(path)s", {"path": line}),
                        _emit("%s", json.dumps({"path": line, "status": 404})),
                        _emit('GET "%s" 404', line), _emit("(%s)", line)):
            assert TOKEN not in written, (line, written)
            assert label.split("]")[0] in written, (line, written)


@pytest.mark.parametrize("suffix", SUFFIXES, ids=repr)
def test_no_token_in_daphne_access_log_whatever_follows_it(suffix: str) -> None:
    from daphne.access import AccessLogGenerator

    logredact.install_daphne_access_log()
    stream = io.StringIO()
    access = AccessLogGenerator(stream)
    for path, _ in _paths():
        access("http", "complete", {"client": ["127.0.0.1", 1], "method": "GET", "path": path + suffix,
                                    "status": 404, "size": 10})
        access("websocket", "connected", {"client": ["127.0.0.1", 1], "path": path + suffix})
    assert TOKEN not in stream.getvalue()


@pytest.mark.parametrize("encoded", [
    "/%70/{t}/",  # /p/ with its letter percent-encoded: routed like /p/
    "/p%2F{t}/", "/p%2f{t}/", "/ws%2Fm%2F{t}/",
    "/p/%{hex}{rest}/",  # the token's first character percent-encoded
])
def test_percent_encoded_links_are_redacted_too(encoded: str) -> None:
    """daphne logs the raw request line: a path the router decodes to a link is a link."""
    line = encoded.format(t=TOKEN, hex=f"{ord(TOKEN[0]):02X}", rest=TOKEN[1:])
    written = _emit("GET %s", line)
    assert TOKEN not in written and TOKEN[1:] not in written, written
    assert "[" in written


def test_text_that_is_not_a_link_is_left_alone() -> None:
    for text in ("moves/s 12", "100%", "ratio 3/4", "/seasons/spring/", "/static/app.css", "50%zz /p/"):
        assert logredact.redact(text) == text
