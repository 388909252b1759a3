"""The slash commands: their definition (registered by `manage.py discord_commands`) and the reading
of an invocation into what to create.  Nothing here touches the database or the network.

    /deathmatch new game:<a registered game> player1:@a player2:@b [player3 … playerN]
                    [bouts:<1-formats.MAX_BOUTS>] [clock:off|<minutes per move>] [pings:true|false]
    /deathmatch links
    /deathmatch season new name:<the season's name>        (in the channel its announcements go to)
    /deathmatch season add player1:@a [player2 … player16]  (the roster of this channel's season)
    /deathmatch standings
    /deathmatch me

The game choices come from the registry (`games.registry.slugs`), never from a list kept here; so
does the number of player options (the most seats a game has).  Bouts and the clock are bounded as
the host's form bounds them (`matches.core.formats`: MAX_BOUTS, MIN_SECONDS, MAX_SECONDS).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from games.core import RuleError
from games.registry import get_game, slugs
from matches.core import formats

NAME = "deathmatch"
#: minutes per move the clock option accepts, from the shortest allowance the form takes to a week
MIN_MINUTES = formats.MIN_SECONDS["per_move"] / 60
MAX_MINUTES = formats.MAX_SECONDS / 60
PLAYER_OPTION = re.compile(r"^player([1-9][0-9]{0,2})$")
#: Discord's option types (application command option types)
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER = 1, 2, 3, 4, 5, 6
#: Discord's limits: choices per option, length of a choice's name
MAX_CHOICES, MAX_CHOICE_NAME = 25, 100
#: user options of `/deathmatch season add` (Discord takes 25 options; 16 is the most seats a game has)
ROSTER_OPTIONS = 16
USAGE = "Use /deathmatch new, links, me, standings, season new or season add."


class BadInput(ValueError):
    """The command cannot be done as typed; the message is the one sentence the invoker reads."""


@dataclass(frozen=True)
class Player:
    user_id: str
    name: str


@dataclass(frozen=True)
class NewMatch:
    game_slug: str
    players: list[Player]
    options: dict[str, Any] = field(default_factory=dict)
    bouts: int | None = None
    #: None: the game's default clock; False: no clock; a dict: formats' clock keys
    clock: dict[str, Any] | bool | None = None
    pings: bool = True
    #: the name of the season the match is put in ("" for none)
    season: str = ""


def max_players() -> int:
    """The most seats a registered game has (the host's game's most, by its "seats" option)."""
    most = 2
    for slug in slugs():
        try:
            most = max(most, get_game(slug).seats)
        except Exception:  # a game still being written must not keep the others from Discord
            continue
    return most


def definition() -> dict[str, Any]:
    """The command set as Discord's bulk overwrite takes it (a list of one command with two subcommands)."""
    choices = []
    for slug in slugs():
        try:
            game = get_game(slug)
        except Exception:  # a game still being written must not keep the others from Discord
            continue
        choices.append({"name": game.name[:MAX_CHOICE_NAME], "value": slug})
    players = [
        {"type": USER, "name": f"player{n}", "description": f"Who plays seat {n}", "required": n <= 2}
        for n in range(1, max_players() + 1)
    ]
    new = {
        "type": SUB_COMMAND, "name": "new", "description": "Host a match: every player gets their seat link by DM",
        "options": [
            {"type": STRING, "name": "game", "description": "The game", "required": True,
             "choices": choices[:MAX_CHOICES]},
            *players,
            {"type": INTEGER, "name": "bouts", "description": "How many bouts (the game's usual number if left out)",
             "min_value": 1, "max_value": formats.MAX_BOUTS},
            {"type": STRING, "name": "clock", "description": "off, or minutes per move (the game's clock if left out)",
             "max_length": 20},
            {"type": BOOLEAN, "name": "pings",
             "description": "DM a player who is away when it is their turn (on if left out)"},
            {"type": STRING, "name": "season", "max_length": 120,
             "description": "Put the match in this season (its players must be on the roster)"},
        ],
    }
    links = {"type": SUB_COMMAND, "name": "links",
             "description": "Your seat and host links of your matches that are not over (only you see them)"}
    season_new = {"type": SUB_COMMAND, "name": "new", "description": "Open a season announced in this channel",
                  "options": [{"type": STRING, "name": "name", "description": "The season's name", "required": True,
                               "max_length": 120}]}
    season_add = {"type": SUB_COMMAND, "name": "add",
                  "description": "Add players to this channel's season: each gets their personal page by DM",
                  "options": [{"type": USER, "name": f"player{n}", "description": f"Player {n} to add",
                               "required": n == 1} for n in range(1, ROSTER_OPTIONS + 1)]}
    season = {"type": SUB_COMMAND_GROUP, "name": "season", "description": "A season in this channel",
              "options": [season_new, season_add]}
    standings = {"type": SUB_COMMAND, "name": "standings",
                 "description": "Post this channel's season standings in the channel"}
    me = {"type": SUB_COMMAND, "name": "me",
          "description": "Your personal page, running matches and seat links (only you see them)"}
    return {"name": NAME, "type": 1, "description": "Host and play Deathmatch matches",
            "options": [new, links, season, standings, me], "contexts": [0, 1], "integration_types": [0]}


