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
