"""`python manage.py run_clocks`: the clock sweeper (safe to run in several
processes: each time-out is claimed with a compare-and-swap)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from matches.clocks import sweep_clocks


class Command(BaseCommand):
    help = "Apply expired clock and round deadlines, once (--once) or in a loop."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="sweep once and exit")
        parser.add_argument("--interval", type=float, default=0.5, help="seconds between sweeps (default 0.5)")

    def handle(self, *args: Any, once: bool = False, interval: float = 0.5, **options: Any) -> None:
        if once:
            applied = sweep_clocks()
            self.stdout.write(f"applied {applied} time-out(s)")
            return
        self.stdout.write(f"sweeping clocks every {interval:g} s (Ctrl-C stops)")
        try:
            while True:
                close_old_connections()
                applied = sweep_clocks()
                if applied:
                    self.stdout.write(f"applied {applied} time-out(s)")
                time.sleep(interval)
        except KeyboardInterrupt:
            pass
