import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    """Issue 39: matches hosted from Discord, the Discord user of each seat, and the outbox of messages."""

    dependencies = [
        ('matches', '0016_chat_addresses'),
    ]

    operations = [
        migrations.CreateModel(
            name='DiscordMatch',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('interaction_id', models.CharField(max_length=24, unique=True)),
                ('host_user', models.CharField(db_index=True, max_length=24)),
                ('host_name', models.CharField(max_length=80)),
                ('channel_id', models.CharField(blank=True, max_length=24)),
                ('guild_id', models.CharField(blank=True, max_length=24)),
                ('base_url', models.CharField(max_length=200)),
                ('interaction_token', models.TextField(blank=True)),
                ('pings', models.BooleanField(default=True)),
                ('last_error', models.TextField(blank=True)),
                ('last_error_at', models.DateTimeField(blank=True, null=True)),
                ('created', models.DateTimeField(default=django.utils.timezone.now)),
                ('match', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='discord', to='matches.match')),
            ],
        ),
        migrations.CreateModel(
            name='DiscordSeat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('user_id', models.CharField(db_index=True, max_length=24)),
                ('seat', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='discord', to='matches.seat')),
            ],
        ),
        migrations.CreateModel(
            name='DiscordMessage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=120, unique=True)),
                ('kind', models.CharField(choices=[('dm', 'direct message'), ('followup', 'interaction follow-up')], max_length=8)),
                ('recipient', models.CharField(blank=True, max_length=24)),
                ('seat', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('interaction_token', models.TextField(blank=True)),
                ('ephemeral', models.BooleanField(default=False)),
                ('content', models.TextField()),
                ('status', models.CharField(choices=[('pending', 'pending'), ('sent', 'sent'), ('failed', 'failed')], default='pending', max_length=8)),
                ('attempts', models.PositiveSmallIntegerField(default=0)),
                ('next_attempt', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ('last_error', models.TextField(blank=True)),
                ('created', models.DateTimeField(default=django.utils.timezone.now)),
                ('sent', models.DateTimeField(blank=True, null=True)),
                ('match', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='discord_messages', to='matches.match')),
            ],
            options={
                'ordering': ['id'],
            },
        ),
    ]
