"""Replay pages and record downloads (thin: access, then matches.replays.steps / matches.replays.records).

Every audience has the same pages under its own link: `/w/<watch token>/`,
`/p/<seat token>/`, `/h/<host token>/` followed by

    bouts/<n>/                 the replay of bout n (?step=k opens step k;
                               &partial=1 returns just the step, for replay.js)
    bouts/<n>/record.txt       the record of bout n, as this audience may see it
    record.txt                 the record of the whole match

A page never holds a token but the viewer's own (links are built from it).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from config.ratelimits import token_lookup
from games.core import HOST, SPECTATOR
from matches.core import tokens  # noqa: F401 (the <token:...> converter of the patterns below)
from matches.models import Bout, Match, Seat
from matches.pages import render as rendering
from matches.replays import records
from matches.replays import steps as replays

#: link prefix -> (page name of the live page, label)
AUDIENCES = {"p": "player_page", "w": "watch_page", "h": "host_page"}


@token_lookup
def _open(prefix: str, token: str) -> tuple[Match, int, str]:
    """(match, viewer, role label) of a link, or 404."""
    if prefix == "p":
        seat = get_object_or_404(Seat.objects.select_related("match"), token=token)
        return seat.match, seat.number, f"{seat.name} · seat {seat.number}"
    if prefix == "h":
        return get_object_or_404(Match, host_token=token), HOST, "host"
    if prefix == "w":
        return get_object_or_404(Match, watch_token=token), SPECTATOR, "spectator"
    raise Http404("no such link")


def _private(response: HttpResponse, viewer: int) -> HttpResponse:
    """A seat's or the host's page holds its token and what only it may see:
    never kept by a shared cache or the browser (as views._secret)."""
    if viewer != SPECTATOR:
        patch_cache_control(response, private=True, no_cache=True, no_store=True, must_revalidate=True, max_age=0)
    return response


@require_GET
def replay_page(request: HttpRequest, prefix: str, token: str, number: int) -> HttpResponse:
    match, viewer, role = _open(prefix, token)
    bout = get_object_or_404(Bout, match=match, number=number)
    replay = replays.load(match, bout, viewer)
    names = {s.number: s.name for s in match.seats.order_by("number")}
    base = {
        "match": match,
        "game": match.game,
        "bout": bout,
        "viewer": viewer,
        "audience": rendering.viewer_label(viewer),
        "role_label": role,
        "names": names,
        "note": replay.note,
        "live_url": reverse(AUDIENCES[prefix], args=[token]),
        "match_record_url": reverse(f"replay_record_{prefix}", args=[token]),
        "bout_links": _bout_links(match, viewer, prefix, token, number),
        "head_template": rendering.head_template(match.game_slug),
    }
    if not replay.allowed:
        return _private(render(request, "matches/replay_closed.html", base, status=403), viewer)
    try:
        index = int(request.GET.get("step", replay.visible))
    except ValueError:
        index = replay.visible
    step = replay.step(index)
    ctx = _stage(replay, step, names)
    ctx.update(base)
    if request.GET.get("partial"):
        return _private(render(request, "matches/partials/replay_stage.html", ctx), viewer)
    ctx.update(
        moves=replays.move_list(replay, names),
        bout_record_url=reverse(f"replay_bout_record_{prefix}", args=[token, number]),
        page_title=f"replay of bout {bout.number}",
    )
    return _private(render(request, "matches/replay.html", ctx), viewer)


@require_GET
def bout_record(request: HttpRequest, prefix: str, token: str, number: int) -> HttpResponse:
    match, viewer, _ = _open(prefix, token)
    get_object_or_404(Bout, match=match, number=number)
    return _download(records.export(match, viewer, number), records.filename(match, number), viewer)


@require_GET
def match_record(request: HttpRequest, prefix: str, token: str) -> HttpResponse:
    match, viewer, _ = _open(prefix, token)
    return _download(records.export(match, viewer), records.filename(match), viewer)


def _download(text: str, name: str, viewer: int) -> HttpResponse:
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return _private(response, viewer)


def _stage(replay: replays.Replay, step: replays.Step, names: dict[int, str]) -> dict[str, Any]:
    """Everything the step partial shows: the game's own board from this viewer's view of the step."""
    rows = replay.shown_rows()
    if step.last is not None:
        upto = (step.last.sequence, step.last.pk)
        rows = [r for r in rows if (r.sequence, r.pk) <= upto]
    else:
        rows = []
    ctx = rendering.step_context(replay.match, replay.viewer, replay.bout, step.state, rows)
    ctx.update(
        step=step,
        last=replay.visible,
        prev_step=max(0, step.index - 1),
        next_step=min(replay.visible, step.index + 1),
        caption=replays.caption(replay, step, names, ctx["view"]),
        counter=(f"{'Round' if replay.sealed else 'Move'} {step.index} of {replay.visible}"
                 if step.index else f"Start · {replay.visible} {'rounds' if replay.sealed else 'moves'}"),
    )
    return ctx


def _bout_links(match: Match, viewer: int, prefix: str, token: str, current: int) -> list[dict[str, Any]]:
    out = []
    for bout in match.bouts.order_by("number"):
        out.append({
            "number": bout.number,
            "url": reverse(f"replay_{prefix}", args=[token, bout.number]),
            "current": bout.number == current,
            "open": replays.may_replay(match, bout, viewer),
            "running": bout.finished is None,
        })
    return out


urlpatterns = []
for _prefix in AUDIENCES:
    urlpatterns += [
        path(f"{_prefix}/<token:token>/bouts/<int:number>/", replay_page, {"prefix": _prefix}, name=f"replay_{_prefix}"),
        path(f"{_prefix}/<token:token>/bouts/<int:number>/record.txt", bout_record, {"prefix": _prefix},
             name=f"replay_bout_record_{_prefix}"),
        path(f"{_prefix}/<token:token>/record.txt", match_record, {"prefix": _prefix}, name=f"replay_record_{_prefix}"),
    ]
