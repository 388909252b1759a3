from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # starts only inside a web server process (see matches/sweeper.py)
        from matches.core import events
        from matches.live import chat_feed as live_chat
        from matches.live import fanout as live
        from matches.play import bots, sweeper
        from matches.seasons import webhooks

        events.subscribe(live.notify)  # the live path draws and sends every committed change
        events.subscribe_chat(live_chat.notify)  # and every chat line, only to who reads its room
        events.subscribe_alerts(live.notify_alerts)  # and the host's away alerts, to the host alone
        from matches.core import away
        from matches.live import presence

        away.provide(presence.seat_presence)  # the sweeper's auto-pause asks presence
        sweeper.maybe_start()
        bots.maybe_start()  # computer players in seats, beside the clocks
        webhooks.maybe_start()
        from matches.discord import sender as discord

        discord.maybe_start()  # the Discord outbox and your-turn pings, when the app is a Discord application
