"""The "host a match" form seats the computer from the start (issue 27): each seat is "played by"
a person or the computer at a strength.  The seats chosen get their bot, the log says so, and the
seat's name on the pages says "(computer, normal)"; a bad choice is refused with a sentence that
names the seat, creating nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from matches.models import Match, Seat, TurnLog
from matches.play import bots, services

pytestmark = pytest.mark.django_db


def test_the_form_offers_a_person_or_the_computer_for_every_seat() -> None:
    page = Client().get("/").content.decode()
    for n in (1, 2, 16):
        select = page.split(f'<select name="bot{n}"')[1].split("</select>")[0]
        assert '<option value="">a person</option>' in select
        assert '<option value="strong">the computer, strong</option>' in select


def test_a_match_created_with_the_computer_in_two_seats_of_back_to_the_wall() -> None:
    client = Client()
    response = client.post("/", {"game": "back-to-the-wall", "seat1": "Ann", "seat2": "Bob", "seat3": "Cy",
                                 "seat4": "Di", "bot2": "normal", "bot4": "easy", "bot3": ""})
    assert response.status_code == 302, response.content.decode()[:400]
    match = Match.objects.get(host_token=response["Location"].split("/")[2])
    assert dict(Seat.objects.filter(match=match).values_list("number", "bot")) == {1: "", 2: "normal", 3: "",
                                                                                  4: "easy"}
    notes = list(TurnLog.objects.filter(match=match).values_list("text", flat=True))
    assert "seat 2 (Bob) is played by the computer (normal)" in notes
    assert "seat 4 (Di) is played by the computer (easy)" in notes
    host_page = client.get(response["Location"]).content.decode()
    assert "Bob (computer, normal)" in host_page and "Di (computer, easy)" in host_page
    assert "Ann (computer" not in host_page
    # once started, the bots move from the worker on their own, and only theirs
    services.start_match(match)
    assert bots.sweep_bots() == 2
    state = match.game.load(match.bouts.get().state)
    assert match.game.pending(state) == {1, 3}  # the round waits for Ann and Cy alone


@pytest.mark.parametrize(("fields", "message"), [
    ({"bot2": "grandmaster"}, "seat 2 is played by a person or by the computer (easy, normal or strong), "
                              "not &#x27;grandmaster&#x27;"),
    ({"bot1": "NORMAL!"}, "seat 1 is played by a person or by the computer (easy, normal or strong), "
                          "not &#x27;normal!&#x27;"),
])
def test_a_bad_choice_is_refused_and_creates_nothing(fields: dict[str, str], message: str) -> None:
    response = Client().post("/", {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob", **fields})
    page = response.content.decode()
    assert response.status_code == 400
    assert f'<div class="move-error" role="alert" id="form-error">{message}</div>' in page
    field = next(iter(fields))
    assert 'aria-invalid="true"' in page.split(f'<select name="{field}"')[1][:60]
    assert Match.objects.count() == 0 and Seat.objects.count() == 0


def test_a_seat_beyond_the_games_count_is_ignored() -> None:
    response = Client().post("/", {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob", "bot3": "strong"})
    assert response.status_code == 302
    assert list(Seat.objects.values_list("number", "bot")) == [(1, ""), (2, "")]
