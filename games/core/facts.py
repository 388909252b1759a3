"""The facts a game gives the platform beyond its rules (pure values, no Django).

matches/ keeps no table keyed by a game's slug: whatever it says or does about
one game (the words of a result, a variant's name and clock, the format a host
starts from, what a season's ledger gains from a bout) it asks the `Game`, and
these are the shapes of the answers.  See games/core/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
class AwardCounts:
    """What a season asks of a finished match (`Game.season_awards`): how many Tokens of Life and
    how many Elimination Candidates it gives (a season option; 1 and 1 by default).  An elimination
    match is asked for none (its loser is eliminated): only what its game names explicitly counts."""

    tokens: int = 1
    candidates: int = 1


#: the counts a season asks by default
DEFAULT_COUNTS = AwardCounts()


@dataclass(frozen=True)
class SeasonAwards:
    """What a finished match of a season gives: a Token of Life to `tokens` (each logged with
    `token_reason`), Elimination Candidate to `candidates`.  `candidate_text` is the log line,
    with `{player}` and `{match}` (the match's title) filled in by the platform.

    `tied_tokens` / `tied_candidates`: seats tied at the cut (equal on every tie-break where the
    last Token of Life, or the last candidacy, would fall).  None of them gets it: the platform
    flags the tie to the host, who settles it (as Back to the Wall's ties for first or last)."""

    tokens: tuple[int, ...] = ()
    token_reason: str = ""
    candidates: tuple[int, ...] = ()
    candidate_text: str = ""
    tied_tokens: tuple[int, ...] = ()
    tied_candidates: tuple[int, ...] = ()


def ranked_awards(ranking: Sequence[Sequence[int]], counts: AwardCounts,
                  tokens: Sequence[int] | None = None) -> dict[str, tuple[int, ...]]:
    """The awards of a ranking (places best first; a place of several seats is a tie) by the
    counts: Tokens of Life to the top places, Elimination Candidates to the bottom ones.  A place
    that straddles a cut is tied (`tied_tokens`, `tied_candidates`) and gets nothing: the host
    settles it.  A seat given a Token of Life is never a candidate: the bottom cut passes over it
    (a short ranking may then give fewer candidates, with no tie to settle).  `tokens`: the
    Tokens of Life already named (the match named them), given instead of the top places.

    Keys: tokens, tied_tokens, candidates, tied_candidates (seats sorted)."""
    places = [tuple(sorted(int(s) for s in place)) for place in ranking if place]
    if tokens is None:
        top, tied_top = _cut(places, max(0, counts.tokens))
    else:
        top, tied_top = [int(s) for s in tokens], []
    # a seat given a Token of Life is never a candidate: the bottom cut passes over it
    rest = [kept for kept in (tuple(s for s in place if s not in top) for place in reversed(places)) if kept]
    bottom, tied_bottom = _cut(rest, max(0, counts.candidates))
    return {"tokens": tuple(sorted(top)), "tied_tokens": tuple(sorted(tied_top)),
            "candidates": tuple(sorted(bottom)), "tied_candidates": tuple(sorted(tied_bottom))}


def _cut(places: Sequence[tuple[int, ...]], count: int) -> tuple[list[int], list[int]]:
    """The seats of the first places that fit in `count`, and the place straddling the cut (tied)."""
    taken: list[int] = []
    for place in places:
        if len(taken) >= count:
            break
        if len(taken) + len(place) > count:
            return taken, list(place)
        taken += place
    return taken, []
