"""`python manage.py run_discord`: send the Discord outbox and queue the your-turn pings
(matches/discord/sender.py).  Safe next to the in-process worker and other copies of itself: each
attempt is claimed by compare-and-swap, each ping's key is unique."""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from matches.discord import api, sender


class Command(BaseCommand):
    help = "Send due Discord messages and queue your-turn pings, once (--once) or in a loop."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between rounds (default 2)")

    def handle(self, *args: Any, once: bool = False, interval: float = 2.0, **options: Any) -> None:
        if not api.configured():
            raise CommandError("set DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN first")
        if once:
            with api.client() as http:
                self.stdout.write(f"sent {sender.run_round(http)} message(s)")
            return
        self.stdout.write(f"sending Discord messages every {interval:g} s (Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            sender.run(interval)
