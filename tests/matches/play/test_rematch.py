"""Rematch (issue 25): from a finished match the host creates the same game, options, format and
seats in one click; each seat's old secret link leads to its seat in the new match; seats may be
swapped; a second click is refused; every audience's end banner links to the rematch."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.models import Match
from matches.play import services
from tests.hostform import seq

pytestmark = pytest.mark.django_db


def _rematch(client: Client, match: Any, **extra: str) -> Any:
    return client.post(f"/h/{match.host_token}/act/", {"action": "rematch", "host_seq": seq(match.host_token),
                                                       **extra})


def test_rematch_keeps_game_options_seats_and_links(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3, options={"variant": "sliding-tic-tac-toe"})
    ann, bob = match.seat(1), match.seat(2)
    refused = _rematch(client, match).content.decode()
    assert "a rematch starts from a finished match" in refused
    services.forfeit(match, 2, scope="match")
    reply = _rematch(client, match)
    match.refresh_from_db()
    new = Match.objects.exclude(pk=match.pk).get()
    assert reply.status_code == 204 and reply["HX-Redirect"] == f"/h/{new.host_token}/"
    assert (new.game_slug, new.status, new.options) == (match.game_slug, "setup", match.options)
    assert new.format["bouts"] == match.format["bouts"] and new.options["variant"] == "sliding-tic-tac-toe"
    assert [s.name for s in new.seats.order_by("number")] == ["Ann", "Bob"]
    assert {new.host_token, new.watch_token}.isdisjoint({match.host_token, match.watch_token})
    # the old seat links lead to the new seats
    for old, number in ((ann, 1), (bob, 2)):
        page = client.get(f"/p/{old.token}/")
        assert page.status_code == 302 and page["Location"] == f"/p/{new.seat(number).token}/"
    # every audience's end banner of the old match links to the rematch (the host and spectators by
    # their new pages; a seat's own link)
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert f'href="/h/{new.host_token}/" id="rematch-link"' in host and 'id="host-rematch"' not in host
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert f'href="/w/{new.watch_token}/" id="rematch-link"' in watch and new.host_token not in watch
    fragments = client.get(f"/f/{ann.token}/").content.decode()
    assert 'href="./" id="rematch-link"' in fragments and new.host_token not in fragments
    assert re.search(r"created a rematch \(match \d+\)", match.turns.order_by("-id").first().text)
    # a doubled click is refused
    again = _rematch(client, match).content.decode()
    assert "this match already has a rematch" in again
    assert Match.objects.count() == 2


def test_rematch_may_swap_the_seats(client: Client, make_match: Any) -> None:
    match = make_match("squava")
    services.end_match(match, [1])
    _rematch(client, match, swap="1")
    new = Match.objects.exclude(pk=match.pk).get()
    assert [s.name for s in new.seats.order_by("number")] == ["Bob", "Ann"]
    assert client.get(f"/p/{match.seat(1).token}/")["Location"] == f"/p/{new.seat(2).token}/"
    # and a rematch of the rematch: the oldest link follows the chain
    services.start_match(new)
    services.end_match(new, [2])
    _rematch(client, new)
    newest = Match.objects.exclude(pk__in=[match.pk, new.pk]).get()
    assert client.get(f"/p/{match.seat(1).token}/", follow=True).redirect_chain[-1][0] == \
        f"/p/{newest.seat(2).token}/"
