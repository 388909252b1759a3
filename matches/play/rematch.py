"""Rematch: from a finished match, the same game, options, format, seats and season, in one click.

Seats keep their secret links: the old match records where each of its seats sits in the new one
(`match.format["rematch"]`), and the web layer sends an old seat link on to the new seat's page, so
nobody re-sends links.  With `swap`, a two-seat match swaps its seats (colours and who starts).
A rematch is never an elimination match: that decision was the finished match's.
"""

from __future__ import annotations

from matches.core.errors import NotAllowed
from matches.models import Match, Seat
from matches.play.change import change
from matches.seasons import results as season_results

REMATCH_KEY = "rematch"
#: what a finished match's format holds that its rematch must not inherit
_NOT_INHERITED = ("requests", REMATCH_KEY, "rematch_of")


def rematch_of(match: Match) -> Match | None:
    """The rematch `match` led to, if any (read only)."""
    found = (match.format or {}).get(REMATCH_KEY)
    return Match.objects.filter(pk=found["match"]).first() if isinstance(found, dict) else None


def seat_in_rematch(match: Match, seat: int) -> Seat | None:
    """Where seat `seat` of `match` sits in its rematch (read only)."""
    found = (match.format or {}).get(REMATCH_KEY)
    if not isinstance(found, dict):
        return None
    number = found.get("seats", {}).get(str(seat))
    return Seat.objects.filter(match_id=found["match"], number=number).first()


def rematch(match: Match, *, swap: bool = False) -> Match:
    """Host: a new match in setup like `match` (finished); a second click is refused, not doubled."""
    with change(match) as c:
        match = c.match
        if match.status != Match.FINISHED:
            raise NotAllowed("a rematch starts from a finished match")
        if rematch_of(match) is not None:
            raise NotAllowed("this match already has a rematch")
        seats = list(match.seats.order_by("number"))
        if swap and len(seats) != 2:
            raise NotAllowed("only a two-seat match can swap its seats")
        order = list(reversed(seats)) if swap else seats
        fmt = {k: v for k, v in (match.format or {}).items() if k not in _NOT_INHERITED}
        fmt["rematch_of"] = match.pk
        new = Match.objects.create(game_slug=match.game_slug, options=dict(match.options or {}), format=fmt,
                                   season=match.season, elimination=False)
        placed = {}
        for number, old in enumerate(order, start=1):
            Seat.objects.create(match=new, number=number, name=old.name, season_player=old.season_player)
            placed[str(old.number)] = number
        match.format = {**(match.format or {}), REMATCH_KEY: {"match": new.pk, "seats": placed}}
        match.save(update_fields=["format"])
        swapped = ", seats swapped" if swap else ""
        c.note(f"created a rematch (match {new.pk}{swapped})")
        if new.season is not None:  # announced to the season (spectator link only)
            season_results.match_created(new)
        return new
