"""Discord's side, for the tests of matches/discord/: a key pair made here (Discord's would sign
the interactions), the stand-in API (tests/discordserver.py) the settings point at, interactions
signed and posted through the real endpoint, and the people of a server.

Every answer `post` gets to a signed interaction, and every request the bot makes to the stand-in,
is checked against what Discord takes (tests/discordspec.py): a test passes only if Discord would
have accepted all of them."""

from __future__ import annotations

import itertools
import json
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.test import Client, override_settings

from tests import discordspec
from tests.browser.conftest import Server
from tests.discordserver import APPLICATION, BOT_TOKEN, FakeDiscord

GUILD, CHANNEL = "1000000000000000001", "1000000000000000002"
_ids = itertools.count(1400000000000000000)
#: the key Discord signs with, for the tests that post to a live server (`live`)
KEY = Ed25519PrivateKey.generate()


@dataclass(frozen=True)
class Person:
    id: str
    username: str
    global_name: str | None = None
    nick: str | None = None
    bot: bool = False

    def user(self) -> dict[str, Any]:
        return {"id": self.id, "username": self.username, "global_name": self.global_name,
                "discriminator": "0", "avatar": None, **({"bot": True} if self.bot else {})}

    def member(self) -> dict[str, Any]:
        return {"nick": self.nick, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "permissions": "0"}


HOST = Person("1500000000000000001", "hostess", "Hostess")
PEOPLE = [Person(str(1500000000000000100 + n), f"player{n}", f"Player {n}") for n in range(1, 17)]
BOT = Person("1500000000000000999", "otherbot", "Other Bot", bot=True)


@pytest.fixture
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture
def discord(key: Ed25519PrivateKey) -> Iterator[FakeDiscord]:
    fake = FakeDiscord()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with override_settings(DISCORD_APPLICATION_ID=APPLICATION, DISCORD_PUBLIC_KEY=public,
                           DISCORD_BOT_TOKEN=BOT_TOKEN, DISCORD_API_BASE=fake.base,
                           DEATHMATCH_PUBLIC_URL="https://dm.example.org"):
        yield fake
    fake.close()
    assert fake.violations == [], "requests Discord would not take"


@pytest.fixture
def http(discord: FakeDiscord) -> Iterator[httpx.Client]:
    from matches.discord import api

    with api.client() as client:
        yield client


def sign(key: Ed25519PrivateKey, body: bytes, timestamp: str | None = None) -> dict[str, str]:
    stamp = timestamp or str(int(time.time()))
    return {"X-Signature-Ed25519": key.sign(stamp.encode() + body).hex(), "X-Signature-Timestamp": stamp}


def command(sub: str, options: list[dict[str, Any]] | None = None, *, invoker: Person = HOST,
            people: list[Person] | None = None, interaction_id: str | None = None) -> dict[str, Any]:
    """An APPLICATION_COMMAND interaction as Discord posts it from a server's channel."""
    people = people or []
    token = f"aW50ZXJhY3Rpb246{next(_ids)}.stand-in_interaction-token"
    group, _, leaf = sub.rpartition(" ")  # "season new": a subcommand of the group "season"
    inner = {"type": 1, "name": leaf, "options": options or []}
    return {
        "id": interaction_id or str(next(_ids)), "application_id": APPLICATION, "type": 2, "token": token,
        "version": 1, "guild_id": GUILD, "channel_id": CHANNEL, "locale": "en-US",
        "member": {**invoker.member(), "user": invoker.user()},
        "data": {"id": "1300000000000000001", "name": "deathmatch", "type": 1,
                 "options": [{"type": 2, "name": group, "options": [inner]}] if group else [inner],
                 **({"resolved": {"users": {p.id: p.user() for p in people},
                                  "members": {p.id: p.member() for p in people if not p.bot}}} if people else {})},
    }


def new_command(game: str, players: list[Person], *, invoker: Person = HOST, extra: list[dict[str, Any]] | None = None,
                interaction_id: str | None = None) -> dict[str, Any]:
    options = [{"type": 3, "name": "game", "value": game},
               *({"type": 6, "name": f"player{n}", "value": p.id} for n, p in enumerate(players, start=1)),
               *(extra or [])]
    return command("new", options, invoker=invoker, people=players, interaction_id=interaction_id)


Post = Callable[..., Any]


@pytest.fixture
def post(client: Client, key: Ed25519PrivateKey, discord: FakeDiscord) -> Post:
    """post(interaction) -> the endpoint's response; the stand-in learns the interaction's token."""

    def _post(interaction: dict[str, Any], *, headers: dict[str, str] | None = None, body: bytes | None = None) -> Any:
        raw = body if body is not None else json.dumps(interaction).encode()
        if "token" in interaction:
            user = (interaction.get("member") or {}).get("user") or interaction.get("user") or {}
            discord.interaction(interaction["token"], user.get("id", ""), interaction.get("channel_id", ""))
        signed = sign(key, raw) if headers is None else headers
        response = client.post("/discord/interactions/", raw, content_type="application/json", headers=signed)
        if response.status_code == 200:  # an answer Discord reads: one it takes for this interaction
            wrong = discordspec.callback(interaction.get("type", 0) if body is None else json.loads(raw)["type"],
                                         200, response.json())
            assert wrong == [], wrong
        return response

    return _post


def reply(response: Any) -> str:
    """The text of an ephemeral type-4 reply (asserting it is one)."""
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["type"] == 4 and data["data"]["flags"] & 64, data
    return str(data["data"]["content"])


def press(custom_id: str, by: Person, *, values: list[str] | None = None, message: dict[str, Any] | None = None,
          component_type: int | None = None) -> dict[str, Any]:
    """A MESSAGE_COMPONENT interaction as Discord posts it when `by` uses a menu or a button of a DM
    (a DM has `user`, no `member` and no guild)."""
    token = f"aW50ZXJhY3Rpb246{next(_ids)}.stand-in_interaction-token"
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type or (3 if values else 2)}
    if values is not None:
        data["values"] = values
    return {"id": str(next(_ids)), "application_id": APPLICATION, "type": 3, "token": token, "version": 1,
            "channel_id": str(next(_ids)), "locale": "en-US", "user": by.user(), "data": data,
            "message": message or {"id": str(next(_ids)), "content": "", "components": []}}


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[Server, FakeDiscord]]:
    """A daphne of its own (process, database, in-process Discord worker) pointed at a stand-in Discord;
    a module's tests share it, and every request it made must be one Discord takes."""
    fake = FakeDiscord()
    public = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with pytest.MonkeyPatch.context() as env, tempfile.TemporaryDirectory() as workdir:
        for name, value in {"DISCORD_APPLICATION_ID": APPLICATION, "DISCORD_PUBLIC_KEY": public,
                            "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_API_BASE": fake.base,
                            "DEATHMATCH_PUBLIC_URL": "https://dm.example.org"}.items():
            env.setenv(name, value)
        server = Server(Path(workdir))
        yield server, fake
        server.stop()
    fake.close()
    assert fake.violations == [], "requests Discord would not take"
