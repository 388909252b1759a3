"""What every outbox row has: a message written in the transaction of what it says, sent after
commit by a worker that claims it (compare-and-swap on `status` and `next_attempt`), retried with
backoff, given up with its last error (season webhooks, Discord)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Outbox(models.Model):
    PENDING, SENT, FAILED = "pending", "sent", "failed"
    STATUSES = [(PENDING, "pending"), (SENT, "sent"), (FAILED, "failed")]

    status = models.CharField(max_length=8, choices=STATUSES, default=PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    #: when the next attempt is due (also a claimed attempt's lease)
    next_attempt = models.DateTimeField(default=timezone.now, db_index=True)
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["id"]
