"""A move's update drawn while its COMMIT is on its way (live.notify_committing, on PostgreSQL).

The move's last writes leave with COMMIT in one query (statements.atomic); just before, the
services hand the update over, and the loop's worker draws the spectators' message meanwhile.
Here the worker is a thread of the test, started from the hand-over: what it draws must be the
update drawn after the commit, byte for byte, and nothing may be sent before the commit is
known, or at all when it fails."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from django.db import IntegrityError, close_old_connections
from django.utils import timezone

from matches import engine, live, presence, services, statements
from tests.conftest import POSTGRES
from tests.matches.test_live import _legal, _open

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL (COMMIT folded)"),
    pytest.mark.django_db(transaction=True),  # a real COMMIT, not a savepoint in the test's transaction
]


@pytest.fixture(autouse=True)
def fresh(monkeypatch: Any) -> None:
    live.forget()
    monkeypatch.setattr(presence, "store", presence._Local())


class Worker:
    """Stands in for the loop's worker: `live.notify_committing` starts `live.prepare` in a thread
    and returns once that thread waits for the commit (what it drew before is then drawn
    before the commit was known); `sent` is what it emitted, each with whether the commit was
    known by then."""

    def __init__(self, monkeypatch: Any) -> None:
        self.sent: list[tuple[str, str, bool]] = []
        self.handed: list[Any] = []
        self.result: list[Any] = []
        self.threads: list[threading.Thread] = []
        self.problems: list[str] = []  # (the hand-over's failures are logged, not raised, by statements)
        monkeypatch.setattr(live, "notify_committing", self.take)

    def take(self, match_id: int, written: live.Written) -> bool:
        outcome = written.committed
        waiting = threading.Event()
        real_wait = outcome.wait

        def wait(timeout: float) -> bool:
            waiting.set()
            return real_wait(timeout)

        outcome.wait = wait  # type: ignore[method-assign]
        self.handed.append(written)

        def emit(group: str, message: dict[str, Any]) -> None:
            self.sent.append((group, message["html"], outcome._known.is_set()))

        def work() -> None:
            try:
                self.result.append(live.prepare(match_id, written, emit))
            finally:
                close_old_connections()
                from django.db import connection

                connection.close()

        thread = threading.Thread(target=work)
        self.threads.append(thread)
        thread.start()
        if not waiting.wait(10):
            self.problems.append("the worker never waited for the commit")
        elif self.sent:
            self.problems.append("sent before the commit was known")
        return True

    def join(self) -> None:
        for thread in self.threads:
            thread.join(20)
        assert not self.problems, self.problems


def test_the_spectators_update_is_drawn_while_the_move_commits_and_sent_after(make_match: Any,
                                                                               monkeypatch: Any) -> None:
    match = make_match("lance-assembly")
    _open(match, "watch", "seat-1", "seat-2", "host")
    live.prepare(match.id)
    worker = Worker(monkeypatch)
    rng = random.Random(11)
    for _ in range(8):
        found = _legal(match, rng)
        assert found is not None
        seat, text, version = found
        before = live._sent[match.id]
        worker.sent.clear()
        with monkeypatch.context() as frozen:
            at = timezone.now()
            frozen.setattr(timezone, "now", lambda at=at: at)  # clocks read the same in both drawings
            services.submit(match.id, seat, text, version)
            worker.join()
            assert worker.handed[-1].rows[-1].text == text
            assert worker.sent and all(known for _, _, known in worker.sent)
            assert worker.sent[0][0].endswith("-watch")  # the spectators first, drawn before the commit
            after = live._sent[match.id]
            assert after.version == before.version + 1 and after.log_max_id == worker.handed[-1].rows[-1].id
            # byte for byte the update read back from the database after the commit
            live._sent[match.id] = before
            read = live.prepare(match.id)
        assert [(g, html) for g, html, _ in worker.sent] == [(g, m["html"]) for g, m in read], text


def test_a_move_whose_commit_fails_sends_nothing(make_match: Any, monkeypatch: Any) -> None:
    match = make_match("lance-assembly")
    _open(match, "watch")
    live.prepare(match.id)
    before = live._sent[match.id]
    worker = Worker(monkeypatch)
    real_play = engine.play

    def play_then_break_a_deferred_key(*args: Any, **kwargs: Any) -> Any:
        entry = real_play(*args, **kwargs)
        # checked at COMMIT (Django's foreign keys are deferred on PostgreSQL): the COMMIT fails
        statements.execute("UPDATE matches_turnlog SET bout_id = %s WHERE id = %s", [10**9, entry_id(match)])
        return entry

    monkeypatch.setattr(engine, "play", play_then_break_a_deferred_key)
    found = _legal(match, random.Random(3))
    assert found is not None
    seat, text, version = found
    with pytest.raises(IntegrityError):
        services.submit(match.id, seat, text, version)
    worker.join()
    assert worker.handed and worker.result == [[]] and not worker.sent
    assert live._sent[match.id] is before


def entry_id(match: Any) -> int:
    from matches.models import TurnLog

    row = TurnLog.objects.filter(match=match).order_by("id").values_list("id", flat=True).first()
    assert row is not None
    return int(row)


def test_an_audience_drawn_whole_meanwhile_reads_the_log_after_the_commit(make_match: Any, monkeypatch: Any) -> None:
    """A page of an audience that had none open at the last update gets the whole page: its log
    is read only once the commit is known, so it holds the move."""
    match = make_match("lance-assembly")
    _open(match, "seat-1")
    live.prepare(match.id)
    _open(match, "watch")  # spectators arrive: their first update is a whole page
    worker = Worker(monkeypatch)
    found = _legal(match, random.Random(5))
    assert found is not None
    seat, text, version = found
    services.submit(match.id, seat, text, version)
    worker.join()
    spectators = [html for group, html, _ in worker.sent if group.endswith("-watch")]
    assert len(spectators) == 1 and 'id="log-list"' in spectators[0]
    assert f'<span class="text">{text}</span>' in spectators[0]
