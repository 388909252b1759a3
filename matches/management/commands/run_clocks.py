"""`python manage.py run_clocks`: the clock sweeper (safe to run in several
processes: each time-out is claimed with a compare-and-swap).  It sleeps
until the next deadline, looking again at least every `--max-idle` seconds
for deadlines set by other processes (matches/sweeper.py)."""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.management.base import BaseCommand

from matches.live import fanout as live
from matches.play.sweeper import run, sweep_clocks


class Command(BaseCommand):
    help = "Apply expired clock and round deadlines, once (--once) or as they fall due."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="sweep once and exit")
        parser.add_argument("--max-idle", "--interval", dest="max_idle", type=float, default=1.0,
                            help="longest sleep between looks at the next deadline (default 1 s)")

    def handle(self, *args: Any, once: bool = False, max_idle: float = 1.0, **options: Any) -> None:
        if once:
            applied = sweep_clocks()
            self.stdout.write(f"applied {applied} time-out(s)")
            return
        self.stdout.write(f"applying deadlines as they fall due (looking again at least every {max_idle:g} s; "
                          "Ctrl-C stops)")
        live.start_background_loop()  # time-outs are broadcast off the sweeper's path
        with contextlib.suppress(KeyboardInterrupt):
            run(max_idle, on_applied=lambda n: self.stdout.write(f"applied {n} time-out(s)"))
