from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # starts only inside a web server process (see matches/sweeper.py)
        from matches.core import events
        from matches.live import fanout as live
        from matches.play import sweeper
        from matches.seasons import webhooks

        events.subscribe(live.notify)  # the live path draws and sends every committed change
        from matches.core import away
        from matches.live import presence

        away.provide(presence.seat_presence)  # the sweeper's auto-pause asks presence
        sweeper.maybe_start()
        webhooks.maybe_start()
