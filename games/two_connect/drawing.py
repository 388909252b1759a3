"""How the Two Connect boards are drawn: the Yinsh hex lattice and the square
Squava and Gomoku boards (point positions, lines, labels), and the SVG markup
of one board from its shaped points (page.py shapes them from the view).

Pure: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from html import escape
from typing import Any

from .yinsh import COLUMN_RANGES, COLUMNS, NAMES, POINTS

#: Yinsh lattice spacing, Gomoku point spacing and Squava square size (SVG user units).
HEX = 40.0
GOMOKU_STEP = 30.0
SQUAVA_STEP = 60.0
#: (d letter, d number) of the three Yinsh line directions (yinsh.py); the other diagonal is not a line.
LINE_DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1))
_COS30 = math.sqrt(3) / 2

# -- geometry ---------------------------------------------------------------------


def hex_xy(letter: int, number: int) -> tuple[float, float]:
    """Screen position of Yinsh point (column index, number) before the margins:
    columns are vertical (number grows upward), the same-number lines fall to the
    right, the letter-and-number lines rise to the right (60 degrees apart)."""
    return letter * _COS30 * HEX, (letter / 2 - number) * HEX


@cache
def yinsh_layout() -> dict[str, Any]:
    """The drawn Yinsh board: points {name: (x, y)}, lines (x1, y1, x2, y2, direction
    index into LINE_DIRECTIONS), labels (x, y, text), width and height."""
    raw = {name: hex_xy(c, n) for name, (c, n) in zip(NAMES, POINTS, strict=True)}
    left, top = 34.0, 22.0
    min_x = min(x for x, _ in raw.values())
    min_y = min(y for _, y in raw.values())
    points = {name: (_r(x - min_x + left), _r(y - min_y + top)) for name, (x, y) in raw.items()}
    valid = set(POINTS)
    lines: list[tuple[float, float, float, float, int]] = []
    for k, (dc, dn) in enumerate(LINE_DIRECTIONS):
        for c, n in POINTS:
            if (c - dc, n - dn) in valid:
                continue  # not the first point of its line
            end = (c, n)
            while (end[0] + dc, end[1] + dn) in valid:
                end = (end[0] + dc, end[1] + dn)
            if end != (c, n):
                x1, y1 = points[_yname(c, n)]
                x2, y2 = points[_yname(*end)]
                lines.append((x1, y1, x2, y2, k))
    labels: list[tuple[float, float, str]] = []
    for letter in COLUMNS:  # letters under the foot of each column
        x, y = points[f"{letter}{COLUMN_RANGES[letter][0]}"]
        labels.append((x, _r(y + 0.62 * HEX), letter))
    for number in range(1, 12):  # numbers before the left end of each same-number line
        c = min(c for c, n in POINTS if n == number)
        x, y = points[_yname(c, number)]
        labels.append((_r(x - 0.62 * HEX * _COS30), _r(y - 0.31 * HEX), str(number)))
    width = max(x for x, _ in points.values()) + 24
    height = max(y for _, y in points.values()) + 0.62 * HEX + 14
    return {"points": points, "lines": lines, "labels": labels, "width": _r(width), "height": _r(height)}


@cache
def grid_layout(size: int, step: float, squares: bool) -> dict[str, Any]:
    """A square board: point centres {name: (x, y)} (A1 top-left, numbers grow
    downward), column and row labels, and the drawn lines (intersections for
    Gomoku, square outlines for Squava)."""
    lead, tail = (30.0, 6.0) if squares else (34.0, 16.0)
    first = lead + (step / 2 if squares else 0)
    points = {f"{COLUMNS_AZ[c]}{r + 1}": (_r(first + c * step), _r(first + r * step))
              for r in range(size) for c in range(size)}
    span = (size if squares else size - 1) * step
    origin = lead
    labels = [(_r(first + c * step), _r(lead - (10 if squares else 19)), COLUMNS_AZ[c]) for c in range(size)]
    labels += [(_r(lead - (15 if squares else 21)), _r(first + r * step + 5), str(r + 1)) for r in range(size)]
    count = size + 1 if squares else size
    path = "".join(
        f"M{number_text(origin)} {number_text(origin + i * step)}h{number_text(span)}M{number_text(origin + i * step)} {number_text(origin)}v{number_text(span)}"
        for i in range(count)
    )
    total = _r(lead + span + tail)
    return {"points": points, "labels": labels, "path": path, "width": total, "height": total}


COLUMNS_AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _yname(c: int, n: int) -> str:
    return f"{COLUMNS[c]}{n}"


def _r(value: float) -> float:
    return round(value, 1)


def number_text(value: float) -> str:
    """A coordinate as compact SVG text: 120 or 120.5."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


