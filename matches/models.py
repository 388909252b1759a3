"""Matches: seasons, matches, seats, bouts, the turn log and clocks.

Only `matches.play.services` changes these rows (views and consumers read them).
The turn log is append-only: undone and corrected entries are marked, never
deleted, and a bout's state is always the replay of its active move entries
from `new(bout.options)` (`Bout.state` is a snapshot of that replay).
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import Q, Sum
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.text import slugify

from games.core import HOST, Game
from games.registry import get_game


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
    KINDS = [(HOST, "season host"), (MATCH_HOST, "match host"), (EARNED, "earned"), (SPENT, "spent"),
             (REVERSAL, "reversal")]

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
    """A Token of Life earned by a season player (Back to the Wall winners) or
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


class WebhookPost(models.Model):
    """Outbox of announcements: written in the transaction of what it
    announces, delivered after commit by `matches.seasons.webhooks` (a worker thread or
    `manage.py run_webhooks`), never on a request's path."""

    PENDING, SENT, FAILED = "pending", "sent", "failed"
    STATUSES = [(PENDING, "pending"), (SENT, "sent"), (FAILED, "failed")]

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="webhook_posts")
    content = models.TextField()
    status = models.CharField(max_length=8, choices=STATUSES, default=PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    #: when the next attempt is due (also a claimed attempt's lease)
    next_attempt = models.DateTimeField(default=timezone.now, db_index=True)
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.season}: {self.content[:60]}"


class Match(models.Model):
    SETUP, RUNNING, FINISHED = "setup", "running", "finished"
    STATUSES = [(SETUP, "setup"), (RUNNING, "running"), (FINISHED, "finished")]

    game_slug = models.CharField(max_length=40)
    options = models.JSONField(default=dict, blank=True)
    #: bouts, starting_seat, alternate, stalemate_replays, clock (see formats.py)
    format = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=STATUSES, default=SETUP)
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches")
    host_token = models.CharField(max_length=64, unique=True, default=new_token)
    watch_token = models.CharField(max_length=64, unique=True, default=new_token)
    #: clocks of the current bout are stopped by the host
    paused = models.BooleanField(default=False)
    #: the seat whose lost connection paused the clocks (play/sweeper.sweep_away); resumed when it returns
    away_paused = models.PositiveSmallIntegerField(null=True, blank=True)
    #: when that away pause began: its time comes out of the seat's away time for the bout
    #: (`Clock.away_used`, play/awaytime.py)
    away_paused_since = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    winners = models.JSONField(default=list, blank=True)
    result_reason = models.CharField(max_length=120, blank=True)
    #: a season's elimination match: its loser is eliminated (unless a Token of Life saves them)
    elimination = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"
        #: staff need this (not just is_staff) to open a host dashboard without its link
        permissions = [("moderate_match", "Can open any match's host dashboard and moderate it")]

    def __str__(self) -> str:
        return f"{self.game_slug} match #{self.pk}"

    @property
    def game(self) -> Game[Any, Any]:
        return get_game(self.game_slug)

    @property
    def seat_count(self) -> int:
        """Seats of this match: the game's count, or its "seats" option (the host's game)."""
        return self.game.seat_count(self.options)

    @property
    def current_bout(self) -> Bout | None:
        """The latest bout (running or the last one played); None before the start."""
        return self.bouts.order_by("-number").first()

    @property
    def bouts_needed(self) -> int:
        """Bouts a seat must win to take the match (first to ceil(N/2))."""
        return (int(self.format.get("bouts", 1)) + 1) // 2

    def score(self, seats: list[Seat] | None = None) -> dict[int, int]:
        """Seat -> bouts won (bouts that count; a replayed stalemate does not); `seats`: the
        match's seats when the caller has them loaded already."""
        score = {seat.number: 0 for seat in (self.seats.all() if seats is None else seats)}
        for bout in self.bouts.filter(finished__isnull=False, counts=True):
            for seat in (bout.result or {}).get("winners", []):
                score[int(seat)] = score.get(int(seat), 0) + 1
        return score

    @property
    def needs_next_bout(self) -> bool:
        """True when the match runs but its last bout is over (host starts the next)."""
        bout = self.current_bout
        return self.status == self.RUNNING and bout is not None and bout.finished is not None

    def seat(self, number: int) -> Seat:
        return self.seats.get(number=number)


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80)
    token = models.CharField(max_length=64, unique=True, default=new_token)
    season_player = models.ForeignKey(
        SeasonPlayer, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    #: a computer player's strength ("easy", "normal", "strong"); empty: a person plays the seat
    bot = models.CharField(max_length=8, blank=True, default="")
    #: the turn a bot worker claimed ("<bout id>:<version>") and when: one move per turn
    #: (matches/play/bots.py); a claim older than its lease may be taken again
    bot_claim = models.CharField(max_length=40, blank=True, default="")
    bot_claimed_at = models.DateTimeField(null=True, blank=True)
    #: since when the seat has had no page open, once the sweeper alerted the host of it (the match's
    #: format `away_alert`, play/sweeper.sweep_alerts); cleared when the seat has a page open again
    away_alert = models.DateTimeField(null=True, blank=True)
    #: the host restarted the clocks while this seat had no page open: the sweeper does not pause them
    #: for it again until it has had a page open (play/awaytime.py); stored here, so every sweeper knows
    away_resumed = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="unique_seat_number")]

    def __str__(self) -> str:
        return f"seat {self.number}: {self.name}"

    @property
    def label(self) -> str:
        """The name as pages and the log show it: "Bob (computer, normal)" while a bot plays it."""
        return f"{self.name} (computer, {self.bot})" if self.bot else self.name


