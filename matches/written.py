"""Parts of a live update written in Python rather than through their templates.

Every update of every audience draws these (`#live-meta`, the clocks, the
status line, the score, each appended log row); the template language took
0.06-0.35 ms for each (bench/README.md), this a few microseconds.  The full
page still renders the templates (`matches/partials/*.html`);
tests/matches/test_written_parts.py and tests/matches/test_live.py hold each
function equal to its template, byte for byte, over every game and audience.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.template.defaultfilters import floatformat, pluralize
from django.utils.html import escape

from .templatetags.match_tags import clock as clock_text
from .templatetags.match_tags import minutes as minutes_text
from .templatetags.match_tags import own
from .templatetags.match_tags import shown as _shown


def meta(ctx: dict[str, Any], base: int | None, oob: bool = True) -> str:
    """`#live-meta`: bout and version; `base` = the version a delta applies to (None: a full update).
    `oob=False` for a delta, which only the websocket carries (its extension swaps every top-level
    element out of band).

    The same element as matches/partials/meta.html draws (tests/matches/test_live.py compares
    them), written out here because every update of every audience carries one: the template
    took ~0.15 ms a time, this a few µs."""
    based = f' data-base="{int(base)}"' if base is not None else ""
    swap = ' hx-swap-oob="true"' if oob else ""
    return (f'<div id="live-meta"{swap} data-bout="{int(ctx["bout_number"])}" '
            f'data-version="{int(ctx["version"])}"{based} data-server-now="{escape(ctx["server_now"])}" '
            f'data-my-turn="{1 if ctx["my_turn"] else 0}" hidden></div>')


#: the texts of a clock that its page's script draws from the clock's data attributes
#: (static/js/clocks.js: from the deadlines while it runs, from data-move-left and
#: data-reserve-left when it stands, rounded as `clock_text` and `minutes_text` round)
FILLED = re.compile(r'(<span class="clock-(?:move|reserve)">)[^<]*(?=</span>)')


def unfilled(html: str) -> str:
    """Markup with the texts a page's script fills in (`FILLED`) left empty."""
    return FILLED.sub(r"\1", html) if "clock-" in html else html


def clocks(ctx: dict[str, Any]) -> str:
    """`#clocks`, out of band, compacted: the same markup as matches/partials/clocks.html (the full
    page still includes the template; tests/matches/test_written_parts.py compares the two for every
    game, audience and clock), written out here because every update draws it: the template
    took ~0.3 ms, this ~0.03 ms.  A line break stands wherever the template has one, so that the
    markup is exactly `compact(template)` (see `_compacted`)."""
    viewer_cls = ctx.get("viewer_cls")
    match = ctx["match"]
    minutes = ctx.get("clock_minutes")
    view = ctx.get("view")
    badges = ctx["game"].sealed and view and not view.get("result")
    running_match = match.status == "running"
    texts, attributes, spread = [], [], []  # what `compact` could change (see `_compacted`)
    out = ['<section id="clocks" ', 'hx-swap-oob="true"' if ctx.get("oob") else "",
           ' class="card clocks" aria-label="clocks">\n']
    for s in ctx.get("seats") or ():
        c = s.get("clock") or {}
        n = _shown(s["number"])
        running = c.get("running")
        per_move = c.get("per_move")
        configured = " · not started" if c.get("configured") else ""
        out += ['<div id="clock-', n, '" data-live class="clock seat-', n,
                " active" if s.get("to_act") and running_match else "", own(viewer_cls, s["number"], " me"),
                " running" if running else "", " spending" if c.get("spending") and running else "", '"',
                " data-ticking" if running else "", "\n"]
        if c:
            shown = [_shown_or_blank(per_move), _shown(c.get("move_end", "")), _shown(c.get("deadline", "")),
                     _shown_or_blank(c.get("move_left")), _shown(c.get("reserve_left", ""))]
            spread += shown
            out += ['data-per-move="', shown[0], '" data-move-end="', shown[1], '" data-deadline="', shown[2],
                    '"\ndata-move-left="', shown[3], '" data-reserve-left="', shown[4], '" data-minutes="',
                    "1" if minutes else "0", '"']
        name = _shown(s.get("name", ""))
        texts.append(name)
        out += ['>\n<span class="clock-name"><span class="dot" aria-hidden="true"></span>', name,
                own(viewer_cls, s["number"], ' <span class="muted">(you)</span>'), "\n"]
        if per_move:
            out += ['<small class="clock-sub">', _whole(per_move), " s a move + reserve", configured, "</small>\n"]
        elif c:
            out += ['<small class="clock-sub">', "bank for the match" if minutes else "bank", configured, "</small>"]
        out.append("</span>\n")
        if badges:
            out += ['<span class="badge', " ok" if s.get("submitted") else "", '">',
                    "submitted" if s.get("submitted") else "thinking" if s.get("to_act") else "", "</span>"]
        out.append("\n")
        if c:
            out += ['<span class="clock-time', " paused" if c.get("paused") else "", '" role="timer">']
            if per_move:
                out += ['<span class="clock-move">', _shown(clock_text(c.get("move_left"))),
                        '</span><span class="visually-hidden"> for the move</span><span class="clock-plus"> + </span>']
            reserve = c.get("reserve_left")
            out += ['<span class="clock-reserve">', _shown(minutes_text(reserve) if minutes else clock_text(reserve)),
                    '</span><span class="visually-hidden">', " reserve" if per_move else " left", "</span></span>"]
        else:
            out.append('<span class="clock-time none">no clock</span>')
        out.append("\n</div>\n")
    deadline = ctx.get("round_deadline")
    setting = match.format.get("clock") if isinstance(match.format, dict) else None
    round_seconds = setting.get("round_seconds") if isinstance(setting, dict) else None
    if deadline:
        shown = _shown(deadline)
        attributes.append(shown)
        left = ctx.get("round_left", "")
        out += ['<div class="clock round"><span class="clock-name">Round closes in</span>'
                '<span class="clock-time round-time" role="timer" data-deadline="', shown,
                '" data-remaining="', _shown(left), '">', _shown(clock_text(left)), "</span></div>"]
    elif match.status == "setup" and round_seconds:
        out += ['<div class="clock round"><span class="clock-name">Each round closes after</span>'
                '<span class="clock-time">', _shown(clock_text(round_seconds)), "</span></div>"]
    if match.paused:
        out.append('\n<div class="badge warn">clocks paused by the host</div>')
    out.append("\n</section>")
    return _compacted("".join(out), texts, attributes, spread)


