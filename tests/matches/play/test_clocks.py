"""Server clocks with time frozen (time_machine, never sleep): allowances,
reserves, banks, round deadlines, pause, and time-outs applied exactly once."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command

from matches.core import runtime
from matches.models import Bout, Clock, Match, TurnLog
from matches.play import services, sweeper
from tests.conftest import POSTGRES
from tests.threads import released_together

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def frozen(time_machine: Any) -> Any:
    time_machine.move_to(T0, tick=False)
    return time_machine


def current(match: Match) -> Bout:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    return bout


def clock(match: Match, seat: int) -> Clock:
    return current(match).clocks.get(seat=seat)


def clock_notes(match: Match) -> list[str]:
    return list(TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).values_list("text", flat=True))


def test_the_seat_to_act_runs_with_allowance_plus_reserve(frozen: Any, roles: Any) -> None:
    one, two = clock(roles.match, 1), clock(roles.match, 2)
    assert (one.per_move, one.reserve, one.deadline) == (60, 300, T0 + dt.timedelta(seconds=360))
    assert two.deadline is None and not two.running and two.remaining() == 300
    # the sweeper looks when the flag falls: the lag grace (min(quota, 2 s), play/lag.py) later
    assert one.deadline is not None
    assert current(roles.match).deadline == one.deadline + dt.timedelta(seconds=2)


def test_time_over_the_allowance_comes_out_of_the_reserve(frozen: Any, roles: Any, play: Any) -> None:
    frozen.shift(70)
    entry = play(roles.match, 1, "place C3")
    assert entry.time_used == pytest.approx(70)
    one, two = clock(roles.match, 1), clock(roles.match, 2)
    assert one.reserve == pytest.approx(290) and one.deadline is None
    assert two.deadline == T0 + dt.timedelta(seconds=70 + 360)
    frozen.shift(30)  # inside the allowance: the reserve is untouched
    play(roles.match, 2, "place D4")
    assert clock(roles.match, 2).reserve == pytest.approx(300)


def test_running_out_forfeits_the_bout_once(frozen: Any, roles: Any) -> None:
    frozen.shift(361)  # past the visible deadline, inside the lag grace
    assert services.sweep_clocks() == 0
    frozen.shift(1.5)
    assert services.sweep_clocks() == 1
    assert services.sweep_clocks() == 0
    match = Match.objects.get(pk=roles.match.pk)
    bout = current(match)
    assert bout.winners == [2] and bout.reason == "time" and bout.deadline is None
    assert match.status == Match.RUNNING  # best of 3: only the bout is lost
    assert clock_notes(match) == ["seat 1 (Ann) ran out of time and forfeits the bout"]


def test_lance_assembly_refills_reserves_but_sliding_tic_tac_toe_does_not(frozen: Any, make_match: Any, play: Any) -> None:
    for variant, expected in [("lance-assembly", 300), ("sliding-tic-tac-toe", 100)]:
        match = make_match("lance-assembly", options={"variant": variant})
        per_move = clock(match, 1).per_move
        assert per_move is not None
        frozen.shift(per_move + 200)
        play(match, 1, "place C3")
        services.award_bout(match, 1)
        services.start_next_bout(match)
        assert clock(match, 1).reserve == pytest.approx(expected), variant


def test_two_connect_bank_runs_out_and_forfeits_the_match(frozen: Any, make_match: Any, play: Any) -> None:
    match = make_match("two-connect")
    one = clock(match, 1)
    assert one.per_move is None and one.reserve == 1200
    frozen.shift(100)
    game = match.game
    state = services.bout_state(current(match))
    import random

    play(match, 1, game.format(game.random_action(state, 1, random.Random(1))))
    assert clock(match, 1).reserve == pytest.approx(1100)
    frozen.shift(1200 + 2)  # the bank, then the lag grace
    assert services.sweep_clocks() == 1
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [1] and match.result_reason == "time"


def test_a_sealed_round_deadline_resolves_the_round(frozen: Any, make_match: Any) -> None:
    match = make_match("bidding-ttt", clock={"round_seconds": 60})
    bout = current(match)
    assert bout.round_deadline == T0 + dt.timedelta(seconds=60) and not bout.clocks.exists()
    services.submit(match, 1, "A1 3", bout.version)
    frozen.shift(61)
    assert services.sweep_clocks() == 1
    bout = current(match)
    game = match.game
    assert game.public_view(services.bout_state(bout))["round"] == 2
    last = bout.active_moves().last()
    assert last is not None
    assert (last.actor, last.text, last.who) == (0, "resolve", "host")
    assert clock_notes(match) == ["the round deadline passed: the round is resolved"]
    assert bout.round_deadline == T0 + dt.timedelta(seconds=121)
    assert bout.state == game.dump(services.replay_bout(bout))


def test_pause_keeps_what_is_left_and_resume_sets_a_new_deadline(frozen: Any, roles: Any, play: Any) -> None:
    match = roles.match
    frozen.shift(30)
    services.pause_clocks(match)
    assert clock(match, 1).deadline is None and clock(match, 1).remaining() == pytest.approx(330)
    frozen.shift(1000)
    assert services.sweep_clocks() == 0
    services.resume_clocks(match)
    assert clock(match, 1).deadline == T0 + dt.timedelta(seconds=1030 + 330)
    frozen.shift(40)
    assert play(match, 1, "place C3").time_used == pytest.approx(70)
    assert clock(match, 1).reserve == pytest.approx(290)


def test_pause_and_resume_a_sealed_round(frozen: Any, make_match: Any) -> None:
    match = make_match("bidding-ttt", clock={"round_seconds": 60})
    frozen.shift(20)
    services.pause_clocks(match)
    frozen.shift(500)
    services.resume_clocks(match)
    assert current(match).round_deadline == T0 + dt.timedelta(seconds=520 + 40)


def test_host_adds_and_removes_time(frozen: Any, roles: Any) -> None:
    match = roles.match
    services.adjust_clock(match, 1, 45)
    assert clock(match, 1).deadline == T0 + dt.timedelta(seconds=405)
    services.adjust_clock(match, 2, -1000)
    assert clock(match, 2).reserve == 0
    with pytest.raises(services.NotAllowed, match="no clock"):
        grid = services.create_match("grid-master")
        services.start_match(grid)
        services.adjust_clock(grid, 1, 10)


def test_a_move_after_the_deadline_is_refused_and_the_time_out_applied(frozen: Any, roles: Any) -> None:
    match = roles.match
    frozen.shift(361)
    with pytest.raises(services.NotAllowed, match="time ran out"):
        services.submit(match, 1, "place C3", current(match).version)
    bout = current(match)
    assert bout.reason == "time" and bout.active_moves().count() == 0
    assert services.sweep_clocks() == 0 and len(clock_notes(match)) == 1


def test_a_move_beats_a_sweeper_that_read_the_old_version(frozen: Any, roles: Any, play: Any) -> None:
    match = roles.match
    bout = current(match)
    read = (match.pk, bout.id, bout.version)  # the sweeper's candidate query ran here
    play(match, 1, "place C3")
    assert sweeper.claim_and_expire(*read, T0 + dt.timedelta(seconds=400)) is False
    assert clock_notes(match) == [] and current(match).finished is None


def test_a_sweeper_that_claimed_first_makes_the_move_stale(frozen: Any, roles: Any) -> None:
    match = roles.match
    bout = current(match)
    assert sweeper.claim_and_expire(match.pk, bout.id, bout.version, T0 + dt.timedelta(seconds=400))
    with pytest.raises(services.ServiceError):
        services.submit(match, 1, "place C3", bout.version)
    assert current(match).active_moves().count() == 0
    assert current(match).version == bout.version + 1  # the claim is the version bump


def test_two_sweepers_with_the_same_reading_apply_it_once(frozen: Any, roles: Any) -> None:
    match = roles.match
    bout = current(match)
    later = T0 + dt.timedelta(seconds=400)
    assert sweeper.claim_and_expire(match.pk, bout.id, bout.version, later) is True
    assert sweeper.claim_and_expire(match.pk, bout.id, bout.version, later) is False
    assert len(clock_notes(match)) == 1


def test_run_clocks_once(frozen: Any, roles: Any) -> None:
    frozen.shift(400)
    out = io.StringIO()
    call_command("run_clocks", "--once", stdout=out)
    assert "applied 1" in out.getvalue()


def test_the_in_process_sweeper_starts_only_in_web_servers() -> None:
    assert runtime.is_web_server(["/usr/local/bin/daphne", "config.asgi:application"], {})
    assert runtime.is_web_server(["/x/site-packages/daphne/__main__.py", "-p", "8000"], {})
    assert runtime.is_web_server(["manage.py", "runserver"], {"RUN_MAIN": "true"})
    assert runtime.is_web_server(["manage.py", "runserver", "--noreload"], {})
    assert not runtime.is_web_server(["manage.py", "runserver"], {})  # the autoreloader's watcher
    assert not runtime.is_web_server(["manage.py", "migrate"], {})
    assert not runtime.is_web_server(["pytest", "tests"], {})
    assert not sweeper.WORKER.started.is_set()  # nothing started while testing


# -- real concurrency (PostgreSQL row locks) --------------------------------------------------


def _threads(*targets: Callable[[], Any]) -> list[Exception]:
    return released_together(*targets, timeout=30)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_many_sweepers_at_once_apply_a_time_out_exactly_once(make_match: Any) -> None:
    match = make_match("lance-assembly")
    deadline = current(match).deadline
    assert deadline is not None
    later = deadline + dt.timedelta(seconds=1)
    counts = []
    errors = _threads(*[lambda: counts.append(services.sweep_clocks(later))] * 4)
    seen = list(TurnLog.objects.values_list("match_id", "bout_id", "kind", "text", "version"))
    assert errors == [] and sorted(counts) == [0, 0, 0, 1], seen
    assert len(clock_notes(match)) == 1 and current(match).reason == "time"


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_a_move_racing_a_time_out_is_one_or_the_other(make_match: Any, attempt: int) -> None:
    match = make_match("lance-assembly")
    bout = current(match)
    read = (match.pk, bout.id, bout.version)
    assert bout.deadline is not None
    later = bout.deadline + dt.timedelta(seconds=1)
    claimed = []
    errors = _threads(
        lambda: services.submit(match, 1, "place C3", read[2]),
        lambda: claimed.append(sweeper.claim_and_expire(*read, later)),
    )
    moved = current(match).active_moves().count()
    assert all(isinstance(e, services.ServiceError) for e in errors)
    assert moved + int(claimed[0]) == 1  # never both, never neither
    assert len(clock_notes(match)) == int(claimed[0])
    assert len(errors) == int(claimed[0])


def test_a_submission_after_the_round_deadline_finds_the_round_resolved(frozen: Any, make_match: Any) -> None:
    match = make_match("bidding-ttt", clock={"round_seconds": 60})
    version = current(match).version
    frozen.shift(60)
    with pytest.raises(services.NotAllowed, match="time ran out"):
        services.submit(match, 1, "A1 3", version)
    bout = current(match)
    assert match.game.public_view(services.bout_state(bout))["round"] == 2
    assert [t.text for t in bout.active_moves()] == ["resolve"]


def test_host_orders_during_a_pause_end_that_seats_turn(frozen: Any, roles: Any) -> None:
    match = roles.match
    frozen.shift(90)  # 30 s over the allowance
    services.pause_clocks(match)
    entry = services.host_apply(match, "seat 1: place C3", current(match).version)
    assert entry.time_used == pytest.approx(90) and clock(match, 1).reserve == pytest.approx(270)
    assert clock(match, 1).used == 0 and clock(match, 2).deadline is None  # still paused
    frozen.shift(100)
    services.resume_clocks(match)
    assert clock(match, 2).deadline == T0 + dt.timedelta(seconds=190 + 360)
    frozen.shift(10)
    services.submit(match, 2, "place D4", current(match).version)
    assert clock(match, 1).deadline == T0 + dt.timedelta(seconds=200 + 60 + 270)


def test_undo_while_paused_charges_the_rewound_turn_and_keeps_the_pause(frozen: Any, roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    frozen.shift(80)  # seat 2 thinks 20 s over the allowance, then the host pauses and undoes
    services.pause_clocks(match)
    services.undo(match, current(match).version)
    assert clock(match, 2).reserve == pytest.approx(280) and clock(match, 2).used == 0
    assert clock(match, 1).deadline is None and current(match).deadline is None
    services.resume_clocks(match)
    assert clock(match, 1).deadline == T0 + dt.timedelta(seconds=80 + 360)
