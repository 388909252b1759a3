"""The few statements every move runs, written once per model and reused.

A move reads the match, its current bout and the bout's clocks under lock,
inserts one log row and updates the clocks and the bout (engine.play).  Built
through the ORM, each statement costs ~0.4-1 ms of Python on the project
machine before it reaches PostgreSQL (query compilation, then model building
through RawQuerySet/ModelIterable); the round trip itself is ~0.2 ms.  Here
the SQL of each statement is built once from the model's `_meta` (so new
fields are picked up without edits), values go through the fields'
`get_db_prep_save` and the backend's converters exactly as the ORM does, and
rows become instances through `Model.from_db`, as the ORM builds them.  The
rest of the app uses the ORM; this is for the move path only.

On PostgreSQL a move also sends several statements in one round trip (`read`,
`batched`): Django's psycopg cursor binds parameters on the client and sends
a query over the simple protocol, which may hold several statements run in
order, their results read with `nextset()`.  In a move's transaction
(`atomic`) BEGIN goes with the three reads and COMMIT with the three writes:
a move is two round trips instead of eight.  Each one cost ~0.25-0.45 ms here
back to back, 0.5-0.8 ms when the machine was idle before the move (the
server process has to be woken), which is how moves arrive.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models, transaction

M = TypeVar("M", bound=models.Model)
log = logging.getLogger(__name__)


@cache
def _columns(model: type[models.Model]) -> tuple[str, tuple[str, ...], tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]]:
    """(select list, attnames, converters by position) of every concrete field."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    fields = model._meta.concrete_fields
    select = ", ".join(f"{table}.{quote(f.column)}" for f in fields)
    converters = []
    for index, field in enumerate(fields):
        col = field.get_col(model._meta.db_table)
        found = tuple(connection.ops.get_db_converters(col) + col.get_db_converters(connection))
        if found:
            converters.append((index, found, col))
    return select, tuple(f.attname for f in fields), tuple(converters)


@dataclass(frozen=True)
class Raw:
    """A filter value computed by SQL (`column = (sql)`), e.g. a subquery."""

    sql: str
    params: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Query:
    """One SELECT of `rows`, to run alone or with others in one round trip (`read`)."""

    model: type[models.Model]
    filters: dict[str, Any]
    order_by: str = ""
    descending: bool = False
    limit: int | None = None
    lock: bool = False
    #: also read each row's `xmin` (PostgreSQL: the transaction that wrote the row as it is), kept
    #: with the row as read on the instance, for `reuse` (`written_rows`)
    xmin: bool = False

    def sql(self) -> tuple[str, list[Any]]:
        select, _, _ = _columns(self.model)
        if self.xmin:
            select += f", {_xmin(self.model)}"
        return self._select(select, lock=self.lock)

    def scalar(self, column: str) -> Raw:
        """This query's `column` alone, unlocked, as a filter value of another (a subquery)."""
        sql, params = self._select(connection.ops.quote_name(column), lock=False)
        return Raw(sql, tuple(params))

    def _select(self, select: str, *, lock: bool) -> tuple[str, list[Any]]:
        quote = connection.ops.quote_name
        where, params = [], []
        for column, value in self.filters.items():
            if isinstance(value, Raw):
                where.append(f"{quote(column)} = ({value.sql})")
                params += value.params
            else:
                where.append(f"{quote(column)} = %s")
                params.append(value)
        sql = f"SELECT {select} FROM {quote(self.model._meta.db_table)} WHERE {' AND '.join(where)}"
        if self.order_by:
            sql += f" ORDER BY {quote(self.order_by)}{' DESC' if self.descending else ''}"
        if self.limit is not None:
            sql += f" LIMIT {int(self.limit)}"
        if lock and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        return sql, params

    def instances(self, found: list[tuple[Any, ...]]) -> list[Any]:
        _, names, converters = _columns(self.model)
        out = []
        for row in found:
            values = list(row[:-1] if self.xmin else row)
            for index, functions, col in converters:
                for convert in functions:
                    values[index] = convert(values[index], col, connection)
            instance = self.model.from_db(connection.alias, names, values)
            if self.xmin:
                instance.__dict__[_ROW] = tuple(row)
            out.append(instance)
        return out


#: an instance's row as read (or written back: `update`) with its xmin last (`Query.xmin`)
_ROW = "_deathmatch_row"


def _xmin(model: type[models.Model]) -> str:
    return f"{connection.ops.quote_name(model._meta.db_table)}.xmin::text"


