"""A page as htmx's websocket extension and idiomorph keep it, in plain Python: the markup a page
holds after each live update (out-of-band swaps, log rows appended), and that markup as a page shows
it, to compare with a fresh load (tests/matches/live/test_live.py, tests/chaos/test_cluster.py)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

_ELEMENT = re.compile(r'<(\w+)\b[^>]*\bid="([^"]+)"[^>]*>')


@functools.cache
def tag_pattern(tag: str) -> re.Pattern[str]:
    return re.compile(rf"<(/?){re.escape(tag)}\b[^>]*>", re.I)


def closing(html: str, start: int, tag: str) -> int:
    """Where the element of `tag` whose start tag ends at `start` ends (-1: never closed)."""
    depth = 1
    for found in tag_pattern(tag).finditer(html, start):
        if found.group(1):
            depth -= 1
            if depth == 0:
                return found.end()
        elif not found.group(0).endswith("/>"):
            depth += 1
    return -1


def elements(html: str) -> dict[str, str]:
    """Every element with an id (outermost first) -> its outer HTML."""
    out: dict[str, str] = {}
    for found in _ELEMENT.finditer(html):
        end = closing(html, found.end(), found.group(1))
        if end > 0:
            out.setdefault(found.group(2), html[found.start():end])
    return out


def element(html: str, ident: str) -> str | None:
    """The outer HTML of the first element whose id is `ident` (as `elements(html).get(ident)`,
    without measuring every other element of the page)."""
    for candidate in re.finditer(rf'\bid="{re.escape(ident)}"', html):
        found = _ELEMENT.match(html, html.rfind("<", 0, candidate.start()))
        if found is None or found.group(2) != ident:  # another attribute's value, or text
            continue
        end = closing(html, found.end(), found.group(1))
        if end > 0:
            return html[found.start():end]
    return None


_START = re.compile(r"<(\w+)\b[^>]*>")
#: a start tag's attributes as this app writes them (name or name="value", values escaped)
_START_TAG = re.compile(r'<([a-zA-Z][\w-]*)((?:\s+[^\s=>/"]+(?:="[^"]*")?)*)\s*$')
_ATTRIBUTE = re.compile(r'\s+([^\s=>/"]+)(?:="([^"]*)")?')
#: the texts of a clock that its page's script draws from the clock's data attributes (clocks.js)
_FILLED = re.compile(r'(<span class="clock-(?:move|reserve)">)[^<]*(?=</span>)')


def attributes(head: str) -> tuple[str, dict[str, str | None]] | None:
    """(tag, {name: raw value or None}) of a start tag without its ">"; None if not plainly written."""
    found = _START_TAG.match(head)
    if found is None:
        return None
    attributes: dict[str, str | None] = {}
    for attribute in _ATTRIBUTE.finditer(found.group(2)):
        attributes[attribute.group(1)] = attribute.group(2)
    return found.group(1).lower(), attributes


def top_level(delta: str) -> Iterator[tuple[str, dict[str, str | None], str | None]]:
    """A message's top-level elements: (tag, attributes, children; None for a self-closed one)."""
    pos = 0
    while (found := _START.search(delta, pos)) is not None:
        parsed = attributes(found.group(0)[:-2 if found.group(0).endswith("/>") else -1])
        assert parsed is not None, found.group(0)
        if found.group(0).endswith("/>"):
            yield parsed[0], parsed[1], None
            pos = found.end()
            continue
        end = closing(delta, found.end(), found.group(1))
        assert end > 0, found.group(0)
        yield parsed[0], parsed[1], delta[found.end():delta.rfind("</", 0, end)]
        pos = end


def head(tag: str, attributes: dict[str, str | None]) -> str:
    """A start tag (without its end) with its attributes in one order, whatever order they came in."""
    return "<" + tag + "".join(f" {k}" if v is None else f' {k}="{v}"' for k, v in sorted(attributes.items()))


def write(tag: str, attributes: dict[str, str | None], children: str | None) -> str:
    return head(tag, attributes) + ("/>" if children is None else ">" + children + f"</{tag}>")


def apply_update(page: str, delta: str) -> str:
    """What the page holds after a websocket message, as htmx's ws extension and idiomorph make it:
    every top-level element swapped out of band (`hx-swap-oob`, "true" when absent, or "morph": the
    page's element then holds what the new one holds) in order."""
    for tag, attributes, children in top_level(delta):
        swap = attributes.pop("hx-swap-oob", None) or "true"
        if swap.startswith("beforeend:#"):
            end = page.index(f"</{tag}>", page.index(f'id="{swap.split("#", 1)[1]}"'))
            page = page[:end] + (children or "") + page[end:]
            continue
        assert swap in ("true", "morph"), swap
        old = element(page, str(attributes["id"]))
        assert old is not None, f"the page has no #{attributes['id']} to swap"
        page = page.replace(old, write(tag, attributes, children), 1)
    return page


def same(html: str) -> str:
    """Markup as a page shows it, whatever the order of attributes: without the server's live
    markers, and without the times a clock's script draws (`_FILLED`)."""
    def tag(found: re.Match[str]) -> str:
        closing = "/>" if found.group(0).endswith("/>") else ">"
        parsed = attributes(found.group(0)[:-len(closing)])
        return found.group(0) if parsed is None else head(*parsed) + closing

    return _START.sub(tag, _FILLED.sub(r"\1", re.sub(r' hx-swap-oob="(?:true|morph)"', "", html)))


def cells(html: str) -> dict[str, str]:
    """Cells, facts, status and clocks (each its state, then what it shows)."""
    return {k: same(v) for k, v in elements(html).items() if k.startswith(("sq-", "fact-", "clock-")) or k == "status"}


def board(html: str) -> str:
    """The #board element as the page draws it (without the server-side live markers)."""
    found = element(html, "board")
    assert found is not None, "no #board"
    return same(found)


def rows(html: str) -> list[str]:
    return re.findall(r'<span class="text">([^<]*)</span>', html)


_BASE = re.compile(r'<div id="live-meta"[^>]*?data-version="(\d+)"(?:[^>]*?data-base="(-?\d+)")?')


class Process:
    """One web process's sockets, one per audience group, as its relay writes them: each drawing
    (matches/live/drawing.py) less what the socket was sent last (matches/live/delta.py)."""

    def __init__(self) -> None:
        self.sent: dict[str, dict[str, Any]] = {}

    def prepare(self, match_id: int, moved: object = None) -> list[tuple[str, dict[str, Any]]]:
        """[(group, {"html", "version", "base"})] for the next drawing of the match ("" when nothing
        is written: older, or the same again)."""
        from matches.live import delta, drawing

        out: list[tuple[str, dict[str, Any]]] = []
        for group, drawn in drawing.prepare(match_id, moved):  # type: ignore[arg-type]
            html = delta.update(self.sent.get(group), drawn) or ""
            if html:
                self.sent[group] = drawn
            found = _BASE.search(html)
            out.append((group, {"html": html, "version": drawn["version"],
                                "base": int(found.group(2)) if found and found.group(2) else None}))
        return out
