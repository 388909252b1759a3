"""Bidding's own words on the pages (issue 41, item 5): the log says a seat "bid" (not the generic
"submitted sealed orders") to the other seat and to spectators, and the seat's page says that
chips bid on a tile lost or tied are spent too.  Through the pages each audience's link gets."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.play import services

pytestmark = pytest.mark.django_db


def _log_rows(html: str) -> list[str]:
    found = re.search(r'<ol[^>]* id="log-list"[^>]*>(.*?)</ol>', html, re.S)
    assert found
    rows = re.findall(r'<span class="who">(.*?)</span>\s*<span class="text">(.*?)</span>', found.group(1), re.S)
    return [f"{who.strip()} {text.strip()}" for who, text in rows]


def test_the_log_says_bid_to_the_other_seat_and_spectators(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    services.submit(match, 1, "A1 7; E5 11", match.current_bout.version)
    client = Client()
    for url in (f"/p/{match.seat(2).token}/", f"/w/{match.watch_token}/"):
        html = client.get(url).content.decode()
        assert "Ann bid" in _log_rows(html), url
        assert "sealed orders" not in " ".join(_log_rows(html)) and "E5 11" not in html, url
    # the bidder and the host read the bid itself
    assert "Ann A1 7; E5 11" in _log_rows(client.get(f"/p/{match.seat(1).token}/").content.decode())
    assert "Ann A1 7; E5 11" in _log_rows(client.get(f"/h/{match.host_token}/").content.decode())


def test_a_seats_page_says_chips_bid_on_a_lost_tile_are_spent(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    text = re.sub(r"<[^>]+>", "", Client().get(f"/p/{match.seat(1).token}/").content.decode())
    assert "Every chip you bid is spent, whether you win the tile or lose it." in text
    assert "chips bid are spent whether the tile is won or not" in text
