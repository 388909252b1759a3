"""POST /discord/interactions/: Discord's interactions endpoint.

Order of checks, cheapest first, nothing changed before the last one passes:
1. the app is a Discord application (settings), else 404;
2. the body is at most `MAX_BODY` bytes, else 413 (before the body is read when its length is sent);
3. the Ed25519 signature over X-Signature-Timestamp + the raw body, with a recent timestamp
   (`signature.valid`), else 401.  Always 401, however many bad signatures an address sends: Discord
   sends some on purpose when it checks the endpoint, and removes an endpoint that answers them
   anything else.  Checking costs microseconds; the request rate is the proxy's to bound;
4. the JSON is an interaction object (`_read`), else 400: not JSON, nested past what the parser
   takes, a list, a string, no `type` or one of the wrong kind, ids that are not Discord's;
5. each interaction type gets a callback type Discord allows for it (`CALLBACKS`; Discord's
   "Interaction Callback Type" table): PING gets PONG; a DM's menu or button (`choices.component`)
   its message updated in place (type 7) or an ephemeral refusal (4); an application command one ephemeral message
   (type 4) within Discord's 3 seconds: creating a match is a few inserts, and every message to
   others is queued for the sender (`outbox`), never sent here; autocomplete its (empty) choices
   (type 8); a form (modal submit) one ephemeral sentence (type 4).

A command's interaction id is claimed in the database before it is answered (`hosting.first_answer`):
its signed body may be posted again within the signature's five minutes, by Discord or by anyone who
captured it, in any web process, and that answer carries no link.

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
from matches.discord import api, choices, commands, hosting, season_hosting, signature
from matches.discord.commands import BadInput

log = logging.getLogger(__name__)

MAX_BODY = 128 * 1024
#: Discord's interaction types
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, APPLICATION_COMMAND_AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
#: Discord's interaction callback types (the ones this endpoint answers with)
PONG, CHANNEL_MESSAGE_WITH_SOURCE, APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 1, 4, 8
#: the callback type each interaction type is answered with: one Discord allows for it
CALLBACKS = {PING: PONG, APPLICATION_COMMAND: CHANNEL_MESSAGE_WITH_SOURCE,
             MESSAGE_COMPONENT: CHANNEL_MESSAGE_WITH_SOURCE,
             APPLICATION_COMMAND_AUTOCOMPLETE: APPLICATION_COMMAND_AUTOCOMPLETE_RESULT,
             MODAL_SUBMIT: CHANNEL_MESSAGE_WITH_SOURCE}
EPHEMERAL = 64


@csrf_exempt
def interactions(request: HttpRequest) -> HttpResponse:
    if not api.configured():
        raise Http404("this server is not a Discord application")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    length = request.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > MAX_BODY:  # refused before it is read
        return _text("too large", 413)
    body = request.body
    if len(body) > MAX_BODY:  # (sent without a length: the server has read it already)
        return _text("too large", 413)
    if not signature.valid(api.public_key(), request.headers.get("X-Signature-Ed25519", ""),
                           request.headers.get("X-Signature-Timestamp", ""), body):
        return _text("invalid request signature", 401)
    interaction, problem = _read(body)
    if interaction is None:
        return _text(problem, 400)
    kind = interaction["type"]
    if kind == PING:
        return JsonResponse({"type": PONG})
    if kind == APPLICATION_COMMAND_AUTOCOMPLETE:
        # no option of /deathmatch autocompletes (its games are a list of choices): nothing to offer
        return JsonResponse({"type": APPLICATION_COMMAND_AUTOCOMPLETE_RESULT, "data": {"choices": []}})
    if kind not in (APPLICATION_COMMAND, MESSAGE_COMPONENT):
        return _reply("I only answer /deathmatch commands.")
    invoker = _invoker(interaction)
    if invoker is None:
        return _text("not an interaction: no user, id or token of Discord's form", 400)
    if not hosting.first_answer(invoker.interaction_id):
        return _reply(hosting.ANSWERED)
    if kind == MESSAGE_COMPONENT:  # a menu or a button of a DM: type 7 (the message updated) or 4
        return _answer(choices.component(interaction))
    answer = _command(request, interaction, invoker)
    return _reply(answer) if isinstance(answer, str) else _public(answer)


def _read(body: bytes) -> tuple[dict[str, Any] | None, str]:
    """The body as an interaction object, or None and why not (Discord's Interaction Structure:
    `type` an integer, `data` an object, `member`/`user` objects, ids strings)."""
    try:
        interaction = json.loads(body)
    except RecursionError:  # nested deeper than the parser goes: no interaction is
        return None, "not an interaction: nested too deeply"
    except ValueError:
        return None, "not JSON"
    if not isinstance(interaction, dict):
        return None, "not an interaction: not a JSON object"
    kind = interaction.get("type")
    if not isinstance(kind, int) or isinstance(kind, bool):
        return None, "not an interaction: no type"
    if kind not in CALLBACKS:
        return None, f"an interaction of a type this app does not answer ({kind})"
    for name in ("id", "application_id", "token", "guild_id", "channel_id"):
        if name in interaction and not isinstance(interaction[name], str | None):
            return None, f"not an interaction: {name} is not a string"
    for name in ("data", "member", "user"):
        if name in interaction and not isinstance(interaction[name], dict | None):
            return None, f"not an interaction: {name} is not an object"
    if kind != PING and not isinstance(interaction.get("data"), dict):
        return None, "not an interaction: no data"
    return interaction, ""


def _command(request: HttpRequest, interaction: dict[str, Any], invoker: hosting.Invoker) -> str | dict[str, Any]:
    """The ephemeral reply's text, or a message for the whole channel (`/deathmatch standings`)."""
    data = interaction["data"]
    try:
        name, values = commands.subcommand(data)
        resolved = _dict(data.get("resolved"))
        if name == "links":
            return hosting.links_reply(invoker.user_id)
        if name == "me":
            return season_hosting.me_reply(invoker.user_id)
        if name == "standings":
            return season_hosting.standings_message(invoker.channel_id)
        if name == "season add":
            return season_hosting.add_players(commands.read_users(values, resolved), invoker)
        if name not in ("new", "season new"):
            raise BadInput(commands.USAGE)
        # the one budget of new matches and seasons, counted per Discord user (every post comes from
        # Discord's addresses)
        wait = ratelimits.over(request, "matches", key=lambda group, req: f"discord:{invoker.user_id}")
        if wait is not None:
            raise BadInput(f"You have hosted too many matches in a minute; try again in {wait} s.")
        if name == "season new":
            return season_hosting.open_season(str(values.get("name") or ""), invoker, request.build_absolute_uri("/"))
        new = commands.read_new(values, resolved)
        if new.season:
            season, roster = season_hosting.season_for_match(new.season, invoker, new.players)
            return hosting.create(new, invoker, request.build_absolute_uri("/"), season=season, roster=roster)
        return hosting.create(new, invoker, request.build_absolute_uri("/"))
    except (BadInput, ServiceError, RuleError) as error:
        return str(error)[:1900]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _invoker(interaction: dict[str, Any]) -> hosting.Invoker | None:
    member = interaction.get("member") if isinstance(interaction.get("member"), dict) else None
    user = (member or {}).get("user") if member else interaction.get("user")
    if not isinstance(user, dict) or not isinstance(user.get("id"), str) or not api.SNOWFLAKE.match(user["id"]):
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


def _answer(body: dict[str, Any]) -> JsonResponse:
    response = JsonResponse(body)
    patch_cache_control(response, no_store=True, private=True)
    return response


def _public(data: dict[str, Any]) -> JsonResponse:
    """A message everyone in the channel reads (it holds no secret link), mentioning no one."""
    return JsonResponse({"type": CHANNEL_MESSAGE_WITH_SOURCE, "data": {**data, "allowed_mentions": {"parse": []}}})


def _text(text: str, status: int) -> HttpResponse:
    return HttpResponse(text, status=status, content_type="text/plain")
