"""Errors raised by the rules: one family, so the web layer can catch them all.

`RuleError` subclasses `ValueError` (like python-chess's move errors).  Every
message is one plain sentence a player can read: it names the input and the
rule that was broken ("B3 is not empty").
"""

from __future__ import annotations


class RuleError(ValueError):
    """Base class of everything the rules refuse."""


class NotationError(RuleError):
    """The text does not parse as an action of this game."""


class IllegalAction(RuleError):
    """The action parses but the rules forbid it here (or it is not your turn)."""
