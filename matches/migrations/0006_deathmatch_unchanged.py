"""PostgreSQL only: `deathmatch_unchanged(ok)`, which fails the statement (and the transaction)
unless `ok`: a move drawn from rows this process wrote last sends it ahead of its writes, with
whether those rows are still as written (statements.reuse), in the one query that also commits.
Other databases never reuse rows: nothing to create there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import migrations

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps

CREATE = """
CREATE OR REPLACE FUNCTION deathmatch_unchanged(ok boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'deathmatch: the match changed since this process wrote it'
      USING ERRCODE = 'serialization_failure';
  END IF;
  RETURN true;
END
$$
"""


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS deathmatch_unchanged(boolean)")


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0005_season_slugs_required"),
    ]

    operations = [migrations.RunPython(create, drop)]
