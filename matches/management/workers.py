"""The management command every background worker runs as (`run_clocks`, `run_bots`,
`run_webhooks`, `run_discord`): the worker of matches/core/runtime.py, once (`--once`) or round after round."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from django.core.management.base import BaseCommand, CommandError

from matches.core import runtime
from matches.live import fanout


class WorkerCommand(BaseCommand):
    worker: ClassVar[runtime.Worker]
    #: its changes are broadcast to live pages: an event loop draws them off the worker's path
    broadcasts: ClassVar[bool] = True
    what: ClassVar[str]

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument("--max-idle", "--interval", dest="max_idle", type=float, default=None,
                            help="longest sleep between rounds, in which work made by other processes is seen "
                                 f"(default {self.worker.idle_seconds():g} s)")

    def handle(self, *args: Any, once: bool = False, max_idle: float | None = None, **options: Any) -> None:
        worker = self.worker
        if not worker.ready():
            raise CommandError(worker.unready)
        if once:
            with worker.rounds() as step:
                self.stdout.write(worker.done.format(step()))
            return
        if self.broadcasts:
            fanout.start_background_loop()  # the worker's changes are drawn off its path
        idle = worker.idle_seconds() if max_idle is None else max_idle
        self.stdout.write(f"{self.what} (looking again at least every {idle:g} s; Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            runtime.run(worker, idle, on_done=lambda n: self.stdout.write(worker.done.format(n)))
