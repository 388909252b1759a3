"""Who resigned or ran out of time, in every audience's words (issue 41, items 3 and 5): the status
line and the end banner of the resigner's, the opponent's, the spectators' and the host's pages
name the seat that lost by it; "you" opens a sentence only at its start.  Through the services and
the pages each audience's link gets (the Django test client)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.test import Client

from matches.models import Match
from matches.play import requests, services

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def _part(html: str, element_id: str) -> str:
    found = re.search(rf'<(\w+) id="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return _text(found.group(2))


def _pages(match: Any) -> dict[str, str]:
    """Each audience's page as a fresh load: the two seats', the spectators', the host's."""
    client = Client()
    urls = {"ann": f"/p/{match.seat(1).token}/", "bob": f"/p/{match.seat(2).token}/",
            "watch": f"/w/{match.watch_token}/", "host": f"/h/{match.host_token}/"}
    return {who: client.get(url).content.decode() for who, url in urls.items()}


def _status(match: Any) -> dict[str, str]:
    return {who: _part(html, "status") for who, html in _pages(match).items()}


def test_a_resigned_bout_names_who_resigned_on_every_page(make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    requests.resign(match, 1, "bout")
    assert _status(match) == {
        "ann": "You resigned bout 1: Bob wins it.",
        "bob": "Ann resigned bout 1: you win it.",
        "watch": "Ann resigned bout 1: Bob wins it.",
        "host": "Ann resigned bout 1: Bob wins it.",
    }
    for who, html in _pages(match).items():
        assert "opponent" not in _part(html, "banner"), who


def test_a_resigned_match_names_who_resigned_on_every_page(make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    requests.resign(match, 2, "match")
    assert Match.objects.get(pk=match.pk).status == Match.FINISHED
    assert _status(match) == {
        "ann": "Bob resigned the match: you win it.",
        "bob": "You resigned the match: Ann wins it.",
        "watch": "Bob resigned the match: Ann wins it.",
        "host": "Bob resigned the match: Ann wins it.",
    }


def test_the_last_bout_resigned_in_a_best_of_3_is_named_in_the_match_banner(make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    requests.resign(match, 2, "bout")
    services.start_next_bout(match)
    requests.resign(match, 2, "bout")
    pages = _pages(match)
    assert _part(pages["ann"], "status").startswith("You win the match — won 2 bouts of a best of 3")
    assert "Bob resigned bout 2." in _text(pages["watch"])
    assert "You resigned bout 2." in _text(pages["bob"])


def test_a_time_out_names_who_ran_out_for_every_audience(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("lance-assembly", bouts=3, clock={"per_move": 10, "reserve": 0})
    services.submit(match, 1, "place C3", match.current_bout.version)
    time_machine.shift(15)  # past Bob's allowance and the lag grace
    assert services.sweep_clocks() == 1
    assert _status(match) == {
        "ann": "Bob ran out of time: you win bout 1.",
        "bob": "You ran out of time: Ann wins bout 1.",
        "watch": "Bob ran out of time: Ann wins bout 1.",
        "host": "Bob ran out of time: Ann wins bout 1.",
    }


def test_a_time_out_that_ends_the_match_names_who_ran_out(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("lance-assembly", clock={"per_move": 10, "reserve": 0, "on_timeout": "match"})
    time_machine.shift(15)  # Ann, to move first, never does
    assert services.sweep_clocks() == 1
    pages = _pages(match)
    assert {who: _part(html, "status") for who, html in pages.items()} == {
        "ann": "You ran out of time: Bob wins the match.",
        "bob": "Ann ran out of time: you win the match.",
        "watch": "Ann ran out of time: Bob wins the match.",
        "host": "Ann ran out of time: Bob wins the match.",
    }
    assert _part(pages["bob"], "banner-head") == "Ann ran out of time: you win the match"
