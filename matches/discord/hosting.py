"""What the commands do to the database: a match created from `/deathmatch new` (with its messages
queued in the same transaction), and the links `/deathmatch links` lists.  The replies are built here
too, so who may read which link is decided in one place:

- the host link: only in the reply to the host (ephemeral) and `/deathmatch links` (ephemeral);
- a seat link: only in its own player's DM, their `/deathmatch links`, and, when their DMs are
  closed, an ephemeral follow-up to the host (who holds every seat link on the dashboard anyway);
- the spectator link: in the channel, for everyone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from games.registry import get_game
from matches.discord import api, outbox, signature
from matches.discord.commands import NewMatch
from matches.models import (
    DiscordInteraction,
    DiscordMatch,
    DiscordMessage,
    DiscordRefusedToken,
    DiscordSeat,
    Match,
    Season,
    Seat,
)
from matches.play import season_matches, services

log = logging.getLogger(__name__)

#: Discord refuses longer messages
MAX_CONTENT = 2000
#: host links, and seat links, read for `/deathmatch links` (more never fit in one message)
LISTED = 25


@dataclass(frozen=True)
class Invoker:
    user_id: str
    name: str
    interaction_id: str
    interaction_token: str
    channel_id: str = ""
    guild_id: str = ""


def link(base_url: str, name: str, token: str) -> str:
    return f"{base_url.rstrip('/')}{reverse(name, kwargs={'token': token})}"


def base_url(request_base: str) -> str:
    return str(getattr(settings, "DEATHMATCH_PUBLIC_URL", "") or request_base).rstrip("/")


#: the answer to an interaction answered before: a signed body posted again (Discord's second
#: delivery, or anyone who captured it within its signature's five minutes) never carries a link
ANSWERED = "I have answered this command already; run it again for a fresh answer."
#: how long an answered interaction's id is kept: its signature's timestamp may be up to MAX_AGE
#: ahead of the first answer, and is accepted up to MAX_AGE after that timestamp
SEEN_FOR = timedelta(seconds=2 * signature.MAX_AGE + 60)


def first_answer(interaction_id: str) -> bool:
    """Claim `interaction_id` for its one answer: False when it was answered already, by any web
    process (the id is unique in the database)."""
    try:
        with transaction.atomic():
            DiscordInteraction.objects.create(interaction_id=interaction_id)
    except IntegrityError:
        return False
    return True


def forget_interactions(now: Any = None) -> int:
    """Delete the answered ids whose signatures can no longer be accepted."""
    old = (now or timezone.now()) - SEEN_FOR
    return DiscordInteraction.objects.filter(answered__lt=old).delete()[0]


def create(new: NewMatch, invoker: Invoker, request_base: str, *, season: Season | None = None,
           roster: list[int] | None = None) -> str:
    """Create the match, remember who plays each seat, queue the DMs and the channel's post; the
    ephemeral reply to the host.  An interaction that made a match already (its id is unique)
    creates nothing and is answered without a link."""
    if DiscordMatch.objects.filter(interaction_id=invoker.interaction_id).exists():
        return ANSWERED
    try:
        with transaction.atomic():
            if season is not None:  # seated with the roster players the users are bound to
                match = season_matches.create_season_match(season, new.game_slug, roster or [], bouts=new.bouts)
            else:
                match = services.create_match(new.game_slug, seat_names=[p.name for p in new.players],
                                              options=new.options, bouts=new.bouts, clock=new.clock)
            record = DiscordMatch.objects.create(
                match=match, interaction_id=invoker.interaction_id, host_user=invoker.user_id,
                host_name=invoker.name[:80], channel_id=invoker.channel_id, guild_id=invoker.guild_id,
                base_url=base_url(request_base)[:200], interaction_token=invoker.interaction_token, pings=new.pings)
            seats = list(match.seats.order_by("number"))
            DiscordSeat.objects.bulk_create(
                [DiscordSeat(seat=seat, user_id=p.user_id) for seat, p in zip(seats, new.players, strict=True)])
            _queue_messages(match, record, seats, new)
    except IntegrityError:
        # the same interaction delivered twice at once: the other delivery created it
        if not DiscordMatch.objects.filter(interaction_id=invoker.interaction_id).exists():
            raise
        return ANSWERED
    log.info("match %s created from Discord interaction %s", match.pk, invoker.interaction_id)
    return host_reply(record)


def host_reply(record: DiscordMatch) -> str:
    match = record.match
    game = get_game(match.game_slug)
    text = (f"Your {game.name} match is ready. Your host link, for you alone: "
            f"{link(record.base_url, 'host_page', match.host_token)}\n"
            "Each player gets their seat link by DM; start the match from your host link when they are there. "
            "Anyone who loses a link types /deathmatch links.")
    if DiscordRefusedToken.of(api.bot_token()) is not None:
        text += f"\n{TOKEN_REFUSED}"
    return text


#: what hosts read while Discord refuses the bot token (the sender sends nothing with it)
TOKEN_REFUSED = ("Discord refuses my bot token, so I send no DMs: give each player their seat link from your "
                 "host link yourself; the server's operator must set a new DISCORD_BOT_TOKEN.")


def _queue_messages(match: Match, record: DiscordMatch, seats: list[Seat], new: NewMatch) -> None:
    game = get_game(match.game_slug)
    names = ", ".join(s.name for s in seats)
    watch = link(record.base_url, "watch_page", match.watch_token)
    messages = [outbox.followup_message(
        f"match:{match.pk}:channel", match, record.interaction_token,
        cut(f"{record.host_name} is hosting {game.name}: {names}. Watch it live: {watch}\n"
             "Players: your seat link is in your DMs (or type /deathmatch links)."), ephemeral=False)]
    for seat, player in zip(seats, new.players, strict=True):
        messages.append(outbox.dm_message(
            f"match:{match.pk}:seat:{seat.number}:link", match, player.user_id,
            cut(f"{record.host_name} seated you in {game.name} as {seat.name} (seat {seat.number}). "
                 f"Your seat link, for you alone: {link(record.base_url, 'player_page', seat.token)}"),
            seat=seat.number))
    outbox.queue_all(messages)  # one insert: the match is new, so none of these keys exists yet


def dm_closed(message: DiscordMessage) -> None:
    """A seat link's DM was refused (the player's DMs are closed): tell the host, ephemerally, with the
    link to send by hand.  Only while the interaction's token is valid (15 minutes): later the
    dashboard's Discord line says it."""
    if message.match_id is None or message.seat is None:
        return
    record = DiscordMatch.objects.filter(match_id=message.match_id).select_related("match").first()
    seat = Seat.objects.filter(match_id=message.match_id, number=message.seat).first()
    if record is None or seat is None or not record.interaction_token:
        return
    outbox.followup(
        f"match:{message.match_id}:seat:{seat.number}:closed", record.match, record.interaction_token,
        cut(f"I could not DM {seat.name} (their DMs are closed to me). Send them their seat link yourself: "
             f"{link(record.base_url, 'player_page', seat.token)} — or they can type /deathmatch links."),
        ephemeral=True)


