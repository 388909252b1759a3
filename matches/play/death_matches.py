"""The death match of an episode's duel: created once its game is settled, started once its
starting seat is chosen.  The choosing itself is matches/seasons/episodes.py's (the season's
rows); creating and starting a match is play's (`season_matches.create_season_match`,
`services.start_match`), so the steps that may settle the game are called from here and
create the match in the same transaction: a settled game never waits without its match.
"""

from __future__ import annotations

import contextlib

from django.db import transaction

from matches.core.errors import NotAllowed
from matches.models import Duel, Season, SeasonPlayer
from matches.play import season_matches, services
from matches.seasons import episodes


def _create(season: Season, duel: Duel) -> Duel:
    """The season's elimination match of the duel (seat 1 the candidate), its options the game's defaults."""
    if not duel.game_slug or duel.death_match_id is not None:
        return duel
    match = season_matches.create_season_match(season, duel.game_slug, [duel.candidate, duel.opponent],
                                               elimination=True)
    return episodes.link_death_match(season, duel, match)


def choose_opponent(season: Season, candidate: SeasonPlayer | int, opponent: str, *, by_host: bool = False,
                    key: str | None = None) -> Duel:
    """The pick (`episodes.choose_opponent`); the death match at once when one game only is open to the pair."""
    with transaction.atomic():
        return _create(season, episodes.choose_opponent(season, candidate, opponent, by_host=by_host, key=key))


def step(season: Season, duel: Duel | int, player: SeasonPlayer | int, verdict: str, game: str, *,
         by_host: bool = False, key: str | None = None) -> Duel:
    """A ban or an agreement (`episodes.death_match_step`); the death match when it settles the game."""
    with transaction.atomic():
        found = episodes.death_match_step(season, duel, player, verdict, game, by_host=by_host, key=key)
        return _create(season, found)


def set_game(season: Season, duel: Duel | int, game: str, *, key: str | None = None) -> Duel:
    """Host: the death match's game, and the match."""
    with transaction.atomic():
        return _create(season, episodes.set_game(season, duel, game, key=key))


def choose_starter(season: Season, duel: Duel | int, chooser: SeasonPlayer | int | None, starter: str, *,
                   key: str | None = None) -> Duel:
    """Who starts (`episodes.choose_starter`); then the death match starts at once unless the season
    leaves it in setup for the host.  Two transactions, so that the match row is never locked
    after the season's (lock order: match, bout, season); a refused start leaves it to the host."""
    found = episodes.choose_starter(season, duel, chooser, starter, key=key)
    season.refresh_from_db(fields=["death_match_start"])
    match = found.death_match
    if season.death_match_start == Season.START_AT_ONCE and match is not None:
        with contextlib.suppress(NotAllowed):  # started meanwhile by its host: nothing to do
            services.start_match(match, starting_seat=episodes.starting_seat(found))
    return found
