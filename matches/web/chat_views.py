"""The match chat's URLs, under each audience's own link (/p/ a seat, /h/ the host, /w/ spectators).

- `<link>chat/`: GET the page's chat panel (static/js/chat.js fetches it again when the rooms
  changed); POST a line (`room`, `text`).  With htmx the reply is out-of-band fragments (the
  room's lines, its error); without JavaScript a redirect back to the page, or a page that
  says what was refused.
- `/w/<token>/chat/name/`: a spectator chooses their name once; it is kept, with an id of their
  own (what a mute silences), in a signed cookie (`COOKIE`).
- `/h/<token>/chat/mod/`: the host removes a line, mutes a writer or lifts a mute, closes or reopens a room,
  sets the chat options.  `/h/<token>/chat/export.txt`: the private threads, which no replay
  or record holds.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.html import escape
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.ratelimits import client_network, limit_posts, token_lookup
from games.core import HOST, SPECTATOR
from matches.core import (
    chatrooms,
    tokens,  # noqa: F401 (the <token:...> converter of the patterns below)
)
from matches.models import ChatMessage, Match, Seat
from matches.pages import chat_panel
from matches.play import chat

COOKIE, COOKIE_AGE = chat_panel.COOKIE, chat_panel.COOKIE_AGE
spectator = chat_panel.spectator


@token_lookup
def _audience(prefix: str, token: str) -> tuple[Match, int]:
    if prefix == "p":
        seat = get_object_or_404(Seat.objects.select_related("match"), token=token)
        return seat.match, seat.number
    if prefix == "h":
        return get_object_or_404(Match, host_token=token), HOST
    return get_object_or_404(Match, watch_token=token), SPECTATOR


def _identity(request: HttpRequest, viewer: int) -> dict[str, str]:
    if viewer != SPECTATOR:
        return {}
    ident, name = spectator(request.COOKIES.get(COOKIE))
    return {"spectator_id": ident, "spectator_name": name}


def _private(view: Any) -> Any:
    return cache_control(private=True)(never_cache(view))


def _page(prefix: str, token: str, room: str = "") -> HttpResponseRedirect:
    return HttpResponseRedirect(f"/{prefix}/{token}/" + (f"#chat-room-{room}" if room else "#chat"))


def _refused(request: HttpRequest, prefix: str, token: str, error: str, room: str = "") -> HttpResponse:
    """A refusal: to htmx, the room's error line; without JavaScript, a page that says it."""
    if request.headers.get("HX-Request"):
        target = f"chat-error-{room}" if room else "chat-flash"
        return HttpResponse(f'<p id="{escape(target)}" class="chat-error" role="alert" hx-swap-oob="true">'
                            f"{escape(error)}</p>")
    return HttpResponse(f'<!doctype html><title>Chat</title><p role="alert">{escape(error)}</p>'
                        f'<p><a href="/{prefix}/{escape(token)}/#chat">Back to the match</a></p>', status=400)


@_private
@require_http_methods(["GET", "POST"])
def chat_room(request: HttpRequest, prefix: str, token: str) -> HttpResponse:
    match, viewer = _audience(prefix, token)
    identity = _identity(request, viewer)
    if request.method == "GET":
        return HttpResponse(chat_panel.panel(match, viewer, oob=True, **identity))
    room = str(request.POST.get("room", ""))
    try:
        message = chat.post(match, viewer, room, request.POST.get("text", ""),
                            webhook=viewer == HOST and request.POST.get("webhook") == "on",
                            address=client_network(request), **identity)
    except chat.ChatRefused as refused:
        room_known = room in chatrooms.readable(match, viewer, chatrooms.options(match))
        return _refused(request, prefix, token, str(refused), room if room_known else "")
    if not request.headers.get("HX-Request"):
        return _page(prefix, token, room)
    # the room as it is now (the socket brings the same line too: static/js/chat.js keeps one)
    lines = ChatMessage.objects.filter(match_id=match.pk, room=message.room).order_by("-id")[:chat_panel.HISTORY]
    items = "".join(chat_panel.line(row, host=viewer == HOST) for row in reversed(lines))
    return HttpResponse(f'<ol class="chat-list" id="chat-list-{message.room}" aria-live="polite" hx-swap-oob="true">'
                        f'{items}</ol><p id="chat-error-{message.room}" class="chat-error" role="alert" '
                        f'hx-swap-oob="true" hidden></p>')


