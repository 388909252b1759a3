"""Issue 37, item 2: an away pause is bounded, and the host's restart holds while the seat is away.

A seat's away pauses hold the clocks for at most the match's `away_budget` seconds a bout in all
(120 s when the host sets none): then its clock runs from the moment the budget ran out and times
out as usual.  The host's Resume is not undone while the seat stays away.  Time is frozen
(time_machine); presence is the real shared store the sweeper asks (live/presence.py through
core/away.py), the pauses are the sweeper's own code, the host's Resume is the service."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from matches.live import presence
from matches.models import Clock, Match, TurnLog
from matches.play import services, sweeper

START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    """Presence keys of this test alone (the shared Redis, when set, keeps them apart)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.fixture
def at(time_machine: Any) -> Any:
    """at(seconds): freeze the time at START + seconds."""
    def move(seconds: float) -> datetime:
        when = START + timedelta(seconds=seconds)
        time_machine.move_to(when, tick=False)
        return when
    move(0)
    return move


def _open(match: Match, seat: int) -> None:
    """The seat has a page open (a socket's join, or its heartbeat renewing it)."""
    presence.store.add([(presence.key(match.pk, f"seat-{seat}"), "page")])


def _close(match: Match, seat: int) -> None:
    presence.store.remove([(presence.key(match.pk, f"seat-{seat}"), "page")])


def _clock(match: Match, seat: int) -> Clock:
    return Clock.objects.get(bout=match.bouts.order_by("-number").first(), seat=seat)


def _paused(match: Match) -> bool:
    match.refresh_from_db()
    return bool(match.paused)


def test_the_away_pause_holds_a_clock_for_the_bouts_away_time_at_most_then_it_times_out(
        make_match: Any, at: Any) -> None:
    """The figure of the closing note: with the default away time, an away pause holds a seat's
    clock 120 s a bout at most, however late the sweeper looks."""
    match = make_match("lance-assembly", clock={"per_move": 10, "reserve": 0, "away_pause": 3,
                                                "lag_compensation": False})
    assert "away_budget" not in match.format["clock"]  # the default
    _open(match, 1)
    at(1)
    _close(match, 1)  # the seat to move closes its page
    at(4)
    assert sweeper.sweep_away() == 1 and _paused(match)
    assert _clock(match, 1).remaining() == pytest.approx(6)
    at(123.9)
    assert sweeper.sweep_away() == 0 and _paused(match)  # 119.9 s of its 120
    at(124.7)  # the sweeper looks 0.7 s late: the clock is charged from the moment the time ran out
    assert sweeper.sweep_away() == 1 and not _paused(match)
    clock = _clock(match, 1)
    assert clock.running_since == START + timedelta(seconds=124)  # held 120 s, not a moment more
    assert clock.deadline == START + timedelta(seconds=130) and clock.away_used == 120
    at(125)
    assert sweeper.sweep_away() == 0 and not _paused(match)  # still away, but its away time is used
    at(129.9)
    assert sweeper.sweep_clocks() == 0
    at(130)
    assert sweeper.sweep_clocks() == 1  # the time-out rule as usual: seat 1 loses the bout
    bout = match.bouts.get(number=1)
    assert bout.finished is not None and bout.result["winners"] == [2]
    notes = list(TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).values_list("text", flat=True))
    assert notes[:2] == ["paused the clocks: seat 1 (Ann) has had no page open for 3 s",
                         "restarted the clocks: seat 1 (Ann) has used its 120 s of away time this bout"]


def test_the_hosts_resume_holds_while_the_seat_stays_away(make_match: Any, at: Any) -> None:
    """The host resumes an away pause: the sweeper does not pause for that seat again until it has
    had a page open; when it leaves again, the pause uses what is left of its away time."""
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 0, "away_pause": 3,
                                                "lag_compensation": False})
    _open(match, 1)
    at(1)
    _close(match, 1)
    at(4)
    assert sweeper.sweep_away() == 1
    at(10)
    services.resume_clocks(match)  # the host: 6 s of seat 1's away time used
    for seconds in (11, 12, 40):  # the seat stays away: the host's Resume wins
        at(seconds)
        assert sweeper.sweep_away() == 0 and not _paused(match)
    assert _clock(match, 1).away_used == 6
    assert _clock(match, 1).running_since == START + timedelta(seconds=10)
    at(41)
    _open(match, 1)  # back
    assert sweeper.sweep_away() == 0
    at(42)
    _close(match, 1)  # and away again: the away pause applies again, with the 114 s left
    at(44.9)
    assert sweeper.sweep_away() == 0
    at(45)
    assert sweeper.sweep_away() == 1 and _paused(match)
    at(158.9)
    assert sweeper.sweep_away() == 0 and _paused(match)
    at(159)
    assert sweeper.sweep_away() == 1 and not _paused(match)
    assert _clock(match, 1).away_used == 120


