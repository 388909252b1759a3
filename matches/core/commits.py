"""Whether a transaction's commit waits for the disk.

Every commit waits until PostgreSQL has flushed it to its write-ahead log (`synchronous_commit`
on), except the commit of a move that leaves its bout running and announces nothing: the move
calls `flush_lazily()`, and its commit returns before the flush (`synchronous_commit` off, for
that transaction alone; PostgreSQL's walwriter flushes it within 3 x `wal_writer_delay`, 0.6 s).

Why: on this machine a flush takes 0.4 ms at the median, but 1 commit in 100 waits 10 to 600 ms
(bench/commits.py), and the player to move, the opponent's clock and every spectator wait with it
(issue 22: at 10 spectators those commits were most of a move's p95).

What it costs: if the PostgreSQL server itself crashes (not the app: a web process that dies loses
nothing committed), the moves committed in its last ~0.6 s may be lost, whole transactions and
never half of one; pages then reload the bout as it was before them and the players play them
again.  Nothing another system or a season's ledger saw is ever lost this way: a bout's end, its
result, the ledger, season events and webhooks call `flush_now()`, which makes the whole
transaction wait again (a record's import plays many moves in one transaction).  lichess makes the
same trade for moves (it writes a game's moves to its database after them).  SQLite's commits are
left as they are.
"""

from __future__ import annotations

from django.db import connection


def flush_lazily() -> None:
    """Let the current transaction's commit return before its flush to disk (PostgreSQL)."""
    _set("off")


def flush_now() -> None:
    """Make the current transaction's commit wait for its flush (undoes `flush_lazily`)."""
    _set("on")


def _set(value: str) -> None:
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        with connection.cursor() as cursor:
            # SET LOCAL: this transaction only; the connection's next transaction waits again
            cursor.execute(f"SET LOCAL synchronous_commit TO {value}")
