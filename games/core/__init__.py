"""The pure rules core: the Game interface, its errors and Result, and the helpers games share
(grids, notation, square boards, How to play).  No Django here: rules can be used, tested and
benchmarked alone (games/core/README.md: the contract)."""

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
