"""The Token of Life question of an elimination match (issue 25; the ruling is in
matches/seasons/results.py): the host answers it on the match's host panel or on the
season's manage page, and both go through `answer`, so the match's pages are redrawn
whichever page answered.

Locks the match, its bout, then the season (the lock order everywhere).  Applied once:
the host panel's form carries the host-action count (`host_actions.perform`), the manage
page's a `key`; and a question already answered is refused ("already answered: ...").
"""

from __future__ import annotations

from matches.core.errors import ServiceError
from matches.models import Match, SeasonEvent, SeasonPlayer
from matches.play import engine
from matches.play.change import change
from matches.seasons import ledger as seasons


def answer(match: Match, player: SeasonPlayer | int, use: bool, *, key: str | None = None,
           where: str = "") -> SeasonEvent:
    """Use `player`'s Token of Life against their elimination in `match`, or keep it (the
    elimination stands); logged in the season and in the match's log.  `where` says which
    page answered (the season log's reason)."""
    with change(match) as c:
        match, bout = c.match, c.bout
        if match.season is None:
            raise ServiceError("this match is not in a season: there is no Token of Life to use")
        pk = player.pk if isinstance(player, SeasonPlayer) else player
        if not match.seats.filter(season_player_id=pk).exists():
            raise ServiceError("choose a player of this match")
        event = seasons.answer_token_question(match.season, pk, use, where, match=match, key=key)
        if bout is not None:
            engine.bump(bout)
            bout.save()
        c.note(event.text)
        return event
