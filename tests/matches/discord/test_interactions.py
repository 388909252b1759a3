"""The interactions endpoint through Django's test client, with interactions signed by a key pair made
here: who may post (signature, timestamp, size, settings), /deathmatch new for games of 2, 4 and 16
seats, /deathmatch links, every bad input answered with one ephemeral sentence and nothing created,
and an interaction delivered twice creating one match."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import time_machine
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import override_settings

from games.registry import get_game
from matches.models import DiscordMatch, DiscordMessage, DiscordSeat, Match
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import BOT, HOST, PEOPLE, Person, Post, command, new_command, reply, sign

pytestmark = pytest.mark.django_db


def nothing_created() -> bool:
    return not (Match.objects.exists() or DiscordMatch.objects.exists() or DiscordMessage.objects.exists())


# -- who may post ------------------------------------------------------------------------------


def test_ping_gets_pong(post: Post) -> None:
    response = post({"id": "1", "type": 1, "application_id": "1", "version": 1})
    assert response.status_code == 200
    assert response.json() == {"type": 1}


def test_without_the_settings_the_endpoint_is_not_there(client: Any, key: Ed25519PrivateKey) -> None:
    body = json.dumps({"type": 1}).encode()
    for missing in ("DISCORD_APPLICATION_ID", "DISCORD_PUBLIC_KEY", "DISCORD_BOT_TOKEN"):
        values = {"DISCORD_APPLICATION_ID": "1", "DISCORD_PUBLIC_KEY": "00" * 32, "DISCORD_BOT_TOKEN": "x", missing: ""}
        with override_settings(**values):
            response = client.post("/discord/interactions/", body, content_type="application/json",
                                   headers=sign(key, body))
            assert client.get("/discord/interactions/").status_code == 404
        assert response.status_code == 404


@pytest.mark.parametrize("case", ["unsigned", "wrong key", "other body", "stale", "future", "not hex",
                                  "no timestamp", "timestamp not a number"])
def test_a_post_not_signed_by_discord_gets_401_and_creates_nothing(post: Post, key: Ed25519PrivateKey,
                                                                   case: str) -> None:
    interaction = new_command("grid-master", PEOPLE[:2])
    body = json.dumps(interaction).encode()
    now = int(time.time())
    # the clock stands still at a whole second: a stamp 301 s away is 301 s away when the server
    # looks, however long the request takes on a loaded machine
    traveller = time_machine.travel(now, tick=False)
    traveller.start()
    headers = {
        "unsigned": {},
        "wrong key": sign(Ed25519PrivateKey.generate(), body),
        "other body": sign(key, b"{}"),
        "stale": sign(key, body, str(now - 301)),
        "future": sign(key, body, str(now + 301)),
        "not hex": {"X-Signature-Ed25519": "zz" * 64, "X-Signature-Timestamp": str(now)},
        "no timestamp": {"X-Signature-Ed25519": key.sign(body).hex()},
        "timestamp not a number": sign(key, body, "now"),
    }[case]
    try:
        assert post(interaction, headers=headers).status_code == 401
    finally:
        traveller.stop()
    assert nothing_created()


def test_the_timestamp_is_part_of_what_is_signed(post: Post, key: Ed25519PrivateKey) -> None:
    """An old signed interaction cannot be played again under a fresh timestamp (the signature covers
    it), and one signed within the last five minutes passes."""
    interaction = new_command("grid-master", PEOPLE[:2])
    body = json.dumps(interaction).encode()
    now = int(time.time())
    with time_machine.travel(now, tick=False):
        old = sign(key, body, str(now - 301))
        assert post(interaction, headers=old).status_code == 401
        moved = {**old, "X-Signature-Timestamp": str(now)}
        assert post(interaction, headers=moved).status_code == 401
        assert nothing_created()
        assert "host link" in reply(post(interaction, headers=sign(key, body, str(now - 290))))
    assert Match.objects.count() == 1


def test_a_body_over_the_limit_is_refused_before_anything(post: Post, key: Ed25519PrivateKey) -> None:
    body = b'{"type": 1, "pad": "' + b"x" * (128 * 1024) + b'"}'
    assert post({}, body=body, headers=sign(key, body)).status_code == 413


def test_many_badly_signed_posts_get_429_and_signed_ones_still_pass(post: Post) -> None:
    interaction = {"id": "1", "type": 1}
    codes = [post(interaction, headers={}).status_code for _ in range(31)]
    assert codes[:30] == [401] * 30 and codes[30] == 429
    assert post(interaction).json() == {"type": 1}
    assert "host link" in reply(post(new_command("grid-master", PEOPLE[:2])))


def test_a_command_typed_in_a_dm_with_the_bot_works_too(post: Post) -> None:
    """In a DM Discord sends `user` instead of a server's `member`, and no server id."""
    interaction = new_command("grid-master", PEOPLE[:2])
    member = interaction.pop("member")
    interaction.pop("guild_id")
    interaction["user"] = member["user"]
    assert "host link" in reply(post(interaction))
    record = DiscordMatch.objects.get()
    assert (record.host_user, record.host_name, record.guild_id) == (HOST.id, "Hostess", "")


