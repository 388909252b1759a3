"""The host reopens a bout (or match) that the host or a clock ended: award,
forfeit, declared draw/stalemate, end_match, time-out.  The ending's log entry
is marked undone (never deleted), a "reopened bout N" note is logged, the
state is the replay of the moves, the clocks give the seat to act a fresh
turn, and what the rules decided stays decided."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from matches.models import Match, TurnLog
from matches.play import clocks, services
from tests.hostform import seq

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
MOVES = [(1, "place C3"), (2, "place D4"), (1, "place E5")]


@pytest.fixture
def frozen(time_machine: Any) -> Any:
    time_machine.move_to(T0, tick=False)
    return time_machine


def current(match: Any) -> Any:
    return match.bouts.order_by("-number").first()


def fresh_replay(bout: Any) -> dict[str, Any]:
    game = bout.match.game
    state = game.new(bout.options)
    for entry in bout.turns.filter(kind=TurnLog.MOVE, undone=False, corrected=False).order_by("sequence"):
        state = game.play(state, entry.actor, entry.text)
    result: dict[str, Any] = game.dump(state)
    return result


def snapshot(match: Any) -> tuple[Any, ...]:
    match.refresh_from_db()
    bout = current(match)
    reserves = sorted(bout.clocks.values_list("seat", "reserve", "deadline", "paused"))
    log = list(TurnLog.objects.filter(match=match).values_list("id", "undone", "corrected"))
    return match.status, match.winners, bout.version, bout.result, json.dumps(bout.state, sort_keys=True), reserves, log


def timeout(match: Any, frozen: Any) -> None:
    frozen.shift(10_000)
    assert services.sweep_clocks() == 1


ENDINGS: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "award": (lambda m, f: services.award_bout(m, 1), Match.RUNNING),
    "forfeit-bout": (lambda m, f: services.forfeit(m, 1, "bout"), Match.RUNNING),
    "forfeit-match": (lambda m, f: services.forfeit(m, 2, "match"), Match.FINISHED),
    "draw": (lambda m, f: services.declare_result(m, "draw", current(m).version), Match.RUNNING),
    "stalemate": (lambda m, f: services.declare_result(m, "stalemate", current(m).version), Match.RUNNING),
    "end-match": (lambda m, f: services.end_match(m, [1]), Match.FINISHED),
    "time-out": (timeout, Match.RUNNING),
}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(ENDINGS))
def test_each_ending_is_reopened(roles: Any, play: Any, frozen: Any, kind: str) -> None:
    match = roles.match
    for seat, text in MOVES:
        play(match, seat, text)
    end, status = ENDINGS[kind]
    end(match, frozen)
    match.refresh_from_db()
    bout = current(match)
    assert match.status == status and bout.finished is not None
    ending = list(bout.turns.filter(kind__in=["host", "clock"]).order_by("-sequence")[:1])
    count = TurnLog.objects.filter(match=match).count()
    frozen.shift(5)

    services.reopen_bout(match, bout.version)

    match.refresh_from_db()
    bout.refresh_from_db()
    assert match.status == Match.RUNNING and match.winners == [] and match.finished is None
    assert bout.finished is None and bout.result is None and bout.reason == "" and bout.counts
    assert bout.state == fresh_replay(bout) == bout.match.game.dump(services.replay_bout(bout))
    # the ending is marked undone, never deleted; a new note says what happened
    assert TurnLog.objects.filter(match=match).count() == count + 1
    ending[0].refresh_from_db()
    assert ending[0].undone
    note = TurnLog.objects.filter(match=match).order_by("-sequence").first()
    assert note is not None
    assert note.kind == "host" and note.text.startswith("reopened bout 1") and note.version == bout.version
    assert ending[0].text in note.text
    # seat 2 is to act and gets a fresh turn: allowance + what is left of its reserve
    two = bout.clocks.get(seat=2)
    now = T0 + dt.timedelta(seconds=10_005 if kind == "time-out" else 5)
    assert two.running and two.deadline == now + dt.timedelta(seconds=60 + two.reserve)
    assert not bout.clocks.get(seat=1).running and bout.deadline == clocks.flag_at(two)
    # play goes on, and undo works on the moves again
    play(match, 2, "place F6")
    services.undo(match, current(match).version, 2)
    bout.refresh_from_db()
    assert [t.text for t in bout.active_moves()] == ["place C3", "place D4"]
    assert bout.state == fresh_replay(bout)


@pytest.mark.django_db
def test_a_stale_version_is_refused_and_changes_nothing(roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    services.award_bout(match, 1)
    before = snapshot(match)
    with pytest.raises(services.StaleVersion, match="reload"):
        services.reopen_bout(match, before[2] - 1)
    with pytest.raises(services.StaleVersion):
        services.reopen_bout(match, None)  # type: ignore[arg-type]
    assert snapshot(match) == before
    services.reopen_bout(match, before[2])
    with pytest.raises(services.StaleVersion):  # a doubled click
        services.reopen_bout(match, before[2])


@pytest.mark.django_db
def test_end_match_after_an_award_is_taken_back_first_then_the_award(roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    services.award_bout(match, 2)
    services.end_match(match)
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [2]
    services.reopen_bout(match, current(match).version)
    match.refresh_from_db()
    bout = current(match)
    assert match.status == Match.RUNNING and match.needs_next_bout
    assert bout.winners == [2] and bout.reason == "award"  # the award still stands
    assert TurnLog.objects.get(match=match, text__startswith="ended the match").undone
    services.reopen_bout(match, bout.version)
    bout.refresh_from_db()
    assert bout.finished is None and TurnLog.objects.get(match=match, text__startswith="awarded bout").undone
    assert TurnLog.objects.filter(match=match, text__startswith="reopened bout 1").count() == 2


@pytest.mark.django_db
def test_end_match_after_a_win_on_the_board_reopens_the_match_only(make_match: Any, play: Any) -> None:
    from tests.matches.play.test_services import lance_bout

    match = make_match("lance-assembly", bouts=3)
    bout = lance_bout(play, match, winner=1, starter=1)
    services.end_match(match)
    services.reopen_bout(match, current(match).version)
    match.refresh_from_db()
    bout.refresh_from_db()
    assert match.status == Match.RUNNING and bout.winners == [1] and bout.reason == "lance"
    with pytest.raises(services.NotAllowed, match="decided on the board"):
        services.reopen_bout(match, bout.version)


@pytest.mark.django_db
def test_what_the_rules_decided_or_what_still_runs_cannot_be_reopened(make_match: Any, play: Any) -> None:
    from tests.matches.play.test_services import lance_bout

    match = make_match("lance-assembly", bouts=1)
    with pytest.raises(services.NotAllowed, match="nothing to reopen"):
        services.reopen_bout(match, current(match).version)
    bout = lance_bout(play, match, winner=1, starter=1)
    before = snapshot(match)
    with pytest.raises(services.NotAllowed, match="decided on the board"):
        services.reopen_bout(match, bout.version)
    assert snapshot(match) == before
    setup = make_match("lance-assembly", start=False)
    with pytest.raises(services.NotAllowed, match="not started"):
        services.reopen_bout(setup, 1)


@pytest.mark.django_db
def test_a_bout_after_which_the_next_one_started_cannot_be_reopened(roles: Any, play: Any) -> None:
    match = roles.match
    services.award_bout(match, 1)
    services.start_next_bout(match)
    before = snapshot(match)
    with pytest.raises(services.NotAllowed, match="bout 2 has already started after bout 1"):
        services.reopen_bout(match, current(match).version)
    assert snapshot(match) == before


@pytest.mark.django_db
def test_a_stalemate_already_being_replayed_cannot_be_reopened(make_match: Any) -> None:
    match = make_match("lance-assembly", stalemate_replays=True)
    services.declare_result(match, "stalemate", current(match).version)
    services.start_next_bout(match)
    before = snapshot(match)
    with pytest.raises(services.NotAllowed, match="stalemate of bout 1 is already being replayed"):
        services.reopen_bout(match, current(match).version)
    assert snapshot(match) == before


@pytest.mark.django_db
def test_a_stalemate_not_yet_replayed_is_reopened_and_counts_again(make_match: Any) -> None:
    match = make_match("lance-assembly", stalemate_replays=True)
    services.declare_result(match, "stalemate", current(match).version)
    assert not current(match).counts
    services.reopen_bout(match, current(match).version)
    bout = current(match)
    assert bout.counts and bout.finished is None and not match.needs_next_bout


@pytest.mark.django_db
def test_a_match_end_that_gave_tokens_of_life_is_reopened_and_the_token_revoked(make_match: Any) -> None:
    from matches.seasons import ledger as seasons

    match = make_match("back-to-the-wall", season=seasons.create_season("Main"))
    services.end_match(match, [3])
    services.reopen_bout(match, current(match).version)
    match.refresh_from_db()
    assert match.status == Match.RUNNING
    token = match.season.tokens_of_life.get()
    assert token.player.name == "Cy" and token.revoked is not None and not token.held
    # once a token from the match has been used, the match end stays
    services.end_match(match, [3])
    cy = match.season.players.get(name="Cy")
    seasons.set_status(match.season, cy, "candidate")
    seasons.use_token(match.season, cy)
    before = snapshot(match)
    with pytest.raises(services.NotAllowed, match="Token of Life Cy won in this match has been used"):
        services.reopen_bout(match, current(match).version)
    assert snapshot(match) == before


@pytest.mark.django_db
def test_paused_clocks_stay_paused_when_reopened(roles: Any, play: Any, frozen: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    frozen.shift(20)
    services.pause_clocks(match)
    services.award_bout(match, 1)
    frozen.shift(100)
    services.reopen_bout(match, current(match).version)
    match.refresh_from_db()
    bout = current(match)
    assert match.paused and bout.deadline is None
    assert all(c.paused and not c.running and c.deadline is None for c in bout.clocks.all())
    frozen.shift(100)
    services.resume_clocks(match)
    two = current(match).clocks.get(seat=2)
    assert two.deadline == T0 + dt.timedelta(seconds=220 + 60 + 300)


@pytest.mark.django_db
def test_a_time_out_with_no_time_left_is_reopened_with_the_clocks_paused(make_match: Any, frozen: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": None, "reserve": 100})
    frozen.shift(102)  # the reserve, then the lag grace (1.65 s for a 100 s game)
    assert services.sweep_clocks() == 1
    services.reopen_bout(match, current(match).version)
    match.refresh_from_db()
    bout = current(match)
    assert match.paused and bout.finished is None and bout.deadline is None
    note = TurnLog.objects.filter(match=match).order_by("-sequence").first()
    assert note is not None
    assert note.text.startswith("reopened bout 1") and "no time left" in note.text
    assert services.sweep_clocks() == 0  # no instant second time-out
    services.adjust_clock(match, 1, 60)
    services.resume_clocks(match)
    assert current(match).clocks.get(seat=1).deadline == T0 + dt.timedelta(seconds=102 + 60)


@pytest.mark.django_db
def test_host_dashboard_shows_reopen_only_when_the_host_or_a_clock_ended_it(client: Client, roles: Any,
                                                                            play: Any) -> None:
    match = roles.match
    page = client.get(f"/h/{roles.host}/").content.decode()
    assert 'id="host-reopen"' not in page
    play(match, 1, "place C3")
    response = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "award", "seat": 2})
    assert 'id="host-reopen"' in response.content.decode()
    page = client.get(f"/h/{roles.host}/").content.decode()
    assert "Reopen bout 1" in page
    version = current(match).version
    stale = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "reopen", "version": version - 1})
    assert "flash error" in stale.content.decode() and "reload" in stale.content.decode()
    assert current(match).finished is not None
    response = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "reopen", "version": version})
    body = response.content.decode()
    assert response.status_code == 200 and "bout 1 reopened" in body and 'id="host-reopen"' not in body
    assert current(match).finished is None
    assert "reopened bout 1" in client.get(f"/h/{roles.host}/").content.decode()
    # refused with a plain message when there is nothing to reopen
    again = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "reopen", "version": current(match).version})
    assert "flash error" in again.content.decode() and "nothing to reopen" in again.content.decode()


@pytest.mark.django_db
def test_host_dashboard_offers_reopen_for_a_finished_match(client: Client, roles: Any) -> None:
    services.forfeit(roles.match, 2, "match")
    page = client.get(f"/h/{roles.host}/").content.decode()
    assert 'id="host-reopen"' in page
    player_page = client.get(f"/p/{roles.player1.token}/").content.decode()
    assert 'id="host-reopen"' not in player_page
    response = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "reopen", "version": current(roles.match).version})
    assert "bout 1 reopened" in response.content.decode()
    roles.match.refresh_from_db()
    assert roles.match.status == Match.RUNNING


@pytest.mark.django_db
def test_the_play_button_is_disabled_while_a_move_is_in_flight(client: Client, roles: Any) -> None:
    page = client.get(f"/p/{roles.player1.token}/").content.decode()
    form = page.split('id="move-form"', 1)[1].split(">", 1)[0]
    assert 'hx-disabled-elt="#move-submit"' in form


@pytest.mark.django_db
def test_a_sealed_bout_is_reopened_with_a_fresh_round_deadline(make_match: Any, frozen: Any) -> None:
    match = make_match("bidding-ttt", clock={"round_seconds": 60})
    services.award_bout(match, 2)
    assert current(match).round_deadline is None
    frozen.shift(30)
    services.reopen_bout(match, current(match).version)
    bout = current(match)
    assert bout.finished is None and bout.round_deadline == T0 + dt.timedelta(seconds=90)
    assert bout.round_version == bout.version and bout.state == fresh_replay(bout)
    services.submit(match, 1, "pass", bout.version)  # the seats play on with the version they see
