"""A season's commands on a live daphne (its own process, database and in-process Discord worker),
posted signed over HTTP as Discord would: season new, season add, new with season:, standings, me,
and a press of a menu that is not the presser's; every message the worker sent is read off the
stand-in and classified by who may read the links in it."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import Server
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import CHANNEL, HOST, PEOPLE, command, new_command, press
from tests.matches.discord.test_live import ephemeral, interact

LINK = re.compile(r"https?://[^\s)\"]+/(?P<kind>me|p|h|s|w)/(?P<token>[A-Za-z0-9_-]+)/")


def test_a_season_run_from_the_channel_sends_each_link_only_to_its_owner(live: tuple[Server, FakeDiscord]) -> None:
    _, fake = live
    manage = ephemeral(interact(live, command("season new", [{"type": 3, "name": "name", "value": "Live"}])))
    ((kind, manage_token),) = [(m.group("kind"), m.group("token")) for m in LINK.finditer(manage)]
    assert kind == "s"
    people = PEOPLE[:3]
    added = ephemeral(interact(live, command("season add", [
        {"type": 6, "name": f"player{n}", "value": p.id} for n, p in enumerate(people, start=1)], people=people)))
    assert added == "Added to Live: Player 1, Player 2, Player 3. Each gets their personal page by DM."
    # the opening post, three joins, three personal DMs
    delivered = fake.wait_for(7)
    personal: dict[str, str] = {}
    for message in delivered:
        for found in LINK.finditer(message.content):
            if found.group("kind") == "me":
                assert message.kind == "dm", message
                personal.setdefault(message.to, found.group("token"))
            elif found.group("kind") in ("s", "h", "p"):
                pytest.fail(f"a secret link went out: {message}")
    assert sorted(personal) == sorted(p.id for p in people)
    assert manage_token not in str([m.content for m in delivered])
    channel = [m for m in delivered if m.kind == "channel"]
    assert channel and all(m.to == CHANNEL for m in channel)

    hosted = ephemeral(interact(live, new_command("grid-master", people[:2],
                                                  extra=[{"type": 3, "name": "season", "value": "Live"}])))
    assert [m.group("kind") for m in LINK.finditer(hosted)] == ["h"]
    standings = interact(live, command("standings", invoker=people[2])).json()
    assert standings["type"] == 4 and not standings["data"].get("flags")
    assert standings["data"]["allowed_mentions"] == {"parse": []}
    assert [m.group("kind") for m in LINK.finditer(str(standings))] == []  # the season's public page only
    mine = ephemeral(interact(live, command("me", invoker=people[0])))
    kinds = sorted(m.group("kind") for m in LINK.finditer(mine))
    assert kinds == ["me", "p"] and personal[people[0].id] in mine
    refused = interact(live, press("pick:1:1", people[1], values=["2"]))
    assert ephemeral(refused) == "This choice is not yours to make."
    assert HOST.id not in personal
