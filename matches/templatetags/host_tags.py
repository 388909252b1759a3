"""{% host_seq %}: the host-action count the dashboard's forms carry (see host_actions);
{% match_garnets %}: each seat's garnets from this match; {% token_questions %}: the open
Token of Life questions of this match (matches/seasons/results.py)."""

from __future__ import annotations

from typing import Any

from django import template

from matches.play import engine
from matches.seasons import ledger as seasons
from matches.seasons import results as season_results

register = template.Library()


@register.simple_tag(takes_context=True)
def host_seq(context: Any) -> int:
    """The count the context holds (live/drawing.py keeps it from update to update), else counted."""
    known = context.get("host_seq")
    return int(known) if known is not None else engine.host_seq(context["match"])


@register.simple_tag(takes_context=True)
def match_garnets(context: Any, seq: int) -> list[dict[str, Any]]:
    """Each seat (number, name) with the garnets this match gave it (`seq`, the host-action count,
    is kept in the call so the panel's markup changes with every host action)."""
    totals = season_results.match_garnet_totals(context["match"])
    return [{"number": s["number"], "name": s["name"], "total": totals.get(s["number"], 0)} for s in context["seats"]]


@register.simple_tag(takes_context=True)
def token_questions(context: Any, seq: int) -> list[seasons.TokenQuestion]:
    """The match's open Token of Life questions (`seq` as for `match_garnets`: an answer is a host
    action, so the panel is redrawn with it)."""
    match = context["match"]
    if match.season_id is None or not match.elimination:
        return []
    return seasons.open_questions(match.season, match)
