"""{% discord_status match %}: on the host's dashboard, for a match hosted from Discord, how its messages
fare: Discord refusing the bot token (matches/discord/sender.py then sends nothing with it until the
setting changes), else the last message the bot could not send (kept on the match's DiscordMatch)."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from matches.models import DiscordMatch, DiscordRefusedToken

register = template.Library()


@register.inclusion_tag("matches/partials/discord_status.html")
def discord_status(match: Any) -> dict[str, Any]:
    record = DiscordMatch.objects.filter(match_id=match.pk).only("last_error", "last_error_at").first()
    refused = DiscordRefusedToken.of(str(getattr(settings, "DISCORD_BOT_TOKEN", "") or "")) if record else None
    return {"discord": record, "refused": refused}
