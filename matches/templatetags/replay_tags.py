"""Template filters for the replay links of the live pages (no queries: the
current bout number and whether it is finished say which bouts are over)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def bout_range(number: Any) -> range:
    """1..number (the bouts played so far)."""
    try:
        return range(1, int(number) + 1)
    except (TypeError, ValueError):
        return range(0)


@register.filter
def replay_behind(match: Any) -> int | None:
    """The host's delay for replays of the running bout (None: host only)."""
    from matches.core.replay_access import replay_behind as behind

    return behind(match)
