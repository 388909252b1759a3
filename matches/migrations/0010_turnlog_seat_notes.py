# A seat's own log notes (resign, draw offer, takeback request): not host actions, so they do not
# move the host dashboard's exactly-once sequence (matches/play/requests.py).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0009_season_name_any_case'),
    ]

    operations = [
        migrations.AlterField(
            model_name='turnlog',
            name='kind',
            field=models.CharField(choices=[('move', 'move'), ('host', 'host'), ('clock', 'clock'), ('seat', 'seat')], default='move', max_length=8),
        ),
    ]
