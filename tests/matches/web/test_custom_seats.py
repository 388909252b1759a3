"""The host's game on the platform: a per-match seat count of 2 to 16 (issue 23, part 1).

The create form and the season's manage page offer the game with its seat
count and names; seats, links, clocks, presence and the host's seat pickers
follow the match's own count; the host plays the game in notation through
the dashboard; seat colours exist for all sixteen seats."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.core import HOST, SPECTATOR
from matches.core.audiences import audiences
from matches.core.errors import ServiceError
from matches.models import Match, TurnLog
from matches.play import season_matches, services
from matches.seasons import ledger as seasons
from tests.hostform import seq

NAMES16 = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu", "Mo", "Ned", "Oz", "Pia"]
CSS = Path(__file__).resolve().parents[3] / "static/css/app.css"


def _flash(response: Any) -> str:
    hit = re.search(r'id="host-flash"[^>]*>([^<]*)<', response.content.decode())
    assert hit is not None
    return hit.group(1)


def _version(match: Match) -> int:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    return bout.version


@pytest.mark.django_db
def test_the_create_form_offers_the_hosts_game_with_a_seat_count_and_names(client: Client) -> None:
    page = client.get("/").content.decode()
    assert re.search(r'<option value="custom"[^>]*data-seats-field="opt-custom-seats"', page)
    assert 'name="opt-custom-seats"' in page and 'name="seat16"' in page and 'name="seat17"' not in page
    data = {"game": "custom", "opt-custom-seats": "6", "bouts": "1",
            **{f"seat{n}": name for n, name in enumerate(NAMES16[:6], start=1)}}
    response = client.post("/", data)
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.game_slug == "custom" and match.options == {"seats": 6} and match.seat_count == 6
    assert [s.name for s in match.seats.order_by("number")] == NAMES16[:6]
    host = client.get(response["Location"]).content.decode()
    links = re.findall(r'class="link-url"[^>]*value="[^"]*/p/([^/"]+)/', host) or re.findall(r"/p/([\w-]+)/", host)
    assert {s.token for s in match.seats.all()} <= set(links)
    assert len({s.token for s in match.seats.all()}) == 6


@pytest.mark.django_db
@pytest.mark.parametrize("count", ["1", "17", "six"])
def test_a_seat_count_outside_2_to_16_is_refused_with_a_sentence(client: Client, count: str) -> None:
    response = client.post("/", {"game": "custom", "opt-custom-seats": count, "seat1": "Ann"})
    assert response.status_code == 400
    hit = re.search(r'id="form-error">([^<]*)<', response.content.decode())
    assert hit is not None
    message = hit.group(1)
    expected = "option seats must be a whole number" if count == "six" else \
        f"option seats must be a whole number from 2 to 16, got {count}"
    assert expected in message
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_16_seat_match_runs_on_every_page_and_every_seat_answers(client: Client, make_match: Any) -> None:
    match = make_match("custom", options={"seats": 16}, seat_names=NAMES16)
    seats = list(match.seats.order_by("number"))
    assert len(seats) == 16 and match.seat_count == 16
    assert audiences(match) == [HOST, SPECTATOR, *range(1, 17)]
    host = client.get(f"/h/{match.host_token}/").content.decode()
    for n, name in enumerate(NAMES16, start=1):
        assert f'id="clock-{n}"' in host and name in host
    assert re.search(r'id="presence".*Pia', host, re.S)
    # the host opens a round in notation from the dashboard; every seat answers from its page
    opened = client.post(f"/h/{match.host_token}/act/", {"action": "play", "host_seq": seq(match.host_token),
                                                        "version": _version(match),
                                                        "text": 'round "Pick a number" number 1-20'})
    assert _flash(opened) == "done: round &quot;Pick a number&quot; number 1-20"
    for seat in seats:
        page = client.get(f"/p/{seat.token}/").content.decode()
        assert f"seat-{seat.number}" in page and "Round 1 is open: your answer, please." in page
        answered = client.post(f"/p/{seat.token}/move/", {"text": str(seat.number), "version": _version(match)})
        assert re.search(r'id="move-error"[^>]*>\s*<', answered.content.decode()), seat.number
    state = services.bout_state(match.current_bout)
    assert state.rounds[0].closed and dict(state.rounds[0].answers) == {n: n for n in range(1, 17)}
    # the host's seat pickers reach seat 16 and stop there
    for number, flash in ((17, "there is no such seat"), (16, "bout awarded to Pia")):
        done = client.post(f"/h/{match.host_token}/act/", {"action": "award", "seat": number,
                                                          "host_seq": seq(match.host_token)})
        assert _flash(done) == flash
    match.refresh_from_db()
    assert match.winners == [16]


@pytest.mark.django_db
def test_the_host_plays_only_the_hosts_game_in_notation_and_a_doubled_post_is_applied_once(
        client: Client, make_match: Any) -> None:
    lance = make_match("lance-assembly")
    refused = client.post(f"/h/{lance.host_token}/act/", {"action": "play", "host_seq": seq(lance.host_token),
                                                         "version": _version(lance), "text": "place C3"})
    assert _flash(refused) == "the host plays no moves in Lance Assembly; enter orders for a seat instead"
    match = make_match("custom", options={"seats": 3}, seat_names=["Ann", "Bob", "Cy"])
    form = {"action": "play", "host_seq": seq(match.host_token), "version": _version(match),
            "text": 'announce "Night falls"'}
    assert _flash(client.post(f"/h/{match.host_token}/act/", form)) == "done: announce &quot;Night falls&quot;"
    rows = TurnLog.objects.filter(match=match).count()
    again = client.post(f"/h/{match.host_token}/act/", form)
    assert _flash(again).startswith("already done")
    assert TurnLog.objects.filter(match=match).count() == rows
    bad = client.post(f"/h/{match.host_token}/act/", {**form, "host_seq": seq(match.host_token),
                                                     "version": _version(match), "text": "eliminate 4"})
    assert _flash(bad) == "there is no seat 4 in this bout (seats 1 to 3)"
    assert TurnLog.objects.filter(match=match).count() == rows


@pytest.mark.django_db
def test_a_season_match_of_the_hosts_game_seats_as_many_players_as_are_picked(client: Client) -> None:
    season = seasons.create_season("Spring")
    players = [seasons.add_player(season, name) for name in NAMES16[:6]]
    manage = client.get(reverse("season_manage", args=[season.manage_token])).content.decode()
    assert "Host&#x27;s game (2 to 16 players)" in manage and 'name="seat16"' in manage
    key = f"k{random.getrandbits(64):016x}"
    client.post(reverse("season_act", args=[season.manage_token]),
                {"key": key, "action": "match", "game": "custom",
                 **{f"seat{n}": str(p.pk) for n, p in enumerate(players, start=1)}})
    match = season.matches.get()
    assert match.seat_count == 6
    assert [(s.name, s.season_player_id) for s in match.seats.order_by("number")] == [(p.name, p.pk) for p in players]
    with pytest.raises(ServiceError, match="option seats must be a whole number from 2 to 16, got 1"):
        season_matches.create_season_match(season, "custom", [players[0].pk])
    with pytest.raises(ServiceError, match="only a 2-player match can be the elimination match"):
        season_matches.create_season_match(season, "custom", [p.pk for p in players[:3]], elimination=True)


def test_every_one_of_sixteen_seats_has_a_colour_and_a_shape() -> None:
    css = CSS.read_text()
    found = [re.search(rf"--p{n}:\s*(#[0-9a-fA-F]{{6}})", css) for n in range(1, 17)]
    colours = [hit.group(1).lower() for hit in found if hit is not None]
    assert len(colours) == 16, found
    assert len(set(colours)) == 16
    for n in range(1, 17):
        assert re.search(rf"\.seat-{n} \.dot \{{[^}}]*var\(--p{n}\)", css), n
