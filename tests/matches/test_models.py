"""Models, admin and formats: what the rest of the app reads."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib import admin
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from matches.core import formats
from matches.models import (
    Bout,
    Clock,
    GarnetEntry,
    Match,
    MatchGarnet,
    Season,
    SeasonPlayer,
    Seat,
    TokenOfLife,
    TurnLog,
)
from matches.play import services

ALL_MODELS = [Season, SeasonPlayer, GarnetEntry, TokenOfLife, Match, MatchGarnet, Seat, Bout, TurnLog, Clock]


def test_tokens_are_unguessable_and_distinct(db: Any) -> None:
    matches = [services.create_match("lance-assembly") for _ in range(3)]
    tokens = [t for m in matches for t in (m.host_token, m.watch_token, *m.seats.values_list("token", flat=True))]
    assert len(set(tokens)) == len(tokens) == 12
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{32}", t) for t in tokens)


def test_every_model_is_in_the_admin_and_its_list_renders(roles: Any, admin_client: Client, play: Any) -> None:
    play(roles.match, 1, "place C3")
    services.adjust_garnets(roles.match, 1, 1, "test")
    services.end_match(roles.match, [1])
    for model in ALL_MODELS:
        assert admin.site.is_registered(model), model
        url = reverse(f"admin:matches_{model._meta.model_name}_changelist")
        assert admin_client.get(url).status_code == 200, url


def test_match_score_current_bout_and_next_bout_flag(roles: Any) -> None:
    match = roles.match
    assert match.current_bout.number == 1 and not match.needs_next_bout
    services.award_bout(match, 2)
    assert match.needs_next_bout and match.score() == {1: 0, 2: 1}
    services.start_next_bout(match)
    assert match.current_bout.number == 2 and match.seat(2).name == "Bob"


def test_log_entries_say_who_acted(grid_roles: Any) -> None:
    match = grid_roles.match
    bout = match.current_bout
    services.host_apply(match, "seat 1: place A1", bout.version)
    services.submit(match, 2, "place B2", bout.version + 1)
    whos = [t.who for t in TurnLog.objects.filter(match=match).order_by("sequence")]
    assert whos == ["host", "host for seat 1", "seat 2"]


def test_only_one_active_entry_per_sequence(grid_roles: Any) -> None:
    match = grid_roles.match
    entry = services.submit(match, 1, "place A1", match.current_bout.version)
    with pytest.raises(IntegrityError), transaction.atomic():
        TurnLog.objects.create(match=match, bout=entry.bout, sequence=entry.sequence, actor=1, text="place C1")
    entry.corrected = True
    entry.save()
    TurnLog.objects.create(match=match, bout=entry.bout, sequence=entry.sequence, actor=1, text="place C1")


def test_clock_remaining() -> None:
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    running = Clock(per_move=60, reserve=300, running_since=now, deadline=now + dt.timedelta(seconds=360))
    assert running.remaining(now + dt.timedelta(seconds=10)) == 350
    assert running.remaining(now + dt.timedelta(seconds=999)) == 0
    assert Clock(per_move=60, reserve=250).remaining(now) == 250
    paused = Clock(per_move=60, reserve=300, used=20, paused=True)
    assert paused.remaining(now) == 340 and paused.as_json(now)["paused"]


def test_season_ledger_balances(db: Any) -> None:
    season = Season.objects.create(name="Winter")
    ann = SeasonPlayer.objects.create(season=season, name="Ann")
    GarnetEntry.objects.create(season=season, player=ann, amount=3, reason="won")
    GarnetEntry.objects.create(season=season, player=ann, amount=-1, reason="late")
    assert season.garnets() == {"Ann": 2} and ann.garnet_balance() == 2
    assert str(GarnetEntry.objects.last()) == "Ann -1 (late)"


# -- formats (each game's default) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "options", "bouts", "clock"),
    [
        ("lance-assembly", {}, 3, {"per_move": 60, "reserve": 300, "refill": True, "on_timeout": "bout"}),
        ("lance-assembly", {"variant": "sliding-tic-tac-toe"}, 3, {"per_move": 120, "reserve": 300, "refill": False}),
        ("two-connect", {}, 1, {"per_move": None, "reserve": 1200, "refill": False, "on_timeout": "match"}),
        ("grid-master", {}, 1, None),
        ("bidding-ttt", {}, 1, None),
        ("back-to-the-wall", {}, 1, None),
        ("squava", {}, 1, None),
    ],
)
def test_default_formats_follow_the_rulings(slug: str, options: dict[str, Any], bouts: int,
                                           clock: dict[str, Any] | None) -> None:
    fmt = formats.default_format(slug, options)
    assert fmt["bouts"] == bouts
    if clock is None:
        assert fmt["clock"] is None
    else:
        assert {k: fmt["clock"][k] for k in clock} == clock
    assert fmt["stalemate_replays"] == (slug == "lance-assembly")


def test_the_host_changes_the_format() -> None:
    fmt = formats.build_format("grid-master", bouts=5, clock={"per_move": 30, "reserve": 60})
    assert fmt["bouts"] == 5 and fmt["clock"]["per_move"] == 30 and fmt["clock"]["on_timeout"] == "bout"
    bank = formats.build_format("grid-master", clock={"bank": 600, "on_timeout": "match"})["clock"]
    assert (bank["per_move"], bank["reserve"], bank["refill"], bank["on_timeout"]) == (None, 600, False, "match")
    assert formats.build_format("lance-assembly", clock=None)["clock"] is None
    assert formats.build_format("bidding-ttt", clock={"round_seconds": "90"})["clock"]["round_seconds"] == 90
    bad_clocks: list[dict[str, Any]] = [{"per_move": -1}, {"speed": 3}, {"on_timeout": "never"}, {"round_seconds": 0}]
    for bad in bad_clocks:
        with pytest.raises(formats.FormatError):
            formats.build_format("grid-master", clock=bad)
    with pytest.raises(formats.FormatError):
        formats.build_format("grid-master", colour="red")
