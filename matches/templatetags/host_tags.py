"""{% host_seq match %}: the host-action count the dashboard's forms carry (see host_actions)."""

from __future__ import annotations

from typing import Any

from django import template

from .. import host_actions

register = template.Library()


@register.simple_tag
def host_seq(match: Any) -> int:
    return host_actions.host_seq(match)
