"""Template filters of the match pages."""

from __future__ import annotations

import html
from typing import Any

from django import template
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from matches.templatetags.live_parts import mark

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
    """A bank to the minute ("17 min"), with its seconds below 10 minutes ("9:42", as `clock`)."""
    try:
        total = max(0, int(float(seconds) + 0.999))
    except (TypeError, ValueError):
        return "—"
    if total < 600:
        return clock(total)
    return f"{total // 60} min"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    """mapping[key] in a template ("" when absent)."""
    try:
        return mapping.get(key, "")
    except AttributeError:
        return ""


@register.filter
def yours(cls: Any, viewer_cls: Any) -> str:
    """"your " when a cell of class `cls` belongs to the viewer (`viewer_cls`, "p1"), else ""."""
    return "your " if viewer_cls and cls == viewer_cls else ""


@register.simple_tag(takes_context=True)
def mine(context: Any, seat: Any, text: str) -> str:
    """{% mine s.number ' me' %}: `text` (a literal of the template) on the viewer's own seat only."""
    viewer_cls = context.get("viewer_cls")
    return mark_safe(text if viewer_cls and f"p{seat}" == viewer_cls else "")


@register.simple_tag(takes_context=True)
def grid_board(context: Any, g: Any) -> str:
    """matches/partials/grid.html: the figure of a square board, its column labels, then its cells
    (`grid_cells`), white space included."""
    cols, rows, label = g["cols"], g["rows"], g.get("label")
    width = len(cols)
    caption = f"<figcaption>{shown(label)}</figcaption>" if label and context.get("show_label") else ""
    labels = "".join(f'<span class="collabel" aria-hidden="true">{shown(c)}</span>' for c in cols)
    return mark_safe(  # every value is escaped
        f'<figure class="grid-board {shown(context.get("board_class") or "")}" style="--cols: {width}">\n'
        f"  {caption}\n"
        f'  <div class="board" style="--cols: {width}" role="group" aria-label="{shown(label or context.get("title", ""))}'
        f' board, {width} by {len(rows)}: arrow keys move, Enter picks">\n'
        f'    <span class="corner" aria-hidden="true"></span>{labels}\n'
        f"    {grid_cells(context, g)}\n"
        "  </div>\n"
        "</figure>")


@register.simple_tag(takes_context=True)
def grid_cells(context: Any, g: Any) -> str:
    """The rows of a square board (matches/partials/grid.html): a row label, then one button a
    cell.  Written here rather than as a template loop because every live update draws it and a
    template loop is several times slower; the markup is the one the loop wrote.  Escaped with the
    standard library's `html.escape` (what Django's `escape` returns, without its lazy-string
    wrapper, most of this tag's time when it was used)."""
    board_name = context.get("board_name") or ""
    cell_id = _esc(board_name or "sq")
    board = _esc(board_name or context.get("match").game_slug)
    last = set(context.get("last_cells") or ())
    win = set(context.get("win_cells") or ())
    hints = context.get("hint_cells") or {}
    # squares a click may not choose, with the rules' sentence why (composer.js says it on the click)
    refuse = context.get("refuse_cells") or {}
    viewer_cls = context.get("viewer_cls") or ""
    out: list[str] = []
    for number, row in enumerate(g["rows"], 1):
        out.append(f'<span class="rowlabel" aria-hidden="true">{number}</span>')
        for cell in row:
            coord = _esc(cell["coord"])
            raw = cell["coord"]
            classes = " last" * (raw in last) + " win" * (raw in win) + " hint" * (raw in hints)
            said = (", last move" * (raw in last) + ", winning line" * (raw in win)
                    + (f", {_esc(hints.get(raw, ''))}" if raw in hints else ""))
            out.append(mark(  # each cell is a live part (live_parts.py)
                context,
                f'<button type="button" id="{cell_id}-{coord}" data-board="{board}" '
                f'class="cell {_esc(cell["cls"])}{classes}" data-coord="{coord}" data-value="{_esc(cell["value"])}" '
                + (f'data-refuse="{_esc(refuse[raw])}" ' if raw in refuse else "") +
                f'aria-label="{coord}, {_esc(yours(cell["cls"], viewer_cls))}{_esc(cell["label"])}{said}">'
                f'<span class="piece-in" aria-hidden="true">{_esc(cell["text"])}</span></button>'))
    return mark_safe("".join(out))  # every value above is escaped


def _esc(value: Any) -> str:
    """Django's `escape(value)`, as plain text."""
    return html.escape(str(value))


def shown(value: Any) -> str:
    """`{{ value }}` as the template language writes it: escaped unless safe, numbers localized."""
    if isinstance(value, str):
        return value.__html__() if hasattr(value, "__html__") else html.escape(value)
    if type(value) is int or (type(value) is float and "e" not in str(value)):
        return str(value)  # what `localize` makes of them with this project's settings (no grouping)
    return str(conditional_escape(localize(value)))
