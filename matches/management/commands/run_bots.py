"""`python manage.py run_bots`: move for every computer player in a seat, as its turn comes
(matches/play/bots.py), safe to run in several processes: each turn is claimed with a
compare-and-swap."""

from matches.management.workers import WorkerCommand
from matches.play import bots


class Command(WorkerCommand):
    help = "Play the computer players' turns, once (--once) or as they come."
    worker = bots.WORKER
    what = "play the bots' turns"
