"""The Token of Life question on the pages (issue 25): asked on the match host's panel and on the
season's manage page, never on a seat's or a spectator's page; answered once per form (a doubled
click is told "already done"); and the manage page's destructive forms name their consequence."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.urls import reverse

from matches.models import Match, Season, SeasonEvent
from matches.play import season_matches, services
from matches.seasons import ledger as seasons
from tests.matches.web.test_seasons_views import act, flash, manage

pytestmark = pytest.mark.django_db


@pytest.fixture
def season() -> Season:
    season = seasons.create_season("Season 3")
    for name in ("Ann", "Xavi", "Cy"):
        seasons.add_player(season, name)
    return season


@pytest.fixture
def lost(season: Season) -> Match:
    """Xavi, holding a Token of Life, forfeits the elimination match to Ann."""
    xavi = season.players.get(name="Xavi")
    seasons.grant_token(season, xavi, "won the main match")
    match = season_matches.create_season_match(season, "squava", [season.players.get(name="Ann").pk, xavi.pk],
                                               elimination=True)
    services.start_match(match)
    services.forfeit(match, 2)
    return match


def test_the_host_panel_asks_and_no_other_audience_sees_the_question(client: Any, season: Season, lost: Match) -> None:
    page = html.unescape(client.get(reverse("host_page", args=[lost.host_token])).content.decode())
    assert "Xavi lost this elimination match and holds a Token of Life: use it?" in page
    assert "Xavi holds a Token of Life: answer under Moderation whether to use it." in page  # the end banner
    assert 'hx-confirm="Xavi uses the Token of Life and stays in Season 3."' in page
    assert 'hx-confirm="Xavi keeps the Token of Life and is eliminated from Season 3."' in page
    seat = lost.seats.get(number=2)
    for url in (reverse("player_page", args=[seat.token]), reverse("watch_page", args=[lost.watch_token])):
        other = client.get(url).content.decode()
        assert 'value="token"' not in other and "holds a Token of Life" not in other


def test_the_host_answers_on_the_match_page_once(client: Any, season: Season, lost: Match) -> None:
    xavi = season.players.get(name="Xavi")
    page = client.get(reverse("host_page", args=[lost.host_token])).content.decode()
    hit = re.search(r'name="host_seq" value="(\d+)"', page)
    assert hit is not None
    seq = hit.group(1)
    url = reverse("host_act", args=[lost.host_token])
    form = {"host_seq": seq, "action": "token", "player": xavi.pk, "answer": "keep"}
    first = html.unescape(client.post(url, form).content.decode())
    assert "Xavi does not use a Token of Life: the elimination stands" in first
    assert "holds a Token of Life: use it?" not in first  # the redrawn panel asks no more
    again = html.unescape(client.post(url, form).content.decode())  # the doubled click
    assert "already done" in again
    assert SeasonEvent.objects.filter(kind="token_kept").count() == 1
    standings = client.get(manage(season)).content.decode()
    assert "Token of Life questions" not in standings


def test_the_manage_page_asks_and_a_doubled_answer_is_applied_once(client: Any, season: Season, lost: Match) -> None:
    xavi = season.players.get(name="Xavi")
    page = html.unescape(client.get(manage(season)).content.decode())
    assert f"Xavi lost the elimination match Squava #{lost.pk} and holds a Token of Life: use it?" in page
    assert 'data-confirm="Xavi keeps the Token of Life and is eliminated from Season 3."' in page
    assert "eliminated unless the Token of Life is used" in page  # the standings while it is open
    public = client.get(reverse("season_page", args=[season.slug])).content.decode()
    assert "eliminated unless the Token of Life is used" in public and 'value="token_question"' not in public
    hit = re.search(r'name="key" value="([^"]+)"', page)
    assert hit is not None
    key = hit.group(1)
    url = reverse("season_act", args=[season.manage_token])
    form = {"key": key, "action": "token_question", "player": xavi.pk, "answer": "use"}
    response = client.post(url, form, follow=True)
    assert flash(response) == ["Xavi is saved from elimination by a Token of Life"]
    again = client.post(url, form, follow=True)
    assert "already done" in flash(again)[0]
    other = act(client, season, action="token_question", player=xavi.pk, answer="keep")  # a fresh form, too late
    assert flash(other) == ["already answered: Xavi is saved from elimination by a Token of Life "
                            "(a doubled submit: nothing was applied twice)"]
    xavi.refresh_from_db()
    assert xavi.status == "active" and xavi.tokens_of_life.filter(used__isnull=False).count() == 1
    host = client.get(reverse("host_page", args=[lost.host_token])).content.decode()
    assert "holds a Token of Life: use it?" not in host
    assert "Xavi is saved from elimination by a Token of Life" in host  # the match log says it too


def test_destructive_manage_forms_name_their_consequence(client: Any, season: Season) -> None:
    page = html.unescape(client.get(manage(season)).content.decode())
    assert 'data-confirm="{player} is eliminated from Season 3."' in page
    assert 'data-confirm="{player} becomes an elimination candidate in Season 3."' in page
    assert 'data-confirm="{player} leaves the roster of Season 3."' in page
    assert 'data-confirm="{player} spends a Token of Life in Season 3."' in page
    assert 'data-confirm="{player} loses {amount} garnet(s) in Season 3."' in page
