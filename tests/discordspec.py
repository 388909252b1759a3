"""What Discord accepts, as its published API description says, for the tests to check every answer of
our interactions endpoint and every request our sender makes against.

Encoded by hand from discord/discord-api-spec, `specs/openapi.json` (API v10; the components named
beside each rule), and from Discord's developer documentation (discord/discord-api-docs,
`developers/interactions/receiving-and-responding.mdx`, "Interaction Callback Type", and
`developers/topics/rate-limits.mdx`).  The spec itself is not kept here: only the parts the bot uses.
Each check returns the list of what is wrong (empty: Discord takes it).
"""

from __future__ import annotations

import re
from typing import Any

#: Interaction Type -> the Interaction Callback Types Discord takes for it (receiving-and-responding.mdx:
#: PONG only for PING; DEFERRED_UPDATE_MESSAGE 6 and UPDATE_MESSAGE 7 "only valid for component-based
#: interactions" (a button, or a form opened from one); APPLICATION_COMMAND_AUTOCOMPLETE_RESULT 8 for
#: autocomplete alone; MODAL 9 "not available for MODAL_SUBMIT and PING").  Components
#: InteractionTypes / InteractionCallbackTypes.
CALLBACKS: dict[int, set[int]] = {
    1: {1},                 # PING
    2: {4, 5, 9},           # APPLICATION_COMMAND
    3: {4, 5, 6, 7, 9},     # MESSAGE_COMPONENT
    4: {8},                 # APPLICATION_COMMAND_AUTOCOMPLETE
    5: {4, 5, 6, 7},        # MODAL_SUBMIT
}
#: Message Flags a message callback or a follow-up may set (receiving-and-responding.mdx, "Messages":
#: SUPPRESS_EMBEDS, EPHEMERAL, IS_COMPONENTS_V2, IS_VOICE_MESSAGE, SUPPRESS_NOTIFICATIONS)
CALLBACK_FLAGS = 1 << 2 | 1 << 6 | 1 << 15 | 1 << 13 | 1 << 12
#: ... and a channel message (POST /channels/{id}/messages): the same without EPHEMERAL
MESSAGE_FLAGS = CALLBACK_FLAGS & ~(1 << 6)
#: IncomingWebhookInteractionRequest / IncomingWebhookRequestPartial `content` maxLength (and the
#: documented 2000 characters of a bot's message; MessageCreateRequest's schema says 4000, Discord
#: takes 2000 from a bot without Nitro)
MAX_CONTENT = 2000
SNOWFLAKE = re.compile(r"^(0|[1-9][0-9]*)$")  # SnowflakeType
#: ApplicationCommandUpdateRequest.name (and every option's): 1-32 lowercase letters, digits, - or _
COMMAND_NAME = re.compile(r"^[-_a-z0-9]{1,32}$")
#: User-Agent: "DiscordBot ($url, $versionNumber)" (developers/reference.mdx, "User Agent")
USER_AGENT = re.compile(r"^DiscordBot \(\S+, \S+\)")


def callback(interaction_type: int, status: int, body: Any) -> list[str]:
    """An answer of the interactions endpoint to a signed interaction of `interaction_type`."""
    if status != 200:
        return [f"HTTP {status}: Discord takes only 200 with a callback (or 202 without one)"]
    if not isinstance(body, dict) or not isinstance(body.get("type"), int):
        return [f"not an interaction response: {body!r}"]
    kind = body["type"]
    wrong = [] if kind in CALLBACKS.get(interaction_type, set()) else [
        f"callback type {kind} is not one Discord takes for interaction type {interaction_type}"]
    extra = set(body) - {"type", "data"}
    if extra:
        wrong.append(f"unknown fields {sorted(extra)}")
    data = body.get("data")
    if kind == 1:  # PongInteractionCallbackRequest: type alone
        if "data" in body:
            wrong.append("a PONG has no data")
    elif kind in (4, 5, 7):  # CreateMessage- / UpdateMessageInteractionCallbackRequest
        wrong += message(data, flags=CALLBACK_FLAGS, required=kind == 4)
    elif kind == 8:  # ApplicationCommandAutocompleteCallbackRequest: data.choices, at most 25
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or len(choices) > 25:
            wrong.append(f"autocomplete data must hold up to 25 choices: {data!r}")
        else:
            wrong += [f"bad choice {c!r}" for c in choices if not _choice(c)]
    return wrong


