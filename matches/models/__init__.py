"""Matches: seasons, matches, seats, bouts, the turn log and clocks; chat and Discord beside them.

Only `matches.play.services` changes these rows (views and consumers read them).
The turn log is append-only: undone and corrected entries are marked, never
deleted, and a bout's state is always the replay of its active move entries
from `new(bout.options)` (`Bout.state` is a snapshot of that replay).

One module per concern (seasons, match, chatlog, discord, and the outbox fields they share (outboxes)); every
model is imported here, so `from matches.models import Match` is the one way to name them.
"""

from matches.models.chatlog import ChatMessage, ChatMute, ChatSettings
from matches.models.discord import (
    DiscordInteraction,
    DiscordMatch,
    DiscordMessage,
    DiscordPlayer,
    DiscordRefusedToken,
    DiscordSeason,
    DiscordSeat,
)
from matches.models.episode import Duel, Episode
from matches.models.match import Bout, Clock, Match, MatchGarnet, PracticeClient, Seat, TurnLog
from matches.models.outboxes import Outbox
from matches.models.seasons import (
    GarnetEntry,
    Season,
    SeasonEvent,
    SeasonPlayer,
    TokenOfLife,
    WebhookPost,
    new_token,
    unique_slug,
)

__all__ = [
    "Bout", "ChatMessage", "ChatMute", "ChatSettings", "Clock", "DiscordInteraction", "DiscordMatch", "DiscordMessage",
    "DiscordPlayer", "DiscordRefusedToken", "DiscordSeason", "DiscordSeat", "Duel", "Episode",
    "GarnetEntry", "Match", "MatchGarnet", "Outbox", "PracticeClient", "Season", "SeasonEvent", "SeasonPlayer", "Seat", "TokenOfLife",
    "TurnLog", "WebhookPost", "new_token", "unique_slug",
]
