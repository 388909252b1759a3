"""Helpers shared by the notation parsers.

Parsers are forgiving about case, spacing and filler words ("I place tile on
A1, and slide tiles on B2 and B3 down 1."), strict about meaning: anything they
cannot read raises `NotationError` saying what was expected.
"""

from __future__ import annotations

import re

from .errors import NotationError

_SPACES = re.compile(r"\s+")


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
