"""The bans in Discord: each bound player of a duel gets a DM with the open death matches as buttons
and Ban / Agree; the death match's seat links by DM once the game is settled; the advantage holder
a button per seat to choose who starts.

Buttons carry what they do in their `custom_id` (Discord returns it on a press; at most 100
characters, components/reference.mdx): `dmg:<duel>:<game>` selects a game (the presser's message
only: nothing is stored), `dmb:<duel>:<game>` bans it, `dma:<duel>:<game>` agrees to it,
`dms:<duel>:<seat>` chooses who starts.  Every press is checked against the duel as it stands
(`duel_state`): only the player whose turn it is may press (anyone else gets an ephemeral sentence
and nothing changes), and the change goes through `death_matches.step` / `choose_starter`, the
services the personal page calls.  The presser's message is updated in place (type 7); the other
player's is edited through the REST API by the sender (`DiscordMessage.EDIT`, targeting the DM's
key).  Layout: at most 4 rows of 5 game buttons (20 games) and a row with Ban and Agree (Discord's
5 action rows of 5 buttons; labels at most 80 characters).
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from matches.core.errors import ServiceError
from matches.discord import hosting, outbox
from matches.models import DiscordMessage, DiscordPlayer, DiscordSeason, Duel, Season
from matches.play import death_matches
from matches.seasons.episode_state import AGREE, BAN, current, duel_state, game_name

PRESS = re.compile(r"^dm([gbas]):([1-9][0-9]{0,17}):([a-z0-9-]{0,40})$")
MAX_GAMES, PER_ROW, MAX_LABEL = 20, 5, 80
SECONDARY, PRIMARY, SUCCESS, DANGER = 2, 1, 3, 4


def key_of(duel: Duel, player_id: int) -> str:
    return f"bans:{duel.pk}:{player_id}"


def queue_duels() -> int:
    """Each round of the sender: the bans DMs of every open duel of a Discord season, the seat links
    and the starter's buttons of every settled one (each once: its key)."""
    queued = 0
    for record in DiscordSeason.objects.select_related("season"):
        episode = current(record.season)
        if episode is None:
            continue
        for duel in episode.duels.select_related("candidate", "opponent", "death_match", "episode__season"):
            queued += _queue_for(record.season, duel)
    return queued


def _queue_for(season: Season, duel: Duel) -> int:
    bound = {b.player_id: b.user_id for b in DiscordPlayer.objects.filter(player__in=[duel.candidate, duel.opponent])}
    queued = 0
    if not duel.game_slug and len(duel.pool) > 1:
        for player_id, user in bound.items():
            key = key_of(duel, player_id)
            if not DiscordMessage.objects.filter(key=key).exists():
                content, components = view(duel, player_id)
                queued += outbox.dm_with(key, season, user, content, components)
        return queued
    match = duel.death_match
    if match is None:
        return 0
    for seat in match.seats.filter(season_player_id__in=list(bound)).order_by("number"):
        assert seat.season_player_id is not None
        base = _base(season)
        queued += outbox.dm_with(
            f"duel:{duel.pk}:seat:{seat.number}", season, bound[seat.season_player_id],
            hosting.cut(f"{season.name}: your death match, {game_name(match.game_slug)}, against "
                        f"{(duel.opponent if seat.season_player_id == duel.candidate_id else duel.candidate).name}. "
                        f"Your seat link, for you alone: {hosting.link(base, 'player_page', seat.token)}"), [])
    holder = duel_state(duel).advantage
    if holder.pk in bound and duel.starter_id is None and match.status == match.SETUP:
        key = f"duel:{duel.pk}:starter"
        if not DiscordMessage.objects.filter(key=key).exists():
            seats = list(match.seats.order_by("number"))
            buttons = [{"type": 2, "style": PRIMARY, "custom_id": f"dms:{duel.pk}:{s.number}",
                        "label": f"{s.name} starts"[:MAX_LABEL]} for s in seats]
            queued += outbox.dm_with(key, season, bound[holder.pk],
                                     hosting.cut(f"{season.name}: you hold the death match advantage. "
                                                 "Choose who starts the death match."),
                                     [{"type": 1, "components": buttons}])
    return queued


