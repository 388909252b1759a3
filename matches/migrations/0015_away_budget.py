from django.db import migrations, models


class Migration(migrations.Migration):
    """Issue 37: a seat's away pauses are bounded per bout, and the host's restart holds while the seat is away."""

    dependencies = [
        ('matches', '0014_seat_away_alert'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='away_paused_since',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='seat',
            name='away_resumed',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='clock',
            name='away_used',
            field=models.FloatField(default=0),
        ),
    ]
