"""The season host's roster paste and the episode results options (issue 52), beside
ledger.py (which they build on: one transaction, the season row locked, a form key applied once).

Ruling: a pasted roster is all or nothing.  Blank lines are ignored; a name listed twice in the
  paste, or already on the roster, refuses the whole paste with one sentence naming every such
  name, and nothing is added: the host fixes the list and pastes it again, rather than wondering
  which half went in (a removed player's name comes back, as with one name).
Ruling: the options say how many Tokens of Life (0 to 16) and how many Elimination Candidates
  (0 to 16) each main match gives, and whether the winner of an elimination match takes the
  eliminated loser's garnets (results.py's ruling).  They apply to results fed from then on:
  a result already in the ledger keeps what it gave.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from matches.core.errors import ServiceError
from matches.models import Season, SeasonPlayer
from matches.seasons.ledger import begin, clean, form_key, log_event

__all__ = ["MAX_PASTE", "add_players", "set_result_options"]

#: names one paste may add (a season's roster is a few dozen at most)
MAX_PASTE = 100
MAX_AWARDS = 16


def add_players(season: Season, text: str, *, key: str | None = None) -> list[SeasonPlayer]:
    """Add every name of `text` (one a line) to the roster, or none (the ruling above)."""
    names = [name for name in (clean(line, 80) for line in str(text or "").splitlines()) if name]
    if not names:
        raise ServiceError("paste at least one name, one a line")
    if len(names) > MAX_PASTE:
        raise ServiceError(f"paste at most {MAX_PASTE} names at a time; this paste has {len(names)}")
    with transaction.atomic():
        season = begin(season, key)
        seen: dict[str, str] = {}
        twice: list[str] = []
        for name in names:
            if name.lower() in seen and seen[name.lower()] not in twice:
                twice.append(seen[name.lower()])
            seen.setdefault(name.lower(), name)
        present = list(season.players.filter(removed=False).values_list("name", flat=True))
        already = [p for p in present if p.lower() in seen]
        if twice or already:
            problems = []
            if already:
                problems.append(f"{_listed(sorted(already, key=str.lower))} "
                                f"{'is' if len(already) == 1 else 'are'} already on the roster")
            if twice:
                problems.append(f"{_listed(twice)} {'is' if len(twice) == 1 else 'are'} listed twice")
            raise ServiceError(f"nothing was added: {' and '.join(problems)}; fix the list and paste it again")
        removed = {p.name.lower(): p for p in season.players.filter(removed=True)}
        added = []
        for name in seen.values():
            player = removed.get(name.lower())
            if player is None:
                player = SeasonPlayer.objects.create(season=season, name=name)
            else:  # a removed player comes back
                player.removed, player.name = False, name
                player.save(update_fields=["removed", "name"])
            added.append(player)
        log_event(season, "roster", f"{_listed([p.name for p in added])} join{'s' if len(added) == 1 else ''} "
                  "the roster", key=form_key(key))
        return added


def set_result_options(season: Season, tokens: Any, candidates: Any, winner_takes_garnets: bool, *,
                       key: str | None = None) -> Season:
    """How many Tokens of Life and Elimination Candidates a main match gives, and whether the
    winner of an elimination match takes the loser's garnets."""
    counts = []
    for value, label in ((tokens, "Tokens of Life"), (candidates, "Elimination Candidates")):
        try:
            number = int(str(value).strip())
        except ValueError:
            raise ServiceError(f"the number of {label} must be a whole number") from None
        if not 0 <= number <= MAX_AWARDS:
            raise ServiceError(f"a main match gives 0 to {MAX_AWARDS} {label}, not {number}")
        counts.append(number)
    with transaction.atomic():
        season = begin(season, key)
        season.main_tokens, season.main_candidates = counts
        season.winner_takes_garnets = bool(winner_takes_garnets)
        season.save(update_fields=["main_tokens", "main_candidates", "winner_takes_garnets"])
        takes = "takes" if season.winner_takes_garnets else "does not take"
        log_event(season, "options", f"a main match now gives {_count(counts[0], 'Token of Life', 'Tokens of Life')} "
                  f"and {_count(counts[1], 'Elimination Candidate', 'Elimination Candidates')}; the winner of an "
                  f"elimination match {takes} the eliminated loser's garnets", key=form_key(key))
        return season


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
