"""manage.py import_record FILE: a new match played from a downloaded record.

The match is created and played through the services from the record's move
lines (and the host endings in its comments); every bout must end in the
recorded state, or nothing is created.  Prints the new match's links.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from matches import record
from matches.services import ServiceError


class Command(BaseCommand):
    help = "Create a match from a Deathmatch record (.txt) and replay it to the same final state."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a record downloaded from a replay page or the host dashboard ('-' = stdin)")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["file"]
        try:
            if name == "-":
                import sys

                text = sys.stdin.read()
            else:
                with open(name, encoding="utf-8") as handle:
                    text = handle.read()
        except OSError as error:
            raise CommandError(f"cannot read {name}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise CommandError(f"{name} is not UTF-8 text") from None
        try:
            match = record.import_record(text, quiet=True)
        except (record.RecordError, ServiceError) as error:
            raise CommandError(str(error)) from None
        bouts = match.bouts.count()
        self.stdout.write(f"Imported {match.game.name} match #{match.pk} ({bouts} bout(s), {match.status}).")
        self.stdout.write(f"Host:      {reverse('host_page', args=[match.host_token])}")
        self.stdout.write(f"Spectator: {reverse('watch_page', args=[match.watch_token])}")
