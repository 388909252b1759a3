"""A finished board shows no turn hints (issue 41): a bout ended by a forfeit keeps its rules'
state, which still names a seat to move, so Grid Master lit the corners ("The first move goes on
a corner.") and Two Connect said "Your turn" on a board nobody may play.  Each audience's page,
through the Django test client."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from matches.play import services

CORNER = "The first move goes on a corner."
HINTED = re.compile(r'<button [^>]*class="cell [^"]*\bhint\b')


def _pages(client: Client, match: Any) -> dict[str, str]:
    links = {f"seat {s.number}": f"/p/{s.token}/" for s in match.seats.all()}
    links.update(host=f"/h/{match.host_token}/", spectator=f"/w/{match.watch_token}/")
    return {who: client.get(url).content.decode() for who, url in links.items()}


@pytest.mark.django_db
@pytest.mark.parametrize("scope", ["bout", "match"])
def test_grid_master_lights_no_corner_once_the_bout_is_over(make_match: Callable[..., Any], client: Client,
                                                            scope: str) -> None:
    match = make_match("grid-master", bouts=3)
    for who, html in _pages(client, match).items():  # the first turn: every page lights the corners
        assert CORNER in html and len(HINTED.findall(html)) == 4, who
    services.forfeit(match, 1, scope)
    match.refresh_from_db()
    assert match.status == ("running" if scope == "bout" else "finished")
    for who, html in _pages(client, match).items():
        assert CORNER not in html and "the first move goes on a corner" not in html, who
        assert HINTED.findall(html) == [], who
        assert "your-turn" not in html, who

    if scope == "bout":  # the next bout's first turn is hinted again
        services.start_next_bout(match)
        assert all(CORNER in html for html in _pages(client, match).values())


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["two-connect", "yinsh"])
def test_two_connect_says_no_turn_once_the_bout_is_over(make_match: Callable[..., Any], client: Client,
                                                        slug: str) -> None:
    match = make_match(slug, bouts=3)
    assert 'id="tc-hint"' in _pages(client, match)["seat 1"]
    services.forfeit(match, 2, "bout")
    for who, html in _pages(client, match).items():
        assert 'id="tc-hint"' not in html and "Your turn" not in html, who
