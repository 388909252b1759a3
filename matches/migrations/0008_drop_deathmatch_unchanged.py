"""PostgreSQL only: drop `deathmatch_unchanged`, the check function of migration 0006, now that a
move reads its rows under lock through the ORM (no rows kept between moves to check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import migrations

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps

DROP = "DROP FUNCTION IF EXISTS deathmatch_unchanged(boolean)"
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


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0007_match_garnets"),
    ]

    operations = [migrations.RunPython(drop, create)]
