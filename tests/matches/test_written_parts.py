"""What live updates draw faster, against what it replaced: byte for byte, over every game,
audience, clock and match state.

- parts written in Python (written.clocks, status, score, log_row) against their templates: the
  full page still draws those from the templates, a live update (and the refetch) in Python, and
  deltas are cut from one rendering against the next (render.split_parts), whichever drew them;
- the grid_board tag against the grid.html loop it replaced (kept here as a string);
- render.compact and render._PART_START against the patterns they were;
- contexts drawn from one snapshot (a VIEW_ONLY page hook runs once) against contexts drawn alone."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.template.loader import get_template

from games.core import HOST, SPECTATOR, RuleError
from games.registry import get_game, get_page, slugs
from matches import render, services, written
from matches.engine import ServiceError
from matches.templatetags.match_tags import SHARED_VIEWER
from tests.matches.test_live import TC_TURNS

CLOCKS = "matches/partials/clocks.html"
LOG_ROW = "matches/partials/log_row.html"
STATUS = "matches/partials/status.html"
SCORE = "matches/partials/score.html"
#: names the template escapes and compacts (the services strip them, but keep tabs and line breaks)
ODD_NAMES = ["Ann <&> \"x\" 'y'", "Bo\tb  two\nlines", "Cy", "Di"]


def _configs(slug: str) -> list[dict[str, Any]]:
    configs: list[dict[str, Any]] = [{}, {"clock": False}, {"seat_names": ODD_NAMES}]
    if slug in ("bidding-ttt", "back-to-the-wall"):
        configs.append({"clock": {"round_seconds": 90}})
    else:
        configs += [{"clock": {"per_move": 30, "reserve": 100}}, {"clock": {"bank": 1000.5}}]
    return configs


def _stages(make_match: Callable[..., Any], slug: str, config: dict[str, Any], *, edits: bool = False) -> Iterator[Any]:
    """The match in setup, started, after each of a few rounds of moves (with `edits`: then a
    correction and an undo by the host), paused, finished."""
    config = dict(config)
    if "seat_names" in config:
        config["seat_names"] = config["seat_names"][:get_game(slug).seats]
    match = make_match(slug, start=False, **config)
    yield match
    services.start_match(match, starting_seat=1)
    match.refresh_from_db()
    yield match
    game, rng = match.game, random.Random(slug)
    for _ in range(4):
        bout = match.current_bout
        if bout.finished is not None:
            break
        state = services.bout_state(bout)
        seat = min(game.to_act(state))  # in a sealed round the others are still "thinking" (the badges)
        services.submit(match, seat, game.format(game.random_action(state, seat, rng)), bout.version)
        match.refresh_from_db()
        yield match
    if edits:
        yield from _edits(match)
    services.pause_clocks(match)
    match.refresh_from_db()
    yield match
    services.resume_clocks(match)
    for behind in (0, 2):  # replays of the running bout open to everyone, live or some moves behind
        services.set_replay_access(match, behind)
        match.refresh_from_db()
        yield match
    services.end_match(match, winners=[1])
    match.refresh_from_db()
    yield match


def _edits(match: Any) -> Iterator[Any]:
    """A correction (to the same text) and an undo of the bout's last move, when the rules allow."""
    last = match.turns.filter(kind="move", undone=False, corrected=False).order_by("-sequence").first()
    for edit in ((lambda v: services.correct(match, last.sequence, last.text, v)),
                 (lambda v: services.undo(match, v, 1))):
        try:
            edit(match.current_bout.version)
        except (ServiceError, RuleError, AttributeError):  # no move yet, or a bout the clock ended
            continue
        match.refresh_from_db()
        yield match


def _decided(make_match: Callable[..., Any]) -> Iterator[Any]:
    """Two Connect after the turn that decides Squava (its log row carries a note)."""
    match = make_match("two-connect")
    for index, text in enumerate(TC_TURNS[:8]):
        services.submit(match, 1 + index % 2, text, match.current_bout.version)
    match.refresh_from_db()
    yield match


def _contexts(match: Any) -> Iterator[dict[str, Any]]:
    snap = render.shared(match)
    for viewer in (SPECTATOR, HOST, *range(1, match.game.seats + 1)):
        ctx = render.context(match, viewer, snap)
        for viewer_cls in (ctx["viewer_cls"], SHARED_VIEWER):
            for oob in (True, False):
                yield {**ctx, "viewer_cls": viewer_cls, "oob": oob}


