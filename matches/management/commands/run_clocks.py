"""`python manage.py run_clocks`: the clock sweeper (matches/play/sweeper.py), safe to run in
several processes: each time-out is claimed with a compare-and-swap.  It sleeps until the next
deadline, looking again at least every `--max-idle` seconds for deadlines set by other processes."""

from matches.management.workers import WorkerCommand
from matches.play import sweeper


class Command(WorkerCommand):
    help = "Apply expired clock and round deadlines, once (--once) or as they fall due."
    worker = sweeper.WORKER
    what = "apply the deadlines as they fall due"