def test_a_clock_the_host_resumed_times_out_while_its_seat_is_away(make_match: Any, at: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": 10, "reserve": 0, "away_pause": 3,
                                                "lag_compensation": False})
    _open(match, 1)
    at(1)
    _close(match, 1)
    at(4)
    assert sweeper.sweep_away() == 1
    at(40)
    services.resume_clocks(match)  # 6 s left on seat 1's clock
    at(45.9)
    assert sweeper.sweep_away() == 0 and sweeper.sweep_clocks() == 0
    at(46)
    assert sweeper.sweep_away() == 0 and sweeper.sweep_clocks() == 1
    assert match.bouts.get(number=1).result["winners"] == [2]


def test_a_seat_that_comes_back_and_leaves_again_uses_what_is_left_of_its_away_time(
        make_match: Any, at: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 0, "away_pause": 3,
                                                "lag_compensation": False})
    _open(match, 1)
    at(1)
    _close(match, 1)
    at(4)
    assert sweeper.sweep_away() == 1
    at(54)
    _open(match, 1)
    assert sweeper.sweep_away() == 1 and not _paused(match)  # back after 50 s of its 120
    at(60)
    _close(match, 1)
    at(63)
    assert sweeper.sweep_away() == 1 and _paused(match)
    at(132.9)
    assert sweeper.sweep_away() == 0 and _paused(match)
    at(133)  # 70 s: the rest
    assert sweeper.sweep_away() == 1 and not _paused(match)
    at(500)
    assert sweeper.sweep_away() == 0 and not _paused(match)
    assert _clock(match, 1).away_used == 120


def test_each_new_bout_gives_each_seat_its_whole_away_time_again(make_match: Any, at: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": 10, "reserve": 0, "away_pause": 3,
                                                "lag_compensation": False})
    _open(match, 1)
    at(1)
    _close(match, 1)
    at(4)
    assert sweeper.sweep_away() == 1
    at(124)
    assert sweeper.sweep_away() == 1  # its 120 s are used
    at(130)
    assert sweeper.sweep_clocks() == 1  # and seat 1 loses bout 1 on time
    at(131)
    services.start_next_bout(match)
    _open(match, 2)  # seat 2 starts bout 2 (the starter alternates) and moves
    at(132)
    bout = match.bouts.get(number=2)
    services.submit(match, 2, "place C3", bout.version)
    at(135)  # seat 1, still away, is to move: paused, with 120 s again
    assert sweeper.sweep_away() == 1 and _paused(match)
    at(254.9)
    assert sweeper.sweep_away() == 0 and _paused(match)
    at(255)
    assert sweeper.sweep_away() == 1 and not _paused(match)
    assert [c.away_used for c in Clock.objects.filter(bout__match=match, seat=1).order_by("bout__number")] == [120, 120]


def test_the_away_time_is_a_match_option(make_match: Any, at: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 0, "away_pause": 3,
                                                "away_budget": 20, "lag_compensation": False})
    _open(match, 1)
    at(1)
    _close(match, 1)
    at(4)
    assert sweeper.sweep_away() == 1
    at(23.9)
    assert sweeper.sweep_away() == 0
    at(24)
    assert sweeper.sweep_away() == 1 and _clock(match, 1).away_used == 20


def test_several_sweepers_end_an_away_pause_once(make_match: Any, at: Any) -> None:
    """Two sweepers (web processes) look at the same moment: the clocks restart once, and the
    pause's time is counted once."""
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 0, "away_pause": 3,
                                                "lag_compensation": False})
    _open(match, 1)
    at(1)
    _close(match, 1)
    at(4)
    assert sweeper.sweep_away() + sweeper.sweep_away() == 1
    at(130)
    assert sweeper.sweep_away() + sweeper.sweep_away() == 1
    assert _clock(match, 1).away_used == 120
    assert TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).count() == 2


@pytest.mark.parametrize(("value", "message"), [
    (0, "the clock setting away_budget must be a positive number of seconds"),
    (-1, "the clock setting away_budget must be a positive number of seconds"),
    ("soon", "the clock setting away_budget must be a number of seconds"),
    (1e9, "the clock setting away_budget must be at most 604800 seconds (a week)"),
])
def test_the_services_refuse_a_wrong_away_time(db: Any, value: Any, message: str) -> None:
    count = Match.objects.count()
    with pytest.raises(services.ServiceError, match=re.escape(message)):
        services.create_match("lance-assembly", seat_names=["Ann", "Bob"], clock={"away_pause": 3, "away_budget": value})
    assert Match.objects.count() == count
