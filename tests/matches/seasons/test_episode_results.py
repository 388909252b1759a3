"""Episode results (issue 52) through the services: a Host's game main match gives its top place the
Token of Life and its bottom place the candidacy (ties flagged to the host, explicit names kept, the
season's counts honoured); the elimination match's winner takes the eliminated loser's garnets once,
reversed exactly when the result is reopened, never when a Token of Life saves them or from a balance
of zero; and no announcement carries a secret link."""

from __future__ import annotations

from typing import Any

import pytest

from matches.core.errors import NotAllowed, StaleVersion
from matches.models import GarnetEntry, Match, SeasonPlayer, TokenOfLife, WebhookPost
from matches.play import season_matches, season_tokens, services
from matches.seasons import ledger as seasons
from matches.seasons import season_options, webhooks

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture
def season() -> Any:
    season = seasons.create_season("Genius Season 1", webhook_url="https://discord.com/api/webhooks/1/x",
                                   base_url="https://dm.example.org")
    for name in NAMES:
        seasons.add_player(season, name)
    return season


def player(season: Any, name: str) -> SeasonPlayer:
    found: SeasonPlayer = season.players.get(name=name)
    return found


def posts(season: Any) -> list[str]:
    return list(WebhookPost.objects.filter(season=season).order_by("id").values_list("content", flat=True))


def host(match: Match, text: str) -> None:
    match.refresh_from_db()
    services.host_apply(match, text, match.bouts.order_by("-number").first().version)  # type: ignore[union-attr]


def main_match(season: Any, names: list[str] = NAMES) -> Match:
    match = season_matches.create_season_match(season, "custom", [player(season, n).pk for n in names])
    services.start_match(match)
    return match


def tokens(season: Any) -> list[str]:
    return [t.player.name for t in TokenOfLife.objects.filter(season=season, revoked__isnull=True)]


def statuses(season: Any) -> dict[str, str]:
    return {p.name: p.status for p in season.players.all()}


def balance(season: Any, name: str) -> int:
    return player(season, name).garnet_balance()


# -- the main match: Token of Life and candidates -------------------------------------------------------


def test_a_ranking_naming_nobody_gives_first_place_the_token_and_last_place_the_candidacy(season: Any) -> None:
    match = main_match(season)
    host(match, "end ranking 2, 3, 1, 4")
    assert tokens(season) == ["Bob"]
    assert statuses(season) == {"Ann": "active", "Bob": "active", "Cy": "active", "Di": "candidate"}
    texts = posts(season)
    result = next(t for t in texts if " is over: " in t)
    assert result.endswith("Token of Life: Bob. Elimination Candidate: Di.")
    assert "**Genius Season 1**: Bob earns a Token of Life" in texts
    assert any("Di placed last in Host's game" in t and "Elimination Candidate" in t for t in texts)


def test_a_tie_for_first_or_last_is_flagged_to_the_host_and_given_to_nobody(season: Any) -> None:
    match = main_match(season)
    host(match, "end ranking 1=3, 2=4")
    assert tokens(season) == [] and all(s == "active" for s in statuses(season).values())
    texts = posts(season)
    assert any(t.endswith("is over: Ann and Cy win (ranking). Token of Life: Ann and Cy tied, for the host to settle. "
                          "Elimination Candidate: Bob and Di tied, for the host to settle.") for t in texts)
    assert any("Ann and Cy are tied for the Token of Life in Host's game" in t and "the host settles it" in t
               for t in texts)
    assert any("Bob and Di are tied for Elimination Candidate" in t for t in texts)
    # the host settles it on the manage page, as for Back to the Wall's ties
    seasons.grant_token(season, player(season, "Cy"), "settled the tie for first")
    seasons.set_status(season, player(season, "Di"), "candidate", "settled the tie for last")
    assert tokens(season) == ["Cy"] and statuses(season)["Di"] == "candidate"


def test_a_ranking_that_names_its_token_and_candidate_keeps_them(season: Any) -> None:
    match = main_match(season)
    host(match, "end ranking 2, 3, 1, 4 token 3 candidate 1")
    assert tokens(season) == ["Cy"]
    assert statuses(season) == {"Ann": "candidate", "Bob": "active", "Cy": "active", "Di": "active"}
    assert not any("tied" in t for t in posts(season))


def test_naming_only_the_token_keeps_it_and_the_bottom_is_still_the_candidate(season: Any) -> None:
    match = main_match(season)
    host(match, "end ranking 2, 3, 1, 4 token 4")
    assert tokens(season) == ["Di"]  # named, kept; never both: the next place up is the candidate
    assert statuses(season)["Ann"] == "candidate" and statuses(season)["Di"] == "active"


def test_the_seasons_counts_say_how_many_tokens_and_candidates_a_main_match_gives(season: Any) -> None:
    season_options.set_result_options(season, "2", "1", True)
    match = main_match(season)
    host(match, "end ranking 2, 3, 1, 4")
    assert sorted(tokens(season)) == ["Bob", "Cy"] and statuses(season)["Di"] == "candidate"


