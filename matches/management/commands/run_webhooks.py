"""`python manage.py run_webhooks`: deliver season announcements (the outbox of
matches/seasons/webhooks.py).  Safe next to the in-process worker and other copies of itself:
each attempt is claimed by compare-and-swap."""

from matches.management.workers import WorkerCommand
from matches.seasons import webhooks


class Command(WorkerCommand):
    help = "Post due season announcements to their webhooks, once (--once) or as they come."
    worker = webhooks.WORKER
    broadcasts = False  # announcements change no page
    what = "deliver the announcements"