# -- SVG markup -------------------------------------------------------------------
# The points are written here rather than in a template loop: about 300 points per
# page, rendered for every audience on every move, cost tens of milliseconds in the
# Django template engine and well under one here.  Every text that can hold a
# player's name goes through html.escape.


def svg_layers(b: Mapping[str, Any], interactive: bool) -> tuple[str, list[str]]:
    """The inside of one board's <svg>: what surrounds the points (hit shape, lines, labels, the
    deciding row), then the points (a <g> per point carrying data-board and data-coord, a live part
    each: the template marks them, matches/templatetags/live_parts.py)."""
    word = b["word"]
    frame = _static_layer(word)
    if b.get("win_line"):
        x1, y1, x2, y2 = b["win_line"]
        frame += (f'<line class="tc-winline reason-{escape(b["reason"])}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    radius = {"ring": b["ring"], "marker": b["marker"]} if word == "yinsh" else {"stone": b["stone"]}
    # A point is a live part (matches/pages/README.md): a move re-sends only the points that changed.
    # Its children are closed with end tags, not "/>": a live update is parsed as HTML outside any
    # <svg>, where "/>" closes nothing (static/js/live.js rebuilds the part as SVG).
    points = []
    hit = f'<use class="hit" href="#tc-hit-{word}"></use>'
    for p in b["points"]:
        cls = "pt"
        if p["v"]:
            cls += f" {p['v']}"
        if p["last"]:
            cls += " last"
        if p["win"]:
            cls += " win"
        attrs = (f'id="tc-{word}-{p["coord"]}" class="{cls}" transform="translate({p["x"]} {p["y"]})" '
                 f'data-board="{word}" data-coord="{p["coord"]}"')
        if p["v"]:
            attrs += f' data-v="{p["v"]}"'
        if p.get("say_no") is not None:  # what the click script would not derive from data-taken-no
            attrs += f' data-no="{escape(p["say_no"])}"'
        if interactive:
            attrs += f' role="button" tabindex="0" aria-label="{escape(p["label"])}"'
        piece = ""
        if p["seat"]:
            shape = p.get("piece") or "stone"
            piece = (f'<circle class="{shape}" r="{radius[shape]}"></circle>'
                     f'<text class="mk" dy=".35em">{escape(p["mark"])}</text>')
        points.append(f"<g {attrs}>{hit}{piece}</g>")
    return frame, points


@cache
def _static_layer(word: str) -> str:
    """What never changes on a board: the hit shape, the lines and the labels."""
    if word == "yinsh":
        layout = yinsh_layout()
        hit = f'<circle id="tc-hit-yinsh" r="{number_text(HEX * 0.46)}"/>'
        lines = "".join(
            f'<line x1="{number_text(x1)}" y1="{number_text(y1)}" x2="{number_text(x2)}" y2="{number_text(y2)}" class="d{k}"/>'
            for x1, y1, x2, y2, k in layout["lines"]
        )
        drawn = f'<g class="tc-lines">{lines}</g>'
    else:
        squares = word == "squava"
        step = SQUAVA_STEP if squares else GOMOKU_STEP
        layout = grid_layout(5 if squares else 14, step, squares)
        half = number_text(step / 2)
        hit = f'<rect id="tc-hit-{word}" x="-{half}" y="-{half}" width="{number_text(step)}" height="{number_text(step)}"/>'
        drawn = f'<path class="tc-lines" d="{layout["path"]}"/>'
    labels = "".join(f'<text x="{number_text(x)}" y="{number_text(y)}">{t}</text>' for x, y, t in layout["labels"])
    return f'<defs>{hit}</defs>{drawn}<g class="tc-labels" aria-hidden="true">{labels}</g>'
