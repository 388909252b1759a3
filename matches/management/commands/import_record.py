"""manage.py import_record FILE: a new match played from a downloaded record.

The match is created and played through the services from the record's move
lines (and the host endings in its comments); every bout must end in the
recorded state, or nothing is created.  Prints the new match's links.

A record that cannot be imported is refused with one line on stderr that
says why (naming the line of the record at fault) and exit status 2.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from matches.play.services import ServiceError
from matches.replays import records as record

#: a record (or file) that cannot be imported: usage error, as argparse's own
BAD_INPUT = 2


def _refuse(message: str) -> CommandError:
    return CommandError(" ".join(message.split()), returncode=BAD_INPUT)  # one line, whatever the record held


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
            raise _refuse(f"cannot read {name}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise _refuse(f"{name} is not UTF-8 text") from None
        try:
            match = record.import_record(text)
        except (record.RecordError, ServiceError) as error:
            raise _refuse(str(error)) from None
        bouts = match.bouts.count()
        self.stdout.write(f"Imported {match.game.name} match #{match.pk} ({bouts} bout(s), {match.status}).")
        self.stdout.write(f"Host:      {reverse('host_page', args=[match.host_token])}")
        self.stdout.write(f"Spectator: {reverse('watch_page', args=[match.watch_token])}")
