"""The move path's statements (matches/statements.py): what reaches the database, in what order,
and that a batch either lands whole or not at all."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from matches import engine, services, statements
from matches.models import Bout, Clock, TurnLog
from tests.conftest import POSTGRES

pytestmark = pytest.mark.django_db


def _bout(match: Any) -> Bout:
    return match.bouts.order_by("-number").first()


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)  # a real BEGIN/COMMIT, not a savepoint in the test's transaction
def test_a_move_is_four_round_trips_on_postgresql(make_match: Any) -> None:
    """BEGIN, the locked reads with the clocks, the log row with both clocks and the bout, COMMIT."""
    match = make_match("lance-assembly")
    version = _bout(match).version
    with CaptureQueriesContext(connection) as queries:
        entry = services.submit(match.pk, 1, "place C3", version)
    sent = [q["sql"].split()[0] for q in queries.captured_queries]
    assert sent == ["BEGIN", "SELECT", "INSERT", "COMMIT"], sent
    # what the batch read back and wrote is what the database holds
    saved = TurnLog.objects.get(pk=entry.pk)
    assert (saved.sequence, saved.text, saved.version) == (entry.sequence, "place C3", _bout(match).version)
    assert Clock.objects.get(bout=_bout(match), seat=2).deadline is not None


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
