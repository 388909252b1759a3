"""The interactions endpoint through Django's test client, with interactions signed by a key pair made
here: who may post (signature, timestamp, size, settings), /deathmatch new for games of 2, 4 and 16
seats, /deathmatch links, every bad input answered with one ephemeral sentence and nothing created,
and an interaction delivered twice creating one match."""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any

import pytest
import time_machine
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import override_settings
from django.utils import timezone

from games.registry import get_game
from matches.core import formats
from matches.discord import signature
from matches.discord.hosting import ANSWERED
from matches.models import DiscordInteraction, DiscordMatch, DiscordMessage, DiscordSeat, Match
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import BOT, HOST, PEOPLE, Person, Post, command, new_command, reply, sign

pytestmark = pytest.mark.django_db

EXTRA = Person("1500000000000000117", "player17", "Player 17")


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


def test_every_bad_signature_gets_401_however_many_one_address_sends(post: Post, key: Ed25519PrivateKey) -> None:
    """Discord sends badly signed posts on purpose when it checks the endpoint, and removes an endpoint
    that answers one with anything but 401: no budget of bad signatures turns them into 429, whoever
    spends it first (and behind a proxy every client is one address)."""
    ping = {"id": "1", "type": 1}
    body = json.dumps(ping).encode()
    forged = [{}, sign(Ed25519PrivateKey.generate(), body), sign(key, b"{}"),
              {"X-Signature-Ed25519": "zz", "X-Signature-Timestamp": "now"}]
    codes = [post(ping, headers=forged[n % len(forged)]).status_code for n in range(200)]
    assert codes == [401] * 200
    assert post(ping).json() == {"type": 1}
    assert "host link" in reply(post(new_command("grid-master", PEOPLE[:2])))


def test_only_a_body_over_the_limit_gets_413_signed_or_not(post: Post, key: Ed25519PrivateKey) -> None:
    """The size cap is the one refusal before the signature, and it answers no badly signed body of a
    size Discord sends with anything but 401."""
    limit = 128 * 1024
    pad = b'{"type": 1, "pad": "'
    under = pad + b"x" * (limit - len(pad) - 2) + b'"}'
    assert len(under) == limit
    assert post({}, body=under, headers={}).status_code == 401
    assert post({}, body=under + b" ", headers={}).status_code == 413
    assert post({}, body=under + b" ", headers=sign(key, under + b" ")).status_code == 413


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
    ("clock under a second", "The clock is off or a number of minutes per move from 0.0167 (1 s) to 10080, not "
                             "'0.00001'."),
    ("round under a second", "The clock is off or a number of minutes per move from 0.0167 (1 s)"),
    ("clock over a week", "The clock is off or a number of minutes per move from 0.0167 (1 s) to 10080, not "
                          "'10081'."),
    ("clock not a number", "The clock is off or a number of minutes per move"),
    ("17 for the host's game", "Host's game seats at most 16 players, and you named 17."),
    ("bouts over the most", "The number of bouts goes from 1 to 99."),
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
        "clock under a second": lambda: new_command("grid-master", PEOPLE[:2], extra=[
            {"type": 3, "name": "clock", "value": "0.00001"}]),
        "round under a second": lambda: new_command("bidding-ttt", PEOPLE[:2], extra=[
            {"type": 3, "name": "clock", "value": "0.01"}]),
        "clock over a week": lambda: new_command("grid-master", PEOPLE[:2], extra=[
            {"type": 3, "name": "clock", "value": "10081"}]),
        "clock not a number": lambda: new_command("grid-master", PEOPLE[:2], extra=[
            {"type": 3, "name": "clock", "value": "nan"}]),
        "17 for the host's game": lambda: new_command("custom", [*PEOPLE, EXTRA]),
        "bouts over the most": lambda: new_command("grid-master", PEOPLE[:2], extra=[
            {"type": 4, "name": "bouts", "value": 100}]),
    }[case]()
    text = reply(post(interaction))
    assert text.startswith(sentence), text
    assert text.count(". ") <= 1 and "\n" not in text  # one sentence (a number may hold a point)
    assert nothing_created()


