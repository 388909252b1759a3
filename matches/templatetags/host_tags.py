"""{% host_seq %}: the host-action count the dashboard's forms carry (see host_actions)."""

from __future__ import annotations

from typing import Any

from django import template

from .. import host_actions

register = template.Library()


@register.simple_tag(takes_context=True)
def host_seq(context: Any) -> int:
    """The count the context holds (live.py keeps it from update to update), else counted."""
    known = context.get("host_seq")
    return int(known) if known is not None else host_actions.host_seq(context["match"])
