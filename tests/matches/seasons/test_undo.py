"""The manage page's Undo (issue 25, safer host controls): a status change or a garnet entry made a
moment ago is taken back once, within 30 s, announced like any change; a status changed since is
left to the host, and the ledger keeps both entries (it is append-only)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from matches.models import SeasonEvent, WebhookPost
from matches.seasons import ledger as seasons

pytestmark = pytest.mark.django_db


@pytest.fixture
def season() -> Any:
    season = seasons.create_season("Season 3", webhook_url="https://discord.com/api/webhooks/1/x")
    for name in ("Xavi", "Yuri"):
        seasons.add_player(season, name)
    return season


def xavi(season: Any) -> Any:
    return season.players.get(name="Xavi")


def test_an_elimination_is_undone_once_and_announced(season: Any) -> None:
    seasons.set_status(season, xavi(season), "candidate", key="k-candidate-xxxxxxxx")
    event = seasons.set_status(season, xavi(season), "eliminated", "lost the vote", key="k-eliminate-xxxxxxxx")
    undone = seasons.undo(season, event.pk, key="k-undo-xxxxxxxx")
    assert undone.text == "undone: Xavi is eliminated (Xavi is elimination candidate again)"
    assert xavi(season).status == "candidate"
    assert xavi(season).status_event_id == SeasonEvent.objects.get(season=season, key="form:k-candidate-xxxxxxxx").pk
    posts = list(WebhookPost.objects.filter(season=season).order_by("id").values_list("content", flat=True))
    assert "undone: Xavi is eliminated" in posts[-1]
    with pytest.raises(seasons.AlreadyDone):  # the same click twice
        seasons.undo(season, event.pk, key="k-undo-xxxxxxxx")
    with pytest.raises(seasons.ServiceError, match="already undone: Xavi is eliminated"):
        seasons.undo(season, event.pk, key="k-undo-again-xxxxxxxx")
    assert xavi(season).status == "candidate"


def test_undo_is_refused_after_its_time_and_once_the_status_changed_again(season: Any) -> None:
    event = seasons.set_status(season, xavi(season), "eliminated", key="k1-xxxxxxxx")
    with (time_machine.travel(timezone.now() + timedelta(seconds=seasons.UNDO_SECONDS + 1)),
          pytest.raises(seasons.ServiceError, match="too late to undo")):
        seasons.undo(season, event.pk, key="k2-xxxxxxxx")
    assert xavi(season).status == "eliminated"
    event = seasons.set_status(season, xavi(season), "active", key="k3-xxxxxxxx")
    seasons.set_status(season, xavi(season), "candidate", key="k4-xxxxxxxx")
    with pytest.raises(seasons.ServiceError, match="Xavi's status has changed since"):
        seasons.undo(season, event.pk, key="k5-xxxxxxxx")
    assert xavi(season).status == "candidate"


def test_garnets_are_cancelled_by_an_entry_of_their_own(season: Any) -> None:
    seasons.adjust_garnets(season, xavi(season), 5, "won the main match")
    entry = seasons.adjust_garnets(season, xavi(season), -3, "late", key="g1-xxxxxxxx")
    assert entry.event is not None
    undone = seasons.undo(season, entry.event.pk, key="g2-xxxxxxxx")
    assert undone.text == "undone: Xavi -3 garnets, now 2 (Xavi has 5 garnets)"
    assert xavi(season).garnet_balance() == 5
    amounts = list(xavi(season).garnet_entries.order_by("id").values_list("amount", "reason"))
    assert amounts == [(5, "won the main match"), (-3, "late"), (3, "undo of: late")]


def test_only_this_pages_changes_of_this_season_can_be_undone(season: Any) -> None:
    other = seasons.create_season("Season 4")
    seasons.add_player(other, "Zed")
    theirs = seasons.set_status(other, other.players.get(name="Zed"), "eliminated", key="o1-xxxxxxxx")
    with pytest.raises(seasons.ServiceError, match="only a status change or garnets"):
        seasons.undo(season, theirs.pk, key="u1-xxxxxxxx")
    joined = SeasonEvent.objects.get(season=season, kind="roster", player=xavi(season))
    with pytest.raises(seasons.ServiceError, match="only a status change or garnets"):
        seasons.undo(season, joined.pk, key="u2-xxxxxxxx")
    assert other.players.get(name="Zed").status == "eliminated"


def test_the_manage_page_offers_undo_after_an_elimination(season: Any) -> None:
    client = Client()
    act = reverse("season_act", args=[season.manage_token])
    reply = client.post(act, {"action": "status", "player": xavi(season).pk, "status": "eliminated",
                              "key": "page-1-xxxxxxxx"}, follow=True)
    page = reply.content.decode()
    assert "Xavi is eliminated" in page and 'id="season-undo"' in page
    event = SeasonEvent.objects.get(season=season, key="form:page-1-xxxxxxxx")
    assert f'name="event" value="{event.pk}"' in page
    reply = client.post(act, {"action": "undo", "event": event.pk, "key": "page-2-xxxxxxxx"}, follow=True)
    page = reply.content.decode()
    assert "undone: Xavi is eliminated (Xavi is active again)" in page
    assert 'id="season-undo"' not in page  # an undo is not offered an undo
    assert xavi(season).status == "active"
    public = client.get(reverse("season_page", args=[season.slug])).content.decode()
    assert "season-undo" not in public and season.manage_token not in public
