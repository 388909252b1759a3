import django.db.models
from django.db import migrations

import matches.models


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0004_season_slugs_and_manage_tokens"),
    ]

    operations = [
        migrations.AlterField(
            model_name="season",
            name="slug",
            field=django.db.models.SlugField(max_length=80, unique=True),
        ),
        migrations.AlterField(
            model_name="season",
            name="manage_token",
            field=django.db.models.CharField(default=matches.models.new_token, max_length=64, unique=True),
        ),
    ]
