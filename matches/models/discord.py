"""Discord's rows (matches/discord/): beside the match, written only by that package."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from matches.models.match import Match, Seat
from matches.models.outboxes import Outbox


class DiscordMatch(models.Model):
    """A match a host created with `/deathmatch new`: who hosts it on Discord, where, and how its
    messages fare.  `interaction_id` is unique: Discord may deliver an interaction twice, and the
    second delivery finds this row instead of creating a second match."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="discord")
    interaction_id = models.CharField(max_length=24, unique=True)
    host_user = models.CharField(max_length=24, db_index=True)
    host_name = models.CharField(max_length=80)
    channel_id = models.CharField(max_length=24, blank=True)
    guild_id = models.CharField(max_length=24, blank=True)
    #: the address the links start with (DEATHMATCH_PUBLIC_URL, else the address Discord posted to)
    base_url = models.CharField(max_length=200)
    #: Discord's token for follow-ups to the host (valid 15 minutes): a secret, blanked when it expires
    interaction_token = models.TextField(blank=True)
    #: DM a Discord player whose turn it is and who has no page open (the match option "pings")
    pings = models.BooleanField(default=True)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"match {self.match_id} from Discord"


class DiscordSeat(models.Model):
    """The Discord user who plays a seat (their DMs carry its link; `/deathmatch links` finds it)."""

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="discord")
    user_id = models.CharField(max_length=24, db_index=True)

    def __str__(self) -> str:
        return f"{self.seat} is Discord user {self.user_id}"


class DiscordMessage(Outbox):
    """Outbox of Discord messages, written in the transaction of what they say and sent after commit
    by `matches.discord.sender` (never on a request's path).  `key` names what a message is (the
    seat link of seat 2 of match 7, the ping for a turn): one message per key, ever, however many
    times the interaction is delivered or the sweeper looks."""

    DM, FOLLOWUP = "dm", "followup"
    KINDS = [(DM, "direct message"), (FOLLOWUP, "interaction follow-up")]

    key = models.CharField(max_length=120, unique=True)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="discord_messages")
    kind = models.CharField(max_length=8, choices=KINDS)
    #: a DM's Discord user id
    recipient = models.CharField(max_length=24, blank=True)
    #: the seat whose link a DM carries: a player whose DMs are closed is named to the host
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    #: a follow-up's interaction token (a secret, never logged), blanked once it is sent or given up
    interaction_token = models.TextField(blank=True)
    ephemeral = models.BooleanField(default=False)
    content = models.TextField()

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"