def test_an_interaction_delivered_twice_creates_one_match_and_queues_each_message_once(post: Post) -> None:
    interaction = new_command("grid-master", PEOPLE[:2])
    first = reply(post(interaction))
    second = reply(post(interaction))
    assert "host link" in first and second == ANSWERED
    assert Match.objects.count() == 1
    assert DiscordMessage.objects.filter(kind=DiscordMessage.DM).count() == 2
    assert DiscordMessage.objects.count() == 3


@pytest.mark.parametrize("sub", ["new", "links"])
def test_a_replayed_interaction_never_carries_a_secret_link_again(post: Post, key: Ed25519PrivateKey,
                                                                   sub: str) -> None:
    """The same signed body posted again within its five minutes (by anyone who captured it) is
    answered without a link: the reply says to run the command again."""
    reply(post(new_command("back-to-the-wall", PEOPLE[:4])))
    match = Match.objects.get()
    secrets = [match.host_token, *match.seats.values_list("token", flat=True)]
    interaction = (new_command("grid-master", [HOST, PEOPLE[5]]) if sub == "new"
                   else command("links", invoker=PEOPLE[0]))
    body = json.dumps(interaction).encode()
    headers = sign(key, body)
    first = reply(post(interaction, body=body, headers=headers))
    assert "/h/" in first or "/p/" in first
    for _ in range(3):
        again = reply(post(interaction, body=body, headers=headers))
        assert again == ANSWERED and "run it again" in again
        assert not any(token in again for token in [*secrets, *Match.objects.values_list("host_token", flat=True)])
        assert "/h/" not in again and "/p/" not in again
    assert Match.objects.count() == (2 if sub == "new" else 1)
    assert DiscordInteraction.objects.count() == 2


def test_answered_ids_are_forgotten_once_no_signature_can_bring_them_back(post: Post) -> None:
    from matches.discord import hosting

    start = timezone.now()
    with time_machine.travel(start, tick=False):
        reply(post(command("links", invoker=PEOPLE[0])))
    with time_machine.travel(start + hosting.SEEN_FOR - dt.timedelta(seconds=1), tick=False):
        assert hosting.forget_interactions() == 0
    with time_machine.travel(start + hosting.SEEN_FOR + dt.timedelta(seconds=1), tick=False):
        assert hosting.forget_interactions() == 1
    # (a signature is accepted for MAX_AGE either side of its stamp: the window of one body is 2 x MAX_AGE)
    assert dt.timedelta(seconds=2 * signature.MAX_AGE) < hosting.SEEN_FOR


def test_a_host_creating_matches_too_fast_is_told_to_wait(post: Post) -> None:
    first = new_command("grid-master", PEOPLE[:2])
    assert "host link" in reply(post(first))
    for _ in range(9):
        reply(post(new_command("grid-master", PEOPLE[:2])))
    text = reply(post(new_command("grid-master", PEOPLE[:2])))
    assert text.startswith("You have hosted too many matches in a minute")
    assert Match.objects.count() == 10
    assert reply(post(first)) == ANSWERED  # a second delivery is not a new match: not refused, and no link
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


def test_the_clock_and_bouts_take_what_the_web_form_takes_at_its_bounds(post: Post) -> None:
    """The least clock is the form's (formats.MIN_SECONDS: 1 s), the most bouts the form's."""
    least = formats.MIN_SECONDS["per_move"] / 60
    reply(post(new_command("grid-master", PEOPLE[:2], extra=[
        {"type": 3, "name": "clock", "value": f"{least:.6f}"}, {"type": 4, "name": "bouts", "value": formats.MAX_BOUTS}])))
    match = Match.objects.get()
    assert match.format["clock"]["per_move"] == 1.0 and match.format["bouts"] == formats.MAX_BOUTS
    text = reply(post(new_command("grid-master", PEOPLE[:2], extra=[
        {"type": 3, "name": "clock", "value": f"{least * 0.99:.6f}"}])))
    assert text.startswith("The clock is off or a number of minutes per move from")
    assert Match.objects.count() == 1


