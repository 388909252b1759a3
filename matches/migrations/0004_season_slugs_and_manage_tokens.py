"""Give every existing season a slug and a secret manage token (the columns
were added nullable in 0003; 0005 makes them unique and required)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.db import migrations
from django.utils.text import slugify

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps


def fill(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Season = apps.get_model("matches", "Season")
    taken = set(Season.objects.exclude(slug=None).values_list("slug", flat=True))
    for season in Season.objects.filter(slug=None).order_by("id"):
        base = slugify(season.name)[:70] or "season"
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        season.slug = slug
        season.manage_token = season.manage_token or secrets.token_urlsafe(24)
        season.save(update_fields=["slug", "manage_token"])


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0003_seasons"),
    ]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
