"""Helpers shared by the notation parsers.

Parsers are forgiving about case, spacing and filler words ("I place tile on
A1, and slide tiles on B2 and B3 down 1."), strict about meaning: anything they
cannot read raises `NotationError` saying what was expected.  A refusal quotes
the player's words as they typed them: parsers read lower-cased text, and
`quote_as_typed` (applied to every game's `parse` by `Game`) puts the typed
case back into the quotes of the message.
"""

from __future__ import annotations

import re

from .errors import NotationError

_SPACES = re.compile(r"\s+")
#: a quoted fragment of a refusal, as `repr` or an f-string quotes it
_QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"")
#: what `normalize` turns into a hyphen
_DASHES = "[-\u2013\u2014]"


def normalize(text: str) -> str:
    """Lower case, single spaces, no surrounding blanks or final full stop."""
    if not isinstance(text, str):
        raise NotationError("expected text")
    cleaned = _SPACES.sub(" ", text.replace("\u2013", "-").replace("\u2014", "-")).strip().lower()
    return cleaned.rstrip(".!").strip()


def split_parts(text: str) -> list[str]:
    """Split on ';' (the canonical separator), dropping empty parts."""
    return [part.strip() for part in text.split(";") if part.strip()]


def parse_count(text: str, what: str, minimum: int = 0) -> int:
    """A whole number >= minimum, or NotationError naming `what`."""
    raw = text.strip()
    if not re.fullmatch(r"\d{1,6}", raw):
        raise NotationError(f"expected a whole number for {what}, got {raw!r}")
    value = int(raw)
    if value < minimum:
        raise NotationError(f"{what} must be at least {minimum}, got {value}")
    return value


def require_text(text: str, game_name: str) -> str:
    cleaned = normalize(text)
    if not cleaned:
        raise NotationError(f"expected a {game_name} move, got nothing")
    return cleaned


def quote_as_typed(message: str, typed: str) -> str:
    """`message` with each quoted fragment that is the player's own text, read case-insensitively
    ('z99' from "Z99"), quoted as they typed it.  Other quotes (examples, names) stay as they are."""

    def restore(match: re.Match[str]) -> str:
        fragment = match.group(1) if match.group(1) is not None else match.group(2)
        pattern = "".join(r"\s+" if char == " " else _DASHES if char == "-" else re.escape(char) for char in fragment)
        if fragment[0].isalnum():
            pattern = r"(?<!\w)" + pattern
        if fragment[-1].isalnum():
            pattern += r"(?!\w)"
        found = re.search(pattern, typed, re.IGNORECASE)
        if found is None:
            return match.group()
        return repr(_SPACES.sub(" ", found.group()))

    return _QUOTED.sub(restore, message)
