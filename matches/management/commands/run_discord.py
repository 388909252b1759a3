"""`python manage.py run_discord`: send the Discord outbox and queue the your-turn pings
(matches/discord/sender.py).  Safe next to the in-process worker and other copies of itself: each
attempt is claimed by compare-and-swap, each ping's key is unique."""

from matches.discord import sender
from matches.management.workers import WorkerCommand


class Command(WorkerCommand):
    help = "Send due Discord messages and queue your-turn pings, once (--once) or as they come."
    worker = sender.WORKER
    broadcasts = False  # its messages change no page
    what = "send the Discord messages"