class MatchGarnet(models.Model):
    """A garnet award or deduction of a match outside any season, kept on the match: a match
    never creates or joins a season by itself.  When the season host adds the match to a
    season with its host link (`season_attach`), these move into that season's ledger once."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="match_garnets")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="garnets")
    amount = models.IntegerField()
    reason = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=10, choices=GarnetEntry.KINDS, default=GarnetEntry.MATCH_HOST)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.seat.name} {self.amount:+d} ({self.reason})"


class Bout(models.Model):
    """One game on the board.  `version` grows by one on every change."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="bouts")
    number = models.PositiveSmallIntegerField()
    starting_seat = models.PositiveSmallIntegerField(default=1)
    #: the options `new()` was called with (match options + starting seat)
    options = models.JSONField(default=dict, blank=True)
    state = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=1)
    #: version at which the current sealed round opened (or the host last rewrote the bout)
    round_version = models.PositiveIntegerField(default=1)
    #: False for a stalemated bout that is replayed (it does not count toward best-of-N)
    counts = models.BooleanField(default=True)
    result = models.JSONField(null=True, blank=True)
    reason = models.CharField(max_length=120, blank=True)
    #: earliest running deadline (a seat's clock or the sealed round); the sweeper's index
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    #: sealed rounds: the round deadline, and what was left of it when paused
    round_deadline = models.DateTimeField(null=True, blank=True)
    round_left = models.FloatField(null=True, blank=True)
    started = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="unique_bout_number")]

    def __str__(self) -> str:
        return f"{self.match} bout {self.number}"

    @property
    def winners(self) -> list[int]:
        return [int(s) for s in (self.result or {}).get("winners", [])]

    def active_moves(self) -> models.QuerySet[TurnLog]:
        """The entries a replay applies, in order."""
        return self.turns.filter(kind=TurnLog.MOVE, undone=False, corrected=False).order_by("sequence", "id")


