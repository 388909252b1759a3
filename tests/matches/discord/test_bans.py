"""The bans in Discord, after the pick by select menu (test_choices.py): both players' DMs with the open
death matches as buttons and Ban / Agree, only the player whose turn it is may press, each press
updating the presser's message in place (type 7) and the other's through the REST API (PATCH), the
death match's seat links by DM, the advantage holder's button per seat choosing who starts; and every
message the stand-in received classified by who reads it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from matches.models import DiscordPlayer, Duel, Match, Season, Seat
from matches.seasons import episodes
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, Post, press, reply
from tests.matches.discord.test_choices import CANDIDATE, drain, episode, the_menu  # noqa: F401

pytestmark = pytest.mark.django_db

OPPONENT = PEOPLE[6]
POOL = ["grid-master", "squava", "gomoku"]


def shown(discord: FakeDiscord, user: str, key_part: str) -> list[dict[str, Any]]:
    """What the messages the stand-in holds for `user` show now (after edits), those with `key_part`."""
    out = []
    for channel, body in discord.messages.values():
        if discord.dm_channels.get(channel) == user and key_part in str(body.get("content")):
            out.append(body)
    return out


def buttons(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["label"]: b for row in body.get("components") or [] for b in row["components"]}


def test_a_whole_episode_from_discord_bans_by_buttons_seat_links_by_dm_and_the_start(
        episode: Season, post: Post, discord: FakeDiscord, http: httpx.Client) -> None:  # noqa: F811
    episodes.set_pool(episode, POOL)
    drain(http)
    custom_id, options = the_menu(discord)
    assert post(press(custom_id, CANDIDATE, values=[options["Player 7"]])).json()["type"] == 7
    drain(http)
    duel = Duel.objects.get()
    (mine,) = shown(discord, CANDIDATE.id, "Open:")
    (theirs,) = shown(discord, OPPONENT.id, "Open:")
    assert "Your turn" in mine["content"] and "Waiting for Player 8" in theirs["content"]
    assert list(buttons(mine)) == ["Grid Master", "Squava", "Gomoku", "Ban", "Agree"]
    assert buttons(mine)["Ban"]["disabled"]

    # the opponent may not press in the candidate's turn: nothing changes
    refused = post(press(buttons(theirs)["Squava"]["custom_id"], OPPONENT))
    assert reply(refused) == "It is not your turn: waiting for Player 8."
    # someone outside the duel neither
    assert reply(post(press(buttons(mine)["Squava"]["custom_id"], PEOPLE[2]))) == "This is not your death match."
    duel.refresh_from_db()
    assert duel.steps == []

    # the candidate selects Grid Master (their message only), then bans it
    picked = post(press(buttons(mine)["Grid Master"]["custom_id"], CANDIDATE)).json()
    assert picked["type"] == 7 and "Selected: Grid Master." in picked["data"]["content"]
    ban = buttons(picked["data"])["Ban"]
    assert not ban.get("disabled") and ban["custom_id"] == f"dmb:{duel.pk}:grid-master"
    after = post(press(ban["custom_id"], CANDIDATE)).json()
    assert after["type"] == 7 and "Waiting for Player 7" in after["data"]["content"]
    assert list(buttons(after["data"])) == ["Squava", "Gomoku", "Ban", "Agree"]
    # the same press again (a second tap): refused, nothing applied twice
    assert reply(post(press(ban["custom_id"], CANDIDATE))) == "It is not your turn: waiting for Player 7."
    drain(http)  # the opponent's message is edited in place
    (theirs,) = shown(discord, OPPONENT.id, "Open:")
    assert "Your turn" in theirs["content"] and list(buttons(theirs)) == ["Squava", "Gomoku", "Ban", "Agree"]
    assert [c for c in discord.calls if c.route == "edit"]

    # the opponent bans Squava: Gomoku remains, the death match is created
    post(press(f"dmg:{duel.pk}:squava", OPPONENT))
    settled = post(press(f"dmb:{duel.pk}:squava", OPPONENT)).json()
    assert settled["type"] == 7 and "It is Gomoku" in settled["data"]["content"]
    assert settled["data"]["components"] == []
    duel.refresh_from_db()
    assert duel.game_slug == "gomoku" and duel.death_match is not None
    match = duel.death_match
    drain(http)
    for person, seat in ((CANDIDATE, 1), (OPPONENT, 2)):
        token = Seat.objects.get(match=match, number=seat).token
        (dm,) = [m for m in discord.delivered() if m.kind == "dm" and f"/p/{token}/" in m.content]
        assert dm.to == person.id
    # the advantage (the chosen opponent's) chooses who starts, by a button per seat
    starters = [body for channel, body in discord.messages.values()
                if discord.dm_channels.get(channel) == OPPONENT.id and "advantage" in str(body.get("content"))]
    (starter,) = starters
    assert list(buttons(starter)) == ["Player 8 starts", "Player 7 starts"]
    assert reply(post(press(buttons(starter)["Player 8 starts"]["custom_id"], CANDIDATE))) == (
        "Player 7 holds the death match advantage and chooses who starts.")
    duel.refresh_from_db()
    assert duel.starter is None
    chosen = post(press(buttons(starter)["Player 7 starts"]["custom_id"], OPPONENT)).json()
    assert chosen["type"] == 7 and chosen["data"]["content"] == "Player 7 starts the death match."
    match.refresh_from_db()
    assert match.status == Match.RUNNING
    duel.refresh_from_db()
    assert duel.starter is not None and duel.starter.name == "Player 7"
    drain(http)
    check_wire(episode, discord)


def check_wire(season: Season, discord: FakeDiscord) -> None:
    """No seat, host, manage or personal link anywhere but its owner's DM (replies are checked above)."""
    owners: dict[str, str] = {season.manage_token: HOST.id}
    for bound in DiscordPlayer.objects.filter(season=season).select_related("player"):
        owners[bound.player.personal_token] = bound.user_id
        for seat in bound.player.seats.all():
            owners[seat.token] = bound.user_id
    for match in Match.objects.filter(season=season):
        owners[match.host_token] = HOST.id
    for message in discord.delivered():
        for token, owner in owners.items():
            if token in message.content:
                assert message.kind in ("dm", "ephemeral") and message.to == owner, (message, owner)