def _compact(html: str) -> str:
    """render.compact as it was first written (three patterns), the reference of the faster one."""
    html = re.sub(r"<[a-zA-Z][^>]*\n[^>]*>", lambda tag: re.sub(r"\s+", " ", tag.group(0)), html)
    return re.sub(r"[ \t]*\n\s*", " ", re.sub(r">\s+<", "> <", html)).strip()


def _template(name: str, ctx: dict[str, Any]) -> str:
    drawn = get_template(name).render(ctx)
    assert render.compact(drawn) == _compact(drawn)
    return _compact(drawn)


def test_compact_is_the_three_patterns() -> None:
    rng = random.Random(7)
    # str.isspace and the patterns' \s agree on all of these (\x1c-\x1f, \x85, \u2028 too)
    alphabet = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000", "a", "<b", ">", "é"]
    for size in range(200):
        for _ in range(20):
            text = "".join(rng.choice(alphabet) for _ in range(size % 40))
            assert render.compact(text) == _compact(text), repr(text)


@pytest.mark.parametrize("slug", slugs())
def test_the_written_parts_are_the_templates(make_match: Any, slug: str) -> None:
    """#clocks, #status and #score, for every audience, shared and own renderings, in and out of band."""
    seen: set[str] = set()
    assert set(render._WRITTEN) == {CLOCKS, STATUS, SCORE}
    for config in _configs(slug):
        for match in _stages(make_match, slug, config):
            for ctx in _contexts(match):
                for name, draw in render._WRITTEN.items():
                    html = draw(ctx)
                    assert html == _template(name, ctx), (name, slug, config, match.status, ctx["viewer"])
                    seen |= {mark for mark in MARKS if mark in html}
    expected = {"no clock", "clocks paused", 'hx-swap-oob="true"', "\ue000p1", " your-turn", " finished", " hidden",
                'data-last="', "replay-links", "(running)", " behind)", "bouts won"}
    if slug in ("bidding-ttt", "back-to-the-wall"):
        expected |= {"Round closes in", "Each round closes after", "badge ok", ">thinking<"}
    else:
        expected |= {"clock-move", "data-ticking", " left<", "spending", "not started"}
    if slug == "two-connect":
        expected |= {"bank for the match", " min<"}
    assert expected <= seen, expected - seen


MARKS = ("no clock", "clocks paused", "not started", 'hx-swap-oob="true"', "\ue000p1", "Round closes in",
         "Each round closes after", "badge ok", ">thinking<", "clock-move", "data-ticking", " left<", "spending",
         "bank for the match", " min<", " your-turn", " finished", " hidden", 'data-last="', "replay-links",
         "(running)", " behind)", "bouts won", "bout won")


@pytest.mark.parametrize("values", [
    {"per_move": 30.5, "move_left": None, "reserve_left": 1e-07},
    {"per_move": 0.4, "move_left": 12345.678, "reserve_left": 4000000.0, "paused": True},
    {"per_move": 2.5, "move_left": 1e16, "reserve_left": -3, "configured": True, "move_end": "<x>"},
    {"per_move": None, "reserve_left": float("nan"), "running": True, "spending": True, "deadline": "a&b"},
    {"per_move": 7, "move_end": "two  spaces", "deadline": "tab\there"},
    {"per_move": "a  b", "move_left": " x", "reserve_left": "1\n2"},
])
@pytest.mark.parametrize("name", ["Ann", " lead", "trail\t", "two\nlines", "", "<b>&amp;"])
def test_the_written_clocks_are_the_templates_for_odd_values(roles: Any, values: dict[str, Any], name: str) -> None:
    ctx = render.context(roles.match, 1)
    seats = [{**s, "name": name, "clock": {**(s["clock"] or {}), **values}} for s in ctx["seats"]]
    for minutes in (True, False):
        for deadline in ("2026-01-01T00:00:00", "a\nb", ""):
            drawn = {**ctx, "seats": seats, "clock_minutes": minutes, "oob": True, "round_deadline": deadline,
                     "round_left": 61.25}
            assert written.clocks(drawn) == _template(CLOCKS, drawn)