def written_row(instance: models.Model) -> tuple[Any, ...] | None:
    """The instance's row as the database holds it after this transaction (its columns and xmin),
    when it was read with `Query.xmin` and written, if at all, through `update`."""
    return instance.__dict__.get(_ROW)


def rows(model: type[M], filters: dict[str, Any], *, order_by: str = "", descending: bool = False,
         limit: int | None = None, lock: bool = False) -> list[M]:
    """Instances of `model` whose columns equal `filters` (AND), ordered by column `order_by`,
    at most `limit`, locked FOR UPDATE when `lock` (and the database locks rows)."""
    return read(Query(model, filters, order_by, descending, limit, lock))[0]


def read(*queries: Query) -> list[list[Any]]:
    """The rows of each query, run in order (locks are taken in that order); in one round trip
    where the connection can send several statements at once (`can_batch`)."""
    flush()
    if len(queries) > 1 and can_batch():
        built = [q.sql() for q in queries]
        out = []
        with connection.cursor() as cursor:
            _send(cursor, [sql for sql, _ in built], [p for _, params in built for p in params])
            for index, query in enumerate(queries):
                if index:
                    cursor.nextset()
                out.append(query.instances(cursor.fetchall()))
        return out
    results = []
    for query in queries:
        sql, params = query.sql()
        with connection.cursor() as cursor:
            _send(cursor, [sql], params)
            results.append(query.instances(cursor.fetchall()))
    return results


def can_batch() -> bool:
    """Several statements in one query: PostgreSQL through psycopg's client-side binding cursor,
    which Django uses unless the database's OPTIONS set `server_side_binding` (binding on the
    server allows one statement a query)."""
    from django.conf import settings

    return (connection.vendor == "postgresql"
            and connection.settings_dict.get("OPTIONS", {}).get("server_side_binding") is not True
            and "batch" not in getattr(settings, "DEATHMATCH_LIVE_OFF", ()))


# -- a move's transaction in two round trips ------------------------------------------------

#: inside `atomic()` on a connection that may fold BEGIN and COMMIT into its statements
_folding: ContextVar[bool] = ContextVar("deathmatch_statements_folding", default=False)


class Outcome:
    """Whether a transaction whose COMMIT is on its way (`when_committing`) committed."""

    def __init__(self) -> None:
        self._known = threading.Event()
        self._then: list[Callable[[bool], None]] = []
        self.ok = False

    def then(self, callback: Callable[[bool], None]) -> None:
        """Have `callback(ok)` called in the committing thread as soon as it is known, before
        anyone waiting (`wait`) is woken; from a `when_committing` hook (it is known only after)."""
        self._then.append(callback)

    def settle(self, ok: bool) -> None:
        self.ok = ok
        for callback in self._then:
            try:
                callback(ok)
            except Exception:  # what follows a commit never fails it
                log.exception("a callback after COMMIT failed")
        self._known.set()

    def wait(self, timeout: float) -> bool:
        """Block until it is known: True when the transaction committed, False when it failed (or
        nothing was known after `timeout` seconds)."""
        return self._known.wait(timeout) and self.ok


#: `when_committing` hooks of the current `atomic()` block (None outside one that folds COMMIT)
_committing: ContextVar[list[Callable[[Outcome], None]] | None] = ContextVar(
    "deathmatch_statements_committing", default=None)


def when_committing(hook: Callable[[Outcome], None]) -> bool:
    """Have `hook(outcome)` called in this thread as soon as the COMMIT of the current `atomic()`
    block has left with its last writes, before its answer is read, so that what follows a
    commit (drawing the live update) is done while the database commits; `outcome.wait()` (or
    `outcome.then`) then tells whether it did.  The hook must not use the database: the
    connection is busy with the COMMIT.  False
    when this block does not send COMMIT itself (no folding: another database, a savepoint);
    even when True, the hook is not called if no writes are held at the end of the block (Django
    commits then): callers also keep their `transaction.on_commit`."""
    hooks = _committing.get()
    if hooks is None:
        return False
    hooks.append(hook)
    return True


class Reread(Exception):
    """A move drawn from rows this process kept (`reuse`) needs a statement before its last query,
    or a refusal drawn from them is to be confirmed: nothing was sent; do it again from a locked
    read."""


#: `reuse` statements of the current `atomic()` block, sent after BEGIN in its last query
_guard: ContextVar[list[tuple[str, list[Any]]] | None] = ContextVar("deathmatch_statements_guard", default=None)