def message(data: Any, *, flags: int, required: bool = True) -> list[str]:
    """IncomingWebhookInteractionRequest / IncomingWebhookRequestPartial / MessageCreateRequest, as we
    fill them: content, flags, allowed_mentions."""
    if data is None and not required:
        return []
    if not isinstance(data, dict):
        return [f"message data must be an object: {data!r}"]
    wrong = []
    extra = set(data) - {"content", "flags", "allowed_mentions", "embeds", "components", "tts"}
    if extra:
        wrong.append(f"unknown message fields {sorted(extra)}")
    content = data.get("content")
    if not isinstance(content, str) or not 1 <= len(content) <= MAX_CONTENT:
        wrong.append(f"content must be 1 to {MAX_CONTENT} characters, not {len(content or '')}")
    got = data.get("flags", 0)
    if not isinstance(got, int) or got & ~flags:
        wrong.append(f"flags {got!r} are not ones this message may set")
    wrong += embeds(data.get("embeds"))
    wrong += components(data.get("components"))
    mentions = data.get("allowed_mentions")
    if mentions is not None:  # MessageAllowedMentionsRequest
        parse = mentions.get("parse") if isinstance(mentions, dict) else None
        if (not isinstance(parse, list) or len(set(parse)) != len(parse)
                or not set(parse) <= {"users", "roles", "everyone"}):
            wrong.append(f"allowed_mentions {mentions!r} is not Discord's shape")
    return wrong


#: Embed Limits (developers/resources/message.mdx): per embed and over all of a message's embeds
EMBED_LIMITS = {"title": 256, "description": 4096}
MAX_EMBEDS, MAX_FIELDS, FIELD_NAME, FIELD_VALUE, EMBEDS_TOTAL = 10, 25, 256, 1024, 6000
#: components/reference.mdx: 5 action rows of up to 5 buttons or one select; custom_id 1-100
#: characters, unique in the message; a button's label up to 80; a string select's 1-25 options
#: (label, value, description up to 100), placeholder up to 150
MAX_ROWS, MAX_BUTTONS, CUSTOM_ID, BUTTON_LABEL, SELECT_OPTIONS, OPTION_TEXT, PLACEHOLDER = 5, 5, 100, 80, 25, 100, 150


def embeds(items: Any) -> list[str]:
    if items is None:
        return []
    if not isinstance(items, list) or len(items) > MAX_EMBEDS:
        return [f"embeds: a list of at most {MAX_EMBEDS}"]
    wrong, total = [], 0
    for embed in items:
        if not isinstance(embed, dict):
            wrong.append("an embed is an object")
            continue
        for name, limit in EMBED_LIMITS.items():
            text = embed.get(name)
            if text is not None and (not isinstance(text, str) or len(text) > limit):
                wrong.append(f"embed {name}: a string of at most {limit} characters")
            total += len(text) if isinstance(text, str) else 0
        fields = embed.get("fields") or []
        if not isinstance(fields, list) or len(fields) > MAX_FIELDS:
            wrong.append(f"embed fields: at most {MAX_FIELDS}")
            continue
        for field_ in fields:
            name, value = field_.get("name"), field_.get("value")
            if not (isinstance(name, str) and 1 <= len(name) <= FIELD_NAME
                    and isinstance(value, str) and 1 <= len(value) <= FIELD_VALUE):
                wrong.append("an embed field: name up to 256 and value up to 1024 characters")
            total += len(str(name)) + len(str(value))
    if total > EMBEDS_TOTAL:
        wrong.append(f"embeds: {total} characters in all, more than {EMBEDS_TOTAL}")
    return wrong


