"""The candidate's pick in Discord: a DM with a select menu of the eligible opponents, and the
message-component interaction that chooses.

- `queue_picks()` (each round of the sender): an episode's candidate whose turn it is to choose, bound
  to a Discord user, gets the DM once (its key is the episode and the candidate).  Discord's select
  menu holds at most 25 options (components/reference.mdx, "String Select"): past 25 eligible players
  the DM says to choose the others on the personal page.
- `component(interaction)`: the choice, made through `death_matches.choose_opponent`, the one
  service the personal page also calls, so the web page and Discord make one choice: whichever comes
  first; the other is told it was made already (the season row lock orders them).  The message is
  updated in place (callback type 7, UPDATE_MESSAGE, which Discord allows for a component) to show
  the choice without the menu; a refusal that changes nothing (not the candidate's menu, not their
  turn) is an ephemeral sentence (type 4) and the menu stays.  The opponent (if bound) and the
  season's host are told by DM.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from matches.core.errors import ServiceError
from matches.discord import api, bans, hosting, outbox
from matches.models import DiscordMessage, DiscordPlayer, DiscordSeason, Duel, Episode, SeasonPlayer
from matches.play import death_matches
from matches.seasons.episode_state import complete, current, eligible, queue

#: Discord's limits (components/reference.mdx): a select menu's options, an option's label and value
MAX_OPTIONS, MAX_LABEL = 25, 100
#: the select menu's custom_id: "pick:<episode id>:<candidate id>" (well under Discord's 100 characters)
PICK = re.compile(r"^pick:([1-9][0-9]{0,17}):([1-9][0-9]{0,17})$")
UPDATE_MESSAGE = 7


def queue_picks() -> int:
    """DM each bound candidate whose turn to choose has come (once per episode and candidate)."""
    queued = 0
    for record in DiscordSeason.objects.select_related("season"):
        episode = current(record.season)
        if episode is None or complete(episode):
            continue
        turn = queue(episode).turn
        if turn is None:
            continue
        bound = DiscordPlayer.objects.filter(player=turn).first()
        key = f"pick:{episode.pk}:{turn.pk}"
        if bound is None or DiscordMessage.objects.filter(key=key).exists():
            continue
        queued += outbox.dm_with(key, record.season, bound.user_id, pick_text(episode, turn),
                                 pick_menu(episode, turn))
    return queued


def pick_text(episode: Episode, candidate: SeasonPlayer) -> str:
    others = eligible(episode, candidate)
    text = (f"{episode.season.name}, episode {episode.number}: you are an Elimination Candidate. "
            "Choose your death match opponent from the menu.")
    if len(others) > MAX_OPTIONS:
        text += f" ({len(others) - MAX_OPTIONS} more are eligible: choose them on your personal page.)"
    return hosting.cut(text)


def pick_menu(episode: Episode, candidate: SeasonPlayer) -> list[dict[str, Any]]:
    options = [{"label": p.name[:MAX_LABEL], "value": str(p.pk)} for p in eligible(episode, candidate)][:MAX_OPTIONS]
    if not options:
        return []
    return [{"type": 1, "components": [{"type": 3, "custom_id": f"pick:{episode.pk}:{candidate.pk}",
                                         "placeholder": "Your death match opponent", "options": options,
                                         "min_values": 1, "max_values": 1}]}]


def component(interaction: dict[str, Any]) -> dict[str, Any]:
    """The interaction response to a pressed component (a dict for the endpoint to send)."""
    data: dict[str, Any] = interaction["data"] if isinstance(interaction.get("data"), dict) else {}
    user = _user(interaction)
    custom_id = str(data.get("custom_id", ""))
    if user is not None and (pressed := bans.component(interaction, user, custom_id)) is not None:
        return pressed
    found = PICK.match(custom_id)
    if found is None or user is None:
        return refusal("This menu is not one I know any more; open your personal page.")
    episode_id, candidate_id = int(found.group(1)), int(found.group(2))
    bound = DiscordPlayer.objects.filter(player_id=candidate_id, player__removed=False).select_related(
        "player__season").first()
    if bound is None or bound.user_id != user:
        return refusal("This choice is not yours to make.")
    season, candidate = bound.player.season, bound.player
    values: list[Any] = data["values"] if isinstance(data.get("values"), list) else []
    choice = str(values[0]) if len(values) == 1 else ""
    opponent = SeasonPlayer.objects.filter(pk=int(choice), season=season).first() if choice.isdigit() and \
        len(choice) < 19 else None
    if opponent is None:
        return refusal("Choose one player from the menu.")
    already = Duel.objects.filter(episode_id=episode_id, candidate=candidate).select_related("opponent").first()
    if already is not None:  # made already (on the web page, or a press before): the message shows it
        return updated(f"You have chosen {already.opponent.name} already (the host can change it).")
    try:
        with transaction.atomic():
            duel = death_matches.choose_opponent(season, candidate, opponent.name,
                                                 key=f"discord-{interaction.get('id')}")
            _tell(duel)
    except ServiceError as error:
        raced = Duel.objects.filter(episode_id=episode_id, candidate=candidate).select_related("opponent").first()
        if raced is not None:  # the web page's choice came first
            return updated(f"You have chosen {raced.opponent.name} already (the host can change it).")
        return refusal(f"{str(error)[:1800].rstrip('.')}.")
    return updated(f"You chose {duel.opponent.name} as your death match opponent. "
                   "The bans come next: I will DM you the open death matches.")


def _tell(duel: Duel) -> None:
    """The opponent (if bound) and the season's host, by DM, in the choice's transaction."""
    season = duel.episode.season
    text = (f"{season.name}, episode {duel.episode.number}: {duel.candidate.name} chose "
            f"{duel.opponent.name} as their death match opponent.")
    opponent = DiscordPlayer.objects.filter(player=duel.opponent).first()
    if opponent is not None:
        outbox.dm_with(f"duel:{duel.pk}:picked:opponent", season, opponent.user_id, text, [])
    record = DiscordSeason.objects.filter(season=season).first()
    if record is not None:
        outbox.dm_with(f"duel:{duel.pk}:picked:host", season, record.host_user, text, [])


def _user(interaction: dict[str, Any]) -> str | None:
    member = interaction.get("member") if isinstance(interaction.get("member"), dict) else None
    user = member.get("user") if member else interaction.get("user")
    if isinstance(user, dict) and isinstance(user.get("id"), str) and api.SNOWFLAKE.match(user["id"]):
        return str(user["id"])
    return None


def updated(text: str) -> dict[str, Any]:
    """The pressed message, updated in place: the text, and no menu left to choose from."""
    return {"type": UPDATE_MESSAGE, "data": {"content": hosting.cut(text), "components": [],
                                             "allowed_mentions": {"parse": []}}}


refusal = bans.refusal