def subcommand(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The subcommand's name and its options by name, from an interaction's `data`."""
    if data.get("name") != NAME:
        raise BadInput("I do not know that command; ask the server's admin to register the commands again.")
    for option in _list(data.get("options")):
        if isinstance(option, dict) and option.get("type") == SUB_COMMAND_GROUP:  # "season new", "season add"
            for sub in _list(option.get("options")):
                if isinstance(sub, dict) and sub.get("type") == SUB_COMMAND:
                    return f"{option.get('name')} {sub.get('name')}", _values(sub)
        if isinstance(option, dict) and option.get("type") == SUB_COMMAND:
            return str(option.get("name")), _values(option)
    raise BadInput(USAGE)


def _values(option: dict[str, Any]) -> dict[str, Any]:
    return {str(o.get("name")): o.get("value") for o in _list(option.get("options")) if isinstance(o, dict)}


def read_users(values: dict[str, Any], resolved: dict[str, Any]) -> list[Player]:
    """The people of `/deathmatch season add`, in option order, each once; BadInput for a bot."""
    users, members = _dict(resolved.get("users")), _dict(resolved.get("members"))
    numbered = {int(m.group(1)): value for name, value in values.items() if (m := PLAYER_OPTION.match(name))}
    players: list[Player] = []
    for n in sorted(numbered):
        user = users.get(str(numbered[n]))
        if not isinstance(user, dict):
            raise BadInput(f"I could not see who player{n} is; try the command again.")
        name = display_name(user, members.get(str(numbered[n])))
        if user.get("bot") or user.get("system"):
            raise BadInput(f"{name} is a bot: every player must be a person.")
        if all(p.user_id != str(numbered[n]) for p in players):
            players.append(Player(str(numbered[n]), name))
    if not players:
        raise BadInput("Name at least one player to add.")
    return players


def read_new(values: dict[str, Any], resolved: dict[str, Any]) -> NewMatch:
    """`/deathmatch new`'s options and the interaction's `data.resolved` -> what to create,
    or BadInput with one sentence.  Seats are named after the players' display names."""
    slug = values.get("game")
    if not isinstance(slug, str) or slug not in slugs():
        raise BadInput(f"There is no game called {str(slug)[:40]!r}; pick one from the list.")
    game = get_game(slug)
    users = _dict(resolved.get("users"))
    members = _dict(resolved.get("members"))
    numbered = {int(m.group(1)): value for name, value in values.items() if (m := PLAYER_OPTION.match(name))}
    chosen = [(n, numbered[n]) for n in sorted(numbered) if numbered[n] is not None]
    if "seats" in game.default_options and len(chosen) > game.seats:  # the host's game: as many as it seats
        raise BadInput(f"{game.name} seats at most {game.seats} players, and you named {len(chosen)}.")
    players: list[Player] = []
    for n, user_id in chosen:
        user = users.get(str(user_id))
        if not isinstance(user, dict):
            raise BadInput(f"I could not see who player{n} is; try the command again.")
        name = display_name(user, members.get(str(user_id)))
        if user.get("bot") or user.get("system"):
            raise BadInput(f"{name} is a bot: every player must be a person (add computer players from the host page).")
        if any(p.user_id == str(user_id) for p in players):
            raise BadInput(f"{name} is named twice: each player takes one seat.")
        players.append(Player(str(user_id), name))
    options: dict[str, Any] = {}
    if "seats" in game.default_options:  # the host's game: as many seats as players given
        options["seats"] = len(players)
    try:
        count = game.seat_count(options)
    except RuleError as error:
        raise BadInput(f"{game.name}: {error}.") from None
    if count != len(players):
        raise BadInput(f"{game.name} is for {count} players, and you named {len(players)}.")
    season = " ".join(str(values.get("season") or "").split())[:120]
    clock = _clock(values.get("clock"), game.sealed)
    if season and clock is not None:
        raise BadInput("A season's match keeps the game's clock: leave clock out, or set it on the host page.")
    return NewMatch(slug, _distinct(players), options, _bouts(values.get("bouts")),
                    clock, values.get("pings") is not False, season)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def display_name(user: dict[str, Any], member: Any) -> str:
    """What Discord shows: the server nickname, else the global display name, else the username."""
    nick = member.get("nick") if isinstance(member, dict) else None
    for candidate in (nick, user.get("global_name"), user.get("username")):
        cleaned = _clean(candidate)
        if cleaned:
            return cleaned
    return f"user {user.get('id')}"


def _clean(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return " ".join("".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf")).split())[:60]


def _distinct(players: list[Player]) -> list[Player]:
    """Pages, the log and results tell seats apart by name: two players who show the same name get
    a number after it."""
    seen: dict[str, int] = {}
    out = []
    for player in players:
        key = player.name.casefold()
        seen[key] = seen.get(key, 0) + 1
        out.append(player if seen[key] == 1 else Player(player.user_id, f"{player.name} ({seen[key]})"))
    return out


def _bouts(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= formats.MAX_BOUTS:
        raise BadInput(f"The number of bouts goes from 1 to {formats.MAX_BOUTS}.")
    return value


def _clock(value: Any, sealed: bool) -> dict[str, Any] | bool | None:
    if value is None or str(value).strip() == "":
        return None
    text = str(value).strip().lower()
    if text in ("off", "none", "no"):
        return False
    try:
        minutes = float(text.removesuffix("min").removesuffix("m").strip())
    except ValueError:
        minutes = math.nan
    key = "round_seconds" if sealed else "per_move"  # a sealed round is everyone's move at once: its own limit
    seconds = round(minutes * 60, 3) if math.isfinite(minutes) else math.nan
    if not formats.MIN_SECONDS[key] <= seconds <= formats.MAX_SECONDS:
        raise BadInput(f"The clock is off or a number of minutes per move from {MIN_MINUTES:.3g} "
                       f"({formats.MIN_SECONDS[key]:g} s) to {MAX_MINUTES:g}, not {text[:20]!r}.")
    return {key: seconds}
