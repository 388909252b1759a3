"""Keep secret links out of the logs.

Every seat, host, watch and season manage link carries a token that IS the
access (whoever holds a seat link plays that seat), so no log line may
contain one.  Paths like /p/<token>/, /h/<token>/act/, /f/<token>/,
/s/<token>/ and /ws/m/<token>/ are written with the audience instead:
"/p/[match 12 seat-1]/" when this process has seen the token (the websocket
consumer remembers what it resolved), else the kind of link the prefix tells
("/p/[seat]/", "/ws/m/[page]/").

A link is found by its shape alone: the token is every character of the
token alphabet (secrets.token_urlsafe: A-Z a-z 0-9 _ -) after the prefix,
whatever follows it (")", "%20", a quote, the end of the line...).  daphne
logs the raw request line, so percent-encoding is read the way the router
reads it: /%70/<token>/ and /p%2F<token>/ open a seat page too.

Applied to daphne's access log (`install_daphne_access_log`, called by
config.asgi), to `runserver`'s access log and to every log record through
`RedactTokensFilter` (settings.LOGGING).
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from typing import Any

#: a link's prefix, then its token: as long as the token alphabet goes (a cut token is still secret)
TOKEN_PATH = re.compile(r"/(ws/m|p|h|w|f|s)/([A-Za-z0-9_-]+)")
KIND = {"p": "seat", "h": "host", "w": "spectators", "f": "page", "s": "season manager", "ws/m": "page"}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
MAX_REMEMBERED = 20_000

_known: OrderedDict[str, str] = OrderedDict()
_lock = threading.Lock()


def remember(token: str, audience: str) -> None:
    """Say which audience a token opens (shown instead of it in later log lines)."""
    with _lock:
        _known[token] = audience
        _known.move_to_end(token)
        while len(_known) > MAX_REMEMBERED:
            _known.popitem(last=False)


def _audience(found: re.Match[str]) -> str:
    prefix, token = found.group(1), found.group(2)
    with _lock:
        label = _known.get(token) or KIND[prefix]
    return f"/{prefix}/[{label}]"


def redact(text: str) -> str:
    if "%" in text:
        return _redact_encoded(text)
    return TOKEN_PATH.sub(_audience, text) if "/" in text else text


def _redact_encoded(text: str) -> str:
    """Links found in `text` read with each %XX decoded once (as the router reads a path); what
    is replaced is the raw text of the link, so the rest of the line is kept as written."""
    decoded: list[str] = []
    starts: list[int] = []  # where in `text` each decoded character begins
    position = 0
    for escape in _ESCAPE.finditer(text):
        for index in range(position, escape.start()):
            decoded.append(text[index])
            starts.append(index)
        decoded.append(chr(int(escape.group(1), 16)))
        starts.append(escape.start())
        position = escape.end()
    for index in range(position, len(text)):
        decoded.append(text[index])
        starts.append(index)
    starts.append(len(text))
    view = "".join(decoded)
    out, kept = [], 0
    for found in TOKEN_PATH.finditer(view):
        begin, end = starts[found.start()], starts[found.end()]
        out += [text[kept:begin], _audience(found)]
        kept = end
    return "".join(out) + text[kept:] if out else text


def _redact_value(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactTokensFilter(logging.Filter):
    """Rewrites a record's message and arguments (Django's request log, daphne's runserver log...)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, dict):
            record.args = {k: _redact_value(v) for k, v in record.args.items()}
        elif isinstance(record.args, tuple):
            record.args = tuple(_redact_value(v) for v in record.args)
        request = getattr(record, "request", None)  # django.request attaches the request
        if request is not None and hasattr(request, "path"):
            record.request = _Safe(request)
        return True


class _Safe:
    """A stand-in for a request in a log record: its repr without the token."""

    def __init__(self, request: Any) -> None:
        self._request = request

    def __repr__(self) -> str:
        return redact(repr(self._request))

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._request, name)
        return redact(value) if name in ("path", "path_info", "full_path") and isinstance(value, str) else value


def install_daphne_access_log() -> None:
    """daphne writes its access log (`daphne ...`, on by default) itself, with the
    raw path, and has no hook for the format: wrap its writer once."""
    try:
        from daphne.access import AccessLogGenerator
    except ImportError:  # served by something else
        return
    if getattr(AccessLogGenerator.write_entry, "_redacts_tokens", False):
        return
    original = AccessLogGenerator.write_entry

    def write_entry(self: Any, host: Any, date: Any, request: str, *args: Any, **kwargs: Any) -> None:
        original(self, host, date, redact(request), *args, **kwargs)

    write_entry._redacts_tokens = True  # type: ignore[attr-defined]  # mypy types no attribute set on a function
    AccessLogGenerator.write_entry = write_entry
