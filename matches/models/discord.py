"""Discord's rows (matches/discord/): beside the match, written only by that package."""

from __future__ import annotations

import hashlib

from django.db import models
from django.utils import timezone

from matches.models.match import Match, Seat
from matches.models.outboxes import Outbox
from matches.models.seasons import Season, SeasonPlayer


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

    DM, FOLLOWUP, CHANNEL, EDIT = "dm", "followup", "channel", "edit"
    KINDS = [(DM, "direct message"), (FOLLOWUP, "interaction follow-up"), (CHANNEL, "post in a season's channel"),
             (EDIT, "edit of a DM sent before")]

    key = models.CharField(max_length=120, unique=True)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="discord_messages")
    kind = models.CharField(max_length=8, choices=KINDS)
    #: the season whose channel a CHANNEL post goes to, or whose roster player a DM is for
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.CASCADE,
                               related_name="discord_messages")
    #: a CHANNEL post's channel id
    channel_id = models.CharField(max_length=24, blank=True)
    #: a DM's Discord user id
    recipient = models.CharField(max_length=24, blank=True)
    #: the seat whose link a DM carries: a player whose DMs are closed is named to the host
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    #: a follow-up's interaction token (a secret, never logged), blanked once it is sent or given up
    interaction_token = models.TextField(blank=True)
    ephemeral = models.BooleanField(default=False)
    content = models.TextField()
    #: an EDIT's target: the key of the DM whose text and buttons it replaces
    target = models.CharField(max_length=120, blank=True)
    #: where Discord put a sent DM (its channel and message ids): what an EDIT changes
    sent_channel = models.CharField(max_length=24, blank=True)
    sent_message = models.CharField(max_length=24, blank=True)
    #: the message's action rows (Discord's components: a select menu, buttons), [] for none
    components = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"


class DiscordInteraction(models.Model):
    """An interaction the endpoint has answered with more than a PONG.  A signed body can be posted
    again by anyone who captured it, for as long as its signature's timestamp is recent
    (`matches.discord.signature.MAX_AGE`); the unique id makes the second answer, in whichever web
    process, one without a link.  Rows older than the window are deleted by the sender's rounds."""

    interaction_id = models.CharField(max_length=24, unique=True)
    answered = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"Discord interaction {self.interaction_id}"


class DiscordRefusedToken(models.Model):
    """A bot token Discord answered 401 to: nothing is sent with it again (every 401 counts toward
    Discord's invalid-request limit, past which the server's address is banned from the API), and the
    hosts' dashboards say so.  Kept by its SHA-256, never the token itself: a new DISCORD_BOT_TOKEN
    has another digest, so sending resumes by itself when the setting changes."""

    digest = models.CharField(max_length=64, unique=True)
    refused = models.DateTimeField(default=timezone.now)
    #: Discord's answer, as the sender's `Outcome` words it (no secret in it)
    error = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"bot token {self.digest[:8]}… refused at {self.refused:%Y-%m-%d %H:%M}"

    @staticmethod
    def digest_of(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @classmethod
    def of(cls, token: str) -> DiscordRefusedToken | None:
        """The refusal of `token`, if Discord refused it."""
        return cls.objects.filter(digest=cls.digest_of(token)).first() if token else None


class DiscordSeason(models.Model):
    """A season opened with `/deathmatch season new`: its announcements go to `channel_id` through
    the bot; `host_user` alone may change its roster from Discord.  `interaction_id` is unique: a
    second delivery of the command opens no second season."""

    season = models.OneToOneField(Season, on_delete=models.CASCADE, related_name="discord")
    interaction_id = models.CharField(max_length=24, unique=True)
    host_user = models.CharField(max_length=24, db_index=True)
    channel_id = models.CharField(max_length=24, db_index=True)
    guild_id = models.CharField(max_length=24, blank=True)
    #: the address the links start with (DEATHMATCH_PUBLIC_URL, else the address Discord posted to)
    base_url = models.CharField(max_length=200)
    created = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"season {self.season_id} in Discord channel {self.channel_id}"


class DiscordPlayer(models.Model):
    """A roster player bound to a Discord user (their personal page's link arrives by DM); one
    roster player per user in a season."""

    player = models.OneToOneField(SeasonPlayer, on_delete=models.CASCADE, related_name="discord")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="discord_players")
    user_id = models.CharField(max_length=24, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["season", "user_id"], name="unique_discord_player")]

    def __str__(self) -> str:
        return f"{self.player} is Discord user {self.user_id}"