def test_get_is_not_allowed(client: Any, discord: FakeDiscord) -> None:
    assert client.get("/discord/interactions/").status_code == 405


# -- /deathmatch new -----------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "count"), [("grid-master", 2), ("back-to-the-wall", 4), ("custom", 16)])
def test_new_creates_the_match_with_a_seat_per_player(post: Post, game: str, count: int) -> None:
    players = PEOPLE[:count]
    response = post(new_command(game, players))
    assert "no-store" in response["Cache-Control"]
    text = reply(response)
    match = Match.objects.get()
    assert match.game_slug == game and match.status == Match.SETUP
    assert match.seats.count() == count
    assert [(s.name, s.discord.user_id) for s in match.seats.order_by("number")] == [
        (p.global_name, p.id) for p in players]
    record = DiscordMatch.objects.get()
    assert (record.host_user, record.host_name) == (HOST.id, "Hostess")
    assert f"https://dm.example.org/h/{match.host_token}/" in text
    assert not any(s.token in text for s in match.seats.all())
    dms = DiscordMessage.objects.filter(kind=DiscordMessage.DM)
    assert sorted(dms.values_list("recipient", flat=True)) == sorted(p.id for p in players)
    channel = DiscordMessage.objects.get(kind=DiscordMessage.FOLLOWUP)
    assert not channel.ephemeral and f"/w/{match.watch_token}/" in channel.content
    assert get_game(game).name in channel.content


def test_new_reads_bouts_clock_and_pings(post: Post) -> None:
    reply(post(new_command("lance-assembly", PEOPLE[:2], extra=[
        {"type": 4, "name": "bouts", "value": 5}, {"type": 3, "name": "clock", "value": "2.5"},
        {"type": 5, "name": "pings", "value": False}])))
    match = Match.objects.get()
    assert match.format["bouts"] == 5
    assert match.format["clock"]["per_move"] == 150
    assert match.discord.pings is False
    reply(post(new_command("bidding-ttt", PEOPLE[:2], extra=[{"type": 3, "name": "clock", "value": "off"}])))
    assert Match.objects.get(game_slug="bidding-ttt").format["clock"] is None


def test_seats_are_named_as_the_server_shows_each_player(post: Post) -> None:
    nick = Person("1600000000000000001", "nicked", "Global", nick="Server Nick")
    plain = Person("1600000000000000002", "plainname")
    twin = Person("1600000000000000003", "twin", "Server Nick")
    reply(post(new_command("back-to-the-wall", [nick, plain, twin, PEOPLE[0]])))
    names = list(Match.objects.get().seats.order_by("number").values_list("name", flat=True))
    assert names == ["Server Nick", "plainname", "Server Nick (2)", "Player 1"]


