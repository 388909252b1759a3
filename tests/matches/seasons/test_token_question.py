"""The Token of Life question (issue 25): the loser of an elimination match who holds a token is
eliminated unless the host has them use it; the answer goes to the ledger and the webhook once,
and taking the match back takes the answer back (or is refused once the token is spent).  And the
webhook's order: a result is announced before the garnets, tokens and candidacies it gives."""

from __future__ import annotations

from typing import Any

import pytest

from matches.models import Match, SeasonEvent, WebhookPost
from matches.play import season_matches, season_tokens, services
from matches.seasons import ledger as seasons
from tests.matches.seasons.test_seasons import NAMES, key, plan, play_rounds

pytestmark = pytest.mark.django_db


@pytest.fixture
def season() -> Any:
    season = seasons.create_season("Season 3", webhook_url="https://discord.com/api/webhooks/1/x")
    for name in NAMES:
        seasons.add_player(season, name)
    return season


def player(season: Any, name: str) -> Any:
    return season.players.get(name=name)


def lost_by_di(season: Any, *, token: bool = True) -> Match:
    """Di (a candidate, holding a Token of Life if `token`) loses the elimination match to Ann."""
    seasons.set_status(season, player(season, "Di"), "candidate")
    if token:
        seasons.grant_token(season, player(season, "Di"), "won the main match")
    match = season_matches.create_season_match(season, "squava", [player(season, "Ann").pk, player(season, "Di").pk],
                                               elimination=True)
    services.start_match(match)
    services.forfeit(match, 2)
    return match


def posts(season: Any) -> list[str]:
    return list(WebhookPost.objects.filter(season=season).order_by("id").values_list("content", flat=True))


def unused_tokens(season: Any, name: str) -> int:
    result: int = player(season, name).tokens_of_life.filter(used__isnull=True, revoked__isnull=True).count()
    return result


def test_a_loser_holding_a_token_is_asked_and_is_eliminated_unless_it_is_used(season: Any) -> None:
    match = lost_by_di(season)
    di = player(season, "Di")
    assert di.status == "eliminated" and unused_tokens(season, "Di") == 1
    assert [(q["player"].name, q["match"].pk) for q in seasons.open_questions(season)] == [("Di", match.pk)]
    row = next(r for r in seasons.standings(season) if r["name"] == "Di")
    assert row["status_label"] == "eliminated unless the Token of Life is used" and row["question"]
    assert ("**Season 3**: Di lost the elimination match and is eliminated unless the host has them use their "
            "Token of Life: the host decides") in posts(season)


def test_a_loser_without_a_token_is_simply_eliminated(season: Any) -> None:
    lost_by_di(season, token=False)
    assert seasons.open_questions(season) == []
    assert "**Season 3**: Di lost the elimination match and is eliminated" in posts(season)


def test_using_the_token_saves_the_player_once_and_the_match_then_stands(season: Any) -> None:
    match = lost_by_di(season)
    di = player(season, "Di")
    before = len(posts(season))
    event = season_tokens.answer(match, di, True, where="answered on the host page")
    assert event.text == "Di is saved from elimination by a Token of Life"
    assert player(season, "Di").status == "active" and unused_tokens(season, "Di") == 0
    assert seasons.open_questions(season) == []
    with pytest.raises(seasons.AlreadyDone, match="already answered: Di is saved from elimination"):
        season_tokens.answer(match, di, True)  # a doubled click: applied once
    with pytest.raises(seasons.AlreadyDone, match="already answered"):
        season_tokens.answer(match, di, False)
    assert posts(season)[before:] == ["**Season 3**: Di is saved from elimination by a Token of Life "
                                      "(answered on the host page)"]
    assert SeasonEvent.objects.filter(season=season, kind="token_used").count() == 1
    # the token was spent against this result: reopening the match is refused with a sentence
    bout = match.bouts.get()
    with pytest.raises(services.NotAllowed, match="Di used a Token of Life against the result of this match"):
        services.reopen_bout(match, bout.version)
    assert player(season, "Di").status == "active"


def test_keeping_the_token_lets_the_elimination_stand_and_reopening_takes_the_answer_back(season: Any) -> None:
    match = lost_by_di(season)
    di = player(season, "Di")
    event = season_tokens.answer(match, di, False)
    assert event.text == "Di does not use a Token of Life: the elimination stands"
    assert player(season, "Di").status == "eliminated" and unused_tokens(season, "Di") == 1
    assert seasons.open_questions(season) == []
    assert next(r for r in seasons.standings(season) if r["name"] == "Di")["status_label"] == "eliminated"
    with pytest.raises(seasons.AlreadyDone, match="already answered: Di does not use"):
        season_tokens.answer(match, di, True)
    assert "**Season 3**: Di does not use a Token of Life: the elimination stands" in posts(season)
    # the host reopens the match: the elimination and the answer are taken back, the token kept
    services.reopen_bout(match, match.bouts.get().version)
    assert player(season, "Di").status == "candidate" and unused_tokens(season, "Di") == 1
    assert SeasonEvent.objects.get(kind="token_kept").reversed is not None
    assert any("the answer that Di keeps the Token of Life is taken back" in t for t in posts(season))
    # ...and the match ending again asks again
    services.award_bout(match, 1)
    assert [q["player"].name for q in seasons.open_questions(season)] == ["Di"]


def test_the_manage_page_answer_is_applied_once_per_key(season: Any) -> None:
    lost_by_di(season)
    k = key()
    seasons.answer_token_question(season, player(season, "Di"), False, key=k)
    count = season.events.count()
    with pytest.raises(seasons.AlreadyDone):
        seasons.answer_token_question(season, player(season, "Di"), False, key=k)
    assert season.events.count() == count


def test_only_an_open_question_is_answered(season: Any) -> None:
    match = lost_by_di(season, token=False)
    with pytest.raises(seasons.ServiceError, match="Di has no open Token of Life question"):
        season_tokens.answer(match, player(season, "Di"), True)
    with pytest.raises(seasons.ServiceError, match="choose a player of this match"):
        season_tokens.answer(match, player(season, "Bob"), True)


def test_a_one_bout_match_announces_its_result_before_the_garnets_tokens_and_candidates(season: Any) -> None:
    match = season_matches.create_season_match(season, "back-to-the-wall", [player(season, n).pk for n in NAMES])
    services.start_match(match)
    WebhookPost.objects.all().delete()
    play_rounds(match, plan(0))
    texts = [t.removeprefix("**Season 3**: ") for t in posts(season)]
    assert texts[0].startswith(f"Back to the Wall #{match.pk} (Ann, Bob, Cy, Di) is over: ")
    kinds = ["garnets" if t.startswith("garnets: ") else "token" if t.endswith("earns a Token of Life")
             else "candidate" if "Elimination Candidate" in t else t for t in texts[1:]]
    assert kinds == ["garnets", "token", "candidate"]
    # the season log reads in the same order
    log = list(season.events.filter(match=match).exclude(kind="bout_result").order_by("id").values_list("kind", flat=True))
    assert log[-4:] == ["match_result", "garnets", "token", "status"]