def reuse(guard: list[tuple[str, list[Any]]]) -> bool:
    """Draw this `atomic()` block's move from rows this process kept instead of reading them: the
    `guard` statements (sql, parameters) lock those rows and fail the transaction unless they are
    still as kept (`stale`); they go after BEGIN in front of the writes and COMMIT, so the move is
    one round trip.  Any other statement in the block raises `Reread` before anything is sent.
    False (and nothing changed) where the block does not fold BEGIN and COMMIT, or has sent
    something already."""
    if not _folding.get() or not _idle() or _guard.get() is not None:
        return False
    _guard.set(list(guard))
    return True


def stale(error: BaseException) -> bool:
    """Whether `error` is the failure of a `reuse` guard: the rows changed since they were kept."""
    from psycopg.errors import SerializationFailure

    cause = error.__cause__ if error.__cause__ is not None else error
    return isinstance(cause, SerializationFailure) and "deathmatch:" in str(cause)


def _guard_statements(cursor: Any) -> list[str]:
    guard = _guard.get()
    _guard.set(None)
    return [cursor.cursor.mogrify(sql, params) for sql, params in guard or ()]


def _refuse_before_guard() -> None:
    if _guard.get() is not None:
        raise Reread("a statement before the move's last query")


@contextmanager
def atomic() -> Iterator[None]:
    """`transaction.atomic()` for a move, two round trips shorter on PostgreSQL.

    psycopg sends BEGIN alone before a transaction's first statement, and Django's commit sends
    COMMIT alone.  Here, when this is the outermost atomic block: BEGIN goes in front of the
    transaction's first statement when that is one of this module's (`read`, the held writes),
    and the writes are held (`batched`) to the end of the block and sent with COMMIT behind
    them, so that Django's commit finds the transaction closed and sends nothing
    (psycopg's `commit()` returns when the connection is idle).  A statement that fails, COMMIT
    included, fails the whole query, and the block rolls back as it would anyway.  Inside
    another atomic block (a savepoint: tests, nested services), on other databases and with
    the "fold" lever off (`DEATHMATCH_LIVE_OFF`), it is `transaction.atomic()` with `batched()`."""
    from django.conf import settings

    with transaction.atomic():
        outermost = (can_batch() and "fold" not in getattr(settings, "DEATHMATCH_LIVE_OFF", ())
                     and len(connection.atomic_blocks) == 1 and not connection.savepoint_ids)
        folding = outermost and _plain_transactions()
        token = _folding.set(folding)
        hooks = _committing.set([] if folding else None)
        guard = _guard.set(None)
        try:
            with batched(commit=True):
                yield
        finally:
            _guard.reset(guard)
            _committing.reset(hooks)
            _folding.reset(token)


def _plain_transactions() -> bool:
    """The connection starts its transactions with a plain BEGIN (no isolation level, read-only or
    deferrable option of the database's OPTIONS) and is psycopg 3's, whose `_autocommit` decides
    whether it sends BEGIN itself (`_send`)."""
    raw = connection.connection
    return (raw is not None and getattr(raw, "_autocommit", None) is False and raw.isolation_level is None
            and raw.read_only is None and raw.deferrable is None)


def _idle() -> bool:
    from psycopg.pq import TransactionStatus

    return bool(connection.connection.pgconn.transaction_status == TransactionStatus.IDLE)


def _send(cursor: Any, statements: list[str], params: list[Any]) -> None:
    """Execute `statements` as one query.  In `atomic`: with BEGIN in front when no statement of
    the transaction has been sent yet (then its result is skipped: the cursor stands on the
    first statement's).  (The COMMIT goes with the last writes: `_committing_query`.)"""
    _refuse_before_guard()
    if not _folding.get():
        cursor.execute("; ".join(statements), params)
        return
    begin = _idle()
    sql = "; ".join((["BEGIN"] if begin else []) + statements)
    if not begin:
        cursor.execute(sql, params)
        return
    raw = connection.connection
    # psycopg would send a BEGIN of its own first, in a round trip of its own
    # (Connection._start_query); no public switch says "this query begins the transaction"
    raw._autocommit = True
    try:
        cursor.execute(sql, params)
    finally:
        raw._autocommit = False
    cursor.nextset()


# -- writes, batched ----------------------------------------------------------------------

#: (sql, params, what to do with the row it returns) of the writes `batched` holds back
_Pending = list[tuple[str, list[Any], Callable[[Any], None] | None, bool]]
_pending: ContextVar[_Pending | None] = ContextVar("deathmatch_statements_pending", default=None)


