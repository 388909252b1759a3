"""The host's game on the match side (issue 23, part 5): a round's own time limit
on the server clock ("no answer" logged), reveals announced to the season's
webhook, replays round by round, and the record exported and imported."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from games.core import RuleError
from matches.models import SeasonPlayer, TokenOfLife, TurnLog, WebhookPost
from matches.play import season_matches, services
from matches.replays import records
from matches.replays import steps as replays
from matches.seasons import ledger as seasons

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
NAMES = ["Ann", "Bob", "Cy"]


def _bout(match: Any) -> Any:
    return match.bouts.order_by("-number").first()


def _host(match: Any, text: str) -> None:
    services.host_apply(match, text, _bout(match).version)


def _answer(match: Any, seat: int, text: str) -> None:
    services.submit(match, seat, text, _bout(match).version)


@pytest.mark.django_db
def test_a_rounds_time_limit_closes_it_on_the_server_clock_and_logs_who_gave_no_answer(
        time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("custom", options={"seats": 3}, seat_names=NAMES)
    assert _bout(match).round_deadline is None  # no round open: no round clock
    _host(match, 'round "Quick!" number 1-5 time 60')
    assert _bout(match).round_deadline == T0 + dt.timedelta(seconds=60)
    time_machine.shift(20)
    _answer(match, 1, "4")
    _host(match, 'give 2 1 "early bird"')  # other host actions leave the round's clock alone
    assert _bout(match).round_deadline == T0 + dt.timedelta(seconds=60)
    time_machine.shift(39)
    assert services.sweep_clocks() == 0
    time_machine.shift(2)
    assert services.sweep_clocks() == 1 and services.sweep_clocks() == 0
    bout = _bout(match)
    state = services.bout_state(bout)
    assert state.rounds[0].closed and dict(state.rounds[0].answers) == {1: 4, 2: None, 3: None}
    assert bout.round_deadline is None
    notes = list(TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).values_list("text", flat=True))
    assert notes == ["the round deadline passed: the round is resolved", "seat 2 (Bob): no answer",
                     "seat 3 (Cy): no answer"]
    assert bout.state == match.game.dump(services.replay_bout(bout))
    with pytest.raises(RuleError, match="round 1 is closed; answers are no longer taken"):
        services.submit(match, 2, "round 1 answer 3", bout.version)


@pytest.mark.django_db
def test_the_matchs_round_clock_runs_only_while_a_round_is_open(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("custom", options={"seats": 2}, seat_names=NAMES[:2], clock={"round_seconds": 90})
    assert _bout(match).round_deadline is None
    _host(match, 'round "Colour?" choice "Red", "Blue"')
    assert _bout(match).round_deadline == T0 + dt.timedelta(seconds=90)
    _answer(match, 1, "Red")
    _answer(match, 2, "Blue")  # the last answer closes the round: its clock stops
    assert _bout(match).round_deadline is None
    time_machine.shift(3600)
    assert services.sweep_clocks() == 0
    assert not TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).exists()


@pytest.mark.django_db
def test_reveals_are_announced_to_the_seasons_webhook_without_any_secret(make_match: Any) -> None:
    season = seasons.create_season("Spring", webhook_url="https://hooks.example.org/x", base_url="https://dm.example.org")
    players = [seasons.add_player(season, name) for name in NAMES]
    match = season_matches.create_season_match(season, "custom", [p.pk for p in players])
    services.start_match(match)
    _host(match, 'round "Pick a number" number 1-10')
    for seat, number in ((1, 7), (2, 3), (3, 9)):
        _answer(match, seat, str(number))
    _host(match, 'round "Secret?" text reveal author')  # never announced: never revealed
    _answer(match, 1, "hush-hush")
    _host(match, "resolve")
    _host(match, "reveal round 1 seat 2")
    _host(match, "reveal round 1")
    _host(match, "end winner 3 token 3 candidate 1")
    posts = list(WebhookPost.objects.filter(season=season).order_by("id").values_list("content", flat=True))
    reveals = [p for p in posts if "revealed" in p]
    assert reveals == [
        f"**Spring**: Host's game #{match.pk} (Ann, Bob, Cy): round 1 revealed (Pick a number): Bob: 3",
        f"**Spring**: Host's game #{match.pk} (Ann, Bob, Cy): round 1 revealed (Pick a number): Ann: 7; Cy: 9",
    ]
    assert any("has started" in p for p in posts) and any("Cy" in p and "win" in p for p in posts[-3:])
    secrets = [match.host_token, season.manage_token, *match.seats.values_list("token", flat=True)]
    assert not any(secret in post for post in posts for secret in secrets)
    assert not any("hush-hush" in post for post in posts)
    # the host's ending names the Token of Life and the Elimination Candidate in the season
    assert [t.player.name for t in TokenOfLife.objects.filter(season=season)] == ["Cy"]
    assert season.players.get(name="Ann").status == SeasonPlayer.CANDIDATE
    assert any("Cy earns a Token of Life" in p for p in posts)


@pytest.mark.django_db
def test_replays_step_round_by_round_and_the_record_imports_to_the_same_bout(make_match: Any) -> None:
    match = make_match("custom", options={"seats": 3}, seat_names=NAMES)
    _host(match, 'round "Pick a number" number 1-10 time 30')
    for seat, number in ((1, 7), (2, 3), (3, 9)):
        _answer(match, seat, str(number))
    _host(match, "reveal round 1")
    _host(match, 'round "Who?" seat seats 1,2 reveal host')
    _answer(match, 1, "2,3")
    _host(match, "resolve")
    _host(match, 'give 3 2 "closest"')
    _host(match, "eliminate 1")
    _host(match, "end ranking 3, 2, 1")
    bout = _bout(match)
    replay = replays.load(match, bout, 0)  # the host's replay
    # a step per host action and per closed round, never one per sealed answer
    assert len(replay.steps) == 1 + 8
    rounds = [len(step.state.rounds) for step in replay.steps]
    assert rounds == [0, 1, 1, 1, 2, 2, 2, 2, 2]
    text = records.export(match, 0)
    assert 'round "Pick a number" number 1-10 time 30' in text
    copy = records.import_record(text)
    assert copy.seat_count == 3 and [s.name for s in copy.seats.order_by("number")] == NAMES
    assert _bout(copy).state == bout.state
    match.refresh_from_db()
    assert copy.winners == match.winners == [3]
