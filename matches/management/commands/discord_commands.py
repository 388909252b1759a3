"""`python manage.py discord_commands [--guild ID]`: register the slash commands
(matches/discord/commands.py) with Discord by bulk overwrite: the command set becomes exactly ours,
for every server the bot is in, or for one server (`--guild`: changes show at once there, handy
while setting up; global changes may take a while to reach every client)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from matches.discord import api, commands


class Command(BaseCommand):
    help = "Register the /deathmatch command with Discord (bulk overwrite), globally or for one server."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--guild", default="", help="a server's id: register there only")
        parser.add_argument("--print", action="store_true", help="print the command set instead of sending it")

    def handle(self, *args: Any, guild: str = "", print: bool = False, **options: Any) -> None:
        body = [commands.definition()]
        if print:
            self.stdout.write(json.dumps(body, indent=2))
            return
        if not api.configured():
            raise CommandError("set DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN first")
        if guild and not api.SNOWFLAKE.match(guild):
            raise CommandError(f"--guild takes a server's id (digits), not {guild[:40]!r}")
        where = f"/guilds/{guild}" if guild else ""
        with api.client() as http:
            outcome = api.call(http, "PUT", f"/applications/{api.application_id()}{where}/commands", body)
        if not outcome.ok:
            raise CommandError(f"Discord did not take the commands: {outcome.error}")
        names = ", ".join(f"/{c.get('name')}" for c in outcome.body or [] if isinstance(c, dict))
        self.stdout.write(f"registered {names or 'the commands'} {'in server ' + guild if guild else 'globally'}")