def test_the_board_cells_escape_as_django_does() -> None:
    from django.utils.functional import lazy
    from django.utils.html import escape
    from django.utils.safestring import mark_safe

    from matches.templatetags.match_tags import _esc

    for value in ("C3", "<a href='x'>&amp;\"", mark_safe("<b>"), 3, 2.5, None, True, lazy(lambda: "<i>", str)()):
        assert _esc(value) == escape(value)


_GREEDY_PART_START = re.compile(r"<([a-zA-Z][\w-]*)\b[^>]*\bdata-live\b[^>]*>")


def _same_part_starts(html: str) -> None:
    def found(pattern: re.Pattern[str]) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(1)) for m in pattern.finditer(html)]

    assert found(render._PART_START) == found(_GREEDY_PART_START), repr(html)


@pytest.mark.parametrize("slug", slugs())
def test_live_parts_are_found_as_the_greedy_pattern_found_them(make_match: Any, slug: str) -> None:
    """render._PART_START looks for "data-live" from the front of a tag; the same matches."""
    for match in _stages(make_match, slug, {}):
        snap = render.shared(match)
        for viewer in (SPECTATOR, HOST, 1):
            for html in render.parts(render.context(match, viewer, snap)).values():
                _same_part_starts(html)
    rng = random.Random(3)
    pieces = ["<", ">", "a", "b-", " ", "data-live", "data-lived", "x", "=\"", "\n", "<i ", "</i>", "-"]
    for _ in range(3000):
        _same_part_starts("".join(rng.choice(pieces) for _ in range(rng.randrange(30))))


def _template_rows(match: Any, ctx: dict[str, Any], rows: list[Any]) -> str:
    """render.log_rows as it was: each entry through log_row.html, then compact."""
    entries = render._log_entries(match, rows, ctx["viewer"], ctx["names"])
    if ctx.get("view") is not None:
        entries = get_page(match.game_slug).log_notes(ctx["view"], entries, ctx)
    row = get_template(LOG_ROW)
    return _compact("".join(row.render({**ctx, "e": e}) for e in entries))


LOG_MARKS = ("kind-move", "kind-host", " undone", " corrected", "was: ", "correct</summary>", 'class="time"',
             "submitted sealed orders", 'class="note"')


@pytest.mark.parametrize("slug", slugs())
def test_the_written_log_rows_are_the_templates(make_match: Any, slug: str) -> None:
    seen: set[str] = set()
    sealed = slug in ("bidding-ttt", "back-to-the-wall")
    clock = {"round_seconds": 90} if sealed else {"per_move": 30, "reserve": 100}
    matches = (match for config in ({}, {"seat_names": ODD_NAMES, "clock": clock})
               for match in _stages(make_match, slug, config, edits=True))
    for match in itertools.chain(matches, _decided(make_match) if slug == "two-connect" else ()):
        rows = list(match.turns.select_related("bout").order_by("sequence", "id"))
        snap = render.shared(match)
        for viewer in (SPECTATOR, HOST, *range(1, match.game.seats + 1)):
            ctx = render.context(match, viewer, snap)
            for chunk in (rows, *([row] for row in rows[-3:])):
                html = render.log_rows(match, ctx, chunk)
                assert html == _template_rows(match, ctx, chunk), (slug, match.status, viewer)
                seen |= {mark for mark in LOG_MARKS if mark in html}
    expected = {"kind-move", " undone", " corrected", "was: ", "correct</summary>"}
    expected.add("submitted sealed orders" if sealed else 'class="time"')
    if slug == "two-connect":
        expected.add('class="note"')
    assert expected <= seen, expected - seen


@pytest.mark.parametrize("text", ["place C3", " lead", "trail\t", "two\nlines", "", "<b>&amp;", "  "])
def test_the_written_log_rows_are_the_templates_for_odd_values(roles: Any, text: str) -> None:
    ctx = render.context(roles.match, HOST)
    base = {"bout": 1, "sequence": 3, "kind": "move", "actor": 1, "who": "Ann", "text": "place C3",
            "time_used": 2.25, "undone": False, "corrected": False, "corrected_from": "", "created": None}
    for change in ({"text": text}, {"who": text}, {"note": text}, {"corrected_from": text, "corrected": True},
                   {"kind": text}, {"time_used": 0.05}, {"bout": 0, "time_used": None}, {"undone": True}):
        for drawn in (ctx, {**ctx, "is_host": False}, {**ctx, "host_act_url": text}):
            e = {**base, **change}
            reference = _compact(get_template(LOG_ROW).render({**drawn, "e": e}))
            assert written.log_row(drawn, e) == reference, (change, drawn["is_host"])