def execute(sql: str, params: Sequence[Any], returned: Callable[[Any], None] | None = None, *,
            every: bool = False) -> None:
    """Run a write now, or with the others at the end of `batched()`; `returned(row)` gets the
    row its RETURNING clause gives back (`every`: the list of every row)."""
    pending = _pending.get()
    if pending is not None:
        pending.append((sql, list(params), returned, every))
        return
    _run([(sql, list(params), returned, every)])


@contextmanager
def batched(*, commit: bool = False) -> Iterator[None]:
    """Hold the writes of `execute` (`insert`, `update`, clocks' UPDATE) back and send them in one
    round trip at the end (PostgreSQL; one by one elsewhere).  Any other statement run meanwhile
    (through Django's cursor) sends the held writes first, so statements still run in the
    order the code issued them.  `commit` (`atomic` only): COMMIT goes with the writes sent at
    the end, when the transaction may be committed then."""
    if _pending.get() is not None or not can_batch():
        yield
        return
    pending: _Pending = []
    token = _pending.set(pending)

    def writes_first(run: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        _refuse_before_guard()
        flush()
        return run(sql, params, many, context)

    try:
        with connection.execute_wrapper(writes_first):
            yield
            flush(commit=commit and _folding.get() and not connection.needs_rollback)
    finally:
        _pending.reset(token)


def flush(*, commit: bool = False) -> None:
    """Send the writes `batched` holds (if any) now (`commit`: and COMMIT, see `atomic`, after
    calling the `when_committing` hooks)."""
    pending = _pending.get()
    if not pending:
        return
    held = pending[:]
    pending.clear()
    if not commit:
        _run(held)
        return
    outcome = Outcome()
    hooks = list(_committing.get() or ())

    def meanwhile() -> None:
        for hook in hooks:
            try:
                hook(outcome)
            except Exception:  # what follows the commit must never fail the transaction
                log.exception("a hook before COMMIT failed")

    ok = False
    try:
        _run(held, commit=True, meanwhile=meanwhile)
        ok = True
    finally:
        outcome.settle(ok)


def _run(held: _Pending, *, commit: bool = False, meanwhile: Callable[[], None] | None = None) -> None:
    with connection.cursor() as cursor:
        if commit:
            returning = _committing_query(cursor, [(sql, params) for sql, params, _, _ in held],
                                          meanwhile or (lambda: None))
            for (_, _, returned, every), rows in zip(held, returning, strict=True):
                if returned is not None:
                    returned(rows if every else (rows[0] if rows else None))
            return
        _send(cursor, [sql for sql, _, _, _ in held], [p for _, params, _, _ in held for p in params])
        for index, (_, _, returned, every) in enumerate(held):
            if index:
                cursor.nextset()
            if returned is not None:
                returned(cursor.fetchall() if every else cursor.fetchone())


def _committing_query(cursor: Any, statements: list[tuple[str, list[Any]]],
                      meanwhile: Callable[[], None]) -> list[list[tuple[Any, ...]]]:
    """`statements` (sql, parameters) then COMMIT (BEGIN in front when nothing of the transaction
    was sent yet) as one query, with `meanwhile()` run in this thread once the query has left and
    before its answer is read: the rows of each statement's result.  (psycopg's `execute`
    sends and then waits in one call; its libpq layer, `pgconn`, can send without waiting.)
    Parameters are bound on the client (`mogrify`) as `execute` binds them on this connection
    (`can_batch`), each statement on its own: psycopg caches how it cuts a statement of at most
    50 parameters, and the three writes of a move have ~60 together (0.26 ms a move uncached)."""
    from psycopg.adapt import Transformer
    from psycopg.errors import error_from_result
    from psycopg.pq import ExecStatus

    raw = connection.connection
    begin = _idle()
    guard = _guard_statements(cursor) if begin else []
    bound = [cursor.cursor.mogrify(sql, params) for sql, params in statements]
    query = "; ".join((["BEGIN"] if begin else []) + guard + bound + ["COMMIT"])
    started = time.monotonic()
    results: list[Any] = []
    with connection.wrap_database_errors:
        pgconn = raw.pgconn
        waiting = select.poll()  # not select(): a server holding 2,000 sockets has descriptors over 1,024
        waiting.register(pgconn.socket, select.POLLIN | select.POLLOUT)
        pgconn.send_query(query.encode(raw.info.encoding))
        while pgconn.flush():  # non-blocking connection: the rest of the query waits for room
            waiting.poll()
        waiting.modify(pgconn.socket, select.POLLIN)
        try:
            meanwhile()
        finally:  # the answer is always read: the connection is busy until then
            while True:
                while pgconn.is_busy():
                    waiting.poll()
                    pgconn.consume_input()
                result = pgconn.get_result()
                if result is None:
                    break
                results.append(result)
        if connection.queries_logged:
            connection.queries_log.append({"sql": query, "time": f"{time.monotonic() - started:.3f}"})
        for result in results:
            if result.status == ExecStatus.FATAL_ERROR:
                raise error_from_result(result, encoding=raw.info.encoding)
    rows: list[list[tuple[Any, ...]]] = []
    loader = Transformer.from_context(raw)
    for result in results[(1 if begin else 0) + len(guard):-1]:
        loader.set_pgresult(result)
        rows.append(loader.load_rows(0, result.ntuples, tuple))
    return rows


@cache
def _update_sql(model: type[models.Model], attnames: tuple[str, ...]) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    quote = connection.ops.quote_name
    fields = tuple(model._meta.get_field(name) for name in attnames)
    sets = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    return f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {quote(model._meta.pk.column)} = %s", fields


def update(instance: models.Model, attnames: Sequence[str] | None = None) -> None:
    """`instance.save(update_fields=attnames)` (every concrete field but the key when None),
    without the ORM's query building; `save()` signals do not fire (no model here uses them)."""
    model = type(instance)
    names = tuple(attnames) if attnames is not None else tuple(
        f.attname for f in model._meta.concrete_fields if not f.primary_key)
    sql, fields = _update_sql(model, names)
    params = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in fields]
    keep = keep_rows([instance])  # a row kept for `reuse`: what it holds now comes back (its xmin is this transaction's)
    if keep is None:
        execute(sql, [*params, instance.pk])
    else:
        execute(sql + returning_rows(model), [*params, instance.pk], keep, every=True)