def components(rows: Any) -> list[str]:
    if rows is None:
        return []
    if not isinstance(rows, list) or len(rows) > MAX_ROWS:
        return [f"components: at most {MAX_ROWS} action rows"]
    wrong: list[str] = []
    ids: list[str] = []
    for row in rows:
        inner = row.get("components") if isinstance(row, dict) and row.get("type") == 1 else None
        if not isinstance(inner, list) or not 1 <= len(inner) <= MAX_BUTTONS:
            wrong.append(f"an action row holds 1 to {MAX_BUTTONS} components")
            continue
        kinds = {c.get("type") for c in inner if isinstance(c, dict)}
        if 3 in kinds and len(inner) != 1:
            wrong.append("a select menu is alone in its action row")
        for item in inner:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == 2:  # button
                style, label = item.get("style"), item.get("label")
                if style not in (1, 2, 3, 4, 5, 6):
                    wrong.append(f"button style {style!r}")
                if label is not None and (not isinstance(label, str) or not 1 <= len(label) <= BUTTON_LABEL):
                    wrong.append(f"button label of 1 to {BUTTON_LABEL} characters: {label!r}")
                if style in (1, 2, 3, 4):
                    ids.append(str(item.get("custom_id", "")))
                elif "custom_id" in item:
                    wrong.append("a link or premium button has no custom_id")
            elif kind == 3:  # string select
                ids.append(str(item.get("custom_id", "")))
                options = item.get("options")
                if not isinstance(options, list) or not 1 <= len(options) <= SELECT_OPTIONS:
                    wrong.append(f"a select menu has 1 to {SELECT_OPTIONS} options")
                else:
                    for option in options:
                        for name in ("label", "value"):
                            text = option.get(name) if isinstance(option, dict) else None
                            if not isinstance(text, str) or not 1 <= len(text) <= OPTION_TEXT:
                                wrong.append(f"a select option's {name} has 1 to {OPTION_TEXT} characters")
                placeholder = item.get("placeholder")
                if placeholder is not None and len(str(placeholder)) > PLACEHOLDER:
                    wrong.append(f"a placeholder has at most {PLACEHOLDER} characters")
            else:
                wrong.append(f"component type {kind!r} not one the bot sends")
    for custom_id in ids:
        if not 1 <= len(custom_id) <= CUSTOM_ID:
            wrong.append(f"custom_id of 1 to {CUSTOM_ID} characters: {custom_id!r}")
    if len(set(ids)) != len(ids):
        wrong.append("custom_ids repeat in one message")
    return wrong


def request(route: str, method: str, headers: dict[str, str], body: Any) -> list[str]:
    """A request the bot made to the stand-in, by its route (tests/discordserver.py ROUTES)."""
    if route in ("authorize", "token", "me"):
        return oauth(route, headers, body)
    wrong = []
    if not USER_AGENT.match(headers.get("User-Agent", "")):
        wrong.append(f"User-Agent {headers.get('User-Agent')!r} is not DiscordBot (url, version)")
    if body is not None and not headers.get("Content-Type", "").startswith("application/json"):
        wrong.append("a JSON body needs Content-Type: application/json")
    if route == "open-dm":  # CreatePrivateChannelRequest
        if not (isinstance(body, dict) and set(body) == {"recipient_id"}
                and isinstance(body["recipient_id"], str) and SNOWFLAKE.match(body["recipient_id"])):
            wrong.append(f"a DM channel is opened with {{recipient_id: snowflake}}, not {body!r}")
    elif route in ("send", "edit"):  # MessageCreateRequest / MessageEditRequestPartial
        wrong += message(body, flags=MESSAGE_FLAGS)
    elif route == "followup":  # IncomingWebhookRequestPartial (an interaction's follow-up)
        wrong += message(body, flags=CALLBACK_FLAGS)
        if headers.get("Authorization"):
            wrong.append("a follow-up carries the interaction's token in its path, no bot token")
    elif route == "commands":  # bulk overwrite: an array of ApplicationCommandUpdateRequest
        if not isinstance(body, list) or len(body) > 130:
            wrong.append("the command set is an array of at most 130 commands")
        else:
            for command in body:
                wrong += _command(command)
    if route != "followup" and not headers.get("Authorization", "").startswith("Bot "):
        wrong.append("every other route takes Authorization: Bot <token>")
    return wrong


def oauth(route: str, headers: dict[str, str], body: Any) -> list[str]:
    """OAuth2's authorization code grant as Discord documents it (developers/topics/oauth2.mdx,
    "Authorization Code Grant"; RFC 6749 section 4.1): the authorize page's query, the code's exchange
    and the current user read with its bearer token.  "Sign in with Discord" asks `identify` alone:
    the scope that reads /users/@me without the email."""
    wrong = []
    if route == "authorize":  # the browser's GET: the query is `body` here
        query = body or {}
        if not SNOWFLAKE.match(str(query.get("client_id", ""))):
            wrong.append(f"client_id must be the application's id, not {query.get('client_id')!r}")
        if query.get("response_type") != "code":
            wrong.append("the authorization code grant takes response_type=code")
        if query.get("scope", "").split() != ["identify"]:
            wrong.append(f"sign-in asks the identify scope alone, not {query.get('scope')!r}")
        if not query.get("state"):
            wrong.append("an authorization request carries a state (CSRF: the callback checks it)")
        if not str(query.get("redirect_uri", "")).startswith(("http://", "https://")):
            wrong.append("redirect_uri must be an absolute http(s) URL registered for the application")
        return wrong
    if not USER_AGENT.match(headers.get("User-Agent", "")):
        wrong.append(f"User-Agent {headers.get('User-Agent')!r} is not DiscordBot (url, version)")
    if headers.get("Authorization", "").startswith("Bot "):
        wrong.append("OAuth2 calls never carry the bot token")
    if route == "token":  # Access Token Exchange: form-encoded grant_type, code, redirect_uri
        if not headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            wrong.append("the token exchange is application/x-www-form-urlencoded")
        form = body or {}
        if form.get("grant_type") != "authorization_code" or not form.get("code") or not form.get("redirect_uri"):
            wrong.append(f"a code is exchanged with grant_type=authorization_code, code and redirect_uri: {sorted(form)}")
        if not (headers.get("Authorization", "").startswith("Basic ") or form.get("client_secret")):
            wrong.append("the client authenticates (client_id and client_secret, or HTTP Basic)")
    elif route == "me" and not headers.get("Authorization", "").startswith("Bearer "):
        wrong.append("GET /users/@me with an OAuth2 token takes Authorization: Bearer <token>")
    return wrong


