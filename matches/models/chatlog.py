"""Chat rows (matches/play/chat.py is the only code that writes these)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from matches.models.match import Match


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
    #: the writer's client address (config.ratelimits.client_network: an IPv6 one by its /64), which a mute holds too
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