def test_a_tie_at_the_cut_of_several_tokens_is_flagged_with_the_ones_above_it_given(season: Any) -> None:
    season_options.set_result_options(season, "2", "0", True)
    match = main_match(season)
    host(match, "end ranking 2, 1=3, 4")
    assert tokens(season) == ["Bob"] and all(s == "active" for s in statuses(season).values())
    assert any("Ann and Cy are tied for the Token of Life" in t for t in posts(season))


def test_an_end_winner_gives_only_what_it_names(season: Any) -> None:
    match = main_match(season)
    host(match, "end winner 2")
    assert tokens(season) == [] and all(s == "active" for s in statuses(season).values())


def test_undoing_the_main_matchs_ending_takes_the_awards_back(season: Any) -> None:
    match = main_match(season)
    host(match, "end ranking 2, 3, 1, 4")
    match.refresh_from_db()
    services.undo(match, match.bouts.get().version)  # the host's ending is a move: undone, not reopened
    assert tokens(season) == [] and statuses(season)["Di"] == "active"


def test_the_options_are_refused_with_a_sentence_and_nothing_changed(season: Any) -> None:
    with pytest.raises(seasons.ServiceError, match="the number of Tokens of Life must be a whole number"):
        season_options.set_result_options(season, "one", "1", True)
    with pytest.raises(seasons.ServiceError, match="a main match gives 0 to 16 Elimination Candidates, not 17"):
        season_options.set_result_options(season, "1", "17", True)
    season.refresh_from_db()
    assert (season.main_tokens, season.main_candidates, season.winner_takes_garnets) == (1, 1, True)


# -- the elimination match: the winner takes the loser's garnets ------------------------------------------


def death_match(season: Any, first: str = "Ann", second: str = "Di") -> Match:
    match = season_matches.create_season_match(season, "squava", [player(season, first).pk, player(season, second).pk],
                                               elimination=True)
    services.start_match(match)
    return match


def transfers(season: Any) -> list[tuple[str, int, str]]:
    return [(e.player.name, e.amount, e.kind) for e in
            GarnetEntry.objects.filter(season=season, kind__in=[GarnetEntry.TRANSFER, GarnetEntry.REVERSAL])
            .select_related("player").order_by("id")]


def test_the_winner_takes_the_eliminated_losers_garnets_once_in_one_entry_each_way(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 5, "main match")
    seasons.adjust_garnets(season, player(season, "Ann"), 2, "main match")
    match = death_match(season)
    services.forfeit(match, 2)
    with pytest.raises(services.ServiceError):  # the doubled click: the match is over, nothing moves again
        services.forfeit(match, 2)
    assert transfers(season) == [("Di", -5, "transfer"), ("Ann", 5, "transfer")]
    assert (balance(season, "Ann"), balance(season, "Di")) == (7, 0)
    entry = GarnetEntry.objects.get(season=season, kind=GarnetEntry.TRANSFER, amount=5)
    assert f"#{match.pk}" in entry.reason and entry.match == match
    assert (f"**Genius Season 1**: Ann takes Di's 5 garnets (elimination match #{match.pk}): Ann now has 7 garnets, "
            "Di 0") in posts(season)


def test_a_doubled_ending_post_moves_the_garnets_once(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 3, "main match")
    match = season_matches.create_season_match(season, "custom", [player(season, "Ann").pk, player(season, "Di").pk],
                                               elimination=True)
    services.start_match(match)
    version = match.bouts.get().version
    services.host_apply(match, "end ranking 1, 2", version)
    with pytest.raises((StaleVersion, NotAllowed)):
        services.host_apply(match, "end ranking 1, 2", version)  # the same post again, same version
    assert transfers(season) == [("Di", -3, "transfer"), ("Ann", 3, "transfer")]
    assert tokens(season) == []  # a death match gives no Token of Life, whatever its ranking
    assert statuses(season)["Di"] == "eliminated" and statuses(season)["Ann"] == "active"


def test_a_reopened_death_match_reverses_the_elimination_and_the_garnets_exactly_and_refinishing_moves_again(
        season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 4, "main match")
    seasons.adjust_garnets(season, player(season, "Ann"), 1, "main match")
    seasons.set_status(season, player(season, "Di"), "candidate")
    match = death_match(season)
    services.forfeit(match, 2)
    assert (balance(season, "Ann"), balance(season, "Di")) == (5, 0)
    match.refresh_from_db()
    services.reopen_bout(match, match.bouts.get().version)
    assert (balance(season, "Ann"), balance(season, "Di")) == (1, 4)
    assert statuses(season)["Di"] == "candidate"
    assert transfers(season) == [("Di", -4, "transfer"), ("Ann", 4, "transfer"), ("Di", 4, "reversal"),
                                 ("Ann", -4, "reversal")]
    # finished again, the other way round: Di wins and takes Ann's (restored) garnet
    services.award_bout(match, 2)
    assert (balance(season, "Ann"), balance(season, "Di")) == (0, 5)
    assert statuses(season) == {"Ann": "eliminated", "Bob": "active", "Cy": "active", "Di": "active"}
    assert transfers(season)[-2:] == [("Ann", -1, "transfer"), ("Di", 1, "transfer")]


