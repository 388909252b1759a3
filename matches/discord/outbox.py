"""Queueing Discord messages: a `DiscordMessage` row written inside the transaction of what it says
(a rolled-back match sends nothing, a committed one sends each message once: its `key` is unique),
and the sender woken after commit.  Sending is `sender`'s job, never a request's."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from matches.models import DiscordMessage, Match, Season

#: how long Discord accepts an interaction's token for follow-ups
TOKEN_LIFE = timedelta(minutes=15)

wake = threading.Event()


def dm(key: str, match: Match | None, user_id: str, content: str, *, seat: int | None = None) -> bool:
    """Queue a direct message to `user_id`; False when a message with this key exists already."""
    return _queue(dm_message(key, match, user_id, content, seat=seat))


def followup(key: str, match: Match | None, interaction_token: str, content: str, *, ephemeral: bool) -> bool:
    """Queue a follow-up to an interaction: `ephemeral` ones only its invoker sees, the others go to
    its channel."""
    if not interaction_token:
        return False
    return _queue(followup_message(key, match, interaction_token, content, ephemeral=ephemeral))


def channel(key: str, season: Season, channel_id: str, content: str) -> bool:
    """Queue a post by the bot in a season's channel (everyone there reads it: no secret link)."""
    return _queue(DiscordMessage(key=key, season=season, kind=DiscordMessage.CHANNEL, channel_id=channel_id,
                                 content=content))


def dm_message_for_season(key: str, season: Season, user_id: str, content: str) -> bool:
    """Queue a DM to a roster player of `season` (their DMs closed: the season's channel is told)."""
    return _queue(DiscordMessage(key=key, season=season, kind=DiscordMessage.DM, recipient=user_id,
                                 content=content))


def dm_with(key: str, season: Season, user_id: str, content: str, components: list[dict[str, Any]]) -> bool:
    """Queue a DM to a roster player with its components (a select menu, buttons)."""
    return _queue(DiscordMessage(key=key, season=season, kind=DiscordMessage.DM, recipient=user_id,
                                 content=content, components=components))


def edit(key: str, season: Season, target: str, content: str, components: list[dict[str, Any]]) -> bool:
    """Queue an edit of the DM keyed `target` (sent after it, in its place)."""
    return _queue(DiscordMessage(key=key, season=season, kind=DiscordMessage.EDIT, target=target,
                                 content=content, components=components))


def queue_all(messages: list[DiscordMessage]) -> None:
    """Queue several messages in one insert (those whose key exists already are left out)."""
    now = timezone.now()
    for message in messages:
        message.next_attempt = now
    DiscordMessage.objects.bulk_create(messages, ignore_conflicts=True)
    transaction.on_commit(wake.set)


def dm_message(key: str, match: Match | None, user_id: str, content: str, *, seat: int | None = None) -> DiscordMessage:
    return DiscordMessage(key=key, match=match, kind=DiscordMessage.DM, recipient=user_id, seat=seat, content=content)


def followup_message(key: str, match: Match | None, interaction_token: str, content: str, *,
                     ephemeral: bool) -> DiscordMessage:
    return DiscordMessage(key=key, match=match, kind=DiscordMessage.FOLLOWUP, ephemeral=ephemeral,
                          interaction_token=interaction_token, content=content)


def _queue(message: DiscordMessage) -> bool:
    if DiscordMessage.objects.filter(key=message.key).exists():
        return False
    message.next_attempt = timezone.now()
    try:
        with transaction.atomic():  # a savepoint: a racing writer's row keeps the caller's transaction usable
            message.save(force_insert=True)
    except IntegrityError:
        return False
    transaction.on_commit(wake.set)
    return True
