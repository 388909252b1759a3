"""Under real concurrency (PostgreSQL): Discord delivering one interaction three times at the same
moment creates one match and answers with its links once, and workers sending at once send each
player one DM."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import Client

from matches.discord import api, sender
from matches.discord.hosting import ANSWERED
from matches.models import DiscordMessage, Match
from tests.conftest import POSTGRES
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, new_command, sign
from tests.matches.discord.test_choices import CANDIDATE, episode, the_menu  # noqa: F401
from tests.threads import released_together

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]


def test_one_interaction_delivered_twice_at_once_creates_one_match_and_one_dm_each(
        discord: FakeDiscord, key: Ed25519PrivateKey) -> None:
    interaction = new_command("back-to-the-wall", PEOPLE[:4])
    discord.interaction(interaction["token"], HOST.id, interaction["channel_id"])
    body = json.dumps(interaction).encode()
    replies: list[Any] = []

    def deliver() -> None:
        response = Client().post("/discord/interactions/", body, content_type="application/json",
                                 headers=sign(key, body))
        replies.append(response.json())

    assert released_together(deliver, deliver, deliver) == []
    texts = sorted(r["data"]["content"] for r in replies)
    assert len(texts) == 3 and texts.count(ANSWERED) == 2  # the links in one answer only
    assert "host link" in next(t for t in texts if t != ANSWERED)
    assert Match.objects.count() == 1
    assert DiscordMessage.objects.count() == 5

    def work() -> None:
        with api.client() as http:
            sender.run_round(http)

    assert released_together(work, work, work) == []
    dms = sorted(m.to for m in discord.delivered() if m.kind == "dm")
    assert dms == sorted(p.id for p in PEOPLE[:4])
    assert len([m for m in discord.delivered() if m.kind == "channel"]) == 1


def test_the_same_choice_on_the_web_page_and_in_discord_at_once_is_one_choice(
        episode: Any, post: Any, discord: FakeDiscord, http: Any, key: Ed25519PrivateKey) -> None:  # noqa: F811
    """The candidate's select menu and their personal page's form, released together: one duel, and the
    loser is told the choice was made already."""
    import re

    from django.urls import reverse

    from matches.models import Duel, SeasonPlayer
    from tests.matches.discord.conftest import press

    while sender.run_round(http):
        pass
    custom_id, options = the_menu(discord)
    candidate = SeasonPlayer.objects.get(name="Player 8")
    web = Client()
    page = web.get(reverse("personal_page", args=[candidate.personal_token])).content.decode()
    found = re.search(r'<form[^>]*id="choose-opponent".*?name="key" value="([^"]+)"', page, re.S)
    assert found
    pressed = press(custom_id, CANDIDATE, values=[options["Player 6"]])
    discord.interaction(pressed["token"], CANDIDATE.id, pressed["channel_id"])
    body = json.dumps(pressed).encode()
    answers: list[Any] = []

    def from_discord() -> None:
        answers.append(Client().post("/discord/interactions/", body, content_type="application/json",
                                     headers=sign(key, body)).json())

    def from_the_web() -> None:
        web.post(reverse("personal_act", args=[candidate.personal_token]),
                 {"key": found.group(1), "action": "choose_opponent", "opponent": "Player 3"})

    assert released_together(from_discord, from_the_web) == []
    (duel,) = Duel.objects.all()
    (answer,) = answers
    assert answer["type"] == 7
    if duel.opponent.name == "Player 6":
        assert answer["data"]["content"].startswith("You chose Player 6")
    else:
        assert answer["data"]["content"] == "You have chosen Player 3 already (the host can change it)."
