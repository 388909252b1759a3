"""A match's rows: the match, its seats, bouts, the turn log and clocks (see matches.models)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.core import HOST, Game
from games.registry import get_game
from matches.models.seasons import GarnetEntry, Season, SeasonPlayer, new_token


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
    #: the home page form's double-submit key with a digest of the browser that posted it
    #: (matches/web/forms.create_key): a doubled submit finds the match its first one made
    create_key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    #: a practice match's client (matches/play/practising.py): the browser that created it (a digest of
    #: its CSRF cookie, as its form key's) and its address (config.ratelimits.client_network: an IPv6
    #: client by its /64), by which the practice matches one client has running are bounded
    practice_browser = models.CharField(max_length=40, null=True, blank=True, db_index=True)
    practice_address = models.CharField(max_length=45, null=True, blank=True, db_index=True)
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
    def practice(self) -> bool:
        """A match against the computer (matches/web/practice.py): nobody holds its host link."""
        return bool((self.format or {}).get("practice"))

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


class PracticeClient(models.Model):
    """One row per client that has created a practice match (a browser, or an address): the
    transaction that creates one locks its client's rows first, so two posts at once are counted one
    after the other (matches/play/practising.py).  Only a lock: the count is of the matches."""

    key = models.CharField(max_length=64, unique=True)

    def __str__(self) -> str:
        return self.key


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