@_private
@require_POST
@limit_posts("chat-names")  # a new name is a new writer: flood control is not dodged by new cookies
def chat_name(request: HttpRequest, token: str) -> HttpResponse:
    match, viewer = _audience("w", token)
    try:
        name = chat.display_name(request.POST.get("name", ""))
    except chat.ChatRefused as refused:
        return _refused(request, "w", token, str(refused))
    ident, _ = spectator(request.COOKIES.get(COOKIE))
    ident = ident or secrets.token_hex(8)
    value = chat_panel.spectator_cookie(ident, name)
    if request.headers.get("HX-Request"):
        response = HttpResponse(chat_panel.panel(match, viewer, oob=True, spectator_id=ident, spectator_name=name))
    else:
        response = _page("w", token)
    response.set_cookie(COOKIE, value, max_age=COOKIE_AGE, httponly=True, samesite="Lax", secure=request.is_secure())
    return response


@_private
@require_POST
def chat_moderate(request: HttpRequest, token: str) -> HttpResponse:
    match, _ = _audience("h", token)
    data = request.POST
    action = str(data.get("action", ""))
    try:
        if action == "remove":
            try:
                message_id = int(str(data.get("message", "")))
            except ValueError:
                raise chat.ChatRefused("There is no such message in this match.") from None
            chat.remove(match, message_id)
            done = "Message removed."
        elif action == "mute":
            chat.mute(match, str(data.get("writer", "")), str(data.get("duration", "")), data.get("reason", ""))
            done = "Writer muted."
        elif action == "unmute":
            chat.unmute(match, str(data.get("writer", "")))
            done = "Mute lifted."
        elif action in ("close", "open"):
            chat.set_closed(match, str(data.get("room", "")), action == "close")
            done = "Room closed." if action == "close" else "Room reopened."
        elif action == "options":
            chat.set_options(match, data.get("table") in ("on", "1", "true"), str(data.get("spectators", "")))
            done = "Chat options saved."
        else:
            raise chat.ChatRefused("Choose what to do: remove, mute, lift a mute, close or reopen.")
    except chat.ChatRefused as refused:
        return _refused(request, "h", token, str(refused))
    if not request.headers.get("HX-Request"):
        return _page("h", token)
    return HttpResponse(chat_panel.panel(match, HOST, oob=True)
                        + f'<p id="chat-flash" class="chat-flash" role="status" hx-swap-oob="true">{escape(done)}</p>')


@_private
@require_GET
def chat_export(request: HttpRequest, token: str) -> HttpResponse:
    """The host's download of every private thread (plain text; never part of a record)."""
    match, _ = _audience("h", token)
    names = dict(match.seats.values_list("number", "name"))
    out = [f"Private threads of match {match.pk}", ""]
    for seat in range(1, match.seat_count + 1):
        room = chatrooms.private_room(seat)
        out.append(f"== seat {seat} ({names.get(seat, '')}) and the host ==")
        for row in ChatMessage.objects.filter(match_id=match.pk, room=room).order_by("id"):
            text = "(removed by the host)" if row.removed else row.text
            out.append(f"[{row.created:%Y-%m-%d %H:%M} UTC] {row.name}: {text}")
        out.append("")
    response = HttpResponse("\n".join(out), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}-private-threads.txt"'
    return response


urlpatterns = [
    path("p/<token:token>/chat/", chat_room, {"prefix": "p"}, name="chat_seat"),
    path("h/<token:token>/chat/", chat_room, {"prefix": "h"}, name="chat_host"),
    path("w/<token:token>/chat/", chat_room, {"prefix": "w"}, name="chat_watch"),
    path("w/<token:token>/chat/name/", chat_name, name="chat_name"),
    path("h/<token:token>/chat/mod/", chat_moderate, name="chat_moderate"),
    path("h/<token:token>/chat/export.txt", chat_export, name="chat_export"),
]