class TurnLog(models.Model):
    """Append-only log.  `kind` move = a game action (replayed); host/clock = a
    match event shown in the log (never replayed)."""

    #: SEAT_NOTE: a seat's own request or resignation (matches/play/requests.py), not a host action
    MOVE, HOST_NOTE, CLOCK, SEAT_NOTE = "move", "host", "clock", "seat"
    KINDS = [(MOVE, "move"), (HOST_NOTE, "host"), (CLOCK, "clock"), (SEAT_NOTE, "seat")]

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="turns")
    bout = models.ForeignKey(Bout, null=True, blank=True, on_delete=models.CASCADE, related_name="turns")
    #: per match, growing; a correction reuses the corrected entry's sequence
    sequence = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=KINDS, default=MOVE)
    #: seat number, or 0 (HOST) for host actions and host-applied game actions ("resolve")
    actor = models.SmallIntegerField()
    #: a move entered by the host on behalf of `actor`
    by_host = models.BooleanField(default=False)
    text = models.TextField()
    time_used = models.FloatField(null=True, blank=True)
    #: a seat's move (issue 26, play/lag.py): the server's measure of the turn, the think time the
    #: page reported (clamped), and the lag given back; time_used = elapsed - lag_comp
    elapsed = models.FloatField(null=True, blank=True)
    client_time = models.FloatField(null=True, blank=True)
    lag_comp = models.FloatField(null=True, blank=True)
    #: bout version after this entry
    version = models.PositiveIntegerField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    undone = models.BooleanField(default=False)
    corrected = models.BooleanField(default=False)
    corrected_from = models.TextField(blank=True)

    class Meta:
        ordering = ["sequence", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "sequence"],
                condition=Q(undone=False, corrected=False),
                name="unique_active_sequence",
            )
        ]

    def __str__(self) -> str:
        return f"#{self.sequence} {self.who}: {self.text}"

    @property
    def who(self) -> str:
        """Who did it, as the log shows it."""
        if self.kind == self.CLOCK:
            return "clock"
        if self.actor == HOST:
            return "host"
        return f"host for seat {self.actor}" if self.by_host else f"seat {self.actor}"

    @property
    def active(self) -> bool:
        return not (self.undone or self.corrected)

    @classmethod
    def host_entries(cls, match_id: int) -> models.QuerySet[TurnLog]:
        """The entries of host actions (each action logs at least one): their count is the
        host-action sequence the dashboard's forms carry (host_actions.host_seq)."""
        return cls.objects.filter(Q(kind=cls.HOST_NOTE) | Q(kind=cls.MOVE, actor=HOST) | Q(by_host=True),
                                  match_id=match_id)

    @classmethod
    def is_host_entry(cls, row: TurnLog) -> bool:
        """`row` is one of `host_entries` (the same test, in Python)."""
        return row.kind == cls.HOST_NOTE or (row.kind == cls.MOVE and row.actor == HOST) or row.by_host


class Clock(models.Model):
    """One seat's clock in one bout: `per_move` allowance (None = none) plus
    `reserve` (what is left of it).  While the seat is to act, `running_since`
    and `deadline` are set; `used` is what the current turn had already used
    before a pause."""

    bout = models.ForeignKey(Bout, on_delete=models.CASCADE, related_name="clocks")
    seat = models.PositiveSmallIntegerField()
    per_move = models.FloatField(null=True, blank=True)
    reserve = models.FloatField(default=0)
    deadline = models.DateTimeField(null=True, blank=True)
    running_since = models.DateTimeField(null=True, blank=True)
    used = models.FloatField(default=0)
    paused = models.BooleanField(default=False)
    #: lag compensation (play/lag.py): the quota left and its gain per move; None: off
    lag_quota = models.FloatField(null=True, blank=True)
    lag_gain = models.FloatField(default=0)
    #: seconds the seat's away pauses held the bout's clocks (closed pauses; play/awaytime.py):
    #: bounded by the match's `away_budget`, and a new bout's clocks start at 0
    away_used = models.FloatField(default=0)

    class Meta:
        ordering = ["bout", "seat"]
        constraints = [models.UniqueConstraint(fields=["bout", "seat"], name="unique_clock_per_seat")]

    def __str__(self) -> str:
        return f"{self.bout} clock of seat {self.seat}"

    @property
    def running(self) -> bool:
        return self.running_since is not None

    def remaining(self, now: datetime | None = None) -> float:
        """Seconds left before this seat runs out (per-move allowance + reserve
        while it is to act; the reserve alone otherwise)."""
        if self.deadline is not None:
            now = now or timezone.now()
            return max(0.0, (self.deadline - now).total_seconds())
        if self.running or (self.paused and self.used):
            return max(0.0, (self.per_move or 0) + self.reserve - self.used)
        return max(0.0, self.reserve)

    def as_json(self, now: datetime | None = None) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "per_move": self.per_move,
            "reserve": round(self.reserve, 3),
            "remaining": round(self.remaining(now), 3),
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "running": self.running,
            "paused": self.paused,
        }