@pytest.mark.parametrize(("case", "sentence"), [
    ("unknown game", "There is no game called 'chess'"),
    ("too few", "Back to the Wall is for 4 players, and you named 2."),
    ("too many", "Grid Master is for 2 players, and you named 3."),
    ("same user twice", "Player 1 is named twice"),
    ("a bot", "Other Bot is a bot"),
    ("bouts", "The number of bouts goes from 1 to 99."),
    ("clock", "The clock is off or a number of minutes per move"),
])
def test_bad_input_gets_one_ephemeral_sentence_and_creates_nothing(post: Post, case: str, sentence: str) -> None:
    interaction = {
        "unknown game": lambda: new_command("chess", PEOPLE[:2]),
        "too few": lambda: new_command("back-to-the-wall", PEOPLE[:2]),
        "too many": lambda: new_command("grid-master", PEOPLE[:3]),
        "same user twice": lambda: new_command("grid-master", [PEOPLE[0], PEOPLE[0]]),
        "a bot": lambda: new_command("grid-master", [PEOPLE[0], BOT]),
        "bouts": lambda: new_command("grid-master", PEOPLE[:2], extra=[{"type": 4, "name": "bouts", "value": 0}]),
        "clock": lambda: new_command("grid-master", PEOPLE[:2], extra=[{"type": 3, "name": "clock", "value": "soon"}]),
    }[case]()
    text = reply(post(interaction))
    assert text.startswith(sentence), text
    assert text.count(".") <= 2 and "\n" not in text
    assert nothing_created()


def test_an_interaction_delivered_twice_creates_one_match_and_queues_each_message_once(post: Post) -> None:
    interaction = new_command("grid-master", PEOPLE[:2])
    first = reply(post(interaction))
    second = reply(post(interaction))
    assert first == second
    assert Match.objects.count() == 1
    assert DiscordMessage.objects.filter(kind=DiscordMessage.DM).count() == 2
    assert DiscordMessage.objects.count() == 3


def test_a_host_creating_matches_too_fast_is_told_to_wait(post: Post) -> None:
    first = new_command("grid-master", PEOPLE[:2])
    answer = reply(post(first))
    for _ in range(9):
        reply(post(new_command("grid-master", PEOPLE[:2])))
    text = reply(post(new_command("grid-master", PEOPLE[:2])))
    assert text.startswith("You have hosted too many matches in a minute")
    assert Match.objects.count() == 10
    assert reply(post(first)) == answer  # a second delivery is not a new match: not refused
    assert "host link" in reply(post(new_command("grid-master", PEOPLE[:2], invoker=PEOPLE[5])))  # per user


# -- /deathmatch links -----------------------------------------------------------------------------


def test_links_lists_the_invokers_seat_and_host_links_only(post: Post) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    reply(post(new_command("back-to-the-wall", PEOPLE[1:5], invoker=PEOPLE[0])))
    grid, wall = Match.objects.get(game_slug="grid-master"), Match.objects.get(game_slug="back-to-the-wall")
    text = reply(post(command("links", invoker=PEOPLE[0])))
    mine = [grid.seats.get(number=1).token, wall.host_token]
    others = [grid.host_token, grid.seats.get(number=2).token, *wall.seats.values_list("token", flat=True)]
    assert all(t in text for t in mine), text
    assert not any(t in text for t in others), text
    assert DiscordSeat.objects.filter(user_id=PEOPLE[0].id).count() == 1
    Match.objects.filter(pk=grid.pk).update(status=Match.FINISHED)
    text = reply(post(command("links", invoker=PEOPLE[0])))
    assert grid.seats.get(number=1).token not in text and wall.host_token in text
    assert reply(post(command("links", invoker=PEOPLE[9]))) == (
        "You have no matches going on that were hosted from Discord.")


def test_links_fit_in_one_discord_message(post: Post) -> None:
    for n in range(24):
        reply(post(new_command("grid-master", [PEOPLE[0], PEOPLE[1 + n % 15]], invoker=PEOPLE[2 + n % 14])))
    text = reply(post(command("links", invoker=PEOPLE[0])))
    assert len(text) <= 2000
    shown = text.count("/p/")
    assert 15 <= shown < 24, text
    assert text.endswith(f"…and {24 - shown} more, not shown (Discord's messages are short).")
