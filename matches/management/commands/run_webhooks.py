"""`python manage.py run_webhooks`: deliver season announcements (the outbox
of matches/webhooks.py).  Safe next to the in-process worker and other
copies of itself: each attempt is claimed by compare-and-swap."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from matches.seasons.webhooks import deliver_due


class Command(BaseCommand):
    help = "Post due season announcements to their webhooks, once (--once) or in a loop."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="deliver what is due and exit")
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between rounds (default 2)")

    def handle(self, *args: Any, once: bool = False, interval: float = 2.0, **options: Any) -> None:
        if once:
            self.stdout.write(f"delivered {deliver_due()} announcement(s)")
            return
        self.stdout.write(f"delivering announcements every {interval:g} s (Ctrl-C stops)")
        try:
            while True:
                close_old_connections()
                sent = deliver_due()
                if sent:
                    self.stdout.write(f"delivered {sent} announcement(s)")
                time.sleep(interval)
        except KeyboardInterrupt:
            pass