# -- chat (matches/play/chat.py is the only code that writes these) ---------------------------


class ChatSettings(models.Model):
    """A match's chat options and closed rooms (a row once the host changed something, or once
    anyone wrote: chat.py locks it, so the flood check of one writer is never raced past)."""

    OFF, ON, DELAYED = "off", "on", "delayed"
    SPECTATOR_MODES = [(OFF, "off"), (ON, "on"), (DELAYED, "on, shown to players when the match ends")]

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="chat_settings")
    #: the players' table (seats and host); None: the default (on for 2-player games)
    table = models.BooleanField(null=True, blank=True)
    spectators = models.CharField(max_length=8, choices=SPECTATOR_MODES, default=ON)
    #: rooms the host closed ("table", "spectators", "seat-2"...)
    closed = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"chat settings of {self.match}"


class ChatMessage(models.Model):
    """One chat line.  `room`: "announce" (host only, every audience), "table" (seats and host),
    "spectators" (spectators and host), "seat-N" (seat N's private thread with the host).
    `writer` identifies who wrote it for flood control and mutes: "host", "seat-N", or
    "spectator-<id>" (the id of the spectator's signed cookie)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    room = models.CharField(max_length=16)
    writer = models.CharField(max_length=48)
    name = models.CharField(max_length=80)
    text = models.TextField()
    created = models.DateTimeField(default=timezone.now)
    #: the host removed it (shown as "removed by the host")
    removed = models.DateTimeField(null=True, blank=True)
    #: the writer's client address (config.ratelimits.client_ip), which a mute of the writer holds too
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["match", "room", "id"]), models.Index(fields=["match", "writer", "id"])]

    def __str__(self) -> str:
        return f"{self.room} {self.name}: {self.text[:40]}"


class ChatMute(models.Model):
    """The host silenced a writer in a match's chat until `until` (None: for the whole match)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_mutes")
    writer = models.CharField(max_length=48)
    name = models.CharField(max_length=80)
    until = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=200)
    created = models.DateTimeField(default=timezone.now)
    #: the host lifted it early
    lifted = models.DateTimeField(null=True, blank=True)
    #: the muted writer's address when muted: a spectator writing from it is muted too (a new
    #: name cookie is a new writer id, not a new person)
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.name} muted ({self.reason})"


# -- Discord (matches/discord/): its own rows beside the match, written only by that package -------------


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


class DiscordMessage(models.Model):
    """Outbox of Discord messages, written in the transaction of what they say and sent after commit
    by `matches.discord.sender` (never on a request's path).  `key` names what a message is (the
    seat link of seat 2 of match 7, the ping for a turn): one message per key, ever, however many
    times the interaction is delivered or the sweeper looks."""

    PENDING, SENT, FAILED = "pending", "sent", "failed"
    STATUSES = [(PENDING, "pending"), (SENT, "sent"), (FAILED, "failed")]
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
    status = models.CharField(max_length=8, choices=STATUSES, default=PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    #: when the next attempt is due (also a claimed attempt's lease)
    next_attempt = models.DateTimeField(default=timezone.now, db_index=True)
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"
