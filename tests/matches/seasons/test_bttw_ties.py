"""Back to the Wall's ties for first or last (issue 41, item 5): seats equal on every tie-break are
flagged to the host to settle, as Bidding's tie is; nobody is both Token of Life winner and
Elimination Candidate.  A four-way tie (nobody submits: the host resolves three rounds, every seat
keeps only its corner) played through the services, read on every audience's page and in the
season it feeds."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.models import Match, SeasonPlayer, TokenOfLife
from matches.play import season_matches, services
from matches.seasons import ledger as seasons

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cy", "Di"]
TIED = "Ann and Bob and Cy and Di are tied on every tie-break: the host decides"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def _part(html: str, element_id: str) -> str:
    found = re.search(rf'<(\w+)[^>]* id="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return _text(found.group(2))


def _resolve_three_rounds(match: Match) -> None:
    for _ in range(3):
        bout = match.bouts.order_by("-number").first()
        assert bout is not None
        services.host_apply(match, "resolve", bout.version)
    match.refresh_from_db()
    assert match.status == Match.FINISHED


def test_a_four_way_tie_is_flagged_to_the_host_on_every_page(make_match: Any) -> None:
    match = make_match("back-to-the-wall")
    _resolve_three_rounds(match)
    assert match.winners == [1, 2, 3, 4] and match.result_reason == "tie"  # all are ranked first
    client = Client()
    urls = [f"/p/{match.seat(n).token}/" for n in (1, 2, 3, 4)] + [f"/w/{match.watch_token}/", f"/h/{match.host_token}/"]
    for url in urls:
        html = client.get(url).content.decode()
        assert _part(html, "banner-head").endswith(
            "— tied for first on every tie-break: the host settles the Token of Life"), url
        banner = _part(html, "banner")
        assert f"Token of Life: {TIED}." in banner and f"Elimination Candidate: {TIED}." in banner, url
        standings = _part(html, "bttw-standings")
        assert f"Token of Life: {TIED}" in standings and f"Elimination Candidate: {TIED}" in standings, url


def test_a_four_way_tie_in_a_season_gives_no_token_and_no_candidate() -> None:
    season = seasons.create_season("Spring")
    for name in NAMES:
        seasons.add_player(season, name)
    match = season_matches.create_season_match(season, "back-to-the-wall",
                                               [season.players.get(name=n).pk for n in NAMES])
    services.start_match(match)
    _resolve_three_rounds(match)
    assert TokenOfLife.objects.filter(season=season).count() == 0
    assert set(season.players.values_list("status", flat=True)) == {SeasonPlayer.ACTIVE}
    assert "win (tie)" in season.events.get(kind="match_result").text
