from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0009_season_name_any_case'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='bot',
            field=models.CharField(blank=True, default='', max_length=8),
        ),
        migrations.AddField(
            model_name='seat',
            name='bot_claim',
            field=models.CharField(blank=True, default='', max_length=40),
        ),
        migrations.AddField(
            model_name='seat',
            name='bot_claimed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
