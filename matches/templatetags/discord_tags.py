"""{% discord_status match %}: on the host's dashboard, for a match hosted from Discord, the last
message the bot could not send (matches/discord/sender.py keeps it on the match's DiscordMatch)."""

from __future__ import annotations

from typing import Any

from django import template

from matches.models import DiscordMatch

register = template.Library()


@register.inclusion_tag("matches/partials/discord_status.html")
def discord_status(match: Any) -> dict[str, Any]:
    record = DiscordMatch.objects.filter(match_id=match.pk).only("last_error", "last_error_at").first()
    return {"discord": record}
