"""Lag compensation through the services with time frozen (time_machine, never sleep): what a
move is charged, what the log records, when the flag falls, and the match option that turns it off."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest

from matches.core import netlag
from matches.models import Match, TurnLog
from matches.play import services

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def frozen(time_machine: Any) -> Any:
    time_machine.move_to(T0, tick=False)
    return time_machine


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    """Measured lags in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


def current(match: Match) -> Any:
    return match.bouts.order_by("-number").first()


def clock(match: Match, seat: int) -> Any:
    return current(match).clocks.get(seat=seat)


def submit(match: Match, seat: int, text: str, think: float | None) -> TurnLog:
    return services.submit(match, seat, text, current(match).version, think=think)


def test_a_move_is_charged_its_think_time_plus_the_lag_the_quota_does_not_cover(frozen: Any, roles: Any) -> None:
    match = roles.match
    netlag.record(match.pk, 1, 0.3)  # what seat 1's socket measured
    frozen.shift(70.5)
    entry = submit(match, 1, "place C3", 70.0)  # the page: 70 s between the position and Play
    assert entry.elapsed == pytest.approx(70.5) and entry.client_time == pytest.approx(70.0)
    assert entry.lag_comp == pytest.approx(0.34)  # the 0.5 s of lag, capped at 0.3 s + 40 ms
    assert entry.time_used == pytest.approx(70.16)
    one = clock(match, 1)
    assert one.reserve == pytest.approx(300 - 10.16) and one.lag_quota == pytest.approx(3 + 1 - 0.34)
    # the other seat, with no socket measure and no report, is charged what the server saw
    frozen.shift(12)
    entry = submit(match, 2, "place D4", None)
    assert (entry.elapsed, entry.client_time, entry.lag_comp, entry.time_used) == (12, None, 0, 12)
    assert clock(match, 2).lag_quota == pytest.approx(4.0)


def test_a_client_claiming_no_think_time_gets_back_only_its_measured_lag(frozen: Any, roles: Any) -> None:
    match = roles.match
    netlag.record(match.pk, 1, 0.2)
    netlag.record(match.pk, 2, 0.2)
    for seat, text in [(1, "place C3"), (2, "place D4"), (1, "place E5"), (2, "place F6")]:
        frozen.shift(65)
        entry = submit(match, seat, text, 0.0)
        assert entry.lag_comp == pytest.approx(0.24) and entry.time_used == pytest.approx(64.76)
    assert clock(match, 1).reserve == pytest.approx(300 - 2 * 4.76)


def test_the_flag_falls_after_the_grace_and_a_late_move_counts_only_if_its_lag_is_given_back(
    frozen: Any, make_match: Any
) -> None:
    # a 60 s bank: gain 0.39 s, quota 1.17 s, so the flag waits 1.17 s after the visible deadline
    covered = make_match("lance-assembly", clock={"per_move": None, "reserve": 60})
    late = make_match("lance-assembly", clock={"per_move": None, "reserve": 60})
    for match in (covered, late):
        netlag.record(match.pk, 1, 1.5)
        one = clock(match, 1)
        assert current(match).deadline == one.deadline + dt.timedelta(seconds=1.17)
    frozen.shift(61)
    # 61 s by the server, 59.9 s by the page: 1.1 s of lag, all given back (quota 1.17 s)
    entry = submit(covered, 1, "place C3", 59.9)
    assert entry.lag_comp == pytest.approx(1.1) and clock(covered, 1).reserve == pytest.approx(0.1)
    # the same moment with 60.5 s of thought reported: 0.5 s of lag given back, 60.5 s > 60 s: flagged
    with pytest.raises(services.NotAllowed, match="time ran out"):
        submit(late, 1, "place C3", 60.5)
    assert current(late).reason == "time" and current(late).winners == [2]
    assert services.sweep_clocks() == 0  # the time-out was applied once, by the move's own path


def test_the_sweeper_flags_a_seat_when_its_grace_is_over(frozen: Any, make_match: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": None, "reserve": 60})
    frozen.shift(61.1)
    assert services.sweep_clocks() == 0  # inside the 1.17 s grace
    frozen.shift(0.1)
    assert services.sweep_clocks() == 1
    assert current(match).reason == "time"


def test_the_match_option_turns_compensation_off(frozen: Any, make_match: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 300, "lag_compensation": False})
    assert match.format["clock"]["lag_compensation"] is False
    netlag.record(match.pk, 1, 0.3)
    one = clock(match, 1)
    assert one.lag_quota is None and current(match).deadline == one.deadline  # no grace either
    frozen.shift(70.5)
    entry = submit(match, 1, "place C3", 70.0)
    assert (entry.elapsed, entry.client_time, entry.lag_comp, entry.time_used) == (70.5, 70.0, 0, 70.5)
    assert clock(match, 1).reserve == pytest.approx(300 - 10.5)


def test_moves_entered_by_the_host_are_charged_what_the_server_measured(frozen: Any, roles: Any) -> None:
    match = roles.match
    netlag.record(match.pk, 1, 0.3)
    frozen.shift(10)
    entry = services.host_apply(match, "seat 1: place C3", current(match).version)
    assert (entry.elapsed, entry.client_time, entry.lag_comp, entry.time_used) == (10, None, None, 10)
