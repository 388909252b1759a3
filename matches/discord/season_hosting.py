"""A season run from a Discord channel: `/deathmatch season new` binds a season to the channel it is
typed in, `/deathmatch season add` binds roster players to Discord users, `/deathmatch standings`
and `/deathmatch me` read it.  The season's rows change through the season services
(`ledger.create_season`, `ledger.add_player`); this module writes only its own (`DiscordSeason`,
`DiscordPlayer`) and queues messages (`outbox`).

Who reads which link (as in hosting.py):
- the manage link: only in the ephemeral reply to the host who typed `/deathmatch season new`;
- a personal page link: only in its player's DM (once, when they join the roster) and in their own
  ephemeral `/deathmatch me`;
- the channel hears the season's announcements (`announce`, a listener of `webhooks.announce`,
  which refuses any text holding a secret link) and the standings: spectator pages only.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.urls import reverse

from matches.core.errors import ServiceError
from matches.discord import hosting, outbox
from matches.discord.commands import BadInput, Player
from matches.models import DiscordMessage, DiscordPlayer, DiscordSeason, Match, Season, Seat
from matches.seasons import ledger

#: Discord's embed limits (developers/resources/message.mdx, "Embed Limits")
EMBED_TITLE, EMBED_DESCRIPTION = 256, 4096


def open_season(name: str, invoker: hosting.Invoker, request_base: str) -> str:
    """`/deathmatch season new name:`: the season, bound to the invoker's channel; the ephemeral reply
    with the manage link.  A second delivery of the same interaction opens nothing."""
    if not invoker.channel_id or not invoker.guild_id:
        raise BadInput("Open a season in a server's channel: its announcements go there.")
    if DiscordSeason.objects.filter(interaction_id=invoker.interaction_id).exists():
        return hosting.ANSWERED
    base = hosting.base_url(request_base)
    with transaction.atomic():
        season = ledger.create_season(str(name or ""), base_url=base)
        DiscordSeason.objects.create(season=season, interaction_id=invoker.interaction_id,
                                     host_user=invoker.user_id, channel_id=invoker.channel_id,
                                     guild_id=invoker.guild_id, base_url=base[:200])
        page = f"{base}{reverse('season_page', kwargs={'slug': season.slug})}"
        announce(season, f"**{season.name}** opens in this channel, hosted by {invoker.name}. "
                         f"Standings: {page} (or /deathmatch standings).")
    return (f"Season {season.name} is open; its announcements come to this channel. Your manage link, "
            f"for you alone: {hosting.link(base, 'season_manage', season.manage_token)}\n"
            "Add players with /deathmatch season add: each gets their personal page by DM.")


def channel_season(channel_id: str) -> DiscordSeason:
    """The season bound to this channel (the newest, when several were opened in it)."""
    record = (DiscordSeason.objects.filter(channel_id=channel_id).select_related("season")
              .order_by("-created", "-id").first()) if channel_id else None
    if record is None:
        raise BadInput("No season is bound to this channel: open one with /deathmatch season new.")
    return record


def add_players(players: list[Player], invoker: hosting.Invoker) -> str:
    """`/deathmatch season add`: each person on the roster of the channel's season (their display
    name as the roster name), bound to their Discord id, their personal link queued by DM once.
    All or nothing: a name taken by someone else changes nothing."""
    record = channel_season(invoker.channel_id)
    if record.host_user != invoker.user_id:
        raise BadInput("Only the season's host adds players (the one who opened it here).")
    season = record.season
    added, already = [], []
    with transaction.atomic():
        for person in players:
            bound = DiscordPlayer.objects.filter(season=season, user_id=person.user_id).select_related("player").first()
            if bound is not None and not bound.player.removed:
                already.append(bound.player.name)
                continue
            try:
                player = ledger.add_player(season, person.name)
            except ServiceError as error:
                raise BadInput(f"{person.name}: {error}; nobody was added.") from None
            if bound is None:
                DiscordPlayer.objects.create(player=player, season=season, user_id=person.user_id)
            else:
                bound.player = player
                bound.save(update_fields=["player"])
            outbox.dm_message_for_season(
                f"season:{season.pk}:player:{player.pk}:personal", season, person.user_id,
                hosting.cut(f"You are on the roster of {season.name} as {player.name}. Your personal page, "
                            f"for you alone (your matches, seat links and the choices waiting for you): "
                            f"{hosting.link(record.base_url, 'personal_page', player.personal_token)}"))
            added.append(player.name)
    parts = []
    if added:
        parts.append(f"Added to {season.name}: {', '.join(added)}. Each gets their personal page by DM.")
    if already:
        parts.append(f"Already on the roster: {', '.join(already)}.")
    return " ".join(parts)


def announce(season: Season, text: str) -> None:
    """A listener of `webhooks.announce`: the announcement (already checked for secret links) posted
    by the bot in the season's channel, after commit."""
    record = DiscordSeason.objects.filter(season=season).first()
    if record is None:
        return
    outbox.channel(f"season:{season.pk}:post:{uuid.uuid4().hex}", season, record.channel_id, hosting.cut(text))