def test_a_token_of_life_used_saves_the_loser_and_moves_nothing(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 6, "main match")
    seasons.grant_token(season, player(season, "Di"), "an earlier episode")
    match = death_match(season)
    services.forfeit(match, 2)
    assert transfers(season) == [] and balance(season, "Di") == 6  # the question is open: nothing moves yet
    season_tokens.answer(match, player(season, "Di"), True)
    assert transfers(season) == [] and balance(season, "Di") == 6 and statuses(season)["Di"] == "active"


def test_a_token_kept_makes_the_elimination_stand_and_the_garnets_move_then_once(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 6, "main match")
    seasons.grant_token(season, player(season, "Di"), "an earlier episode")
    match = death_match(season)
    services.forfeit(match, 2)
    season_tokens.answer(match, player(season, "Di"), False)
    with pytest.raises(seasons.AlreadyDone):
        season_tokens.answer(match, player(season, "Di"), False)  # the doubled click
    assert transfers(season) == [("Di", -6, "transfer"), ("Ann", 6, "transfer")]
    # reopening takes the answer and the garnets back with the result
    match.refresh_from_db()
    services.reopen_bout(match, match.bouts.get().version)
    assert (balance(season, "Ann"), balance(season, "Di")) == (0, 6)


def test_nothing_moves_from_a_balance_of_zero_or_below(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), -2, "penalty", allow_negative=True)
    match = death_match(season)
    services.forfeit(match, 2)
    assert statuses(season)["Di"] == "eliminated"
    assert transfers(season) == [] and (balance(season, "Ann"), balance(season, "Di")) == (0, -2)
    assert not any("takes Di's" in t for t in posts(season))


def test_the_option_off_moves_nothing(season: Any) -> None:
    season_options.set_result_options(season, "1", "1", False)
    seasons.adjust_garnets(season, player(season, "Di"), 5, "main match")
    match = death_match(season)
    services.forfeit(match, 2)
    assert transfers(season) == [] and balance(season, "Di") == 5


def test_the_garnets_the_death_match_itself_earned_count_at_elimination(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 1, "main match")
    match = season_matches.create_season_match(season, "custom", [player(season, "Ann").pk, player(season, "Di").pk],
                                               elimination=True)
    services.start_match(match)
    services.adjust_garnets(match, 2, 2, "bonus in the death match")  # the match host's garnets, in the ledger
    host(match, "end ranking 1, 2")
    assert transfers(season) == [("Di", -3, "transfer"), ("Ann", 3, "transfer")]


# -- announcements: never a secret link ------------------------------------------------------------------


def test_no_announcement_of_an_episode_carries_a_secret_link(season: Any) -> None:
    seasons.adjust_garnets(season, player(season, "Di"), 2, "start")
    main = main_match(season)
    host(main, "end ranking 2, 3, 1, 4")
    match = death_match(season)
    services.forfeit(match, 2)
    texts = posts(season)
    assert any("takes Di's 2 garnets" in t for t in texts)
    assert any("Di lost the elimination match and is eliminated" in t for t in texts)
    secrets = [season.manage_token, main.host_token, match.host_token,
               *main.seats.values_list("token", flat=True), *match.seats.values_list("token", flat=True)]
    assert not any(secret in text for text in texts for secret in secrets)
    # and announce refuses a text holding one (the guard behind every line above)
    seat_token = match.seats.get(number=1).token
    assert webhooks.announce(season, f"look: /p/{seat_token}/") is None
    assert not WebhookPost.objects.filter(season=season, content__contains=seat_token).exists()


# -- the roster paste -------------------------------------------------------------------------------------


def test_a_pasted_roster_adds_every_name_skipping_blank_lines(season: Any) -> None:
    added = season_options.add_players(season, "Finn\n\n  Gus  \nHal\n")
    assert [p.name for p in added] == ["Finn", "Gus", "Hal"]
    assert season.events.filter(text="Finn, Gus and Hal join the roster").exists()


def test_a_paste_with_a_duplicate_or_a_present_name_adds_nothing_and_names_them(season: Any) -> None:
    with pytest.raises(seasons.ServiceError) as refused:
        season_options.add_players(season, "Finn\nann\nGus\nfinn\nBob")
    assert str(refused.value) == ("nothing was added: Ann and Bob are already on the roster and Finn is listed "
                                  "twice; fix the list and paste it again")
    assert sorted(season.players.values_list("name", flat=True)) == NAMES


def test_a_doubled_paste_is_applied_once(season: Any) -> None:
    season_options.add_players(season, "Finn\nGus", key="paste-key-1")
    with pytest.raises(seasons.AlreadyDone):
        season_options.add_players(season, "Finn\nGus", key="paste-key-1")
    assert season.players.count() == 6
