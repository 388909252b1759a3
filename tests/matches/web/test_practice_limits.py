"""Practice matches are bounded per client (issue 51, section 3): one browser may have 3 running at
once, one address 10 (a room behind one router); the next is refused with one sentence naming the
running ones: this browser's own with a link to the player's seat, another browser's by name only,
never its link.  A doubled submit still finds its match at the limit; a match that ends frees its
place.  Enforced inside the creating transaction: two posts at once from one browser at 2 running
make one more, never two (PostgreSQL; SQLite runs write transactions one at a time).

Time is frozen: the "matches" budget (10 a minute per address) moves only when the clock does."""

from __future__ import annotations

import datetime as dt
import re
import secrets
from typing import Any

import pytest
import time_machine
from django.test import Client

from matches.models import Match
from matches.play import practising, requests
from tests.conftest import POSTGRES
from tests.threads import released_together

NOON = dt.datetime(2030, 5, 1, 12, 0, 0, tzinfo=dt.UTC)
ROOM = "198.51.100.20"  # one router's address
FORM = {"game": "squava", "strength": "easy", "seat": "1"}


def _key() -> str:
    return secrets.token_urlsafe(16)  # the shape of a page's form key (22 characters)


def _browser(address: str = ROOM) -> Client:
    client = Client(REMOTE_ADDR=address)
    client.get("/")  # its CSRF cookie: who the browser is
    return client


def _practise(client: Client, key: str | None = None, **extra: Any) -> Any:
    return client.post("/practice/", {**FORM, "key": key or _key()}, **extra)


def _seat(response: Any) -> str:
    assert response.status_code == 302, response.content.decode()[:400]
    return str(response["Location"]).rstrip("/").rsplit("/", 1)[1]


def _sentence(response: Any) -> str:
    found = re.search(r'id="practice-error">(.*?)</div>', response.content.decode(), re.S)
    assert found, response.content.decode()[:400]
    return found.group(1)


@pytest.mark.django_db
def test_the_fourth_practice_match_of_a_browser_is_refused_naming_its_three(client: Client) -> None:
    with time_machine.travel(NOON, tick=False):
        ann = _browser()
        key = _key()
        seats = [_seat(_practise(ann)), _seat(_practise(ann)), _seat(_practise(ann, key))]
        refused = _practise(ann)
        assert refused.status_code == 429 and Match.objects.count() == 3  # nothing created
        sentence = _sentence(refused)
        assert sentence.startswith("You have 3 practice matches running already (")
        assert sentence.endswith("finish or resign one before you start another.")
        matches = list(Match.objects.order_by("id"))
        for match, seat in zip(matches, seats, strict=True):  # each by name, linked to the player's own seat
            assert f'<a href="/p/{seat}/">Squava #{match.pk}</a>' in sentence
            assert match.host_token not in sentence
            assert all(s.token not in sentence for s in match.seats.exclude(bot=""))
        # with htmx ("Play again" on a finished match's page): the same sentence, out of band
        hx = _practise(ann, HTTP_HX_REQUEST="true")
        assert 'id="practice-again-error"' in hx.content.decode() and "You have 3 practice" in hx.content.decode()
        # a doubled submit of the third still leads to its seat
        assert _seat(_practise(ann, key)) == seats[2]
        # another browser behind the same address has its own three
        assert _seat(_practise(_browser())) not in seats
        # a match that ends frees its place
        first = matches[0]
        requests.resign(first, first.seats.get(bot="").number, "match")
        assert _seat(_practise(ann)) not in seats
        assert _practise(ann).status_code == 429
    assert Match.objects.count() == 5


@pytest.mark.django_db
def test_the_eleventh_from_one_address_is_refused_without_another_browsers_links() -> None:
    with time_machine.travel(NOON, tick=False) as clock:
        browsers = [_browser() for _ in range(4)]
        mine = browsers[3]
        own: list[str] = []
        for n in range(10):  # 3 + 3 + 3 + 1, the last browser's one its own
            clock.shift(7)  # within the "matches" budget of the address (10 a minute)
            seat = _seat(_practise(browsers[n // 3]))
            if n == 9:
                own.append(seat)
        clock.shift(60)
        refused = _practise(mine)
        assert refused.status_code == 429 and Match.objects.count() == 10
        sentence = _sentence(refused)
        assert sentence.startswith("10 practice matches are running from your address already (")
        assert sentence.endswith("one of them must end before another starts.")
        for match in Match.objects.all():
            assert f"Squava #{match.pk}" in sentence
            assert match.host_token not in sentence and match.watch_token not in sentence
            player = match.seats.get(bot="").token
            assert (player in sentence) == (player in own)  # only this browser's own seat is linked
        assert sentence.count("<a ") == 1
        # another address is not held back; an IPv6 room is one address per /64
        assert _seat(_practise(_browser("203.0.113.50")))
    assert Match.objects.count() == 11


@pytest.mark.django_db
def test_an_ipv6_room_shares_one_bound_per_64() -> None:
    with time_machine.travel(NOON, tick=False) as clock:
        for n in range(10):
            clock.shift(7)
            _seat(_practise(_browser(f"2001:db8:5:6::{n + 1:x}")))
        clock.shift(60)
        refused = _practise(_browser("2001:db8:5:6:abcd::1"))
        assert refused.status_code == 429 and "from your address" in _sentence(refused)
        assert _seat(_practise(_browser("2001:db8:5:7::1")))  # the next /64


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_posts_at_once_at_two_running_make_one_more() -> None:
    """The count and the insert are one transaction behind the browser's lock: without it, both
    posts counted 2 and both created a match (4 running)."""
    ann = _browser()
    _seat(_practise(ann))
    _seat(_practise(ann))
    cookie = ann.cookies["csrftoken"].value
    statuses: list[int] = []

    def post() -> None:
        client = Client(REMOTE_ADDR=ROOM)
        client.cookies["csrftoken"] = cookie
        statuses.append(_practise(client).status_code)

    assert released_together(post, post) == []
    assert sorted(statuses) == [302, 429]
    assert Match.objects.filter(status=Match.RUNNING).count() == practising.BROWSER_LIMIT
