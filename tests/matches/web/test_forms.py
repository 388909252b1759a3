"""The "host a match" form without raw JSON: variant names and descriptions,
garnets as one number field per seat, Back to the Wall's boards as a size and
a list of wall squares per board (checked by the game's rules), and bad values
sent back with the field marked and one sentence."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.models import Match
from matches.play import services

pytestmark = pytest.mark.django_db

BTTW = {"game": "back-to-the-wall", "bouts": "1", **{f"seat{n}": f"P{n}" for n in range(1, 5)}}
BOARD = "opt-back-to-the-wall-boards"


def _marked(html: str, name: str) -> bool:
    """The field `name` is marked invalid in the returned form."""
    tag = re.search(rf'<(?:input|select)[^>]*name="{re.escape(name)}"[^>]*>', html)
    return tag is not None and 'aria-invalid="true"' in tag.group(0)


def test_home_shows_variant_and_game_names_with_descriptions_and_no_json(client: Client) -> None:
    html = client.get("/").content.decode()
    assert ">Sliding Tic-Tac-Toe</option>" in html and ">Lance Assembly</option>" in html
    assert ">sliding-tic-tac-toe<" not in html
    assert "not refilled" in html  # the variant's one-line description
    assert "five in a row" in html  # the game's one-line description
    assert 'name="opt-bidding-ttt-garnets-1"' in html and 'name="opt-bidding-ttt-garnets-2"' in html
    assert f'name="{BOARD}-once-size"' in html and f'name="{BOARD}-thrice-walls"' in html
    assert "{}" not in html and '"walls"' not in html  # nothing to type as JSON


def test_garnets_one_field_per_seat(client: Client) -> None:
    response = client.post("/", {"game": "bidding-ttt", "seat1": "Red", "seat2": "Blue",
                                 "opt-bidding-ttt-chips": "80", "opt-bidding-ttt-garnets-1": "3",
                                 "opt-bidding-ttt-garnets-2": ""})
    assert response.status_code == 302
    assert Match.objects.get().options["garnets"] == {"1": 3}


@pytest.mark.parametrize("value, words", [("-1", "between 0 and 1000"), ("two", "whole number")])
def test_bad_garnets_come_back_marked_with_one_sentence(client: Client, value: str, words: str) -> None:
    response = client.post("/", {"game": "bidding-ttt", "seat1": "Red", "seat2": "Blue",
                                 "opt-bidding-ttt-garnets-2": value})
    html = response.content.decode()
    assert response.status_code == 400 and not Match.objects.exists()
    assert "the garnets of seat 2 must be" in html and words in html
    assert _marked(html, "opt-bidding-ttt-garnets-2") and not _marked(html, "opt-bidding-ttt-garnets-1")
    assert f'value="{value}"' in html  # what the host typed is kept


def test_boards_from_size_selects_and_wall_lists(client: Client) -> None:
    data = {**BTTW, f"{BOARD}-once-size": "6", f"{BOARD}-once-walls": "b3, e4",
            f"{BOARD}-twice-size": "9", f"{BOARD}-twice-walls": "C5",
            f"{BOARD}-thrice-size": "8", f"{BOARD}-thrice-walls": ""}
    response = client.post("/", data)
    assert response.status_code == 302, response.content.decode()[:300]
    boards = Match.objects.get().options["boards"]
    assert boards["once"] == {"size": 6, "walls": ["B3", "E4"]}
    assert boards["twice"] == {"size": 9, "walls": ["C5"]}
    assert boards["thrice"] == {"size": 8, "walls": []}


@pytest.mark.parametrize("walls, reason", [
    ("A1", "cannot stand on the corner A1"),
    ("A2, B1", "cut a corner off"),
    ("Z9", "not on the board"),
])
def test_a_refused_wall_marks_its_board(client: Client, walls: str, reason: str) -> None:
    response = client.post("/", {**BTTW, f"{BOARD}-twice-size": "7", f"{BOARD}-twice-walls": walls})
    html = response.content.decode()
    assert response.status_code == 400 and not Match.objects.exists()
    assert reason in html and "Twice" in html
    assert _marked(html, f"{BOARD}-twice-walls") and not _marked(html, f"{BOARD}-once-walls")


def test_board_check_answers_from_the_rules(client: Client) -> None:
    url = "/new/board/"
    got: dict[str, Any] = client.get(url, {"board": "once", "size": "6"}).json()
    assert got["ok"] and got["walls"] == ["B3", "E4"]  # the rules' default walls for the size
    assert got["corners"] == {"A1": 1, "F1": 2, "F6": 3, "A6": 4}
    corner = client.get(url, {"board": "once", "size": "6", "walls": "B3,A6"}).json()
    assert not corner["ok"] and "corner A6" in corner["error"] and corner["corners"]["A6"] == 4
    cut = client.get(url, {"board": "thrice", "size": "8", "walls": "G8,H7"}).json()
    assert not cut["ok"] and "cut a corner off" in cut["error"]
    assert client.get(url, {"board": "nowhere", "size": "6"}).status_code == 400


def test_bad_bouts_mark_the_field_and_keep_the_names(client: Client) -> None:
    response = client.post("/", {"game": "grid-master", "seat1": "Xena", "seat2": "Otto", "bouts": "0"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "the number of bouts must be between 1 and 99" in html
    assert _marked(html, "bouts") and 'value="Xena"' in html


@pytest.mark.parametrize(("game", "field", "label"), [("grid-master", "per_move", "per-move time"),
                                                      ("bidding-ttt", "round_seconds", "round deadline")])
def test_a_clock_under_a_second_marks_the_field_and_creates_nothing(client: Client, game: str, field: str,
                                                                    label: str) -> None:
    """The least clock (formats.MIN_SECONDS) is checked on the server, not only by the field's `min`
    (a post need not come from the page); /deathmatch new takes the same bound."""
    response = client.post("/", {"game": game, field: "0.001"})
    html = response.content.decode()
    assert response.status_code == 400
    assert f"the {label} must be at least 1 s" in html and _marked(html, field)
    assert f'name="{field}" type="number" min="1"' in html
    assert not Match.objects.exists()
    with pytest.raises(services.ServiceError, match="at least 1 s"):
        services.create_match(game, clock={field: 0.5})
    assert client.post("/", {"game": game, field: "1"}).status_code == 302


def test_bouts_over_the_most_are_refused_by_the_services_too(client: Client) -> None:
    assert "between 1 and 99" in client.post("/", {"game": "grid-master", "bouts": "100"}).content.decode()
    with pytest.raises(services.ServiceError, match="at most 99 bouts"):
        services.create_match("grid-master", bouts=100)
    assert not Match.objects.exists()


def test_sliding_tic_tac_toe_is_titled_by_its_variant(client: Client) -> None:
    response = client.post("/", {"game": "lance-assembly", "opt-lance-assembly-variant": "sliding-tic-tac-toe"})
    assert response.status_code == 302
    host = client.get(response["Location"]).content.decode()
    assert "<h1>Sliding Tic-Tac-Toe</h1>" in host and "<title>Sliding Tic-Tac-Toe" in host
    assert "<h1>Lance Assembly</h1>" not in host


def test_back_to_the_wall_garnets_per_seat_empty_means_not_counted(client: Client) -> None:
    html = client.get("/").content.decode()
    assert all(f'name="opt-back-to-the-wall-garnets-{n}"' in html for n in range(1, 5))
    assert client.post("/", BTTW).status_code == 302
    assert Match.objects.get().options.get("garnets", {}) == {}
    response = client.post("/", {**BTTW, "opt-back-to-the-wall-garnets-1": "2", "opt-back-to-the-wall-garnets-3": "0"})
    assert response.status_code == 302
    created = Match.objects.order_by("-id").first()
    assert created is not None
    assert created.options["garnets"] == {"1": 2, "3": 0}


def test_the_home_page_leads_to_the_seasons(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get("/").content.decode()
    assert 'href="/seasons/"' in html
