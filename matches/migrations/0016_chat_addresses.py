from django.db import migrations, models


class Migration(migrations.Migration):
    """A chat line keeps its writer's address, and a mute holds it (issue 37: a spectator muted
    for the match was back after asking for a new name cookie)."""

    dependencies = [
        ("matches", "0015_away_budget"),
    ]

    operations = [
        migrations.AddField(
            model_name="chatmessage",
            name="address",
            field=models.GenericIPAddressField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="chatmute",
            name="address",
            field=models.GenericIPAddressField(blank=True, null=True),
        ),
    ]