_BREAKS = re.compile("\n+")
_SPACE = re.compile(r"\s")


def _compacted(html: str, texts: Iterable[str] = (), attributes: Iterable[str] = (),
               spread: Iterable[str] = ()) -> str:
    """`compact(html)` for markup written in Python with a bare line break wherever its template
    has white space (render.clocks, render.log_row, ...): each run of breaks becomes one space.
    That is all `compact` does to it when no text between tags (`texts`) holds a line break or
    starts or ends with white space, no attribute value (`attributes`) holds a line break, and no
    value in a start tag the template spreads over lines (`spread`: `compact` turns its white
    space into single spaces) holds any white space; otherwise (a seat named over two lines)
    `compact` itself runs (a regex pass over every tag: most of the time this part took).  All
    as written (escaped: "<" and ">" come only in markup passed as safe)."""
    if (all("\n" not in t and t == t.strip() and "<" not in t and ">" not in t for t in texts)
            and all("\n" not in v and "<" not in v and ">" not in v for v in attributes)
            and not any(_SPACE.search(v) or "<" in v or ">" in v for v in spread)):
        return _BREAKS.sub(" ", html)
    return compact(html)


def _whole(value: Any) -> str:
    """`{{ value|floatformat:0 }}`, without Django's Decimal arithmetic for whole numbers."""
    if type(value) is int:
        return str(value)
    if type(value) is float and value.is_integer():
        return str(int(value))
    return str(floatformat(value, 0))


def status(ctx: dict[str, Any]) -> str:
    """`#status`, out of band, compacted: the markup of matches/partials/status.html (still the
    full page's; tests/matches/test_written_parts.py holds the two equal), written out here
    because every update draws it for each audience (whose turn it is): ~0.018 ms a time."""
    last = "" if ctx["game"].sealed else _shown(ctx.get("last_text", ""))
    text = _shown(ctx.get("status", ""))
    html = "".join(['<div id="status" ', 'hx-swap-oob="true"' if ctx.get("oob") else "", ' class="status',
                    " your-turn" if ctx.get("my_turn") else "",
                    " finished" if ctx["match"].status == "finished" else "", '" data-last="', last, '"',
                    " hidden" if ctx.get("banner") else "", ">", text, "</div>"])
    return _compacted(html, [text], [last])


def score(ctx: dict[str, Any]) -> str:
    """`#score`, out of band, compacted: the markup of matches/partials/score.html with its
    replay links (both still the full page's; tests/matches/test_written_parts.py holds them
    equal), written out here because every update draws it: the templates took ~0.08 ms."""
    label = _shown(ctx.get("bout_label", ""))
    texts = [label]
    out = ['<div id="score" ', 'hx-swap-oob="true"' if ctx.get("oob") else "", ' class="score">\n<span class="bout-no">',
           label, "</span>\n"]
    for s in ctx.get("seats") or ():
        name, won = _shown(s.get("name", "")), _shown(s.get("score", ""))
        texts += [name, won]
        out += ['<span class="score-seat seat-', _shown(s["number"]), '"><span class="dot" aria-hidden="true"></span>',
                name, ' <b aria-label="', won, " bout", pluralize(s.get("score", "")), ' won">', won, "</b></span>"]
    out.append("\n")
    bout_number = ctx.get("bout_number")
    if bout_number:
        out += [_replay_links(ctx, bout_number), "\n"]
    out.append("\n</div>")
    return _compacted("".join(out), texts)


