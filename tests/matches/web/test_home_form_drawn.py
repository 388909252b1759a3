"""The home form is drawn as home.js would show it: only the chosen game's options, as many seat rows
as it seats, the round clock only for a sealed game.  Before, the server drew every game's options
and sixteen seat rows and the script hid them once the page had loaded, so the form jumped (and a
click could land on a button still moving: tests/browser/conftest.py's `wait_refused`)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games.registry import get_game, slugs


def _visible(page: str, pattern: str) -> list[str]:
    """The `data-...` value of every element whose opening tag matches `pattern` and is not hidden."""
    return [m.group(1) for m in re.finditer(pattern, page) if " hidden" not in m.group(0)]


def _drawn(page: str) -> tuple[list[str], list[str], list[str], bool]:
    options = _visible(page, r'<fieldset class="game-options" data-game="([^"]+)"[^>]*>')
    seats = _visible(page, r'<div class="seat-name" data-seat="(\d+)"[^>]*>')
    starting = _visible(page, r'<option value="\d+" data-seat="(\d+)"[^>]*>')
    round_label = re.search(r'<label id="round-label"[^>]*>', page)
    assert round_label is not None
    return options, seats, starting, " hidden" not in round_label.group(0)


@pytest.mark.django_db
def test_a_new_form_shows_the_first_games_options_and_seats_only() -> None:
    first = get_game(slugs()[0])
    options, seats, starting, round_clock = _drawn(Client().get("/").content.decode())
    assert options == ([slugs()[0]] if first.default_options.keys() - {"starting_seat"} else [])
    assert seats == starting == [str(n) for n in range(1, first.seats + 1)]
    assert round_clock is first.sealed


@pytest.mark.django_db
def test_a_form_sent_back_shows_the_game_it_was_sent_with() -> None:
    # a sealed game of four seats, refused for its names: its options, four rows, the round clock
    sent = {"game": "back-to-the-wall", "seat1": "Ann", "seat2": "Ann", "seat3": "Cy", "seat4": "Di"}
    response = Client().post("/", sent)
    assert response.status_code == 400
    options, seats, starting, round_clock = _drawn(response.content.decode())
    assert options == ["back-to-the-wall"]
    assert seats == starting == ["1", "2", "3", "4"]
    assert round_clock


@pytest.mark.django_db
@pytest.mark.parametrize(("typed", "rows"), [("6", 6), ("40", 16), ("one", 2)])
def test_the_hosts_game_shows_the_seats_its_option_asks_for(typed: str, rows: int) -> None:
    sent = {"game": "custom", "opt-custom-seats": typed, "seat1": "Ann", "seat2": "Ann"}
    response = Client().post("/", sent)
    assert response.status_code == 400
    options, seats, starting, _ = _drawn(response.content.decode())
    assert options == ["custom"]
    assert seats == starting == [str(n) for n in range(1, rows + 1)]


def _starting_shown(page: str) -> bool:
    label = re.search(r'<label id="starting-label"[^>]*>', page)
    assert label is not None
    return " hidden" not in label.group(0)


@pytest.mark.django_db
@pytest.mark.parametrize("slug", slugs())
def test_the_starting_seat_is_offered_only_for_a_game_that_takes_one(slug: str) -> None:
    """Game.takes_starting_seat: a game whose rules fix the first mover (Grid Master's X) or whose
    seats all act at once is offered no choice, on the home form nor on the host's Start; one that
    takes it gets the seat chosen."""
    from matches.web import forms

    takes = bool(get_game(slug).takes_starting_seat)
    sent = {"game": slug, "seat1": "Ann", "seat2": "Ann", "starting_seat": "2"}  # refused for its names
    page = Client().post("/", sent).content.decode()
    assert _starting_shown(page) is takes
    assert f'value="{slug}"' in page and f'data-starts="{int(takes)}"' in page  # what home.js follows
    fields = {**sent, "seat2": "Bob", "seat3": "Cy", "seat4": "Di"}
    assert forms.parse_create(fields).get("starting_seat") == (2 if takes else None)


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["lance-assembly", "grid-master"])
def test_the_host_s_start_asks_who_moves_first_only_when_the_game_takes_it(make_match: Any, slug: str) -> None:
    match = make_match(slug, start=False)  # in setup: the host's Start is on the page
    page = Client().get(f"/h/{match.host_token}/").content.decode()
    assert 'id="host-start"' in page
    assert ('name="starting_seat"' in page) is bool(get_game(slug).takes_starting_seat)
