"""Issue 56: a front door.  Every page kind carries the site's header (Host a match, Practice,
Seasons, How to play) and a meta description of its own; the home page says what Deathmatch is and
who it is for before its forms; the seasons list and a season's public page reach each other."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from matches.models import Match
from matches.play import services
from matches.seasons import ledger as seasons

pytestmark = pytest.mark.django_db

NAV = ["Host a match", "Practice", "Seasons", "How to play"]


def _pages() -> dict[str, str]:
    match: Match = services.create_match("grid-master", seat_names=["Ann", "Bob"])
    season = seasons.create_season("Spring")
    return {
        "home": reverse("home"),
        "seat": reverse("player_page", args=[match.seats.get(number=1).token]),
        "spectator": reverse("watch_page", args=[match.watch_token]),
        "host": reverse("host_page", args=[match.host_token]),
        "how to play": reverse("rules_index"),
        "a game's rules": reverse("rules_page", args=["grid-master"]),
        "seasons": reverse("season_list"),
        "season": reverse("season_page", args=[season.slug]),
    }


def test_every_page_kind_has_the_header_and_its_own_description(client: Any) -> None:
    descriptions = {}
    for kind, url in _pages().items():
        page = client.get(url).content.decode()
        nav = re.search(r'<nav class="topnav" aria-label="site">(.*?)</nav>', page, re.S)
        assert nav is not None, kind
        assert [re.sub(r"<.*?>", "", a).strip() for a in re.findall(r"<a [^>]*>.*?</a>", nav.group(1))] == NAV, kind
        found = re.search(r'<meta name="description" content="([^"]+)">', page)
        assert found is not None and len(found.group(1)) > 40, kind
        descriptions[kind] = found.group(1)
    # one of its own on each page kind (a seat, the spectators and the host share a match's)
    assert len({descriptions[k] for k in ("home", "how to play", "a game's rules", "seasons", "season", "seat")}) == 6


def test_the_home_page_says_what_it_is_before_the_forms(client: Any) -> None:
    page = client.get(reverse("home")).content.decode()
    about, form = page.index('id="about"'), page.index('id="create-form"')
    assert about < form and page.index('id="practice-form"') > about
    text = re.sub(r"<.*?>", "", page[about:form])
    assert "Deathmatch" in text and "It is for" in text


def test_the_seasons_list_and_a_season_page_reach_each_other(client: Any) -> None:
    season = seasons.create_season("Spring")
    services.create_match("grid-master", seat_names=["Ann", "Bob"], season=season)  # the list shows seasons with a match
    listing = client.get(reverse("season_list")).content.decode()
    assert reverse("season_page", args=[season.slug]) in listing
    assert reverse("season_list") in client.get(reverse("season_page", args=[season.slug])).content.decode()
