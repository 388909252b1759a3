"""The move path's statements (matches/statements.py): what reaches the database, in what order,
and that a batch either lands whole or not at all."""

from __future__ import annotations

import tempfile
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from psycopg.pq import Trace

from matches import engine, services, statements
from matches.models import Bout, Clock, TurnLog
from tests.conftest import POSTGRES

pytestmark = pytest.mark.django_db


def _bout(match: Any) -> Bout:
    return match.bouts.order_by("-number").first()


class Wire:
    """What this process sends PostgreSQL over the default connection, as libpq traces it: the
    text of every simple-protocol query (one round trip each)."""

    def __enter__(self) -> Wire:
        connection.ensure_connection()
        self.file = tempfile.TemporaryFile()
        self.pgconn = connection.connection.pgconn
        self.pgconn.trace(self.file.fileno())
        self.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)
        return self

    def __exit__(self, *exc: object) -> None:
        self.pgconn.untrace()
        self.file.seek(0)
        lines = self.file.read().decode().splitlines()
        self.file.close()
        self.sent = [line.split("\t")[3].strip()[1:-1] for line in lines if line.startswith("F\t")]


def on_postgresql(test: Any) -> Any:
    """Run `test` on PostgreSQL (DATABASE_URL) with real transactions: BEGIN/COMMIT, not a
    savepoint in the test's transaction."""
    for mark in (pytest.mark.django_db(transaction=True),
                 pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL"),
                 pytest.mark.postgres):
        test = mark(test)
    return test


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "fold-off"])
@on_postgresql
def test_a_move_is_two_round_trips_on_postgresql(make_match: Any, settings: Any, fold: bool) -> None:
    """BEGIN with the locked reads and the clocks; the log row, both clocks and the bout with
    COMMIT; nothing else (psycopg sends no BEGIN of its own, Django's commit no COMMIT)."""
    if not fold:
        settings.DEATHMATCH_LIVE_OFF = frozenset({"fold"})
    match = make_match("lance-assembly")
    version = _bout(match).version
    with Wire() as wire:
        entry = services.submit(match.pk, 1, "place C3", version)
    if fold:
        assert len(wire.sent) == 2, wire.sent
        assert wire.sent[0].startswith("BEGIN; SELECT "), wire.sent
        assert wire.sent[1].startswith("INSERT ") and wire.sent[1].endswith("; COMMIT"), wire.sent
    else:
        assert [q.split()[0] for q in wire.sent] == ["BEGIN", "SELECT", "INSERT", "COMMIT"], wire.sent
    # what the batch read back and wrote is what the database holds, committed
    assert not connection.in_atomic_block and connection.get_autocommit()
    saved = TurnLog.objects.get(pk=entry.pk)
    assert (saved.sequence, saved.text, saved.version) == (entry.sequence, "place C3", _bout(match).version)
    assert Clock.objects.get(bout=_bout(match), seat=2).deadline is not None
    # the next move is drawn from the rows this one left (engine.lock(reuse=True)): one round
    # trip that locks them, checks them, writes and commits
    with Wire() as wire:
        services.submit(match.pk, 2, "place A1", version + 1)
    if fold:
        assert len(wire.sent) == 1, wire.sent
        assert wire.sent[0].startswith("BEGIN; SELECT 1 FROM ") and wire.sent[0].endswith("; COMMIT"), wire.sent
        assert "deathmatch_unchanged(" in wire.sent[0] and " FOR UPDATE" in wire.sent[0]
    else:
        assert len(wire.sent) == 4, wire.sent
    assert _bout(match).version == version + 2
    assert list(TurnLog.objects.filter(bout=_bout(match), kind=TurnLog.MOVE).values_list("text", flat=True)) == [
        "place C3", "place A1"]


@on_postgresql
def test_a_move_whose_commit_fails_changes_nothing_and_the_connection_goes_on(make_match: Any) -> None:
    """A constraint checked at COMMIT (Django's foreign keys are deferred on PostgreSQL) fails the
    query that carries COMMIT: nothing of the block is kept, and the connection is as before."""
    match = make_match("lance-assembly")
    bout = _bout(match)
    before = bout.version
    row = TurnLog.objects.filter(bout=bout).first() or engine.note(match, bout, "a note", bout.started)
    with Wire() as wire, pytest.raises(IntegrityError), statements.atomic():
        _, locked = engine.lock(match.pk)
        assert locked is not None
        locked.version += 1
        statements.update(locked, ["version"])
        statements.execute("UPDATE matches_turnlog SET bout_id = %s WHERE id = %s", [10**9, row.pk])
    assert wire.sent[-1].endswith("; COMMIT"), wire.sent
    assert not connection.in_atomic_block and connection.get_autocommit()
    assert _bout(match).version == before and TurnLog.objects.get(pk=row.pk).bout_id == bout.pk
    services.submit(match.pk, 1, "place C3", before)  # the connection goes on
    assert _bout(match).version == before + 1


