"""Live parts: the pieces of a fragment that a live update may send alone (matches/pages/README.md).

A part is marked where it is drawn, never found afterwards in the HTML:

    {% load live_parts %}
    {% live %}<span class="fact" id="fact-empty">{{ p.empty_count }} empty</span>{% endlive %}

or, for parts drawn in Python (a board's cells or points), `{% live_each pieces %}` and `mark(context,
html)`.  A page renders them in place.  When `matches.pages.render` draws a fragment for a live update it
puts a `Parts` in the context: each part is then recorded as rendered and the fragment keeps a `MARK`
in its place, so the update compares the frame and each part as drawn and sends the parts that changed.
A part is one element with an `id` (the page swaps it by that id); a part inside another part is
drawn as part of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.template.base import Node, NodeList, Parser, Token
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

#: the context key of the recorder (absent when a page is drawn)
PARTS = "live_parts"
#: where each part was in its fragment; no rendered markup holds it (Django's forms refuse NUL
#: characters, and every value drawn is text from them or from the rules)
MARK = "\x00"


class Parts:
    """The live parts of one fragment's drawing, in order."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.depth = 0  # > 0 while a part's own content is drawn


def mark(context: Any, html: str) -> str:
    """`html` (one part, drawn) as the fragment holds it: itself on a page, `MARK` when recorded."""
    parts = context.get(PARTS)
    if parts is None or parts.depth:
        return html
    parts.found.append(html)
    return MARK


class LiveNode(Node):
    def __init__(self, nodelist: NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context: Any) -> SafeString:
        parts = context.get(PARTS)
        if parts is None:
            return mark_safe(self.nodelist.render(context).strip())
        parts.depth += 1
        try:
            html = self.nodelist.render(context)
        finally:
            parts.depth -= 1
        return mark_safe(mark(context, html.strip()))


@register.tag("live")
def live(parser: Parser, token: Token) -> LiveNode:
    """`{% live %}<element id="...">...</element>{% endlive %}`: one live part."""
    if len(token.split_contents()) != 1:
        raise template.TemplateSyntaxError("{% live %} takes no arguments")
    nodelist = parser.parse(("endlive",))
    parser.delete_first_token()
    return LiveNode(nodelist)


@register.simple_tag(takes_context=True)
def live_each(context: Any, pieces: Iterable[str]) -> SafeString:
    """Each of `pieces` (markup drawn in Python, already escaped) as a live part of its own."""
    return mark_safe("".join(mark(context, piece) for piece in pieces))
