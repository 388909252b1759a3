"""A season's rows: the roster, its events, the garnet ledger, Tokens of Life and the webhook outbox."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import models
from django.db.models import Sum
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.text import slugify

from matches.models.outboxes import Outbox


def new_token() -> str:
    """An unguessable link token (192 bits from `secrets`)."""
    return secrets.token_urlsafe(24)


class Season(models.Model):
    """A series of matches among a roster of players, with a garnet ledger.

    Only `matches.seasons.ledger` changes a season (roster, ledger, tokens, statuses);
    its public page is /seasons/<slug>/, its host manages it at /s/<manage_token>/.
    """

    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    manage_token = models.CharField(max_length=64, unique=True, default=new_token)
    #: Discord-compatible (or Slack-style) incoming webhook; empty = no announcements
    webhook_url = models.URLField(max_length=500, blank=True)
    #: the last failed delivery (shown on the manage page) and the last good one
    webhook_error = models.TextField(blank=True)
    webhook_error_at = models.DateTimeField(null=True, blank=True)
    webhook_ok_at = models.DateTimeField(null=True, blank=True)
    #: scheme://host of the site, for the public links in announcements
    base_url = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(default=timezone.now)
    # episode results options
    #: how many Tokens of Life and Elimination Candidates a main match gives (issue 52; ties at a cut
    #: are flagged to the host)
    main_tokens = models.PositiveSmallIntegerField(default=1)
    main_candidates = models.PositiveSmallIntegerField(default=1)
    #: the winner of an elimination match takes the eliminated loser's garnets (results.py's ruling)
    winner_takes_garnets = models.BooleanField(default=True)

    # episode options (matches/seasons/episodes.py reads them; the manage page sets them)
    ADVANTAGE_OPPONENT, ADVANTAGE_CANDIDATE = "opponent", "candidate"
    ADVANTAGES = [(ADVANTAGE_OPPONENT, "the chosen opponent"), (ADVANTAGE_CANDIDATE, "the candidate")]
    START_AT_ONCE, START_SETUP = "at_once", "setup"
    STARTS = [(START_AT_ONCE, "at once, when the starting seat is chosen"), (START_SETUP, "left in setup for the host")]
    #: the death match pool (game slugs); None: every two-player game (episodes.default_pool)
    death_match_pool = models.JSONField(null=True, blank=True)
    #: who holds the death match advantage (chooses who starts)
    death_match_advantage = models.CharField(max_length=10, choices=ADVANTAGES, default=ADVANTAGE_OPPONENT)
    #: whether the death match starts as soon as its starting seat is chosen
    death_match_start = models.CharField(max_length=10, choices=STARTS, default=START_AT_ONCE)
    #: minutes a candidate has to choose an opponent once it is their turn (None: no deadline)
    pick_deadline_minutes = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        # one season a name whatever its case, enforced where two requests racing cannot slip past
        constraints = [models.UniqueConstraint(Lower("name"), name="unique_season_name_any_case")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.slug:
            self.slug = unique_slug(self.name, Season.objects.exclude(pk=self.pk))
        super().save(*args, **kwargs)

    def garnets(self) -> dict[str, int]:
        """Player name -> garnet balance."""
        rows = self.garnet_entries.values("player__name").annotate(total=Sum("amount"))
        return {row["player__name"]: row["total"] or 0 for row in rows}


def unique_slug(name: str, others: models.QuerySet[Season]) -> str:
    """A slug for `name` that no other season uses ("spring", "spring-2", ...)."""
    base = slugify(name)[:70] or "season"
    slug, n = base, 1
    while others.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


class SeasonPlayer(models.Model):
    """One name on a season's roster."""

    ACTIVE, CANDIDATE, ELIMINATED = "active", "candidate", "eliminated"
    STATUSES = [(ACTIVE, "active"), (CANDIDATE, "elimination candidate"), (ELIMINATED, "eliminated")]

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=80)
    status = models.CharField(max_length=12, choices=STATUSES, default=ACTIVE)
    #: the season event that set the current status (a reversed result restores the one before)
    status_event = models.ForeignKey(
        "SeasonEvent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: taken off the roster (kept, because the ledger and past matches name them)
    removed = models.BooleanField(default=False)
    #: the player's own page (/me/<token>/): their seat links and the choices waiting for them
    personal_token = models.CharField(max_length=64, unique=True, default=new_token)

    class Meta:
        ordering = ["season", "name"]
        constraints = [models.UniqueConstraint(fields=["season", "name"], name="unique_player_per_season")]

    def __str__(self) -> str:
        return f"{self.name} ({self.season})"

    def garnet_balance(self) -> int:
        return self.garnet_entries.aggregate(total=Sum("amount"))["total"] or 0

    def tokens_held(self) -> int:
        return self.tokens_of_life.filter(used__isnull=True, revoked__isnull=True).count()


class SeasonEvent(models.Model):
    """The season's log: every manage action and every result fed in, with its
    time and reason.  `key` makes an action exactly-once: a doubled submit
    carries the same key and finds it taken."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=24)
    text = models.CharField(max_length=500)
    reason = models.CharField(max_length=200, blank=True)
    key = models.CharField(max_length=80, null=True, blank=True)
    match = models.ForeignKey("Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="season_events")
    bout = models.ForeignKey("Bout", null=True, blank=True, on_delete=models.SET_NULL, related_name="season_events")
    player = models.ForeignKey(
        SeasonPlayer, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    #: what a result changed, so that a reversal undoes exactly that
    data = models.JSONField(default=dict, blank=True)
    #: set when a reopened or corrected bout took this result back
    reversed = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]
        constraints = [models.UniqueConstraint(fields=["season", "key"], name="unique_season_event_key")]

    def __str__(self) -> str:
        return f"{self.season}: {self.text}"


class GarnetEntry(models.Model):
    """One line of the garnet ledger (positive: awarded, negative: deducted).
    Append-only: a reversed result adds the opposite entry (`reverses`)."""

    HOST, MATCH_HOST, EARNED, SPENT, REVERSAL = "host", "match", "earned", "spent", "reversal"
    #: an eliminated loser's garnets handed to the elimination match's winner (one entry each way)
    TRANSFER = "transfer"
    KINDS = [(HOST, "season host"), (MATCH_HOST, "match host"), (EARNED, "earned"), (SPENT, "spent"),
             (REVERSAL, "reversal"), (TRANSFER, "winner takes the loser's garnets")]

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="garnet_entries")
    player = models.ForeignKey(SeasonPlayer, on_delete=models.CASCADE, related_name="garnet_entries")
    amount = models.IntegerField()
    reason = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=10, choices=KINDS, default=MATCH_HOST)
    match = models.ForeignKey("Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="garnet_entries")
    bout = models.ForeignKey("Bout", null=True, blank=True, on_delete=models.SET_NULL, related_name="garnet_entries")
    event = models.ForeignKey(
        SeasonEvent, null=True, blank=True, on_delete=models.SET_NULL, related_name="garnet_entries"
    )
    #: the entry this one cancels (at most one reversal per entry)
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reversal"
    )
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]
        verbose_name_plural = "garnet entries"

    def __str__(self) -> str:
        return f"{self.player.name} {self.amount:+d} ({self.reason})"


class TokenOfLife(models.Model):
    """A Token of Life earned by a season player or
    granted by the host; held until used (to clear a candidacy or an
    elimination) or revoked (the result that gave it was taken back)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="tokens_of_life")
    player = models.ForeignKey(SeasonPlayer, on_delete=models.CASCADE, related_name="tokens_of_life")
    match = models.ForeignKey("Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="tokens_of_life")
    reason = models.CharField(max_length=200, blank=True)
    event = models.ForeignKey(
        SeasonEvent, null=True, blank=True, on_delete=models.SET_NULL, related_name="tokens_given"
    )
    used = models.DateTimeField(null=True, blank=True)
    used_event = models.ForeignKey(
        SeasonEvent, null=True, blank=True, on_delete=models.SET_NULL, related_name="tokens_used"
    )
    revoked = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]
        verbose_name_plural = "tokens of life"

    def __str__(self) -> str:
        return f"token of life: {self.player.name}"

    @property
    def held(self) -> bool:
        return self.used is None and self.revoked is None


class WebhookPost(Outbox):
    """Outbox of announcements: written in the transaction of what it
    announces, delivered after commit by `matches.seasons.webhooks` (a worker thread or
    `manage.py run_webhooks`), never on a request's path."""


    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="webhook_posts")
    content = models.TextField()

    def __str__(self) -> str:
        return f"{self.season}: {self.content[:60]}"
