"""Episodes under real concurrency (PostgreSQL row locks, issue 52): racing picks and racing
bans that would each settle the game make one duel and one death match, whatever wins."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from matches.models import Duel, Match
from matches.play import death_matches, season_matches, services
from matches.seasons import episodes
from matches.seasons import ledger as seasons
from tests.conftest import POSTGRES
from tests.threads import released_together

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Finn", "Gus", "Hal"]


def _episode(name: str) -> Any:
    season = seasons.create_season(name)
    players = [seasons.add_player(season, n) for n in NAMES]
    episodes.set_pool(season, ["squava", "gomoku"])
    match = season_matches.create_season_match(season, "custom", players)
    services.start_match(match)
    match.refresh_from_db()
    bout = match.current_bout
    assert bout is not None
    services.host_apply(match, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8", bout.version)
    return season


@pytest.mark.parametrize("attempt", range(2))
def test_racing_picks_make_one_duel(attempt: int) -> None:
    season = _episode(f"Picks {attempt}")
    hal = season.players.get(name="Hal")
    key = secrets.token_urlsafe(16)
    picks = [lambda name=name: episodes.choose_opponent(season, hal, name, key=secrets.token_urlsafe(16))
             for name in ("Bob", "Cy")]
    doubled = [lambda: episodes.choose_opponent(season, hal, "Di", key=key)] * 2
    errors = released_together(*picks, *doubled)
    assert len(errors) == 3 and all(isinstance(e, seasons.ServiceError) for e in errors), errors
    assert Duel.objects.filter(episode__season=season).count() == 1
    assert season.events.filter(kind="pick").count() == 1


@pytest.mark.parametrize("attempt", range(2))
def test_racing_settling_bans_and_the_host_make_one_death_match(attempt: int) -> None:
    season = _episode(f"Bans {attempt}")
    hal = season.players.get(name="Hal")
    duel = episodes.choose_opponent(season, hal, "Gus")
    key = secrets.token_urlsafe(16)
    errors = released_together(
        lambda: death_matches.step(season, duel.pk, hal, "ban", "gomoku", key=key),
        lambda: death_matches.step(season, duel.pk, hal, "ban", "gomoku", key=key),
        lambda: death_matches.step(season, duel.pk, hal, "ban", "squava", key=secrets.token_urlsafe(16)),
        lambda: death_matches.set_game(season, duel.pk, "grid-master", key=secrets.token_urlsafe(16)),
    )
    assert len(errors) == 3 and all(isinstance(e, seasons.ServiceError) for e in errors), errors
    duel.refresh_from_db()
    assert duel.death_match is not None and duel.death_match.game_slug == duel.game_slug
    assert Match.objects.filter(season=season, elimination=True).count() == 1