def _replay_links(ctx: dict[str, Any], bout_number: int) -> str:
    """matches/partials/replay_links.html (included by score.html)."""
    from .replay import replay_behind

    behind = replay_behind(ctx["match"])
    finished = getattr(ctx.get("bout"), "finished", None)
    host = ctx.get("is_host")
    if not (bout_number > 1 or finished or host or behind is not None):
        return ""
    out = ['<span class="replay-links" id="replay-links">Replays:\n']
    for n in range(1, int(bout_number) + 1):
        if n < bout_number or finished:
            out.append(f'<a href="bouts/{n}/">bout {n}</a>')
        elif host:
            out.append(f'<a href="bouts/{n}/">bout {n} (running)</a>')
        elif behind is not None:
            out.append(f'<a href="bouts/{n}/">bout {n} ({f"{behind} behind" if behind else "running"})</a>')
    out.append("</span>")
    return "".join(out)


def _shown_or_blank(value: Any) -> str:
    """`{{ value|default_if_none:'' }}`."""
    return "" if value is None else _shown(value)


def log_row(ctx: dict[str, Any], e: dict[str, Any]) -> str:
    """One `<li>` of the log, compacted: the markup of matches/partials/log_row.html (which the
    whole log, log.html, still includes; tests/matches/test_written_parts.py holds the two equal),
    written out here because every move appends one to each audience's log: the template took
    ~0.07 ms a row.  Line breaks stand where the template has them (see `_compacted`)."""
    kind, who, text = _shown(e.get("kind", "")), _shown(e.get("who", "")), _shown(e.get("text", ""))
    texts, attributes = [who, text], [kind]
    out = ['<li class="kind-', kind, " undone" if e.get("undone") else "", " corrected" if e.get("corrected") else "",
           '">\n<span class="seq">', f'{_shown(e["bout"])}·' if e.get("bout") else "", _shown(e.get("sequence", "")),
           '</span>\n<span class="who">', who, '</span>\n<span class="text">', text, "</span>"]
    if e.get("note"):
        note = _shown(e["note"])
        texts.append(note)
        out += [' <span class="note">', note, "</span>"]
    out.append("\n")
    if e.get("corrected_from"):
        was = _shown(e["corrected_from"])
        texts.append(was)
        out += ['<span class="was">was: ', was, "</span>"]
    out += ["\n", '<span class="tag">undone</span>' if e.get("undone") else "",
            '<span class="tag">corrected</span>' if e.get("corrected") else "", "\n"]
    if e.get("time_used"):
        out += ['<span class="time">', str(floatformat(e["time_used"], 1)), "s</span>"]
    out.append("\n")
    if ctx.get("is_host") and e.get("kind") == "move" and not e.get("undone") and not e.get("corrected"):
        url = _shown(ctx.get("host_act_url", ""))
        attributes += [url, text]
        out += ['<details class="correct"><summary>correct</summary>\n<form hx-post="', url,
                '" hx-swap="none" class="inline" hx-include="#host-seq">\n'
                '<input type="hidden" name="action" value="correct"><input type="hidden" name="sequence" value="',
                _shown(e.get("sequence", "")), '">\n<input type="hidden" name="version" value="',
                _shown(ctx.get("version", "")), '">\n<input name="text" value="', text,
                '" aria-label="corrected text"><button type="submit">Save</button>\n</form></details>\n']
    out.append("</li>")
    return _compacted("".join(out), texts, attributes)


_BETWEEN_TAGS = re.compile(r">\s+<")
_IN_TAG = re.compile(r"<[a-zA-Z][^>]*\n[^>]*>")


def compact(html: str) -> str:
    """Whitespace between tags, and line breaks inside start tags, as one space: renders the
    same (no fragment uses `white-space: pre`) and live updates get smaller."""
    html = _IN_TAG.sub(lambda tag: re.sub(r"\s+", " ", tag.group(0)), html)
    return _line_breaks(_BETWEEN_TAGS.sub("> <", html)).strip()


def _line_breaks(html: str) -> str:
    """`re.sub(r"[ \\t]*\\n\\s*", " ", html)`: each line break, with the spaces and tabs before it and
    all white space after it, as one space.  Cut at the breaks rather than by that pattern, which
    has no first character to look for and so is tried at every position: 0.13 ms on a board's
    9 KB, this 0.005 ms (tests/matches/test_written_parts.py holds the two equal)."""
    lines = html.split("\n")
    last = len(lines) - 1
    if not last:
        return html
    out = [lines[0].rstrip(" \t")]
    for number, line in enumerate(lines[1:], 1):
        line = line.lstrip()  # `\s*`: str.isspace, as the pattern's `\s`
        if number < last:
            if not line:
                continue  # white through to the next break: one space for both
            line = line.rstrip(" \t")
        out.append(line)
    return " ".join(out)


# `[^>]*?`, not `[^>]*`: the same matches (a start tag through its first ">", holding the word
# data-live), found from the front; greedy, each part's tag (a cell's is ~250 characters) was
# walked back to its "data-live": 0.15 -> 0.08 ms a Lance board
