"""The candidate's pick in Discord, against the stand-in Discord API through the real endpoint: an
episode's main match hosted from the channel and ended by the host; the candidate's DM with a select
menu of the eligible opponents (Discord's limits checked by the stand-in); the choice by a signed
MESSAGE_COMPONENT interaction, the message updated in place (type 7), the opponent and the host told;
pressed twice or by someone else; the same choice on the web page and in Discord; DMs closed."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from django.test import Client
from django.urls import reverse

from matches.discord import sender
from matches.models import DiscordPlayer, Duel, Match, Season, SeasonPlayer
from matches.play import services
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, Post, command, new_command, press, reply

pytestmark = pytest.mark.django_db

ENDING = "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8"
CANDIDATE, IMMUNE = PEOPLE[7], PEOPLE[0]


def drain(http: httpx.Client) -> int:
    total = 0
    while (sent := sender.run_round(http)) > 0:
        total += sent
    return total


def roster(name: str) -> SeasonPlayer:
    found: SeasonPlayer = SeasonPlayer.objects.get(name=name)
    return found


@pytest.fixture
def episode(post: Post, discord: FakeDiscord, http: httpx.Client) -> Season:
    """A season of the 8 PEOPLE from the channel; its main match (the host's game) ended by the host
    naming Player 1's Token of Life and Player 8 the candidate."""
    reply(post(command("season new", [{"type": 3, "name": "name", "value": "Genius"}])))
    people = PEOPLE[:8]
    reply(post(command("season add", [{"type": 6, "name": f"player{n}", "value": p.id}
                                      for n, p in enumerate(people, start=1)], people=people)))
    reply(post(new_command("custom", people, extra=[{"type": 3, "name": "season", "value": "Genius"}])))
    match = Match.objects.get()
    services.start_match(match)
    match.refresh_from_db()
    assert match.current_bout is not None
    services.host_apply(match, ENDING, match.current_bout.version)
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    return Season.objects.get()


def menus(discord: FakeDiscord, user: str) -> list[dict[str, Any]]:
    """The DMs with components the stand-in delivered to `user`."""
    out = []
    for call in discord.calls:
        if (call.route == "send" and call.status == 200 and call.body.get("components")
                and discord.dm_channels.get(call.path.split("/")[-2]) == user):
            out.append(call.body)
    return out


def the_menu(discord: FakeDiscord) -> tuple[str, dict[str, str]]:
    (dm,) = menus(discord, CANDIDATE.id)
    ((select,),) = [row["components"] for row in dm["components"]]
    assert select["type"] == 3
    return select["custom_id"], {o["label"]: o["value"] for o in select["options"]}


def test_the_candidate_chooses_by_select_menu_and_the_message_shows_it(
        episode: Season, post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    drain(http)
    custom_id, options = the_menu(discord)
    # the eligible players only: not the candidate, not Player 1 (immune)
    assert list(options) == [f"Player {n}" for n in range(2, 8)]
    assert len(custom_id) <= 100
    drain(http)
    assert len(menus(discord, CANDIDATE.id)) == 1  # once
    response = post(press(custom_id, CANDIDATE, values=[options["Player 7"]]))
    body = response.json()
    assert body["type"] == 7 and body["data"]["components"] == []
    assert body["data"]["content"].startswith("You chose Player 7 as your death match opponent.")
    duel = Duel.objects.get()
    assert (duel.candidate.name, duel.opponent.name, duel.picked_by) == ("Player 8", "Player 7", "candidate")
    drain(http)
    told = [m for m in discord.delivered() if m.kind == "dm" and "chose Player 7" in m.content]
    assert sorted(m.to for m in told) == sorted([PEOPLE[6].id, HOST.id])


def test_a_menu_pressed_twice_or_by_someone_else_changes_nothing(
        episode: Season, post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    drain(http)
    custom_id, options = the_menu(discord)
    wrong = post(press(custom_id, PEOPLE[2], values=[options["Player 4"]]))
    assert reply(wrong) == "This choice is not yours to make."
    assert not Duel.objects.exists()
    assert post(press(custom_id, CANDIDATE, values=[options["Player 4"]])).json()["type"] == 7
    again = post(press(custom_id, CANDIDATE, values=[options["Player 5"]])).json()
    assert again["type"] == 7
    assert again["data"]["content"] == "You have chosen Player 4 already (the host can change it)."
    assert [d.opponent.name for d in Duel.objects.all()] == ["Player 4"]
    junk = post(press(custom_id, CANDIDATE, values=["99999999"]))
    assert Duel.objects.get().opponent.name == "Player 4" and junk.json()["type"] in (4, 7)


def test_the_same_choice_on_the_web_page_and_in_discord_is_one_choice(
        episode: Season, post: Post, discord: FakeDiscord, http: httpx.Client, client: Client) -> None:
    drain(http)
    custom_id, options = the_menu(discord)
    candidate = roster("Player 8")
    page = client.get(reverse("personal_page", args=[candidate.personal_token])).content.decode()
    key = re.search(r'<form[^>]*id="choose-opponent".*?name="key" value="([^"]+)"', page, re.S)
    assert key
    client.post(reverse("personal_act", args=[candidate.personal_token]),
                {"key": key.group(1), "action": "choose_opponent", "opponent": "Player 3"})
    assert Duel.objects.get().opponent.name == "Player 3"  # the web page came first
    late = post(press(custom_id, CANDIDATE, values=[options["Player 6"]])).json()
    assert late["type"] == 7
    assert late["data"]["content"] == "You have chosen Player 3 already (the host can change it)."
    assert [d.opponent.name for d in Duel.objects.all()] == ["Player 3"]
    # and the other way round: the page, after Discord's choice, says it was made
    page = client.get(reverse("personal_page", args=[candidate.personal_token])).content.decode()
    assert 'id="choose-opponent"' not in page


def test_a_candidate_whose_dms_are_closed_still_chooses_on_the_web_page_and_the_host_is_told(
        episode: Season, post: Post, discord: FakeDiscord, http: httpx.Client, client: Client) -> None:
    discord.closed_dms.add(CANDIDATE.id)
    drain(http)
    assert menus(discord, CANDIDATE.id) == []
    channel = [m.content for m in discord.delivered() if m.kind == "channel"]
    assert any("could not DM Player 8" in text for text in channel)
    candidate = roster("Player 8")
    assert not any(candidate.personal_token in m.content for m in discord.delivered() if m.to != CANDIDATE.id)
    page = client.get(reverse("personal_page", args=[candidate.personal_token])).content.decode()
    key = re.search(r'<form[^>]*id="choose-opponent".*?name="key" value="([^"]+)"', page, re.S)
    assert key
    client.post(reverse("personal_act", args=[candidate.personal_token]),
                {"key": key.group(1), "action": "choose_opponent", "opponent": "Player 2"})
    assert Duel.objects.get().opponent.name == "Player 2"
    assert DiscordPlayer.objects.filter(player=candidate).exists()
