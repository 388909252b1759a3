"""POST /discord/interactions/: Discord's interactions endpoint.

Order of checks, cheapest first, nothing changed before the last one passes:
1. the app is a Discord application (settings), else 404;
2. the body is at most `MAX_BODY` bytes, else 413;
3. the Ed25519 signature over X-Signature-Timestamp + the raw body, with a recent timestamp
   (`signature.valid`), else 401, counted against the client's address ("discord-unsigned"), and
   429 past that budget.  A signed post is never refused by that budget (checking costs about as
   much as refusing), like a valid link and the bad-link budget (config/ratelimits.py);
4. the JSON is an interaction: PING gets PONG; an application command is answered with one message
   (type 4) within Discord's 3 seconds: creating a match is a few inserts, and every message to
   others is queued for the sender (`outbox`), never sent here.

The endpoint is exempt from CSRF: Discord's signature is what proves the post is Discord's.  The
interaction's token (a secret that lets its holder post as the bot for 15 minutes) is stored for the
follow-ups and never logged.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.utils.cache import patch_cache_control
from django.views.decorators.csrf import csrf_exempt

from config import ratelimits
from games.core import RuleError
from matches.core.errors import ServiceError
from matches.discord import api, commands, hosting, signature
from matches.discord.commands import BadInput

log = logging.getLogger(__name__)

MAX_BODY = 128 * 1024
PING, APPLICATION_COMMAND = 1, 2
PONG, CHANNEL_MESSAGE_WITH_SOURCE = 1, 4
EPHEMERAL = 64


@csrf_exempt
def interactions(request: HttpRequest) -> HttpResponse:
    if not api.configured():
        raise Http404("this server is not a Discord application")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    length = request.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > MAX_BODY:  # refused before it is read
        return HttpResponse("too large", status=413, content_type="text/plain")
    body = request.body
    if len(body) > MAX_BODY:  # (sent without a length: the server has read it already)
        return HttpResponse("too large", status=413, content_type="text/plain")
    if not signature.valid(api.public_key(), request.headers.get("X-Signature-Ed25519", ""),
                           request.headers.get("X-Signature-Timestamp", ""), body):
        wait = ratelimits.over(request, "discord-unsigned")
        if wait is not None:
            response = HttpResponse("too many requests with a bad signature", status=429, content_type="text/plain")
            response["Retry-After"] = str(wait)
            return response
        return HttpResponse("invalid request signature", status=401, content_type="text/plain")
    try:
        interaction = json.loads(body)
    except ValueError:
        return HttpResponse("not JSON", status=400, content_type="text/plain")
    if not isinstance(interaction, dict):
        return HttpResponse("not an interaction", status=400, content_type="text/plain")
    kind = interaction.get("type")
    if kind == PING:
        return JsonResponse({"type": PONG})
    if kind != APPLICATION_COMMAND:
        return _reply("I only answer /deathmatch commands.")
    return _reply(_command(request, interaction))


def _command(request: HttpRequest, interaction: dict[str, Any]) -> str:
    data = _dict(interaction.get("data"))
    invoker = _invoker(interaction)
    if invoker is None:
        return "I could not tell who you are; try again."
    try:
        name, values = commands.subcommand(data)
        if name == "links":
            return hosting.links_reply(invoker.user_id)
        if name != "new":
            raise BadInput("Use /deathmatch new or /deathmatch links.")
        new = commands.read_new(values, _dict(data.get("resolved")))
        known = hosting.again(invoker)  # Discord delivered it again: the same answer, not counted twice
        if known is not None:
            return known
        # the one budget of new matches, counted per Discord user (every post comes from Discord's addresses)
        wait = ratelimits.over(request, "matches", key=lambda group, req: f"discord:{invoker.user_id}")
        if wait is not None:
            raise BadInput(f"You have hosted too many matches in a minute; try again in {wait} s.")
        return hosting.create(new, invoker, request.build_absolute_uri("/"))
    except (BadInput, ServiceError, RuleError) as error:
        return str(error)[:1900]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _invoker(interaction: dict[str, Any]) -> hosting.Invoker | None:
    member = interaction.get("member") if isinstance(interaction.get("member"), dict) else None
    user = (member or {}).get("user") if member else interaction.get("user")
    if not isinstance(user, dict) or not api.SNOWFLAKE.match(str(user.get("id", ""))):
        return None
    interaction_id, token = str(interaction.get("id", "")), str(interaction.get("token", ""))
    if not api.SNOWFLAKE.match(interaction_id) or not api.INTERACTION_TOKEN.match(token):
        return None
    channel = str(interaction.get("channel_id") or "")
    guild = str(interaction.get("guild_id") or "")
    return hosting.Invoker(
        user_id=str(user["id"]), name=commands.display_name(user, member), interaction_id=interaction_id,
        interaction_token=token, channel_id=channel if api.SNOWFLAKE.match(channel) else "",
        guild_id=guild if api.SNOWFLAKE.match(guild) else "")


def _reply(text: str) -> JsonResponse:
    """One message only the invoker sees, mentioning no one; no cache keeps it (it may hold a link)."""
    response = JsonResponse({"type": CHANNEL_MESSAGE_WITH_SOURCE,
                             "data": {"content": text, "flags": EPHEMERAL, "allowed_mentions": {"parse": []}}})
    patch_cache_control(response, no_store=True, private=True)
    return response
