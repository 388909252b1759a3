"""Every matches model in the admin, with the columns a host looks for."""

from typing import TypeVar

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from matches.models import (
    Bout,
    Clock,
    Duel,
    Episode,
    GarnetEntry,
    Match,
    MatchGarnet,
    Season,
    SeasonEvent,
    SeasonPlayer,
    Seat,
    TokenOfLife,
    TurnLog,
    WebhookPost,
)

M = TypeVar("M", bound=models.Model)


class ReadOnlyAdmin(admin.ModelAdmin[M]):
    """Shown, never edited here: the log is append-only and a bout's state,
    version and clocks change only through matches/services.py (an edit here
    would leave the snapshot disagreeing with its log and skip the broadcast)."""

    def has_add_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False


class SeasonPlayerInline(admin.TabularInline[SeasonPlayer, Season]):
    model = SeasonPlayer
    extra = 0
    fields = ("name", "status", "removed", "garnet_balance", "tokens_held")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Season | None = None) -> bool:
        return False


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin[Season]):
    """Staff manage a season on its manage page (the link below): every change
    there goes through matches/seasons.py (one transaction, logged, applied
    once, announced).  Here: its name, webhook and links."""

    list_display = ("name", "slug", "manage", "webhook_set", "webhook_error_at", "created")
    search_fields = ("name", "slug")
    fields = ("name", "slug", "manage", "public", "webhook_url", "webhook_error", "webhook_error_at",
              "webhook_ok_at", "base_url", "created")
    readonly_fields = ("slug", "manage", "public", "webhook_error", "webhook_error_at", "webhook_ok_at", "created")
    inlines = [SeasonPlayerInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description="manage page")
    def manage(self, obj: Season) -> SafeString | str:
        if not obj.pk:
            return "-"
        return format_html('<a href="{}">manage this season</a>', reverse("season_manage", args=[obj.manage_token]))

    @admin.display(description="public page")
    def public(self, obj: Season) -> SafeString | str:
        return format_html('<a href="{0}">{0}</a>', reverse("season_page", args=[obj.slug])) if obj.pk else "-"

    @admin.display(boolean=True, description="webhook")
    def webhook_set(self, obj: Season) -> bool:
        return bool(obj.webhook_url)


class SeasonRowAdmin(ReadOnlyAdmin[M]):
    """Roster, ledger, tokens and the season log change only through the
    season's manage page (matches/seasons.py): the ledger is append-only and
    every change is logged and announced; an edit here would skip all that."""


@admin.register(SeasonPlayer)
class SeasonPlayerAdmin(SeasonRowAdmin[SeasonPlayer]):
    list_display = ("name", "season", "status", "removed", "garnet_balance", "tokens_held")
    list_filter = ("season", "status", "removed")
    search_fields = ("name",)


@admin.register(GarnetEntry)
class GarnetEntryAdmin(SeasonRowAdmin[GarnetEntry]):
    list_display = ("created", "season", "player", "amount", "kind", "reason", "match")
    list_filter = ("season", "kind")
    search_fields = ("player__name", "reason")


@admin.register(TokenOfLife)
class TokenOfLifeAdmin(SeasonRowAdmin[TokenOfLife]):
    list_display = ("created", "season", "player", "match", "reason", "used", "revoked")
    list_filter = ("season",)


@admin.register(SeasonEvent)
class SeasonEventAdmin(SeasonRowAdmin[SeasonEvent]):
    list_display = ("created", "season", "kind", "text", "reason", "reversed")
    list_filter = ("season", "kind")
    search_fields = ("text", "reason")


@admin.register(Episode)
class EpisodeAdmin(SeasonRowAdmin[Episode]):
    list_display = ("season", "number", "started", "ended")
    list_filter = ("season",)


@admin.register(Duel)
class DuelAdmin(SeasonRowAdmin[Duel]):
    list_display = ("episode", "candidate", "opponent", "game_slug", "settled_how", "death_match")


@admin.register(WebhookPost)
class WebhookPostAdmin(SeasonRowAdmin[WebhookPost]):
    list_display = ("created", "season", "status", "attempts", "next_attempt", "sent", "last_error", "content")
    list_filter = ("season", "status")


@admin.register(MatchGarnet)
class MatchGarnetAdmin(ReadOnlyAdmin[MatchGarnet]):
    """Garnets of a match in no season: recorded on its host dashboard, moved into a season's
    ledger when the season host adds the match (matches/season_attach.py)."""

    list_display = ("created", "match", "seat", "amount", "kind", "reason")
    list_filter = ("kind",)
    search_fields = ("seat__name", "reason")


class SeatInline(admin.TabularInline[Seat, Match]):
    model = Seat
    extra = 0
    # tokens are secrets: visible to staff on the seat page, not in every list
    exclude = ("token",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = ("id", "game_slug", "status", "paused", "season", "created", "started", "finished", "winners")
    list_filter = ("status", "game_slug", "season")
    readonly_fields = ("host_token", "watch_token")
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin[Seat]):
    list_display = ("match", "number", "name", "season_player")
    search_fields = ("name",)


@admin.register(Bout)
class BoutAdmin(ReadOnlyAdmin[Bout]):
    list_display = ("match", "number", "starting_seat", "version", "reason", "counts", "deadline", "started", "finished")
    list_filter = ("reason", "counts")


@admin.register(TurnLog)
class TurnLogAdmin(ReadOnlyAdmin[TurnLog]):
    list_display = ("match", "bout", "sequence", "kind", "actor", "by_host", "text", "time_used", "undone", "corrected", "created")
    list_filter = ("kind", "undone", "corrected")
    search_fields = ("text",)


@admin.register(Clock)
class ClockAdmin(ReadOnlyAdmin[Clock]):
    list_display = ("bout", "seat", "per_move", "reserve", "deadline", "running_since", "paused")
