"""Bot turns as jobs (matches/play/bots.py): enqueued on the commit that makes a bot seat to act,
in their lane; taken by one worker; a quick job before an earlier strong one; dropped when their
turn has passed; taken again after the lease when their worker died (a real `run_bots` process,
killed), and the turn played once.  Iteration budgets only in this process (test_bots.SMALL)."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.db import connection
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from matches.models import Match, Seat
from matches.play import bots, services
from tests.conftest import POSTGRES
from tests.matches.play.test_bots import SMALL, bot_seat, current, moves
from tests.threads import released_together

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


def jobs(**filters: Any) -> list[DBTaskResult[Any, Any]]:
    return list(DBTaskResult.objects.filter(task_path=bots.bot_turn.module_path, **filters).order_by("enqueued_at"))


def person_against(make_match: Any, strength: str, game: str = "squava") -> Match:
    match = make_match(game, seat_names=["Ann", "Bob"])
    bots.set_bot(match, 2, strength)
    assert isinstance(match, Match)
    return match


def test_a_turn_is_enqueued_once_on_the_commit_that_makes_the_bot_to_act(
        make_match: Any, play: Any, django_capture_on_commit_callbacks: Any) -> None:
    match = person_against(make_match, "easy")
    assert jobs() == []  # seat 1 to move: nothing looks at the bot
    with django_capture_on_commit_callbacks(execute=True):
        play(match, 1, "C3")
    [job] = jobs(status=TaskResultStatus.READY)
    seat = bot_seat(match, 2)
    assert job.queue_name == bots.QUICK and job.priority == bots.PERSON_WAITS + bots.SHORT_THINK
    assert job.task_result.args == [seat.pk, f"{current(match).pk}:{current(match).version}"]
    assert bots.enqueue_turns(match.pk) == 0  # another commit of the match: the same turn, not enqueued again
    assert len(jobs()) == 1
    assert bots.sweep_bots(SMALL) == 1 and len(moves(match, 2)) == 1
    assert jobs(status=TaskResultStatus.SUCCESSFUL)[0].return_value is True


def test_a_free_worker_takes_an_easy_job_before_an_earlier_strong_one(
        make_match: Any, play: Any, django_capture_on_commit_callbacks: Any) -> None:
    strong = make_match("gomoku")
    with django_capture_on_commit_callbacks(execute=True):
        bots.set_bot(strong, 1, "strong")  # seat 1 is to move: its job is enqueued first
        bots.set_bot(strong, 2, "strong")
    easy = person_against(make_match, "easy")
    with django_capture_on_commit_callbacks(execute=True):
        play(easy, 1, "C3")
    first, second = jobs(status=TaskResultStatus.READY)
    assert (first.queue_name, second.queue_name) == (bots.STRONG, bots.QUICK)
    # the quick lane's own thread never takes a strong search
    taken = bots.take((bots.QUICK,))
    assert taken is not None and taken.pk == second.pk
    taken.set_successful(False)
    assert bots.take((bots.QUICK,)) is None
    # a worker of every lane takes the quick job first: enqueued later, the higher priority
    DBTaskResult.objects.filter(pk=second.pk).update(status=TaskResultStatus.READY)
    taken = bots.take(bots.LANES)
    assert taken is not None and taken.pk == second.pk
    taken = bots.take(bots.LANES)
    assert taken is not None and taken.pk == first.pk


def test_a_job_for_a_turn_that_has_passed_is_dropped(
        make_match: Any, play: Any, django_capture_on_commit_callbacks: Any) -> None:
    match = person_against(make_match, "normal")
    with django_capture_on_commit_callbacks(execute=True):
        play(match, 1, "C3")
    [job] = jobs()
    with django_capture_on_commit_callbacks(execute=True):
        bots.set_bot(match, 2, "")  # the host takes the seat back before a worker took the job
    assert bots.sweep_bots(SMALL) == 0 and moves(match, 2) == []
    job.refresh_from_db()
    assert job.status == TaskResultStatus.SUCCESSFUL and job.return_value is False
    # the computer again: the bump of the version makes it a new turn, enqueued and played once
    with django_capture_on_commit_callbacks(execute=True):
        bots.set_bot(match, 2, "normal")
    assert len(jobs(status=TaskResultStatus.READY)) == 1
    assert bots.sweep_bots(SMALL) == 1 and bots.sweep_bots(SMALL) == 0 and len(moves(match, 2)) == 1


def test_a_paused_matchs_bot_waits_and_plays_when_resumed(
        make_match: Any, play: Any, django_capture_on_commit_callbacks: Any) -> None:
    match = person_against(make_match, "easy")
    with django_capture_on_commit_callbacks(execute=True):
        play(match, 1, "C3")
    with django_capture_on_commit_callbacks(execute=True):
        services.pause_clocks(match)
    job = bots.take()
    assert job is not None and bots.run_job(job, SMALL) is False  # paused: dropped, nothing played
    assert moves(match, 2) == [] and bots.take() is None
    with django_capture_on_commit_callbacks(execute=True):
        services.resume_clocks(match)
    assert bots.sweep_bots(SMALL) == 1 and len(moves(match, 2)) == 1


def test_a_job_whose_worker_stopped_is_taken_again_after_the_lease(
        make_match: Any, play: Any, django_capture_on_commit_callbacks: Any) -> None:
    """Any database (the embedded default too); a real worker process killed: the test below."""
    match = person_against(make_match, "easy")
    start = dt.datetime.now(dt.UTC)
    with time_machine.travel(start, tick=False) as clock:
        with django_capture_on_commit_callbacks(execute=True):
            play(match, 1, "C3")
        job = bots.take()  # a worker takes the job and claims the turn ... and dies before it moves
        assert job is not None and bots.claim(bot_seat(match, 2).pk, "easy", job.task_result.args[1], start)
        clock.shift(bots.LEASE.total_seconds() - 1)
        assert bots.reap() == 0 and bots.sweep_bots(SMALL) == 0  # within the lease: left alone
        clock.shift(2)
        assert bots.reap() == 1 and bots.reap() == 0
        assert bots.sweep_bots(SMALL) == 1 and bots.sweep_bots(SMALL) == 0
    assert len(moves(match, 2)) == 1


def test_finished_jobs_are_deleted_a_day_after_and_waiting_ones_never(
        make_match: Any, play: Any, django_capture_on_commit_callbacks: Any) -> None:
    match = person_against(make_match, "easy")
    start = dt.datetime.now(dt.UTC)
    with time_machine.travel(start, tick=False) as clock:
        with django_capture_on_commit_callbacks(execute=True):
            play(match, 1, "C3")
        assert bots.sweep_bots(SMALL) == 1  # the bot's first move: its job finished now
        # a square the bot did not take (the easy computer plays at random)
        second = next(square for square in ("D4", "B2") if not any(square in text for text in moves(match, 2)))
        with django_capture_on_commit_callbacks(execute=True):
            play(match, 1, second)
        waiting = jobs(status=TaskResultStatus.READY)
        assert len(waiting) == 1
        clock.shift(bots.KEEP_FINISHED.total_seconds() - 1)
        assert bots.prune() == 0  # kept for a day
        clock.shift(2)
        assert bots.prune() == 1
        assert jobs() == waiting  # a job still to run is never deleted, however old
        assert bots.sweep_bots(SMALL) == 1 and len(moves(match, 2)) == 2


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_job_is_taken_by_one_of_two_workers(make_match: Any, play: Any) -> None:
    match = person_against(make_match, "easy")
    play(match, 1, "C3")  # committed: its job is enqueued
    assert len(jobs(status=TaskResultStatus.READY)) == 1
    taken: list[DBTaskResult[Any, Any] | None] = []
    errors = released_together(*[lambda: taken.append(bots.take())] * 2)
    assert errors == [] and len(taken) == 2 and taken.count(None) == 1


@pytest.fixture
def lane() -> Any:
    """A lane thread of this process (quick jobs) that would look for jobs on its own only once an
    hour: what it plays sooner, its bell or a delayed job's time made it take.  (PostgreSQL: the
    in-memory SQLite test database that threads share refuses a read beside a write at once,
    "database table is locked", where a file's waits.)"""
    started = bots.Lane((bots.QUICK,), 0, poll=3600)
    yield started
    started.stop()
    started.thread.join(timeout=30)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_lane_asleep_is_rung_by_the_commit_that_enqueues_a_job_in_its_process(
        make_match: Any, play: Any, lane: Any) -> None:
    match = person_against(make_match, "easy")
    assert lane.asleep.wait(30)  # it found nothing to do
    play(match, 1, "C3")  # committed: its job is enqueued, and the lane rung
    _until(lambda: len(moves(match, 2)) == 1, seconds=60)
    assert lane.asleep.wait(30)
    play(match, 1, "C4")
    _until(lambda: len(moves(match, 2)) == 2, seconds=60)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_lane_wakes_when_a_job_enqueued_to_run_later_is_due(make_match: Any, play: Any, lane: Any) -> None:
    match = person_against(make_match, "easy")
    bots.set_bot(match, 2, "")
    play(match, 1, "C3")
    assert lane.asleep.wait(30)
    Seat.objects.filter(match=match, number=2).update(bot="easy")  # no commit of the match: no job yet
    assert bots.enqueue_turns(match.pk, delay=dt.timedelta(seconds=1)) == 1  # (a retry's delay)
    _until(lambda: len(moves(match, 2)) == 1, seconds=60)


