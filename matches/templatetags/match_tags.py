"""Template filters of the match pages."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def clock(seconds: Any) -> str:
    """Seconds as m:ss (h:mm:ss past an hour); the page's JS counts down from it."""
    try:
        total = max(0, int(float(seconds) + 0.999))
    except (TypeError, ValueError):
        return "—"
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@register.filter
def minutes(seconds: Any) -> str:
    """A bank to the minute ("17 min"), seconds only in the last minute (RULINGS 3, Two Connect)."""
    try:
        total = max(0, int(float(seconds) + 0.999))
    except (TypeError, ValueError):
        return "—"
    if total < 60:
        return f"0:{total:02d}"
    return f"{total // 60} min"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    """mapping[key] in a template ("" when absent)."""
    try:
        return mapping.get(key, "")
    except AttributeError:
        return ""


#: `viewer_cls` while a board is drawn once for several audiences: `yours` leaves a slot that
#: `render.personal()` fills per audience (seat 1 hears "your red tile", everyone else "red tile")
SHARED_VIEWER = "\ue000"
_OWNER_CLASSES = frozenset({"p1", "p2", "p3", "p4"})


@register.filter
def yours(cls: Any, viewer_cls: Any) -> str:
    """"your " when a cell of class `cls` belongs to the viewer (`viewer_cls`, "p1"), else ""."""
    if viewer_cls == SHARED_VIEWER:
        return f"\ue000{cls}\ue001" if cls in _OWNER_CLASSES else ""
    return "your " if viewer_cls and cls == viewer_cls else ""
