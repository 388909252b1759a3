"""The host's game takes its seats from the names the host types (issue 56).

The seat count field is what the host gets with no names typed; typed names decide it, as a
BGA table is the players at it: two names make two seats, never "Player 3" and "Player 4"."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from matches.models import Match


def _create(client: Client, **fields: str) -> Match:
    response = client.post("/", {"game": "custom", "bouts": "1", **fields})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Match.objects.get()


def _names(match: Match) -> list[str]:
    return [s.name for s in match.seats.order_by("number")]


@pytest.mark.django_db
def test_two_names_typed_make_two_seats_whatever_the_count_field_says(client: Client) -> None:
    match = _create(client, **{"opt-custom-seats": "4", "seat1": "Ann", "seat2": "Bob", "seat3": "", "seat4": ""})
    assert match.seat_count == 2 and match.options["seats"] == 2
    assert _names(match) == ["Ann", "Bob"]
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert "Player 3" not in host and "Player 4" not in host


@pytest.mark.django_db
def test_more_names_than_the_count_field_make_as_many_seats(client: Client) -> None:
    names = ["Ann", "Bob", "Cy", "Di", "Ed"]
    match = _create(client, **{"opt-custom-seats": "3"}, **{f"seat{n}": name for n, name in enumerate(names, 1)})
    assert match.seat_count == 5 and _names(match) == names


@pytest.mark.django_db
def test_with_no_name_typed_the_count_field_decides(client: Client) -> None:
    match = _create(client, **{"opt-custom-seats": "5"})
    assert _names(match) == [f"Player {n}" for n in range(1, 6)]


@pytest.mark.django_db
def test_a_seat_left_unnamed_before_the_last_named_one_stays(client: Client) -> None:
    match = _create(client, **{"opt-custom-seats": "6", "seat1": "Ann", "seat3": "Cy"})
    assert _names(match) == ["Ann", "Player 2", "Cy"]


@pytest.mark.django_db
def test_one_name_is_refused_with_a_sentence_and_creates_nothing(client: Client) -> None:
    response = client.post("/", {"game": "custom", "bouts": "1", "opt-custom-seats": "4", "seat1": "Ann"})
    assert response.status_code == 400
    hit = re.search(r'id="form-error">([^<]*)<', response.content.decode())
    assert hit is not None and "you named one player" in hit.group(1)
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_game_with_a_fixed_seat_count_keeps_it(client: Client) -> None:
    response = client.post("/", {"game": "lance-assembly", "bouts": "1", "seat1": "Ann"})
    assert response.status_code == 302
    assert _names(Match.objects.get()) == ["Ann", "Player 2"]
