"""Every matches model in the admin, with the columns a host looks for."""

from django.contrib import admin

from .models import Bout, Clock, GarnetEntry, Match, Season, SeasonPlayer, Seat, TokenOfLife, TurnLog


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never edited here: the log is append-only and a bout's state,
    version and clocks change only through matches/services.py (an edit here
    would leave the snapshot disagreeing with its log and skip the broadcast)."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


class SeasonPlayerInline(admin.TabularInline):
    model = SeasonPlayer
    extra = 0


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("name", "created")
    search_fields = ("name",)
    inlines = [SeasonPlayerInline]


@admin.register(SeasonPlayer)
class SeasonPlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "season", "garnet_balance")
    list_filter = ("season",)
    search_fields = ("name",)


@admin.register(GarnetEntry)
class GarnetEntryAdmin(admin.ModelAdmin):
    list_display = ("created", "season", "player", "amount", "reason", "match")
    list_filter = ("season",)
    search_fields = ("player__name", "reason")


@admin.register(TokenOfLife)
class TokenOfLifeAdmin(admin.ModelAdmin):
    list_display = ("created", "season", "player", "match", "reason")
    list_filter = ("season",)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    # tokens are secrets: visible to staff on the seat page, not in every list
    exclude = ("token",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game_slug", "status", "paused", "season", "created", "started", "finished", "winners")
    list_filter = ("status", "game_slug", "season")
    readonly_fields = ("host_token", "watch_token")
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "name", "season_player")
    search_fields = ("name",)


@admin.register(Bout)
class BoutAdmin(ReadOnlyAdmin):
    list_display = ("match", "number", "starting_seat", "version", "reason", "counts", "deadline", "started", "finished")
    list_filter = ("reason", "counts")


@admin.register(TurnLog)
class TurnLogAdmin(ReadOnlyAdmin):
    list_display = ("match", "bout", "sequence", "kind", "actor", "by_host", "text", "time_used", "undone", "corrected", "created")
    list_filter = ("kind", "undone", "corrected")
    search_fields = ("text",)


@admin.register(Clock)
class ClockAdmin(ReadOnlyAdmin):
    list_display = ("bout", "seat", "per_move", "reserve", "deadline", "running_since", "paused")
