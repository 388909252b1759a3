"""`{% chat_panel %}`: the match chat of the page being drawn (pages/chat_panel.py draws it)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.core import SPECTATOR
from matches.pages import chat_panel as chat

register = template.Library()


@register.simple_tag(takes_context=True)
def chat_panel(context: Any) -> SafeString:
    """The chat panel of the page's match and viewer; a spectator's name and id from their cookie."""
    request = context.get("request")
    viewer = int(context["viewer"])
    ident, name = ("", "")
    if viewer == SPECTATOR and request is not None:
        ident, name = chat.spectator(request.COOKIES.get(chat.COOKIE))
    html = chat.panel(context["match"], viewer, request=request, spectator_id=ident, spectator_name=name)
    return mark_safe(html)  # drawn from the templates, every value escaped there