def returning_rows(model: type[models.Model]) -> str:
    """What an UPDATE of `model` returns for rows kept for `reuse` (see `execute(every=True)`)."""
    select, _, _ = _columns(model)
    return f" RETURNING {select}, {_xmin(model)}"


def keep_rows(instances: Sequence[models.Model]) -> Callable[[list[Any]], None] | None:
    """For an UPDATE of several `instances` that returns `returning_rows`: the callback that keeps
    each returned row on its instance (by key), or None when they are not kept."""
    if not instances or not all(_ROW in i.__dict__ for i in instances):
        return None
    model = type(instances[0])
    _, names, _ = _columns(model)
    key = names.index(model._meta.pk.attname)
    by_key = {i.pk: i for i in instances}

    def keep(rows: list[Any]) -> None:
        for row in rows:
            by_key[row[key]].__dict__[_ROW] = tuple(row)

    return keep


@cache
def _insert_sql(model: type[models.Model], computed: tuple[str, ...]) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    quote = connection.ops.quote_name
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    values = ", ".join("{" + f.attname + "}" if f.attname in computed else "%s" for f in fields)
    returned = (model._meta.pk, *(f for f in fields if f.attname in computed))
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
           f"VALUES ({values}) RETURNING {', '.join(quote(f.column) for f in returned)}")
    return sql, returned


def insert(instance: models.Model, computed: dict[str, tuple[str, list[Any]]] | None = None) -> None:
    """`instance.save()` of a new row, without the ORM's query building.  `computed`: columns the
    INSERT computes itself, {attname: (SQL expression with %s placeholders, its parameters)}; they
    are read back (RETURNING) with the key.  Needs a database that returns columns from an INSERT
    (PostgreSQL; SQLite 3.35+)."""
    computed = computed or {}
    sql, returned = _insert_sql(type(instance), tuple(sorted(computed)))
    expressions = {name: expression for name, (expression, _) in computed.items()}
    params: list[Any] = []
    for field in type(instance)._meta.concrete_fields:
        if field.primary_key:
            continue
        if field.attname in computed:
            params += computed[field.attname][1]
        else:
            params.append(field.get_db_prep_save(field.pre_save(instance, True), connection))

    def read_back(row: Any) -> None:
        for field, value in zip(returned, row, strict=True):
            setattr(instance, field.attname, value)

    instance._state.adding = False
    instance._state.db = connection.alias
    execute(sql.format(**expressions), params, read_back)
