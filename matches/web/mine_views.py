"""My matches (/mine/): a player signed in with Discord finds every season and match bound to their
Discord id, and the links that are theirs, without being sent one.

The Discord id is the uid of the user's Discord account (allauth's SocialAccount), which only the
sign-in's callback writes, from what Discord's /users/@me answered for the token the code flow
obtained (config/discord_signin/).  The bindings are the bot's rows: a roster player
(`DiscordPlayer`), a seat (`DiscordSeat`, or the seat of a bound roster player), a host
(`DiscordMatch.host_user`, `DiscordSeason.host_user`).  The page lists secret links, so it is never
cached; it sends nobody else's."""

from __future__ import annotations

from typing import Any

from allauth.socialaccount.models import SocialAccount
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.cache import never_cache

from matches.models import DiscordMatch, DiscordPlayer, DiscordSeason, Match, Seat

#: rows per list: a page, not an archive (the oldest are on the season pages)
LISTED = 100


def discord_id(request: HttpRequest) -> str | None:
    """The signed-in user's Discord id, or None (not signed in, or an account that is not Discord's)."""
    if not request.user.is_authenticated:
        return None
    account = SocialAccount.objects.filter(user_id=request.user.pk, provider="discord").first()
    return str(account.uid) if account else None


def bound_to(user_id: str) -> dict[str, Any]:
    """Everything bound to the Discord user `user_id`."""
    seats = (Seat.objects.filter(Q(discord__user_id=user_id)
                                 | Q(season_player__discord__user_id=user_id, season_player__removed=False))
             .select_related("match", "match__season").distinct().order_by("-match__created", "number"))
    running = list(seats.filter(match__status__in=(Match.SETUP, Match.RUNNING))[:LISTED])
    finished = list(seats.filter(match__status=Match.FINISHED)[:LISTED])
    return {
        "roster": list(DiscordPlayer.objects.filter(user_id=user_id, player__removed=False)
                       .select_related("player", "season").order_by("-season__created")[:LISTED]),
        "running": running,
        "finished": finished,
        "hosted_seasons": list(DiscordSeason.objects.filter(host_user=user_id)
                               .select_related("season").order_by("-created")[:LISTED]),
        "hosted_matches": list(DiscordMatch.objects.filter(host_user=user_id)
                               .exclude(match__status=Match.FINISHED)
                               .select_related("match").order_by("-created")[:LISTED]),
    }


@never_cache
def my_matches(request: HttpRequest) -> HttpResponse:
    user_id = discord_id(request)
    context: dict[str, Any] = {"discord_user": user_id}
    if user_id is not None:
        context.update(bound_to(user_id))
    return render(request, "matches/mine.html", context)


urlpatterns = [path("mine/", my_matches, name="my_matches")]