def standings_message(channel_id: str) -> dict[str, Any]:
    """`/deathmatch standings`: an embed for everyone in the channel (garnets, tokens, status; the
    season's public page only)."""
    record = channel_season(channel_id)
    season = record.season
    rows = ledger.standings(season)
    lines = [f"{n}. **{_plain(r['name'])}**: {r['garnets']} garnet{'s' * (r['garnets'] != 1)}, "
             f"{r['tokens']} token{'s' * (r['tokens'] != 1)} of life, {r['status_label']}"
             for n, r in enumerate(rows, start=1)] or ["Nobody is on the roster yet."]
    description = ""
    for shown, line in enumerate(lines):
        if len(description) + len(line) + 40 > EMBED_DESCRIPTION:
            description += f"\n…and {len(lines) - shown} more."
            break
        description += ("\n" if description else "") + line
    page = f"{record.base_url}{reverse('season_page', kwargs={'slug': season.slug})}"
    return {"content": f"Standings of {season.name[:100]}", "allowed_mentions": {"parse": []},
            "embeds": [{"title": f"{season.name} — standings"[:EMBED_TITLE], "description": description,
                        "url": page}]}


def me_reply(user_id: str) -> str:
    """`/deathmatch me`: the invoker's personal pages, running season matches and their seat links."""
    bound = list(DiscordPlayer.objects.filter(user_id=user_id, player__removed=False)
                 .select_related("player__season__discord").order_by("-id")[:hosting.LISTED])
    if not bound:
        return hosting.links_reply(user_id)
    lines = []
    for mine in bound:
        player, season = mine.player, mine.player.season
        base = season.discord.base_url if hasattr(season, "discord") else ledger.public_url(season, "")
        lines.append(f"{season.name}, as {player.name}: your personal page "
                     f"{hosting.link(base, 'personal_page', player.personal_token)}")
        seats = Seat.objects.filter(season_player=player, match__status__in=(Match.SETUP, Match.RUNNING))
        for seat in seats.select_related("match").order_by("-match__created")[:hosting.LISTED]:
            lines.append(f"  match {seat.match_id} ({seat.match.status}), seat {seat.number}: "
                         f"{hosting.link(base, 'player_page', seat.token)}")
    text = "Your season links (for you alone):"
    for shown, line in enumerate(lines):
        if len(text) + len(line) + 80 > hosting.MAX_CONTENT:
            return f"{text}\n…and {len(lines) - shown} more lines: open your personal page for all of them."
        text += "\n" + line
    return text


def season_for_match(name: str, invoker: hosting.Invoker, players: list[Player]) -> tuple[Season, list[int]]:
    """`/deathmatch new season:`: the season by name (the invoker must be its host) and the roster
    players of the named users, in seat order; BadInput if one is not on its roster."""
    record = DiscordSeason.objects.filter(season__name__iexact=name).select_related("season").first()
    if record is None:
        raise BadInput(f"There is no season called {name[:60]!r} opened from Discord.")
    if record.host_user != invoker.user_id:
        raise BadInput(f"Only the host of {record.season.name} puts matches in it.")
    bound = {b.user_id: b.player for b in DiscordPlayer.objects.filter(season=record.season, player__removed=False)
             .select_related("player")}
    missing = [p.name for p in players if p.user_id not in bound]
    if missing:
        raise BadInput(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not on the roster of "
                       f"{record.season.name}: add them with /deathmatch season add first.")
    return record.season, [bound[p.user_id].pk for p in players]


def dm_closed(message: DiscordMessage) -> None:
    """A roster player's DM was refused (their DMs are closed to the bot): the season's channel is
    told, without the link, that they can ask for it with /deathmatch me."""
    if message.season_id is None or message.kind != DiscordMessage.DM:
        return
    bound = DiscordPlayer.objects.filter(season_id=message.season_id, user_id=message.recipient).select_related(
        "player", "season__discord").first()
    if bound is None or not hasattr(bound.season, "discord"):
        return
    outbox.channel(f"{message.key}:closed", bound.season, bound.season.discord.channel_id,
                   hosting.cut(f"I could not DM {bound.player.name} (their DMs are closed to me): host, "
                               f"{bound.player.name} can type /deathmatch me here for their links."))


def _plain(text: str) -> str:
    """A roster name shown as typed in Discord's markdown (no bold, links or mentions from it)."""
    return "".join(f"\\{ch}" if ch in "\\*_~`|>[]()#@<:" else ch for ch in text)
