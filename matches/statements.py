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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


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


def rows(model: type[M], filters: dict[str, Any], *, order_by: str = "", descending: bool = False,
         limit: int | None = None, lock: bool = False) -> list[M]:
    """Instances of `model` whose columns equal `filters` (AND), ordered by column `order_by`,
    at most `limit`, locked FOR UPDATE when `lock` (and the database locks rows)."""
    quote = connection.ops.quote_name
    select, names, converters = _columns(model)
    where = " AND ".join(f"{quote(column)} = %s" for column in filters)
    sql = f"SELECT {select} FROM {quote(model._meta.db_table)} WHERE {where}"
    if order_by:
        sql += f" ORDER BY {quote(order_by)}{' DESC' if descending else ''}"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(sql, list(filters.values()))
        found = cursor.fetchall()
    out = []
    for row in found:
        values = list(row)
        for index, functions, col in converters:
            for convert in functions:
                values[index] = convert(values[index], col, connection)
        out.append(model.from_db(connection.alias, names, values))
    return out


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
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, instance.pk])


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
    with connection.cursor() as cursor:
        cursor.execute(sql.format(**expressions), params)
        row = cursor.fetchone()
    for field, value in zip(returned, row, strict=True):
        setattr(instance, field.attname, value)
    instance._state.adding = False
    instance._state.db = connection.alias
