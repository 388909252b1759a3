"""Ledger exactness under real concurrency (PostgreSQL row locks): racing
last submissions and round-deadline sweeps feed a result once; a doubled
manage submit is applied once; two matches cannot spend one garnet twice."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

import pytest

from games.core import SPECTATOR
from matches.models import Match, SeasonEvent, TokenOfLife
from matches.play import services
from matches.seasons import ledger as seasons
from tests.conftest import POSTGRES
from tests.matches.seasons.test_seasons import NAMES, orders, plan
from tests.threads import released_together

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]


race = released_together


def season_with_roster(name: str) -> Any:
    season = seasons.create_season(name)
    for player in NAMES:
        seasons.add_player(season, player)
    return season


def bttw(season: Any, **kwargs: Any) -> Match:
    match = services.create_match("back-to-the-wall", seat_names=NAMES, season=season, **kwargs)
    services.start_match(match)
    return match


def submit(match: Match, seat: int, text: str) -> Callable[[], Any]:
    version = match.bouts.get().version
    return lambda: services.submit(match, seat, text, version)


def ledger_matches_the_final_board(season: Any, match: Match) -> None:
    """The season holds exactly one feed of the bout's final state (whatever won the race)."""
    bout = match.bouts.get()
    game = match.game
    state = game.load(bout.state)
    final = game.view(state, SPECTATOR)["public"]["final"]
    balances = {r["name"]: r["garnets"] for r in seasons.standings(season)}
    for seat, name in enumerate(NAMES, start=1):
        want = final["garnets_earned"][str(seat)] - len(final["garnet_spends"][str(seat)])
        assert balances[name] == want, name
    assert SeasonEvent.objects.filter(season=season, kind="bout_result").count() == 1
    assert SeasonEvent.objects.filter(season=season, kind="match_result").count() == 1
    assert TokenOfLife.objects.filter(season=season).count() == len(final["token_of_life"])


@pytest.mark.parametrize("attempt", range(3))
def test_four_last_submissions_and_doubles_feed_the_result_once(attempt: int) -> None:
    season = season_with_roster(f"Race {attempt}")
    match = bttw(season)
    rounds = plan(attempt)
    for row in rounds[:2]:
        for seat, text in enumerate(row, start=1):
            submit(match, seat, text)()
    last = [submit(match, seat, text) for seat, text in enumerate(rounds[2], start=1)]
    errors = race(*last, *last)  # every seat submits twice on the same version
    assert len(errors) == 4 and all(isinstance(e, services.ServiceError) for e in errors), errors
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    ledger_matches_the_final_board(season, match)


@pytest.mark.parametrize("attempt", range(3))
def test_a_last_submission_racing_round_deadline_sweeps_feeds_once(attempt: int) -> None:
    season = season_with_roster(f"Sweep {attempt}")
    match = bttw(season, clock={"round_seconds": 60})
    rounds = plan(10 + attempt)
    for row in rounds[:2]:
        for seat, text in enumerate(row, start=1):
            submit(match, seat, text)()
    for seat, text in enumerate(rounds[2][:3], start=1):
        submit(match, seat, text)()
    round_deadline = match.bouts.get().round_deadline
    assert round_deadline is not None
    later = round_deadline + dt.timedelta(seconds=1)
    errors = race(submit(match, 4, rounds[2][3]), *[lambda: services.sweep_clocks(later)] * 3)
    assert all(isinstance(e, services.ServiceError) for e in errors), errors
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    ledger_matches_the_final_board(season, match)


def test_a_doubled_manage_submit_racing_itself_is_applied_once() -> None:
    season = season_with_roster("Doubles")
    ann = season.players.get(name="Ann")
    key = "doubled-garnet-key"
    errors = race(*[lambda: seasons.adjust_garnets(season, ann, 3, "prize", key=key)] * 6)
    assert len(errors) == 5 and all(isinstance(e, seasons.AlreadyDone) for e in errors), errors
    assert ann.garnet_balance() == 3


def test_one_garnet_cannot_be_spent_in_two_matches_at_once() -> None:
    season = season_with_roster("Two tables")
    seasons.adjust_garnets(season, season.players.get(name="Ann"), 1, "prize")
    first, second = bttw(season), bttw(season)
    text = orders(1, 1, random.Random(5), ("once",))
    errors = race(submit(first, 1, text), submit(second, 1, text))
    assert len(errors) == 1 and "no garnet to spend" in str(errors[0])
    spent = sum(m.bouts.get().active_moves().count() for m in (first, second))
    assert spent == 1
