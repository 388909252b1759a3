"""When a commit waits for the disk (core/commits.py), and what a move's lock waits for.

PostgreSQL only: SQLite has neither `synchronous_commit` nor row locks.  The ordinary tests run
inside one outer transaction, so what a service set for its transaction (`SET LOCAL`) can still be
read after it returned."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import close_old_connections, connection, transaction

from matches.models import ChatMessage
from matches.play import services
from matches.seasons import ledger as seasons

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's commits and row locks")

# Lance Assembly: seat 1 fills column A (a lance at its fifth tile) while seat 2 scatters tiles
WIN = ["A1", "A2", "A3", "A4", "A5"]
LOSE = ["F1", "F3", "F5", "D6", "C4"]


def _waits_for_the_disk() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        result: bool = cursor.fetchone()[0] == "on"
        return result


def test_a_move_inside_a_bout_does_not_wait_for_the_disk_and_the_bouts_last_move_does(roles: Any, play: Any) -> None:
    match = roles.match
    assert _waits_for_the_disk()
    play(match, 1, "place A1")
    assert not _waits_for_the_disk()  # the bout goes on: a crash of PostgreSQL could only lose this move
    for i in range(1, 5):
        play(match, 2, f"place {LOSE[i - 1]}")
        assert not _waits_for_the_disk()
        play(match, 1, f"place {WIN[i]}")
    assert match.bouts.get(number=1).finished is not None
    assert _waits_for_the_disk()  # the move that ended the bout (its result, the score) waits


def test_a_season_event_in_the_same_transaction_waits_for_the_disk(make_match: Any, play: Any) -> None:
    season = seasons.create_season("Commit season")
    match = make_match("lance-assembly")
    play(match, 1, "place A1")
    assert not _waits_for_the_disk()
    seasons.log_event(season, "note", "a line of the season log", announce=False)
    assert _waits_for_the_disk()


def test_a_host_ending_waits_for_the_disk(roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place A1")
    services.award_bout(match, 1)
    assert _waits_for_the_disk()


@pytest.mark.django_db(transaction=True)
def test_a_chat_line_waiting_for_its_commit_does_not_hold_up_a_move(make_match: Any) -> None:
    """A chat line's insert holds a key-share lock on its match row until its commit is on disk;
    the move locks the match row for an update of other columns (FOR NO KEY UPDATE), which does not
    wait for it.  Here the chat's transaction stays open until the move is done."""
    match = make_match("lance-assembly")
    inserted, move_done = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    def chat_line() -> None:
        try:
            with transaction.atomic():
                ChatMessage.objects.create(match=match, room="table", writer="seat-2", name="Bob", text="hi")
                inserted.set()
                move_done.wait(30)
        except BaseException as error:  # reported by the test's thread
            failure.append(error)
        finally:
            close_old_connections()

    writer = threading.Thread(target=chat_line)
    writer.start()
    try:
        assert inserted.wait(30)
        with connection.cursor() as cursor:  # a move that waited for the chat would fail, not hang
            cursor.execute("SET lock_timeout = '10s'")
        try:
            services.submit(match, 1, "place A1", match.current_bout.version)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
    finally:
        move_done.set()
        writer.join(30)
    assert not failure
    assert match.current_bout.version == 2 and ChatMessage.objects.filter(match=match).count() == 1