@on_postgresql
def test_a_move_inside_another_transaction_commits_with_it(make_match: Any) -> None:
    """Nested in an atomic block the move is a savepoint: it sends no COMMIT of its own, and the
    outer block rolling back takes the move with it."""
    match = make_match("lance-assembly")
    version = _bout(match).version

    class Undo(Exception):
        pass

    with Wire() as wire, pytest.raises(Undo), transaction.atomic():
        services.submit(match.pk, 1, "place C3", version)
        raise Undo
    assert not any("COMMIT" in q for q in wire.sent), wire.sent
    assert _bout(match).version == version and not TurnLog.objects.filter(kind=TurnLog.MOVE).exists()


@on_postgresql
def test_a_failing_statement_in_a_folded_batch_changes_nothing(make_match: Any) -> None:
    match = make_match("lance-assembly")
    bout = _bout(match)
    before = bout.version
    with pytest.raises(DatabaseError), statements.atomic():
        bout.version += 1
        statements.update(bout, ["version"])
        statements.execute("UPDATE matches_bout SET version = 1 / 0 WHERE id = %s", [bout.pk])
    assert not connection.in_atomic_block and connection.get_autocommit()
    assert _bout(match).version == before


def test_locking_with_the_clocks_reads_the_clocks_the_bout_has(make_match: Any) -> None:
    match = make_match("lance-assembly")
    with transaction.atomic():
        _, bout = engine.lock(match.pk, with_clocks=True)
        assert bout is not None
        held = [(c.pk, c.seat, c.deadline) for c in bout.__dict__.get("_clock_rows") or
                statements.rows(Clock, {"bout_id": bout.pk}, order_by="seat")]
    assert held == [(c.pk, c.seat, c.deadline) for c in Clock.objects.filter(bout=_bout(match)).order_by("seat")]


def test_held_writes_run_before_any_other_statement(make_match: Any) -> None:
    match = make_match("lance-assembly")
    bout = _bout(match)
    with transaction.atomic(), statements.batched():
        bout.version += 5
        statements.update(bout, ["version"])
        # an ORM read inside the batch sees the write issued before it
        assert Bout.objects.get(pk=bout.pk).version == bout.version
    assert _bout(match).version == bout.version


def test_a_batch_that_fails_changes_nothing(make_match: Any) -> None:
    match = make_match("lance-assembly")
    bout = _bout(match)
    before = bout.version
    with pytest.raises(DatabaseError), transaction.atomic(), statements.batched():
        bout.version += 1
        statements.update(bout, ["version"])
        statements.execute("UPDATE matches_bout SET version = 1 / 0 WHERE id = %s", [bout.pk])
    assert _bout(match).version == before


@on_postgresql
def test_what_follows_a_commit_runs_while_the_commit_is_on_the_wire(make_match: Any, monkeypatch: Any) -> None:
    """A `when_committing` hook runs once the writes and COMMIT have left, before their answer is
    read (the connection is busy: no other statement can go meanwhile); `Outcome.then`
    callbacks run once the commit is known, before anyone waiting on it is woken."""
    from psycopg.pq import TransactionStatus

    match = make_match("lance-assembly")
    version = _bout(match).version
    seen: list[Any] = []

    def hook(outcome: statements.Outcome) -> None:
        seen.append(("hook", connection.connection.pgconn.transaction_status, outcome.ok))
        outcome.then(lambda ok: seen.append(("then", ok, outcome._known.is_set())))
        with pytest.raises(DatabaseError, match="another command is already in progress"):
            Bout.objects.filter(pk=0).exists()

    real_play = engine.play

    def play(*args: Any, **kwargs: Any) -> Any:
        statements.when_committing(hook)
        return real_play(*args, **kwargs)

    monkeypatch.setattr(engine, "play", play)
    with Wire() as wire:
        services.submit(match.pk, 1, "place C3", version)
    assert len(wire.sent) == 2 and wire.sent[1].endswith("; COMMIT"), wire.sent
    assert seen == [("hook", TransactionStatus.ACTIVE, False), ("then", True, False)], seen
    assert _bout(match).version == version + 1 and not connection.in_atomic_block