# -- every interaction type gets a callback type Discord takes for it ----------------------------------


def interaction_of(kind: int) -> dict[str, Any]:
    """An interaction of each type as Discord posts it (receiving-and-responding.mdx, "Interaction
    Object"): a button press and a form's submit carry a custom_id, autocomplete the focused option."""
    base = new_command("grid-master", PEOPLE[:2])
    base["type"] = kind
    if kind == 3:
        base["data"] = {"custom_id": "deathmatch:accept", "component_type": 2}
        base["message"] = {"id": "1300000000000000009", "channel_id": base["channel_id"], "content": "?"}
    if kind == 4:
        base["data"]["options"][0]["options"][0]["focused"] = True
    if kind == 5:
        base["data"] = {"custom_id": "deathmatch:form", "components": []}
    return base


@pytest.mark.parametrize("kind", [1, 2, 3, 4, 5])
def test_each_interaction_type_is_answered_with_a_callback_type_discord_takes(post: Post, kind: int) -> None:
    response = post(interaction_of(kind))  # (post checks the answer against tests/discordspec.py)
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == {1: 1, 2: 4, 3: 4, 4: 8, 5: 4}[kind]
    if kind == 4:
        assert body == {"type": 8, "data": {"choices": []}}
    if kind == 3:  # a component of no DM this app sent (test_choices.py presses real ones)
        assert reply(response) == "This menu is not one I know any more; open your personal page."
    if kind == 5:
        assert reply(response) == "I only answer /deathmatch commands."
    assert Match.objects.count() == (1 if kind == 2 else 0)


# -- a signed body that is not an interaction --------------------------------------------------------


@pytest.mark.parametrize("case", ["nested 100,000 deep", "nested in an object", "a list", "a string", "a number",
                                  "null", "not JSON", "not UTF-8", "no type", "type a string", "type true",
                                  "type unknown", "data a list", "no data", "member a string", "id a number",
                                  "user id a number", "token a number"])
def test_a_signed_body_that_is_not_an_interaction_gets_400_and_creates_nothing(post: Post, key: Ed25519PrivateKey,
                                                                              case: str) -> None:
    good = new_command("grid-master", PEOPLE[:2])

    def changed(**fields: Any) -> bytes:
        return json.dumps({**good, **fields}).encode()

    body = {
        # (the parser goes down before it finds the end: no closing brackets needed, and they would not fit)
        "nested 100,000 deep": b"[" * 100_000,
        "nested in an object": b'{"type": 2, "data": ' + b'{"a":' * 20_000,
        "a list": b"[1, 2]",
        "a string": b'"interaction"',
        "a number": b"2",
        "null": b"null",
        "not JSON": b"{type: 2}",
        "not UTF-8": b'{"type": 2, "x": "\xff\xfe"}'.replace(b"\\xff\\xfe", bytes([255, 254])),
        "no type": changed(type=None),
        "type a string": changed(type="2"),
        "type true": changed(type=True),
        "type unknown": changed(type=99),
        "data a list": changed(data=[]),
        "no data": json.dumps({k: v for k, v in good.items() if k != "data"}).encode(),
        "member a string": changed(member="someone"),
        "id a number": changed(id=int(good["id"])),
        "user id a number": changed(member={**good["member"], "user": {**good["member"]["user"], "id": 15}}),
        "token a number": changed(token=12345),
    }[case]
    response = post({}, body=body, headers=sign(key, body))
    assert response.status_code == 400, (case, response.status_code)
    assert response["Content-Type"].startswith("text/plain") and len(response.content) < 200
    assert nothing_created()
