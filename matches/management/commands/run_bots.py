"""`python manage.py run_bots`: one worker of the computer players' jobs (matches/play/bots.py):
two threads take the jobs (one the quick lane only, one every lane, quick first) while the main
thread takes back jobs whose worker died.  Any number of these, on any machine that reaches the
database: a job is taken by one of them.  `--once`: every ready job, in this thread, then exit."""

from typing import Any

from matches.management.workers import WorkerCommand
from matches.play import bots


class Command(WorkerCommand):
    help = "Play the computer players' turns as their jobs come, or every ready one once (--once)."
    worker = bots.WORKER
    what = "play the bots' turns (jobs on the lanes " + ", ".join(bots.LANES) + ")"

    def handle(self, *args: Any, once: bool = False, max_idle: float | None = None, **options: Any) -> None:
        if once:
            self.stdout.write(f"played {bots.sweep_bots()} bot move(s)")
            return
        super().handle(*args, max_idle=max_idle, **options)
