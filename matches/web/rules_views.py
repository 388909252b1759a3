"""How to play: /rules/ lists every registered game, /rules/<slug>/ shows one.

The text is the game's own (its page's `how_to_play()`, games/core/howto.py); this
module names no game.  Each diagram is a position the rules built from moves in
notation, drawn by the game's own board template from a spectator's view, as a
replay step is: nobody's turn, no move box, no socket.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string, select_template
from django.urls import path
from django.utils.safestring import SafeString, mark_safe

from games.core import HOST, SPECTATOR
from games.core.howto import Diagram, positions, seat_names
from games.registry import app_dir, get_game, get_page, slugs


def rules_index(request: HttpRequest) -> HttpResponse:
    games = [{"slug": slug, "name": get_game(slug).name, "description": get_page(slug).description}
             for slug in slugs()]
    return render(request, "matches/rules_index.html", {"games": games})


def rules_page(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in slugs():
        raise Http404("no such game")
    game, page = get_game(slug), get_page(slug)
    how = page.how_to_play()
    sections = []
    if how is not None:
        number = 0
        for section in how.sections:
            drawn = []
            for diagram in section.diagrams:
                number += 1
                drawn.append(_diagram(slug, diagram, number))
            sections.append({"section": section, "diagrams": drawn})
    context = {
        "game": game,
        "slug": slug,
        "description": page.description,
        "how": how,
        "sections": sections,
        "variants": list(game.variants.values()),
        "head_template": select_template([f"{app_dir(slug)}/head.html",
                                          "matches/partials/head_none.html"]).template.name,
    }
    return render(request, "matches/rules_page.html", context)


def _diagram(slug: str, diagram: Diagram, number: int) -> dict[str, Any]:
    game = get_game(slug)
    names = seat_names(game, diagram)
    drawings = []
    for label, state in positions(game, diagram):
        drawings.append({"label": label, "html": _unique_ids(draw(slug, state, diagram.viewer, names), number,
                                                              label or "only")})
    moves = [{"who": "Host" if seat == HOST else names.get(seat, f"Player {seat}"), "text": text}
             for seat, text in diagram.play]
    return {"caption": diagram.caption, "drawings": drawings, "moves": moves, "number": number,
            "wide": diagram.wide}


def draw(slug: str, state: Any, viewer: int, names: dict[int, str]) -> str:
    """The game's board template for `state`, fed as a replay step is (matches/pages/render.py):
    the viewer's own view, the page's keys, nobody's turn."""
    game, page = get_game(slug), get_page(slug)
    view = game.view(state, viewer)
    to_act = set(view.get("to_act") or [])
    ctx: dict[str, Any] = {
        # the board templates name their board by the match's game (data-board); a drawing has
        # no match, so it gets a stand-in holding only what a board reads of one
        "match": SimpleNamespace(game_slug=slug, status="running", paused=False, result_reason=""),
        "game": game,
        "viewer": viewer,
        "audience": "watch" if viewer == SPECTATOR else "host" if viewer == HOST else "player",
        "is_host": viewer == HOST,
        "is_seat": viewer >= 1,
        "view": view,
        "names": names,
        "seats": [{"number": n, "name": name, "to_act": n in to_act, "submitted": False, "score": 0,
                   "clock": None, "me": n == viewer} for n, name in names.items()],
        "log": [],
        "status": "",
        "replay": True,
        "my_turn": False,
        "paused": False,
        "bout_number": 1,
        "version": 0,
        "last_cells": [],
        "win_cells": [],
        "banner": None,
        "viewer_cls": f"p{viewer}" if viewer >= 1 else "",
    }
    ctx.update(page.context(view, ctx))
    return render_to_string(f"{app_dir(slug)}/board.html", ctx)


#: attributes that hold or name an element id: one page shows several drawings of the same template
_ID_ATTRS = re.compile(r'\b(id|for|aria-labelledby|aria-describedby|aria-controls)="([^"]*)"')


def _unique_ids(html: str, number: int, label: str) -> SafeString:
    """`html` with every id (and every reference to one) suffixed, so the drawings on one page
    keep distinct ids (the board templates were written for one board a page)."""
    suffix = f"-d{number}-{label.lower()}"

    def rename(found: re.Match[str]) -> str:
        names = " ".join(f"{name}{suffix}" for name in found.group(2).split())
        return f'{found.group(1)}="{names}"'

    # the game's own template rendered and escaped it; only id values change here
    return mark_safe(_ID_ATTRS.sub(rename, html))


urlpatterns = [
    path("rules/", rules_index, name="rules_index"),
    path("rules/<slug:slug>/", rules_page, name="rules_page"),
]
