"""One migration per xdist run on PostgreSQL: the first worker migrates its test database and
copies it to a template; every other worker creates its own database from that template
(CREATE DATABASE ... TEMPLATE) instead of migrating again.  pytest-django then finds the database
there (keepdb) and only checks that every migration is applied.  The template is named after the
xdist controller (every worker's parent process) and dropped by it when the run ends; a lock file
named alike orders the workers.  Outside xdist, or on SQLite, nothing changes."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

#: the lock held from the first worker's check until its template exists
_held: list[IO[str]] = []
#: this run's template, named before pytest-django's setup renames the database to the test one
_template: list[str] = []


def templated() -> bool:
    """Whether this process is an xdist worker whose test database comes from the run's template."""
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def template_name(base: str, controller: int) -> str:
    return f"test_{base}_tpl_{controller}"


def _lock_path(controller: int) -> Path:
    return Path(tempfile.gettempdir()) / f"deathmatch-testdb-{controller}.lock"


def _admin(db: Mapping[str, Any]) -> Any:
    """An autocommit connection to the server's maintenance database (CREATE and DROP DATABASE
    cannot run in a transaction, nor connected to the database they copy or drop)."""
    import psycopg

    return psycopg.connect(dbname="postgres", host=db.get("HOST") or None, port=db.get("PORT") or None,
                           user=db.get("USER") or None, password=db.get("PASSWORD") or None, autocommit=True)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def prepare(db: Mapping[str, Any], own: str) -> None:
    """Before pytest-django's setup: `own` copied from the template when it exists; otherwise this
    worker is the first and keeps the lock until finish_first() has made the template."""
    controller = os.getppid()
    template = template_name(db["NAME"], controller)
    _template[:] = [template]
    lock = _lock_path(controller).open("a")
    fcntl.flock(lock, fcntl.LOCK_EX)
    with _admin(db) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {_quoted(own)}")  # a stale one would be kept as it is
        found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template]).fetchone()
        if found:
            admin.execute(f"CREATE DATABASE {_quoted(own)} TEMPLATE {_quoted(template)}")
    if found:
        lock.close()
    else:
        _held.append(lock)


def finish_first(db: Mapping[str, Any], own: str) -> None:
    """After pytest-django's setup in the first worker: the migrated database becomes the template."""
    if not _held:
        return
    from django.db import connections

    connections.close_all()  # PostgreSQL copies only a database nobody is connected to
    try:
        with _admin(db) as admin:
            admin.execute(f"CREATE DATABASE {_quoted(_template[0])} TEMPLATE {_quoted(own)}")
    finally:
        _held.pop().close()


def drop(db: Mapping[str, Any], name: str) -> None:
    with _admin(db) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {_quoted(name)} WITH (FORCE)")


def drop_template(db: Mapping[str, Any]) -> None:
    """In the xdist controller when the run ends (nothing to do when no worker made a template)."""
    controller = os.getpid()
    if not _lock_path(controller).exists():
        return
    with _admin(db) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {_quoted(template_name(db['NAME'], controller))}")
    _lock_path(controller).unlink(missing_ok=True)
