"""The host's game (issue 41, item 5): an eliminated seat ranks below every seat still in, whatever
its points (the scoreboard, the ranking by points the console offers, a ranking the host types),
and once the host scores the header shows points, not bouts won.  Through the services and the
pages each audience's link gets."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import pytest
from django.test import Client

from games.core import IllegalAction
from matches.play import services

pytestmark = pytest.mark.django_db


def _host(match: Any, text: str) -> None:
    match.refresh_from_db()
    services.host_apply(match, text, match.current_bout.version)


def _pages(match: Any) -> dict[str, str]:
    client = Client()
    urls = {"seat 1": f"/p/{match.seat(1).token}/", "seat 2": f"/p/{match.seat(2).token}/",
            "watch": f"/w/{match.watch_token}/", "host": f"/h/{match.host_token}/"}
    return {who: client.get(url).content.decode() for who, url in urls.items()}


def _scoreboard(html: str) -> list[str]:
    board = re.search(r'<ol class="hg-scoreboard">(.*?)</ol>', html, re.S)
    assert board
    return re.findall(r'<span class="hg-name">(.*?)</span>', board.group(1))


def _header(html: str) -> list[tuple[str, str, str]]:
    score = re.search(r'<div id="score"[^>]*>(.*?)</div>', html, re.S)
    assert score
    return [(n.strip(), label, shown) for n, label, shown in re.findall(
        r'<span class="dot" aria-hidden="true"></span>([^<]*)<b aria-label="([^"]*)">([^<]*)</b>', score.group(1))]


@pytest.fixture
def match(make_match: Any) -> Any:
    """Ann, Bob, Cy, Di: Ann has the most points, then is eliminated."""
    match = make_match("custom", options={"seats": 4})
    _host(match, 'give 1 5 "Best answer"')
    _host(match, 'give 2 3 "Good answer"')
    _host(match, 'give 3 1 "Close"')
    _host(match, "eliminate 1")
    return match


def test_an_eliminated_seat_ranks_below_every_seat_still_in_on_every_page(match: Any) -> None:
    for who, html in _pages(match).items():
        assert _scoreboard(html) == ["Bob", "Cy", "Di", "Ann"], who
    console = _pages(match)["host"]
    button = re.search(r'id="hg-end-ranking"[^>]*data-notation="([^"]*)" title="([^"]*)"', console)
    assert button and button.groups() == ("end ranking 2, 3, 4, 1", html_lib.escape("Bob, then Cy, then Di, then Ann"))
    # the console's ranking ends the bout: Ann, out, is last
    _host(match, button.group(1))
    match.refresh_from_db()
    assert match.status == "finished" and match.winners == [2]
    assert "Ranking: 1. Bob; 2. Cy; 3. Di; 4. Ann." in re.sub(r"<[^>]+>", "", _pages(match)["watch"])


def test_a_typed_ranking_may_not_put_an_eliminated_seat_level_with_or_above_a_seat_still_in(match: Any) -> None:
    for text in ("end ranking 1, 2, 3, 4", "end ranking 2, 3, 1=4"):
        with pytest.raises(IllegalAction, match="seat 1 is out: it ranks below every seat still in"):
            _host(match, text)
    _host(match, "end ranking 3, 2, 4, 1")
    match.refresh_from_db()
    assert match.winners == [3]


def test_the_header_shows_points_once_the_host_scores(make_match: Any) -> None:
    match = make_match("custom", options={"seats": 4})
    for who, html in _pages(match).items():  # nothing scored yet: bouts won, as every game
        assert _header(html) == [(n, "0 bouts won", "0") for n in ("Ann", "Bob", "Cy", "Di")], who
    _host(match, 'give 2 3 "Good answer"')
    _host(match, 'take 3 1 "Late"')
    _host(match, 'give 4 1 "Close"')
    expected = [("Ann", "0 points", "0 pts"), ("Bob", "3 points", "3 pts"), ("Cy", "-1 point", "-1 pt"),
                ("Di", "1 point", "1 pt")]
    for who, html in _pages(match).items():
        assert _header(html) == expected, who
