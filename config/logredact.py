"""Keep secret links out of the logs.

Every seat, host, watch and season manage link carries a token that IS the
access (whoever holds a seat link plays that seat), so no log line may
contain one.  Tokens are found by their shape, wherever they are:

- any run of the token alphabet (secrets.token_urlsafe: A-Z a-z 0-9 _ -) at
  least as long as a token (matches.core.tokens.LENGTH) is a token, in a path
  of any kind (/x/<token>, /seasons/<token>, /P/<token>, //h/<token>, an
  unrouted /ws/<token>/), a query string (?x=<token>) or any other text.
  It becomes "[token]", or the audience when this process has seen the token
  ("[match 12 seat-1]": the websocket consumer remembers what it resolved);
- after a link's own prefix (/p/, /h/, /w/, /f/, /s/, /me/, /ws/m/) any run of the
  alphabet, however short (a cut token is still secret), becomes the
  audience, or the kind of link the prefix tells: "/p/[seat]/", "/ws/m/[page]/".

Shorter runs (words, names, numbers) are kept: the logs stay readable.
Nothing ends a token but a character outside the alphabet (")", "%20", a quote,
the end of the line...).  daphne logs the raw request line, so percent-encoding
is read the way the router reads it: /%70/<token>/ and /p%2F<token>/ open a seat
page too, and a token with an escaped character is still that token.

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

from matches.core import tokens

#: a link's prefix, then its token (as long as the alphabet goes); or, anywhere, a run of the
#: alphabet as long as a token.  Tried left to right, so a link's prefix is seen before its token.
TOKEN = re.compile(rf"/(?P<prefix>ws/m|me|p|h|w|f|s)/(?P<linked>[A-Za-z0-9_-]+)|(?P<run>[A-Za-z0-9_-]{{{tokens.LENGTH},}})")
KIND = {"p": "seat", "h": "host", "w": "spectators", "f": "page", "s": "season manager", "ws/m": "page",
        "me": "personal page"}
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
    prefix = found.group("prefix")
    token = found.group("linked") if prefix else found.group("run")
    with _lock:
        known = _known.get(token)
    if prefix:
        return f"/{prefix}/[{known or KIND[prefix]}]"
    return f"[{known or 'token'}]"


def redact(text: str) -> str:
    if "%" in text:
        # Read as the router reads it, then as written too: a stray "%3" before a token makes
        # "%3E" + the rest of it, which decodes to ">" and a run one short of a token, while the
        # line still holds the whole token as written (the fuzz run's log search found it).
        text = _redact_encoded(text)
    return TOKEN.sub(_audience, text)


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
    for found in TOKEN.finditer(view):
        begin, end = starts[found.start()], starts[found.end()]
        out += [text[kept:begin], _audience(found)]
        kept = end
    return "".join(out) + text[kept:] if out else text


class RedactTokensFilter(logging.Filter):
    """Rewrites a record (Django's request log, daphne's runserver log, any logger's): its message
    is formatted here, then redacted whole, so a token is found whatever carries it (the format,
    an argument, an exception's text); a traceback is formatted and redacted too."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit the format: the handler reports it, as ever
            message = None
        if message is not None:
            record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            # a handler's formatter keeps this text instead of formatting the exception again
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
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
