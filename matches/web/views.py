"""Pages and form posts.  Thin: access helpers, then services and render.

Who may do what is decided by the token in the URL: /p/<seat token>/ is one
seat, /h/<host token>/ the host, /w/<watch token>/ spectators.  Only the host
URL accepts moderation posts and only a seat URL accepts moves, so a
spectator has nothing to post to.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_POST

from config import ratelimits
from config.ratelimits import limit_posts, token_lookup
from games.core import HOST, SPECTATOR, RuleError
from games.registry import get_page, slugs
from matches.core import formats
from matches.core.formats import AWAY_BUDGET
from matches.models import Match, Seat
from matches.pages import render as rendering
from matches.play import bots, services
from matches.play import rematch as rematches
from matches.play import requests as seat_requests
from matches.play.engine import host_seq
from matches.seasons import notices
from matches.web import forms, host_actions, practice
from matches.web.consumers import parse_think

audit = logging.getLogger("deathmatch.audit")

#: host actions that end a bout or the match: the host may take each back from a toast (reopen)
UNDOABLE = frozenset({"forfeit", "award", "stalemate", "draw", "end"})


CLOCK_FIELDS = [  # their least values are the ones the services take (formats.MIN_SECONDS)
    {"id": "per_move", "label": "Per move", "min": formats.MIN_SECONDS["per_move"]},
    {"id": "reserve", "label": "Reserve / bank", "min": 0},
    {"id": "round_seconds", "label": "Sealed round deadline", "min": formats.MIN_SECONDS["round_seconds"]},
]


def _secret(view: Any) -> Any:
    """A response that holds a secret token or hidden information: never stored
    by a shared cache or the browser (a seat's page on a shared computer)."""
    return cache_control(private=True)(never_cache(view))


@token_lookup
def _seat_from_token(token: str) -> Seat:
    return get_object_or_404(Seat.objects.select_related("match"), token=token)


@token_lookup
def _host_from_token(token: str) -> Match:
    return get_object_or_404(Match, host_token=token)


@token_lookup
def _watch_from_token(token: str) -> Match:
    return get_object_or_404(Match, watch_token=token)


@never_cache
def staff_host(request: HttpRequest, match_id: int) -> HttpResponse:
    """Staff (a Django admin login) with the permission `matches.moderate_match`
    may open any match's host dashboard without its link.  The dashboard shows
    hidden information (sealed bids, orders), so being staff is not enough, and
    every opening (and refusal) is logged."""
    user = request.user
    if not (user.is_authenticated and user.is_staff):
        return redirect(f"{reverse('admin:login')}?next={request.path}")
    if not user.has_perm("matches.moderate_match"):
        audit.warning("staff %r refused the host dashboard of match %s (no matches.moderate_match)",
                      user.get_username(), match_id)
        raise PermissionDenied("you need the permission to moderate matches")
    match = get_object_or_404(Match, pk=match_id)
    audit.info("staff %r opened the host dashboard of match %s", user.get_username(), match.pk)
    return redirect("host_page", token=match.host_token)


@limit_posts("matches")
def home(request: HttpRequest) -> HttpResponse:
    error, error_field = "", ""
    if request.method == "POST":
        try:
            wanted = forms.parse_create(request.POST)
            computer = wanted.pop("computer")
            with transaction.atomic():
                match = services.create_match(**wanted, key=forms.create_key(request, "match-form"))
                for seat, strength in computer.items():  # logged: "seat 2 (Bob) is played by the computer"
                    bots.set_bot(match, seat, strength)
        except services.AlreadyCreated as done:  # a doubled submit: the match the first one made
            return redirect("host_page", token=done.match.host_token)
        except (forms.CreateError, services.ServiceError, RuleError, ValueError) as exc:
            error, error_field = str(exc), getattr(exc, "field", "")
        else:
            return redirect("host_page", token=match.host_token)
    chosen = request.POST.get("game", slugs()[0])
    games = forms.games()
    context = {"games": games, "seat_numbers": range(1, forms.MAX_SEATS + 1), "error": error,
               "error_field": error_field, "posted": request.POST if error else None,
               # the chosen game's options, seats and clock fields are drawn as home.js shows them
               "form": {"game": chosen, "seats": forms.seats_shown(chosen, request.POST if error else None),
                        "sealed": any(g["sealed"] for g in games if g["slug"] == chosen),
                        "starts": any(g["starts"] for g in games if g["slug"] == chosen)},
               "clock_fields": CLOCK_FIELDS,
               "seat_fields": [{"n": n, "name": f"seat{n}", "bot": f"bot{n}"} for n in range(1, forms.MAX_SEATS + 1)],
               "seat_players": forms.SEAT_PLAYERS,
               "practice_games": practice.practice_games(), "strengths": practice.STRENGTH_CHOICES,
               "chat_tables": [(value, words) for value, (_, words) in forms.CHAT_TABLE.items()],
               "chat_spectators": list(forms.CHAT_SPECTATORS.items()), "away_budget_default": AWAY_BUDGET,
               "answer_choices": list(forms.ANSWERS.items())}
    return render(request, "matches/home.html", context, status=400 if error else 200)


@require_GET
def board_check(request: HttpRequest) -> JsonResponse:
    """The home page's board editor asks the game's rules whether a board
    (size and pre-placed walls) is allowed, and why not."""
    try:
        found = forms.check_board(request.GET.get("game", ""), request.GET.get("board", ""),
                                  request.GET.get("size", ""), request.GET.get("walls"))
    except (forms.CreateError, KeyError) as exc:
        return JsonResponse({"ok": False, "error": str(exc).strip("'\"")}, status=400)
    return JsonResponse(found)


@_secret
@require_GET
def player_page(request: HttpRequest, token: str) -> HttpResponse:
    seat = _seat_from_token(token)
    moved = rematches.seat_in_rematch(seat.match, seat.number)
    if moved is not None:  # the host started a rematch: the seat's old link leads to its new seat
        return redirect("player_page", token=moved.token)
    context = _page(request, seat.match, seat.number, token)
    context.update(
        move_url=reverse("player_move", args=[token]),
        request_url=reverse("player_request", args=[token]),
        role_label=f"{seat.label} · seat {seat.number}",
        page_title=seat.name,
        controls_template=rendering.controls_template(seat.match.game_slug),
        example_move=get_page(seat.match.game_slug).example_move,
    )
    return render(request, "matches/player.html", context)


@require_GET
def watch_page(request: HttpRequest, token: str) -> HttpResponse:
    match = _watch_from_token(token)
    context = _page(request, match, SPECTATOR, token)
    context.update(role_label="spectator", page_title="watch")
    return render(request, "matches/watch.html", context)


@_secret
@require_GET
def host_end_preview(request: HttpRequest, token: str) -> HttpResponse:
    """What an ending the host types would give in the season (the host's game's console shows it
    before sending; issue 52): plain text, read only."""
    match = _host_from_token(token)
    return HttpResponse(notices.end_preview(match, str(request.GET.get("text", ""))[:1000]),
                        content_type="text/plain; charset=utf-8")


@_secret
@require_GET
def host_page(request: HttpRequest, token: str) -> HttpResponse:
    match = _host_from_token(token)
    context = _page(request, match, HOST, token)
    absolute = request.build_absolute_uri
    context.update(
        role_label="host",
        page_title="host",
        controls_template=rendering.controls_template(match.game_slug),
        seat_links=[{"number": s.number, "name": s.name, "url": absolute(reverse("player_page", args=[s.token]))}
                    for s in match.seats.order_by("number")],
        watch_url=absolute(reverse("watch_page", args=[match.watch_token])),
        host_url=absolute(reverse("host_page", args=[match.host_token])),
    )
    return render(request, "matches/host.html", context)


@_secret
@require_GET
def fragments(request: HttpRequest, token: str) -> HttpResponse:
    """Every live fragment of the page the token opens (a page that missed a version refetches)."""
    seat = Seat.objects.select_related("match").filter(token=token).first()
    if seat is not None:
        return HttpResponse(rendering.fragments(seat.match, seat.number))
    match = Match.objects.filter(host_token=token).first()
    if match is not None:
        return HttpResponse(rendering.fragments(match, HOST))
    return HttpResponse(rendering.fragments(_watch_from_token(token), SPECTATOR))


@_secret
@require_POST
def player_move(request: HttpRequest, token: str) -> HttpResponse:
    seat = _seat_from_token(token)
    error = ""
    try:
        version = int(request.POST.get("version", ""))
        text = str(request.POST.get("text", "")).strip()
        if not text:
            raise ValueError("type a move or click the board first")
        think = parse_think(request.POST.get("think"))
        services.submit(seat.match, seat.number, text[:500], version, think=think if think is not False else None)
    except services.StaleVersion as exc:
        error = "" if services.already_applied(seat.match, seat.number, version, text[:500]) else str(exc)
    except (services.ServiceError, RuleError) as exc:
        error = str(exc)
    except ValueError as exc:
        error = str(exc) if "invalid literal" not in str(exc) else "reload the page: the form lost its version"
    return _with_fragments(seat.match, seat.number, "matches/partials/move_error.html", error)


@_secret
@require_POST
def player_request(request: HttpRequest, token: str) -> HttpResponse:
    """A seat resigns (the bout or the match), offers a draw or asks for a takeback, or answers its
    opponent's (matches/play/requests.py); the reply is its refusal (or none) and the seat's fragments."""
    seat = _seat_from_token(token)
    error = ""
    kind = str(request.POST.get("request", ""))
    try:
        if kind == "resign":
            seat_requests.resign(seat.match, seat.number, str(request.POST.get("scope", "")))
        elif kind == "answer":
            verdict, offer = str(request.POST.get("answer", "")), str(request.POST.get("offer", "")).strip()
            if verdict not in ("accept", "decline") or not offer.isdigit():
                raise services.ServiceError("answer the offer on your page with Accept or Decline")
            seat_requests.respond(seat.match, seat.number, str(request.POST.get("kind", "")), verdict == "accept",
                                  int(offer))
        else:
            seat_requests.ask(seat.match, seat.number, kind)
    except services.ServiceError as exc:
        error = str(exc)
    return _with_fragments(seat.match, seat.number, "matches/partials/move_error.html", error)


@_secret
@require_POST
def host_act(request: HttpRequest, token: str) -> HttpResponse:
    match = _host_from_token(token)
    if request.POST.get("action") == "rematch" and (seconds := ratelimits.over(request, "matches")) is not None:
        return ratelimits.too_many(request, "matches", seconds)  # a rematch is a new match: the same budget
    try:
        message = host_actions.perform(match, request.POST)
        error = ""
    except (services.ServiceError, RuleError, host_actions.BadRequest) as exc:
        message, error = "", str(exc)
    match.refresh_from_db()
    new = rematches.rematch_of(match) if not error and request.POST.get("action") == "rematch" else None
    if new is not None:  # the host goes on to the rematch's page
        return HttpResponse(status=204, headers={"HX-Redirect": reverse("host_page", args=[new.host_token])})
    undo, action = "", request.POST.get("action")
    # the ending stays undoable from the toast for 30 s (static/js/confirm.js hides it): the reopen
    # path; a round resolved early, the undo of that one turn (the round waits for orders again)
    taken_back = ("" if error else "reopen" if action in UNDOABLE and not services.reopen_refusal(match)
                  else "undo" if action == "resolve" else "")
    if taken_back:
        undo = render_to_string("matches/partials/undo_toast.html", {
            "host_act_url": reverse("host_act", args=[token]), "seq": host_seq(match), "action": taken_back,
            "version": match.current_bout.version if match.current_bout else 0, "what": message})
    flash = (f'<div id="host-flash" class="flash{" error" if error else ""}" role="alert" hx-swap-oob="true">'
             f"{escape(error or message)}{undo}</div>")
    return HttpResponse(flash + rendering.fragments(match, HOST))


def _with_fragments(match: Match, viewer: int, partial: str, error: str) -> HttpResponse:
    match.refresh_from_db()
    html = render_to_string(partial, {"error": error, "oob": True}) + rendering.fragments(match, viewer)
    return HttpResponse(html)


def _page(request: HttpRequest, match: Match, viewer: int, token: str) -> dict[str, Any]:
    context = rendering.context(match, viewer)
    context.update(
        ws_url=f"/ws/m/{token}/",
        fragments_url=reverse("fragments", args=[token]),
    )
    return context
