"""The facts a game gives the platform beyond its rules (pure values, no Django).

matches/ keeps no table keyed by a game's slug: whatever it says or does about
one game (the words of a result, a variant's name and clock, the format a host
starts from, what a season's ledger gains from a bout) it asks the `Game`, and
these are the shapes of the answers.  See games/core/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

#: the format of a one-bout match with no clock (matches/core/formats.py says what each key means):
#: a game's `default_format` unless it says otherwise
ONE_BOUT: Mapping[str, Any] = MappingProxyType({
    "bouts": 1,
    "alternate": True,
    "stalemate_replays": False,
    "forfeit": "match",
    "auto_next_bout": False,
    "clock": None,
})


@dataclass(frozen=True)
class Variant:
    """A named variant of a game, chosen by the match option "variant": its name (the page title,
    "Sliding Tic-Tac-Toe"), one line for the host form, and the changes it makes to the default clock."""

    name: str
    description: str = ""
    clock: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GarnetChange:
    """One season-ledger entry a finished bout makes for a seat: `amount` > 0 earned, < 0 spent;
    `reason` in words ("sole first on Once and Twice"; the platform adds which match)."""

    seat: int
    amount: int
    reason: str


@dataclass(frozen=True)
class SeasonAwards:
    """What a finished match of a season gives: a Token of Life to `tokens` (each logged with
    `token_reason`), Elimination Candidate to `candidates`.  `candidate_text` is the log line,
    with `{player}` and `{match}` (the match's title) filled in by the platform."""

    tokens: tuple[int, ...] = ()
    token_reason: str = ""
    candidates: tuple[int, ...] = ()
    candidate_text: str = ""
