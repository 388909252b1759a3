"""What a socket is sent: its audience's new drawing, less what the drawing it was sent last shows.

A drawing (one audience, one version: drawing.py) travels as a plain dict, the same on this
process and through the channel layer:

    bout, version, log      where the match is: (bout, version, log) only grows (log: the log's
                            highest sequence: an offer or a note adds a row, no version)
    frame                   what a delta cannot change (match, bout, finished, rewritten log)
    meta                    `#live-meta` of a delta, `BASE` where the version it applies to goes
    parts                   {element: [frame, [live part, ...]]} (render.Drawn)
    rows, rows_from         new log rows [[sequence, html]], every row after `rows_from`
    whole                   the whole update (any page), when the drawing process drew one

`update(before, now)`: None when `now` is not newer than `before` (a process drops what is older
than what it sent); a delta when `before` has the same frame and its log rows reach `now`'s;
otherwise `now`'s whole update, or a `#live-meta` that applies to no page (it refetches).
"""

from __future__ import annotations

from typing import Any

from matches.templatetags.live_parts import MARK

#: where a delta's `#live-meta` says the version it applies to
BASE = "{base}"
#: the base of an update that applies to no page: the page refetches its fragments (static/js/live.js)
GAP = -1

Drawing = dict[str, Any]


def position(drawing: Drawing) -> tuple[int, int, int]:
    return (drawing["bout"], drawing["version"], drawing["log"])


def html_of(fragment: list[Any]) -> str:
    """A fragment's whole markup from its frame and live parts (render.Drawn.html)."""
    frame, live = fragment
    pieces = frame.split(MARK)
    return "".join(piece + part for piece, part in zip(pieces, [*live, ""], strict=True))


def update(before: Drawing | None, now: Drawing) -> str | None:
    """What a socket sent `before` is sent for `now` (None: nothing)."""
    if before is not None and position(now) < position(before):
        return None  # older than what the socket has: versions are totals, nothing is waited for
    if before is None or before["frame"] != now["frame"] or before["log"] < now["rows_from"]:
        whole = now.get("whole")
        return str(whole) if whole else str(now["meta"]).replace(BASE, str(GAP))
    pieces = []
    for element, fragment in now["parts"].items():
        old = before["parts"].get(element)
        if old is None or old[0] != fragment[0]:
            pieces.append(html_of(fragment))
        elif old[1] != fragment[1]:
            pieces += [part for part, was in zip(fragment[1], old[1], strict=True) if part != was]
    rows = "".join(html for sequence, html in now["rows"] if sequence > before["log"])
    if rows:
        pieces.append(f'<ol hx-swap-oob="beforeend:#log-list">{rows}</ol>')
    if not pieces and position(now) == position(before):
        return None  # the same state drawn again (two processes drew it)
    return str(now["meta"]).replace(BASE, str(before["version"])) + "".join(pieces)
