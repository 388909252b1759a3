from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from matches.core import away, events, runtime
        from matches.discord import season_hosting as discord_seasons
        from matches.discord import sender as discord
        from matches.live import chat_feed as live_chat
        from matches.live import fanout, presence
        from matches.pages import render
        from matches.play import bots, sweeper
        from matches.seasons import webhooks

        events.subscribe(fanout.notify)  # the live path draws and sends every committed change
        events.subscribe_chat(live_chat.notify)  # and every chat line, only to who reads its room
        events.subscribe_alerts(fanout.notify_alerts)  # and the host's away alerts, to the host alone
        webhooks.listen(discord_seasons.announce)  # a season bound to a channel is announced there by the bot
        events.subscribe(bots.on_change)  # a bot seat to act after a commit: its turn becomes a job
        away.provide(presence.seat_presence, presence.last_seen)  # the sweeper asks presence: pauses, abandoning
        render.provide_presence(presence.host_box, presence.public)  # and every page draws who is here
        # the background workers, in a web server process only (matches/core/runtime.py): the clocks,
        # the computer players beside them, season announcements, the Discord outbox and your-turn pings
        runtime.start_in_process(sweeper.WORKER, bots.WORKER, webhooks.WORKER, discord.WORKER)
