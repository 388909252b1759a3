"""`python manage.py run_bots`: move for every computer player in a seat, as its turn comes
(safe to run in several processes: each turn is claimed with a compare-and-swap;
matches/play/bots.py)."""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.management.base import BaseCommand

from matches.live import fanout as live
from matches.play.bots import run, sweep_bots


class Command(BaseCommand):
    help = "Play the computer players' turns, once (--once) or as they come."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="play every bot that is to act now, then exit")
        parser.add_argument("--max-idle", dest="max_idle", type=float, default=1.0,
                            help="longest sleep between looks for turns made in other processes (default 1 s)")

    def handle(self, *args: Any, once: bool = False, max_idle: float = 1.0, **options: Any) -> None:
        if once:
            self.stdout.write(f"played {sweep_bots()} bot move(s)")
            return
        self.stdout.write(f"playing the bots' turns (looking again at least every {max_idle:g} s; Ctrl-C stops)")
        live.start_background_loop()  # the bots' moves are broadcast off their path
        with contextlib.suppress(KeyboardInterrupt):
            run(max_idle)
