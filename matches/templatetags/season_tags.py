"""Template tags of the season pages."""

from __future__ import annotations

import secrets

from django import template
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def form_key() -> str:
    """A hidden `key` field, fresh for every form drawn: the season services
    apply each key once, so a doubled submit of this form is not applied twice."""
    return format_html('<input type="hidden" name="key" value="{}">', secrets.token_urlsafe(16))
