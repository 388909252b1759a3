"""Garnets of a match outside a season are kept on the match (`MatchGarnet`).

Until now a host's first garnet award in such a match made (or, issue 21, joined) a season
named "<game name> match #<id>", which anyone could create first and then hold the match's
host link from its manage page.  `move_named_seasons` takes every match out of the season
named after it that way: its ledger entries (those of this match, for one of its seats) are
copied to the match's own garnets, then deleted from the season; the match leaves the season
and its seats their roster entries.  The seasons themselves stay (empty of matches); entries
that name no seat of the match stay in their season.  Running it again moves nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps


def move_named_seasons(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from games.registry import get_game

    Match = apps.get_model("matches", "Match")
    Seat = apps.get_model("matches", "Seat")
    GarnetEntry = apps.get_model("matches", "GarnetEntry")
    MatchGarnet = apps.get_model("matches", "MatchGarnet")
    for match in Match.objects.filter(season__name__contains=" match #").select_related("season").order_by("id"):
        try:
            game_name = get_game(match.game_slug).name
        except KeyError:  # a game no longer registered: its name cannot be told
            continue
        if match.season.name != f"{game_name} match #{match.pk}":
            continue
        seats = list(Seat.objects.filter(match=match))
        by_player = {seat.season_player_id: seat for seat in seats if seat.season_player_id is not None}
        by_name = {seat.name: seat for seat in seats}
        moved = []
        entries = GarnetEntry.objects.filter(season_id=match.season_id, match=match).select_related("player")
        for entry in entries.order_by("created", "id"):
            seat = by_player.get(entry.player_id) or by_name.get(entry.player.name)
            if seat is None:
                continue
            MatchGarnet.objects.create(match=match, seat=seat, amount=entry.amount, reason=entry.reason,
                                       kind=entry.kind, created=entry.created)
            moved.append(entry.pk)
        GarnetEntry.objects.filter(pk__in=moved).delete()  # only once copied, in this transaction
        Seat.objects.filter(match=match).update(season_player=None)
        match.season = None
        match.save(update_fields=["season"])


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0006_deathmatch_unchanged"),
    ]

    operations = [
        migrations.CreateModel(
            name="MatchGarnet",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("amount", models.IntegerField()),
                ("reason", models.CharField(blank=True, max_length=200)),
                ("kind", models.CharField(choices=[("host", "season host"), ("match", "match host"),
                                                   ("earned", "earned"), ("spent", "spent"),
                                                   ("reversal", "reversal")], default="match", max_length=10)),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("match", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                            related_name="match_garnets", to="matches.match")),
                ("seat", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="garnets",
                                           to="matches.seat")),
            ],
            options={
                "ordering": ["created", "id"],
            },
        ),
        migrations.RunPython(move_named_seasons, migrations.RunPython.noop),
    ]
