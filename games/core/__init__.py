"""The pure rules core: no Django here (see shared/DESIGN.md)."""

from .errors import IllegalAction, NotationError, RuleError
from .game import HOST, SPECTATOR, Game, viewer_name
from .result import Result

__all__ = [
    "HOST",
    "SPECTATOR",
    "Game",
    "IllegalAction",
    "NotationError",
    "Result",
    "RuleError",
    "viewer_name",
]
