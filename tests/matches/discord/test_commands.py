"""`manage.py discord_commands` against the stand-in: the bulk overwrite of the command set, global or
for one server, with the game choices from the registry; and what it says when Discord refuses."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games.registry import get_game, slugs
from tests.discordserver import BOT_TOKEN, FakeDiscord


def test_the_command_set_is_registered_globally_with_every_game(discord: FakeDiscord) -> None:
    out = StringIO()
    call_command("discord_commands", stdout=out)
    assert "registered /deathmatch globally" in out.getvalue()
    (call,) = discord.calls
    assert (call.method, call.route, call.authorization) == ("PUT", "commands", f"Bot {BOT_TOKEN}")
    (command,) = discord.commands["global"]
    new, links, *_ = command["options"]  # then the season group, standings and me (test_seasons.py)
    assert (command["name"], new["name"], links["name"]) == ("deathmatch", "new", "links")
    game = next(o for o in new["options"] if o["name"] == "game")
    assert [c["value"] for c in game["choices"]] == slugs()
    assert [c["name"] for c in game["choices"]] == [get_game(s).name for s in slugs()]
    players = [o for o in new["options"] if o["type"] == 6]
    assert [o["name"] for o in players] == [f"player{n}" for n in range(1, 17)]
    assert [o.get("required", False) for o in players] == [True, True] + [False] * 14
    assert len(new["options"]) <= 25  # Discord's limit


def test_the_command_set_can_go_to_one_server(discord: FakeDiscord) -> None:
    call_command("discord_commands", "--guild", "1000000000000000009", stdout=StringIO())
    assert list(discord.commands) == ["1000000000000000009"]
    assert discord.calls[0].path.endswith("/applications/1100000000000000001/guilds/1000000000000000009/commands")


def test_a_refusal_is_said_and_a_bad_server_id_is_not_sent(discord: FakeDiscord) -> None:
    discord.fail("commands", 403, {"message": "Missing Access", "code": 50001})
    with pytest.raises(CommandError, match=r"HTTP 403 \(code 50001: Missing Access\)"):
        call_command("discord_commands", stdout=StringIO())
    with pytest.raises(CommandError, match="server's id"):
        call_command("discord_commands", "--guild", "../../users/@me", stdout=StringIO())
    assert len(discord.calls) == 1


def test_without_the_settings_nothing_is_sent(settings: Any) -> None:
    settings.DISCORD_BOT_TOKEN = ""
    with pytest.raises(CommandError, match="DISCORD_BOT_TOKEN"):
        call_command("discord_commands", stdout=StringIO())