def _choice(choice: Any) -> bool:  # ApplicationCommandOptionStringChoice
    return (isinstance(choice, dict) and isinstance(choice.get("name"), str) and 1 <= len(choice["name"]) <= 100
            and isinstance(choice.get("value"), str | int | float) and len(str(choice["value"])) <= 100)


def _command(command: Any) -> list[str]:
    if not isinstance(command, dict) or not COMMAND_NAME.match(str(command.get("name", ""))):
        return [f"a command needs a name of 1-32 lowercase characters: {command!r}"]
    wrong = _description(command)
    for context in command.get("contexts") or []:
        if context not in (0, 1, 2):  # InteractionContextType
            wrong.append(f"unknown context {context!r}")
    for kind in command.get("integration_types") or []:
        if kind not in (0, 1):  # ApplicationIntegrationType
            wrong.append(f"unknown integration type {kind!r}")
    return wrong + _options(command.get("options") or [], sub=True)


def _options(options: Any, *, sub: bool) -> list[str]:
    """ApplicationCommand*Option: at most 25, names unique, required ones before the others."""
    if not isinstance(options, list) or len(options) > 25:
        return ["at most 25 options"]
    wrong = []
    names = [o.get("name") for o in options if isinstance(o, dict)]
    if len(set(names)) != len(names):
        wrong.append("option names must differ")
    seen_optional = False
    for option in options:
        if not isinstance(option, dict) or not COMMAND_NAME.match(str(option.get("name", ""))):
            wrong.append(f"bad option {option!r}")
            continue
        wrong += _description(option)
        kind = option.get("type")
        if kind == 2:  # ApplicationCommandSubcommandGroupOption: subcommands only, at the top
            if not sub:
                wrong.append("a subcommand group below the top")
            inner = option.get("options") or []
            if not inner or not all(isinstance(o, dict) and o.get("type") == 1 for o in inner):
                wrong.append(f"group {option['name']}: 1 to 25 subcommands")
            wrong += _options(inner, sub=True) if isinstance(inner, list) else []
            continue
        if kind == 1:  # ApplicationCommandSubcommandOption
            if not sub:
                wrong.append("a subcommand in a subcommand")
            wrong += _options(option.get("options") or [], sub=False)
            continue
        if kind not in (3, 4, 5, 6):  # the kinds the bot uses: string, integer, boolean, user
            wrong.append(f"option type {kind!r} unexpected")
        if option.get("required"):
            if seen_optional:
                wrong.append(f"required option {option['name']} after an optional one")
        else:
            seen_optional = True
        choices = option.get("choices")
        if choices is not None and (not isinstance(choices, list) or len(choices) > 25
                                    or not all(_choice(c) for c in choices)):
            wrong.append(f"option {option['name']}: up to 25 choices of 1-100 character names")
        if choices and option.get("autocomplete"):
            wrong.append(f"option {option['name']}: autocomplete and choices exclude each other")
        if "max_length" in option and not 1 <= option["max_length"] <= 6000:
            wrong.append(f"option {option['name']}: max_length from 1 to 6000")
        low, high = option.get("min_value"), option.get("max_value")
        if low is not None and high is not None and low > high:
            wrong.append(f"option {option['name']}: min_value above max_value")
    return wrong


def _description(item: dict[str, Any]) -> list[str]:
    text = item.get("description")
    return [] if isinstance(text, str) and 1 <= len(text) <= 100 else [
        f"{item.get('name')}: a description of 1-100 characters"]
