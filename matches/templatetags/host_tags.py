"""{% host_seq %}: the host-action count the dashboard's forms carry (see host_actions);
{% match_garnets %}: each seat's garnets from this match."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django import template

from .. import host_actions, season_results

register = template.Library()


@register.simple_tag(takes_context=True)
def host_seq(context: Any) -> int:
    """The count the context holds (live.py keeps it from update to update), else counted."""
    known = context.get("host_seq")
    return int(known) if known is not None else host_actions.host_seq(context["match"])



#: (host token, host-action count, season, bout number, bout over) -> seat -> garnets from the
#: match.  Whatever changes a match's garnets changes this key (a host action, a bout's end, the
#: match joining a season), so a panel redrawn for anything else (a sealed submission, a pause)
#: reads no row: live updates drawn from a move's transaction read none (live._follows).
_totals: OrderedDict[tuple[Any, ...], dict[int, int]] = OrderedDict()
_totals_lock = threading.Lock()
KEPT_TOTALS = 1000


@register.simple_tag(takes_context=True)
def match_garnets(context: Any, seq: int) -> list[dict[str, Any]]:
    """Each seat (number, name) with the garnets this match gave it, for the host panel drawn at
    host-action count `seq`."""
    match, bout = context["match"], context.get("bout")
    key = (match.host_token, int(seq), match.season_id, bout.number if bout is not None else 0,
           bout is not None and bout.finished is not None)
    with _totals_lock:
        totals = _totals.get(key)
    if totals is None:
        totals = season_results.match_garnet_totals(match)
        with _totals_lock:
            _totals[key] = totals
            while len(_totals) > KEPT_TOTALS:
                _totals.popitem(last=False)
    return [{"number": s["number"], "name": s["name"], "total": totals.get(s["number"], 0)} for s in context["seats"]]