def _elsewhere(sql: str, params: list[Any]) -> None:
    """A statement committed by another session (another web process, the admin, a host action)."""
    import psycopg

    conf = connection.settings_dict
    with psycopg.connect(dbname=conf["NAME"], host=conf["HOST"] or None, port=conf["PORT"] or None,
                         user=conf["USER"] or None, password=conf["PASSWORD"] or None, autocommit=True) as other:
        other.execute(sql, params)


@on_postgresql
def test_a_move_drawn_from_kept_rows_that_changed_elsewhere_is_drawn_again_from_a_locked_read(
        make_match: Any) -> None:
    """The host paused the match in another process after this one's last move: the next move here,
    drawn from the rows that move left, fails its guard; nothing of it is kept, and the move is
    refused as a locked read sees the match (paused)."""
    from matches.engine import NotAllowed

    match = make_match("lance-assembly")
    version = _bout(match).version
    services.submit(match.pk, 1, "place C3", version)
    assert engine.reusable(match.pk)
    _elsewhere("UPDATE matches_match SET paused = true WHERE id = %s", [match.pk])
    with Wire() as wire, pytest.raises(NotAllowed, match="paused"):
        services.submit(match.pk, 2, "place A1", version + 1)
    assert "deathmatch_unchanged(" in wire.sent[0] and wire.sent[0].endswith("; COMMIT")
    assert wire.sent[1] == "ROLLBACK" and wire.sent[2].startswith("BEGIN; SELECT "), wire.sent
    assert _bout(match).version == version + 1 and not engine.reusable(match.pk)
    assert not TurnLog.objects.filter(bout=_bout(match), text="place A1").exists()


@on_postgresql
def test_a_clock_changed_elsewhere_fails_the_guard_and_the_move_goes_on_from_a_locked_read(make_match: Any) -> None:
    match = make_match("lance-assembly")
    version = _bout(match).version
    services.submit(match.pk, 1, "place C3", version)
    _elsewhere("UPDATE matches_clock SET reserve = reserve + 60 WHERE bout_id = %s AND seat = 1", [_bout(match).pk])
    with Wire() as wire:
        services.submit(match.pk, 2, "place A1", version + 1)
    assert len(wire.sent) == 4 and wire.sent[1] == "ROLLBACK", wire.sent  # guard failed; locked read; writes
    assert _bout(match).version == version + 2
    assert Clock.objects.get(bout=_bout(match), seat=1).reserve >= 60  # the other session's change stands
    # another process moves in this match too: the next moves here are drawn from locked reads
    for index, text in enumerate(["place A2", "place B1"]):
        with Wire() as wire:
            services.submit(match.pk, 1 + index % 2, text, version + 2 + index)
        assert len(wire.sent) == 2, wire.sent
    engine._contended.pop(match.pk)  # (CONTENDED_MOVES later)
    with Wire() as wire:
        services.submit(match.pk, 1, "place B2", version + 4)
    assert len(wire.sent) == 1, wire.sent


@on_postgresql
def test_a_refusal_drawn_from_kept_rows_is_confirmed_by_a_locked_read(make_match: Any) -> None:
    """A move refused from the kept rows sends nothing; the locked read refuses it for itself."""
    from games.core import RuleError

    match = make_match("lance-assembly")
    version = _bout(match).version
    services.submit(match.pk, 1, "place C3", version)
    with Wire() as wire, pytest.raises(RuleError):
        services.submit(match.pk, 2, "place C3", version + 1)  # the square is taken
    assert len(wire.sent) == 2 and wire.sent[0].startswith("BEGIN; SELECT ") and wire.sent[1] == "ROLLBACK", wire.sent
    # another process moved meanwhile: the version this process kept is behind, the locked read is not
    _elsewhere("UPDATE matches_bout SET version = version + 1 WHERE id = %s", [_bout(match).pk])
    with pytest.raises(engine.StaleVersion, match=f"version {version + 2}"):
        services.submit(match.pk, 2, "place A1", version + 1)
    assert _bout(match).version == version + 2
