"""Template filters of the match pages."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import mark_safe

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


#: `viewer_cls` while a part is drawn once for several audiences: `yours` and `mine` leave a
#: slot that `render.personal()` fills per audience (seat 1 hears "your red tile", others "red tile")
SHARED_VIEWER = "\ue000"
_OWNER_CLASSES = frozenset({"p1", "p2", "p3", "p4"})


def _slot(cls: str, text: str) -> str:
    return f"\ue000{cls}\ue002{text}\ue001"


@register.filter
def yours(cls: Any, viewer_cls: Any) -> str:
    """"your " when a cell of class `cls` belongs to the viewer (`viewer_cls`, "p1"), else ""."""
    if viewer_cls == SHARED_VIEWER:
        return _slot(cls, "your ") if cls in _OWNER_CLASSES else ""
    return "your " if viewer_cls and cls == viewer_cls else ""


@register.simple_tag(takes_context=True)
def mine(context: Any, seat: Any, text: str) -> str:
    """{% mine s.number ' me' %}: `text` (a literal of the template) on the viewer's own seat only."""
    cls, viewer_cls = f"p{seat}", context.get("viewer_cls")
    if viewer_cls == SHARED_VIEWER:
        return mark_safe(_slot(cls, text)) if cls in _OWNER_CLASSES else ""
    return mark_safe(text) if viewer_cls and cls == viewer_cls else ""
