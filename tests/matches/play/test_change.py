"""matches/play/change.py: every change of a match is one transaction, refused whole or announced
once when it commits; a change made inside another (the host accepting a takeback runs `undo`) is
part of it: announced with it, with no savepoint of its own."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.core import events
from matches.models import TurnLog
from matches.play import requests, services
from matches.play.change import RUNNING, change


@pytest.fixture
def frozen(time_machine: Any) -> Any:
    time_machine.move_to(dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC), tick=False)
    return time_machine


@pytest.fixture
def announced(django_capture_on_commit_callbacks: Any) -> Any:
    """The events published by what runs in the block, once its transaction committed."""
    seen: list[tuple[int, Any]] = []

    def record(match_id: int, moved: Any) -> None:
        seen.append((match_id, moved))

    events.subscribe(record)
    yield seen
    events.unsubscribe(record)


def test_a_change_is_announced_once_when_it_commits(roles: Any, announced: Any,
                                                     django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        services.pause_clocks(roles.match)
        assert announced == []  # not before the commit
    assert announced == [(roles.match.pk, None)]


def test_a_move_is_announced_with_what_it_wrote(roles: Any, announced: Any, play: Any,
                                                django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        entry = play(roles.match, 1, "place A1")
    [(match_id, moved)] = announced
    assert match_id == roles.match.pk and moved.rows == [entry] and moved.bout.version == entry.version


def test_a_refused_change_changes_and_announces_nothing(roles: Any, announced: Any,
                                                        django_capture_on_commit_callbacks: Any) -> None:
    rows = TurnLog.objects.count()
    with (django_capture_on_commit_callbacks(execute=True), pytest.raises(services.NotAllowed, match="no seat 3"),
          change(roles.match, bout=RUNNING, seat=3) as c):
        c.note("never written")
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.StaleVersion):
        services.declare_result(roles.match, "draw", 99)
    assert TurnLog.objects.count() == rows and announced == []


def test_a_change_inside_another_is_part_of_it(roles: Any, announced: Any, play: Any,
                                               django_capture_on_commit_callbacks: Any) -> None:
    play(roles.match, 1, "place A1")
    requests.ask(roles.match, 1, "takeback")
    with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as queries:
        said = requests.answer(roles.match, 1, "takeback", accept=True)
    assert said == "takeback accepted: 1 turn(s) taken back"
    assert announced == [(roles.match.pk, None)]  # once, for the answer and the undo it ran
    savepoints = [q["sql"] for q in queries.captured_queries if q["sql"].upper().startswith("SAVEPOINT")]
    assert len(savepoints) == 1  # the answer's own (the test runs in a transaction); undo has none


def test_a_move_after_its_time_keeps_the_time_out_then_is_refused(frozen: Any, roles: Any, announced: Any,
                                                                  django_capture_on_commit_callbacks: Any) -> None:
    frozen.shift(400)
    version = roles.match.current_bout.version
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.NotAllowed, match="time ran out"):
        services.submit(roles.match, 1, "place A1", version)
    assert announced == [(roles.match.pk, None)]  # the time-out, announced once
    assert TurnLog.objects.filter(match=roles.match, kind=TurnLog.CLOCK, text__contains="ran out of time").exists()


def test_a_change_with_nothing_to_do_after_all_announces_nothing(roles: Any, announced: Any,
                                                                 django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True), change(roles.match) as c:
        done = c.unchanged()  # e.g. another sweeper paused the clocks first
    assert done is False and announced == []
