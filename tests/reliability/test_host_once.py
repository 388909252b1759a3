"""Defect 4: a host action is applied once, however often it is posted.

The dashboard's forms carry `host_seq` (the host-action count when the page
was drawn).  20 identical posts of one form, as a double click or retries
after an error send them, apply once; the others are told "already done".
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.models import GarnetEntry
from matches.seasons import ledger as seasons

pytestmark = pytest.mark.django_db


def _form(html: str, action: str) -> dict[str, str]:
    """The fields of the dashboard's form for `action`, as the page draws them."""
    for form in re.findall(r"<form[^>]*>(.*?)</form>", html, re.S):
        if f'name="action" value="{action}"' in form:
            fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form))
            for name, options in re.findall(r'<select name="([^"]+)">(.*?)</select>', form, re.S):
                fields[name] = re.findall(r'value="([^"]*)"', options)[0]
            fields.setdefault("action", action)  # a button's name/value
            return fields
    raise AssertionError(f"no {action} form on the dashboard")


def _post_20(client: Client, roles: Any, data: dict[str, str]) -> list[str]:
    return [client.post(f"/h/{roles.host}/act/", data).content.decode().split("</div>", 1)[0] for _ in range(20)]


def test_twenty_identical_garnet_posts_record_one_entry(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", season=seasons.create_season("Spring"))
    roles = type("R", (), {"host": match.host_token})
    data = _form(client.get(f"/h/{match.host_token}/").content.decode(), "garnets")
    data.update(amount="3", reason="bonus")
    flashes = _post_20(client, roles, data)
    assert GarnetEntry.objects.filter(match=match).count() == 1
    assert sum(GarnetEntry.objects.filter(match=match).values_list("amount", flat=True)) == 3
    assert "garnets +3 recorded" in flashes[0]
    assert all("already done" in f for f in flashes[1:])
    # a fresh page (new host_seq) records the next one
    data = _form(client.get(f"/h/{match.host_token}/").content.decode(), "garnets")
    data.update(amount="1")
    assert "recorded" in _post_20(client, roles, data)[0]
    assert GarnetEntry.objects.filter(match=match).count() == 2


def test_twenty_identical_add_time_posts_add_thirty_seconds_once(client: Client, roles: Any) -> None:
    from matches.models import Clock

    def reserve() -> float:
        return Clock.objects.get(bout=roles.match.bouts.order_by("-number").first(), seat=2).reserve

    before = reserve()
    data = _form(client.get(f"/h/{roles.host}/").content.decode(), "clock")
    data.update(seat="2", seconds="30")
    flashes = _post_20(client, roles, data)
    notes = roles.match.turns.filter(kind="host", text__contains="30 s for seat 2")
    assert notes.count() == 1, [n.text for n in notes]
    assert reserve() == before + 30
    assert "clock changed by +30 s" in flashes[0]
    assert all("already done" in f for f in flashes[1:])


def test_a_post_without_the_page_version_is_refused_and_changes_nothing(client: Client, roles: Any) -> None:
    before = roles.match.turns.count()
    html = client.post(f"/h/{roles.host}/act/", {"action": "pause"}).content.decode()
    assert "reload the page" in html
    roles.match.refresh_from_db()
    assert not roles.match.paused and roles.match.turns.count() == before


def test_moves_between_drawing_and_posting_do_not_block_a_host_action(client: Client, roles: Any, play: Any) -> None:
    data = _form(client.get(f"/h/{roles.host}/").content.decode(), "pause")
    play(roles.match, 1, "place C3")  # a player moves meanwhile: host_seq counts host actions only
    assert "clocks paused" in client.post(f"/h/{roles.host}/act/", data).content.decode()