def _database_url() -> str:
    """This test process's database (the test database), for a worker process."""
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _until(what: Any, seconds: float = 120) -> None:
    """Wait for `what()` to hold (polled: the event is in another process); fail if it never does."""
    end = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < end, "the worker process never got there"
        time.sleep(0.02)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_search_and_the_turn_played_once_by_another(make_match: Any, play: Any,
                                                                        tmp_path: Path) -> None:
    match = person_against(make_match, "strong", game="gomoku")
    play(match, 1, "H7")
    seat = bot_seat(match, 2)
    env = {**os.environ, "DATABASE_URL": _database_url(), "DEATHMATCH_BOT_POLL": "0.05"}
    with (tmp_path / "run_bots.log").open("wb") as log:
        worker = subprocess.Popen([sys.executable, "manage.py", "run_bots"], cwd=ROOT, env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        # it took the job and claimed the turn: it is thinking (strong: seconds)
        _until(lambda: bool(jobs(status=TaskResultStatus.RUNNING))
               and Seat.objects.get(pk=seat.pk).bot_claimed_at is not None)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert moves(match, 2) == []
    [running] = jobs(status=TaskResultStatus.RUNNING)
    assert bots.reap() == 0 and bots.sweep_bots(SMALL) == 0  # within the lease: nobody takes the turn
    with time_machine.travel(dt.datetime.now(dt.UTC) + bots.LEASE + dt.timedelta(seconds=1), tick=False):
        assert bots.reap() == 1  # past the lease: failed, and enqueued again
        assert bots.reap() == 0
        assert bots.sweep_bots(SMALL) == 1
        assert bots.sweep_bots(SMALL) == 0
    running.refresh_from_db()
    assert running.status == TaskResultStatus.FAILED and running.exception_class_path.endswith("LeaseExpired")
    assert len(moves(match, 2)) == 1