def view(duel: Duel, player_id: int, selected: str = "") -> tuple[str, list[dict[str, Any]]]:
    """What `player_id`'s bans message shows: the open games, whose turn, a proposal; the buttons."""
    state = duel_state(duel)
    head = (f"{duel.episode.season.name}, episode {duel.episode.number}: the death match of "
            f"{duel.candidate.name} and {duel.opponent.name}.")
    if duel.game_slug:
        return hosting.cut(f"{head} It is {game_name(duel.game_slug)}: your seat link follows by DM."), []
    lines = [head, "Open: " + ", ".join(game_name(g) for g in state.open) + "."]
    names = {duel.candidate_id: duel.candidate.name, duel.opponent_id: duel.opponent.name}
    for pk, game in state.proposals.items():
        lines.append(f"{names.get(pk, '?')} proposes {game_name(game)}.")
    if state.turn is None:
        return hosting.cut(" ".join(lines)), []
    mine = state.turn.pk == player_id
    lines.append("Your turn: press a game, then Ban or Agree." if mine else f"Waiting for {state.turn.name}.")
    if selected:
        lines.append(f"Selected: {game_name(selected)}.")
    games = [{"type": 2, "style": PRIMARY if g == selected else SECONDARY, "custom_id": f"dmg:{duel.pk}:{g}",
              "label": game_name(g)[:MAX_LABEL]} for g in state.open[:MAX_GAMES]]
    rows = [{"type": 1, "components": games[i:i + PER_ROW]} for i in range(0, len(games), PER_ROW)]
    rows.append({"type": 1, "components": [
        {"type": 2, "style": DANGER, "custom_id": f"dmb:{duel.pk}:{selected}", "label": "Ban",
         "disabled": not selected},
        {"type": 2, "style": SUCCESS, "custom_id": f"dma:{duel.pk}:{selected}", "label": "Agree",
         "disabled": not selected}]})
    return hosting.cut(" ".join(lines)), rows


def component(interaction: dict[str, Any], user: str, custom_id: str) -> dict[str, Any] | None:
    """The response to a press of a bans or starter button (None: not one of these)."""
    found = PRESS.match(custom_id)
    if found is None:
        return None
    what, duel_id, arg = found.group(1), int(found.group(2)), found.group(3)
    duel = Duel.objects.filter(pk=duel_id).select_related("candidate", "opponent", "episode__season",
                                                          "death_match").first()
    bound = DiscordPlayer.objects.filter(user_id=user, player__in=[duel.candidate_id, duel.opponent_id]).first() \
        if duel is not None else None
    if duel is None or bound is None:
        return refusal("This is not your death match.")
    season, player_id = duel.episode.season, bound.player_id
    if what == "s":
        return _starter(interaction, season, duel, player_id, arg)
    state = duel_state(duel)
    if duel.game_slug or state.turn is None:
        content, rows = view(duel, player_id)
        return _update(content, rows)
    if state.turn.pk != player_id:
        return refusal(f"It is not your turn: waiting for {state.turn.name}.")
    if arg not in state.open:
        return refusal("Press one of the open death matches first.")
    if what == "g":
        content, rows = view(duel, player_id, selected=arg)
        return _update(content, rows)
    try:
        with transaction.atomic():
            changed = death_matches.step(season, duel, player_id, BAN if what == "b" else AGREE, arg,
                                         key=f"discord-{interaction.get('id')}")
            other = changed.opponent_id if player_id == changed.candidate_id else changed.candidate_id
            target = key_of(changed, other)
            if DiscordMessage.objects.filter(key=target).exists():
                content, rows = view(changed, other)
                outbox.edit(f"{target}:edit:{len(changed.steps)}", season, target, content, rows)
    except ServiceError as error:
        return refusal(f"{str(error)[:1800].rstrip('.')}.")
    content, rows = view(changed, player_id)
    return _update(content, rows) if rows or changed.game_slug else updated(content)


def _starter(interaction: dict[str, Any], season: Season, duel: Duel, player_id: int, seat: str) -> dict[str, Any]:
    match = duel.death_match
    if match is None or not seat.isdigit():
        return refusal("The death match is not created yet.")
    if duel.starter_id is not None:
        return updated(f"{duel.starter.name if duel.starter else 'Someone'} starts the death match (chosen already).")
    chosen = match.seats.filter(number=int(seat)).first()
    if chosen is None:
        return refusal("Choose one of the two seats.")
    try:
        death_matches.choose_starter(season, duel, player_id, chosen.name, key=f"discord-{interaction.get('id')}")
    except ServiceError as error:
        return refusal(f"{str(error)[:1800].rstrip('.')}.")
    return updated(f"{chosen.name} starts the death match.")


def updated(text: str) -> dict[str, Any]:
    return _update(text, [])


def refusal(text: str) -> dict[str, Any]:
    """An ephemeral sentence to the presser; the message is left as it was."""
    return {"type": 4, "data": {"content": hosting.cut(text), "flags": 64, "allowed_mentions": {"parse": []}}}


def _update(content: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": 7, "data": {"content": hosting.cut(content), "components": rows, "allowed_mentions": {"parse": []}}}


def _base(season: Season) -> str:
    record = DiscordSeason.objects.filter(season=season).first()
    return record.base_url if record is not None else ""

