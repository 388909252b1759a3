"""A season from a Discord channel against the stand-in Discord API, through the real endpoint with
signed interactions: `/deathmatch season new` (the manage link to its host alone, announcements
posted by the bot in the channel), `/deathmatch season add` (display names on the roster, each
player's personal link by DM once), `/deathmatch new season:`, `/deathmatch standings` (an embed for
the channel, no secret link, nobody pinged) and `/deathmatch me`; a player whose DMs are closed;
and every message classified by who can read it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from django.test import Client

from matches.discord import commands, sender
from matches.discord.hosting import ANSWERED
from matches.models import DiscordMessage, DiscordPlayer, DiscordSeason, Match, Season, SeasonPlayer
from matches.seasons import ledger
from tests.discordserver import Delivered, FakeDiscord
from tests.matches.discord.conftest import (
    BOT,
    CHANNEL,
    HOST,
    PEOPLE,
    Person,
    Post,
    command,
    new_command,
    reply,
)

pytestmark = pytest.mark.django_db


def drain(http: httpx.Client) -> int:
    total = 0
    while (sent := sender.run_round(http)) > 0:
        total += sent
    return total


def users(people: list[Person]) -> list[dict[str, Any]]:
    return [{"type": 6, "name": f"player{n}", "value": p.id} for n, p in enumerate(people, start=1)]


def open_season(post: Post, name: str = "Season One", *, invoker: Person = HOST) -> str:
    return reply(post(command("season new", [{"type": 3, "name": "name", "value": name}], invoker=invoker)))


def add(post: Post, people: list[Person], *, invoker: Person = HOST) -> str:
    return reply(post(command("season add", users(people), invoker=invoker, people=people)))


def check_audiences(season: Season, delivered: list[Delivered], replies: dict[str, list[str]]) -> None:
    """The manage link only to the season's host, a personal or seat link only to its player (DM or
    their own ephemeral reply), nothing secret in the channel."""
    owners: dict[str, str] = {season.manage_token: HOST.id}
    for bound in DiscordPlayer.objects.filter(season=season).select_related("player"):
        owners[bound.player.personal_token] = bound.user_id
        for seat in bound.player.seats.all():
            owners[seat.token] = bound.user_id
    for match in Match.objects.filter(season=season):
        owners[match.host_token] = HOST.id
    messages = [*delivered, *(Delivered("ephemeral", who, text) for who, texts in replies.items() for text in texts)]
    for message in messages:
        for token, owner in owners.items():
            if token in message.content:
                assert message.kind in ("dm", "ephemeral") and message.to == owner, (message, owner)


def test_season_new_binds_the_channel_and_gives_the_manage_link_to_its_host_alone(
        post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    text = open_season(post)
    record = DiscordSeason.objects.select_related("season").get()
    season = record.season
    assert (season.name, record.channel_id, record.host_user) == ("Season One", CHANNEL, HOST.id)
    assert f"https://dm.example.org/s/{season.manage_token}/" in text
    assert discord.calls == []  # nothing is sent on the request's path
    drain(http)
    (posted,) = discord.delivered()
    assert (posted.kind, posted.to) == ("channel", CHANNEL)
    assert "Season One" in posted.content and f"/seasons/{season.slug}/" in posted.content
    check_audiences(season, discord.delivered(), {HOST.id: [text]})


def test_season_new_delivered_twice_opens_one_season(post: Post) -> None:
    interaction = command("season new", [{"type": 3, "name": "name", "value": "Twice"}])
    first = reply(post(interaction))
    assert "/s/" in first
    assert reply(post(interaction)) == ANSWERED
    assert Season.objects.count() == 1 and DiscordSeason.objects.count() == 1


def test_season_new_outside_a_server_channel_is_refused(post: Post) -> None:
    interaction = command("season new", [{"type": 3, "name": "name", "value": "Nowhere"}])
    interaction.pop("guild_id")
    interaction["user"] = interaction.pop("member")["user"]
    assert reply(post(interaction)) == "Open a season in a server's channel: its announcements go there."
    assert not Season.objects.exists()


def test_a_taken_season_name_is_refused_and_nothing_changes(post: Post) -> None:
    open_season(post, "Taken")
    assert reply(post(command("season new", [{"type": 3, "name": "name", "value": "taken"}]))) == (
        "there is already a season called taken; choose another name")
    assert Season.objects.count() == 1 and DiscordSeason.objects.count() == 1


def test_season_add_puts_display_names_on_the_roster_and_dms_each_their_personal_link_once(
        post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    open_season(post)
    answer = add(post, PEOPLE[:3])
    season = Season.objects.get()
    assert answer == "Added to Season One: Player 1, Player 2, Player 3. Each gets their personal page by DM."
    roster = {p.name: p for p in SeasonPlayer.objects.filter(season=season)}
    assert sorted(roster) == ["Player 1", "Player 2", "Player 3"]
    assert {b.user_id: b.player.name for b in DiscordPlayer.objects.all()} == {
        p.id: p.global_name for p in PEOPLE[:3]}
    again = add(post, PEOPLE[:4])  # once more, with one new player: the others get no second DM
    assert again == "Added to Season One: Player 4. Each gets their personal page by DM. " \
                    "Already on the roster: Player 1, Player 2, Player 3."
    drain(http)
    dms = [m for m in discord.delivered() if m.kind == "dm"]
    assert sorted(m.to for m in dms) == sorted(p.id for p in PEOPLE[:4])
    for message in dms:
        player = DiscordPlayer.objects.get(user_id=message.to).player
        assert f"https://dm.example.org/me/{player.personal_token}/" in message.content
    channel = [m.content for m in discord.delivered() if m.kind == "channel"]
    assert any("Player 4 joins the roster" in text for text in channel)
    check_audiences(season, discord.delivered(), {HOST.id: [answer, again]})


@pytest.mark.parametrize(("case", "sentence"), [
    ("not the host", "Only the season's host adds players (the one who opened it here)."),
    ("a bot", "Other Bot is a bot: every player must be a person."),
    ("no season", "No season is bound to this channel: open one with /deathmatch season new."),
])
def test_season_add_refuses_with_one_sentence_and_adds_nobody(post: Post, case: str, sentence: str) -> None:
    if case != "no season":
        open_season(post)
    people = [PEOPLE[0], BOT] if case == "a bot" else PEOPLE[:2]
    invoker = PEOPLE[5] if case == "not the host" else HOST
    assert add(post, people, invoker=invoker) == sentence
    assert not SeasonPlayer.objects.exists() and not DiscordMessage.objects.filter(kind="dm").exists()


def test_a_name_already_on_the_roster_adds_nobody(post: Post) -> None:
    open_season(post)
    season = Season.objects.get()
    ledger.add_player(season, "Player 2")  # typed by the host on the web page, bound to no one
    assert add(post, PEOPLE[:3]) == "Player 2: Player 2 is already on the roster; nobody was added."
    assert list(season.players.values_list("name", flat=True)) == ["Player 2"]
    assert not DiscordPlayer.objects.exists()


def test_sixteen_players_fit_in_one_command(post: Post) -> None:
    open_season(post)
    add(post, PEOPLE[:16])
    assert DiscordPlayer.objects.count() == 16


def test_the_command_set_has_the_season_group_standings_and_me() -> None:
    options = {o["name"]: o for o in commands.definition()["options"]}
    assert {"new", "links", "season", "standings", "me"} <= set(options)
    assert options["season"]["type"] == 2
    assert [o["name"] for o in options["season"]["options"]] == ["new", "add"]
    roster = options["season"]["options"][1]["options"]
    assert [o["name"] for o in roster] == [f"player{n}" for n in range(1, 17)]
    assert {o["name"] for o in options["new"]["options"]} >= {"season"}


def test_new_with_season_seats_roster_players_and_announces_results_in_the_channel(
        post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    open_season(post)
    add(post, PEOPLE[:3])
    season = Season.objects.get()
    host = reply(post(new_command("grid-master", PEOPLE[:2], extra=[{"type": 3, "name": "season",
                                                                     "value": "season one"}])))
    match = Match.objects.get()
    assert match.season_id == season.pk and "/h/" in host
    assert [s.name for s in match.seats.order_by("number") if s.season_player_id] == ["Player 1", "Player 2"]
    drain(http)
    channel = [m.content for m in discord.delivered() if m.kind == "channel"]
    assert any(match.watch_token in text for text in channel)
    check_audiences(season, discord.delivered(), {HOST.id: [host]})


def test_new_with_season_refuses_a_player_not_on_the_roster(post: Post) -> None:
    open_season(post)
    add(post, PEOPLE[:1])
    text = reply(post(new_command("grid-master", PEOPLE[:2], extra=[{"type": 3, "name": "season",
                                                                     "value": "Season One"}])))
    assert text == "Player 2 is not on the roster of Season One: add them with /deathmatch season add first."
    assert not Match.objects.exists()


def test_standings_is_an_embed_for_the_channel_without_secret_links_pinging_nobody(post: Post) -> None:
    open_season(post)
    add(post, PEOPLE[:2])
    season = Season.objects.get()
    ledger.adjust_garnets(season, SeasonPlayer.objects.get(name="Player 2"), 3, "a bonus")
    response = post(command("standings", invoker=PEOPLE[0]))
    data = response.json()
    assert data["type"] == 4 and not data["data"].get("flags")
    assert data["data"]["allowed_mentions"] == {"parse": []}
    (embed,) = data["data"]["embeds"]
    lines = embed["description"].splitlines()
    assert lines[0].startswith("1. **Player 2**: 3 garnets") and lines[1].startswith("2. **Player 1**: 0 garnets")
    text = str(data)
    secrets = [season.manage_token, *season.players.values_list("personal_token", flat=True)]
    assert not any(secret in text for secret in secrets)


def test_me_answers_the_invoker_alone_with_their_personal_page_and_seat_links(post: Post) -> None:
    open_season(post)
    add(post, PEOPLE[:2])
    post(new_command("grid-master", PEOPLE[:2], extra=[{"type": 3, "name": "season", "value": "Season One"}]))
    mine = SeasonPlayer.objects.get(name="Player 1")
    seat = Match.objects.get().seats.get(season_player=mine)
    text = reply(post(command("me", invoker=PEOPLE[0])))
    assert f"/me/{mine.personal_token}/" in text and f"/p/{seat.token}/" in text
    other = SeasonPlayer.objects.get(name="Player 2")
    assert other.personal_token not in text


def test_a_player_whose_dms_are_closed_is_named_in_the_channel_without_the_link_and_the_page_works(
        post: Post, discord: FakeDiscord, http: httpx.Client, client: Client) -> None:
    discord.closed_dms.add(PEOPLE[1].id)
    open_season(post)
    add(post, PEOPLE[:2])
    drain(http)
    closed = SeasonPlayer.objects.get(name="Player 2")
    channel = [m.content for m in discord.delivered() if m.kind == "channel"]
    told = [t for t in channel if "could not DM Player 2" in t]
    assert len(told) == 1 and "/deathmatch me" in told[0]
    assert not any(closed.personal_token in m.content for m in discord.delivered())
    assert client.get(f"/me/{closed.personal_token}/").status_code == 200
    check_audiences(Season.objects.get(), discord.delivered(), {})