@pytest.mark.parametrize("slug", slugs())
def test_contexts_drawn_from_one_snapshot_are_those_drawn_alone(make_match: Any, slug: str) -> None:
    """A page hook that reads the view alone (VIEW_ONLY) runs once per snapshot for every audience
    with the same view: each audience's context is still the one it gets from its own snapshot."""
    for match in _stages(make_match, slug, {}):
        snap = render.shared(match)
        for viewer in (SPECTATOR, HOST, *range(1, match.game.seats + 1)):
            shared = render.context(match, viewer, snap)
            alone = render.context(match, viewer, {k: v for k, v in snap.items() if k != "page_memo"})
            for ctx in (shared, alone):
                ctx.pop("server_now")
            assert shared == alone, (slug, match.status, viewer)


def test_a_view_only_page_hook_runs_once_for_every_audience_with_the_same_view(roles: Any, monkeypatch: Any) -> None:
    from games.lance_assembly import page

    calls: list[int] = []
    real = page.square_grid
    monkeypatch.setattr(page, "square_grid", lambda *args: calls.append(1) or real(*args))
    snap = render.shared(roles.match)
    keys = {render.context(roles.match, viewer, snap)["view_key"] for viewer in (SPECTATOR, 1, 2, HOST)}
    assert len(calls) == 1 and len(keys) == 1


@pytest.mark.parametrize("text", ["Ann to move.", " lead", "trail\t", "two\nlines", "", "<b>&amp;", "  "])
def test_the_written_status_and_score_are_the_templates_for_odd_values(roles: Any, text: str) -> None:
    ctx = render.context(roles.match, 1)
    seats = [{**s, "score": score} for s, score in zip(ctx["seats"], (1, 2.5), strict=True)]
    for change in ({"status": text}, {"last_text": text}, {"bout_label": text}, {"seats": seats, "bout_number": 3},
                   {"banner": {"kind": "x"}, "my_turn": False, "bout_number": 0}):
        drawn = {**ctx, **change, "oob": True}
        assert written.status(drawn) == _template(STATUS, drawn), change
        assert written.score(drawn) == _template(SCORE, drawn), change
    assert '"1 bout won"' in written.score({**ctx, "seats": seats})


#: matches/partials/grid.html as a template loop, before the `grid_board` tag wrote it
GRID_TEMPLATE = """{% load match_tags %}<figure class="grid-board {{ board_class|default:'' }}" style="--cols: {{ g.cols|length }}">
  {% if g.label and show_label %}<figcaption>{{ g.label }}</figcaption>{% endif %}
  <div class="board" style="--cols: {{ g.cols|length }}" role="group" aria-label="{{ g.label|default:title }} board, {{ g.cols|length }} by {{ g.rows|length }}: arrow keys move, Enter picks">
    <span class="corner" aria-hidden="true"></span>{% for c in g.cols %}<span class="collabel" aria-hidden="true">{{ c }}</span>{% endfor %}
    {% grid_cells g %}
  </div>
</figure>
"""


@pytest.mark.parametrize("slug", ["lance-assembly", "grid-master"])
def test_the_grid_board_tag_is_the_grid_template(make_match: Any, slug: str) -> None:
    """Byte for byte, white space included (the full page draws it without `compact`)."""
    from django.template import engines

    reference, grid = engines["django"].from_string(GRID_TEMPLATE), get_template("matches/partials/grid.html")
    drawn = 0
    for match in _stages(make_match, slug, {}):
        for ctx in _contexts(match):
            if ctx.get("grid") is None:
                continue
            for extra in ({"board_class": "lance"}, {}, {"show_label": True, "board_class": "<x>"},
                          {"show_label": True, "grid": {**ctx["grid"], "label": "Once & <twice>"}},
                          {"title": "A & B", "board_name": "once"}):
                drawn_ctx = {**ctx, **extra}
                drawn_ctx["g"] = drawn_ctx["grid"]
                assert grid.render(drawn_ctx) == reference.render(drawn_ctx), (slug, match.status, extra)
                drawn += 1
    assert drawn