def links_reply(user_id: str) -> str:
    """The invoker's links of every match that is not over, newest first, as many as one message holds."""
    open_ = (Match.SETUP, Match.RUNNING)
    hosted = DiscordMatch.objects.filter(host_user=user_id, match__status__in=open_)
    seated = DiscordSeat.objects.filter(user_id=user_id, seat__match__status__in=open_)
    total = hosted.count() + seated.count()
    if not total:
        return "You have no matches going on that were hosted from Discord."
    lines = []
    for record in hosted.select_related("match").order_by("-created")[:LISTED]:
        game = get_game(record.match.game_slug)
        lines.append(f"Host of {game.name} (match {record.match_id}): "
                     f"{link(record.base_url, 'host_page', record.match.host_token)}")
    for mine in seated.select_related("seat__match__discord").order_by("-seat__match__created")[:LISTED]:
        seat, match = mine.seat, mine.seat.match
        game = get_game(match.game_slug)
        lines.append(f"{seat.name} in {game.name} (match {match.pk}, seat {seat.number}): "
                     f"{link(match.discord.base_url, 'player_page', seat.token)}")
    text = "Your links (for you alone):"
    for shown, line in enumerate(lines):
        if len(text) + len(line) + 80 > MAX_CONTENT:
            return f"{text}\n…and {total - shown} more, not shown (Discord's messages are short)."
        text += "\n" + line
    return text


def expire_tokens(now: Any = None) -> int:
    """Forget interaction tokens older than Discord's 15 minutes: they open nothing any more."""
    old = (now or timezone.now()) - outbox.TOKEN_LIFE
    return DiscordMatch.objects.filter(created__lt=old).exclude(interaction_token="").update(interaction_token="")


def cut(text: str) -> str:
    return text if len(text) <= MAX_CONTENT else text[: MAX_CONTENT - 1] + "…"
