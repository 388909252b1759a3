"""The worker's side against the stand-in Discord API: every message that reached Discord classified by
who can read it (seat links only in their own player's DM, the host link only to the host, the
spectator link in the channel), exactly one DM per player per match, Discord's 429 (per route and
global), 5xx retried with backoff, other 4xx given up with the reason on the host's dashboard, a
closed DM told to the host, and the only address the bot ever connects to."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import httpx
import pytest
import time_machine
from django.utils import timezone

from matches.discord import api, hosting, pings, sender
from matches.models import DiscordMessage, Match
from matches.play import services
from matches.seasons import safe_http
from tests.discordserver import BOT_TOKEN, Delivered, FakeDiscord
from tests.matches.discord.conftest import CHANNEL, HOST, PEOPLE, Post, new_command, reply

pytestmark = pytest.mark.django_db


def drain(http: httpx.Client) -> int:
    total = 0
    while (sent := sender.run_round(http)) > 0:
        total += sent
    return total


def check_audiences(match: Match, delivered: list[Delivered], host_reply: str) -> None:
    """Each secret link only where its holder alone reads it."""
    seats = [(s.token, s.discord.user_id) for s in match.seats.all()]
    for message in [*delivered, Delivered("ephemeral", HOST.id, host_reply)]:
        if match.host_token in message.content:
            assert (message.kind, message.to) == ("ephemeral", HOST.id), message
        for token, user in seats:
            if token in message.content:
                assert (message.kind, message.to) in (("dm", user), ("ephemeral", HOST.id)), message
        if message.kind == "channel":
            assert match.watch_token in message.content, message


@pytest.mark.parametrize(("game", "count"), [("grid-master", 2), ("back-to-the-wall", 4), ("custom", 16)])
def test_every_message_reaches_only_who_may_read_it(post: Post, discord: FakeDiscord, http: httpx.Client,
                                                    game: str, count: int) -> None:
    host_reply = reply(post(new_command(game, PEOPLE[:count])))
    assert discord.calls == []  # nothing is sent on the request's path
    assert drain(http) == count + 1
    match = Match.objects.get()
    delivered = discord.delivered()
    check_audiences(match, delivered, host_reply)
    dms = [m for m in delivered if m.kind == "dm"]
    assert sorted(m.to for m in dms) == sorted(p.id for p in PEOPLE[:count])
    for seat in match.seats.all():
        (mine,) = [m for m in dms if m.to == seat.discord.user_id]
        assert f"https://dm.example.org/p/{seat.token}/" in mine.content and "Hostess" in mine.content
    (channel,) = [m for m in delivered if m.kind == "channel"]
    assert channel.to == CHANNEL and f"https://dm.example.org/w/{match.watch_token}/" in channel.content
    assert all(c.authorization == f"Bot {BOT_TOKEN}" for c in discord.calls if c.route != "followup")
    assert all(c.authorization == "" for c in discord.calls if c.route == "followup")
    assert DiscordMessage.objects.exclude(interaction_token="").count() == 0  # sent: Discord's token forgotten
    sent = [c.body for c in discord.calls if c.route in ("send", "followup")]
    assert sent and all(b["allowed_mentions"] == {"parse": []} for b in sent)  # a name like @everyone pings no one


def test_exactly_one_dm_per_player_when_the_interaction_comes_twice_and_two_workers_send(
        post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    interaction = new_command("grid-master", PEOPLE[:2])
    reply(post(interaction))
    reply(post(interaction))
    with api.client() as other:
        sender.run_round(http)
        sender.run_round(other)
    reply(post(interaction))
    drain(http)
    dms = [m.to for m in discord.delivered() if m.kind == "dm"]
    assert sorted(dms) == sorted(p.id for p in PEOPLE[:2])


def test_a_rate_limited_message_waits_retry_after_and_is_not_a_failure(post: Post, discord: FakeDiscord,
                                                                       http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.rate_limit("open-dm", 7.5)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        sender.run_round(http)
    waiting = DiscordMessage.objects.filter(kind=DiscordMessage.DM, status=DiscordMessage.PENDING)
    assert waiting.count() == 2  # the limited one and the other DM of its route both wait
    assert all(m.next_attempt >= start + dt.timedelta(seconds=7.5) for m in waiting)
    assert all(m.attempts == 0 for m in waiting)
    with time_machine.travel(start + dt.timedelta(seconds=7), tick=False):
        assert sender.run_round(http) == 0
    with time_machine.travel(start + dt.timedelta(seconds=8), tick=False):
        assert sender.run_round(http) == 2
    assert len([m for m in discord.delivered() if m.kind == "dm"]) == 2


def test_an_emptied_bucket_holds_the_routes_next_message_without_a_429(post: Post, discord: FakeDiscord,
                                                                     http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.exhaust("open-dm", 5.0)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        assert sender.run_round(http) == 2  # the channel's post and the first DM
        (held,) = DiscordMessage.objects.filter(status=DiscordMessage.PENDING)
    assert held.kind == DiscordMessage.DM and held.next_attempt == start + dt.timedelta(seconds=5)
    with time_machine.travel(start + dt.timedelta(seconds=5), tick=False):
        assert sender.run_round(http) == 1
    assert not [c for c in discord.calls if c.status == 429]


def test_a_429_without_a_body_is_read_from_its_headers(discord: FakeDiscord, http: httpx.Client) -> None:
    discord.fail("open-dm", 429, None, {"Retry-After": "12"})
    outcome = api.call(http, "POST", "/users/@me/channels", {"recipient_id": "1"})
    assert (outcome.ok, outcome.status, outcome.retry_after, outcome.global_limit) == (False, 429, 12.0, False)
    discord.fail("open-dm", 429, {"message": "You are being rate limited.", "retry_after": 0.25, "global": True},
                 {"Retry-After": "1"})
    outcome = api.call(http, "POST", "/users/@me/channels", {"recipient_id": "1"})
    assert (outcome.retry_after, outcome.global_limit) == (0.25, True)


def test_a_global_rate_limit_holds_every_message(post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.rate_limit("followup", 30, is_global=True)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        sender.run_round(http)
    assert not DiscordMessage.objects.filter(status=DiscordMessage.SENT).exists()
    assert not DiscordMessage.objects.filter(next_attempt__lt=start + dt.timedelta(seconds=30)).exists()
    with time_machine.travel(start + dt.timedelta(seconds=31), tick=False):
        assert drain(http) == 3


def test_a_5xx_is_tried_again_with_backoff_and_given_up_in_the_end(post: Post, discord: FakeDiscord,
                                                                    http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.fail("followup", 500, {"message": "Internal Server Error", "code": 0}, times=sender.MAX_ATTEMPTS)
    start = timezone.now()
    at = start
    for attempt, delay in enumerate([*sender.BACKOFF, 0], start=1):
        with time_machine.travel(at, tick=False):
            sender.deliver_due(http)
        message = DiscordMessage.objects.get(kind=DiscordMessage.FOLLOWUP)
        assert message.attempts == attempt
        at = at + dt.timedelta(seconds=delay + 1)
    assert message.status == DiscordMessage.FAILED and message.interaction_token == ""
    assert "HTTP 500" in message.last_error
    assert "given up" in Match.objects.get().discord.last_error


def test_a_closed_dm_is_named_to_the_host_with_the_link_to_send_by_hand(
        post: Post, discord: FakeDiscord, http: httpx.Client, client: Any, caplog: pytest.LogCaptureFixture) -> None:
    discord.closed_dms.add(PEOPLE[1].id)
    host_reply = reply(post(new_command("grid-master", PEOPLE[:2])))
    with caplog.at_level(logging.INFO):
        drain(http)
    match = Match.objects.get()
    closed = match.seats.get(number=2)
    delivered = discord.delivered()
    check_audiences(match, delivered, host_reply)
    assert not any(m.kind == "dm" and m.to == PEOPLE[1].id for m in delivered)
    (told,) = [m for m in delivered if m.kind == "ephemeral"]
    assert told.to == HOST.id and closed.name in told.content and closed.token in told.content
    assert "/deathmatch links" in told.content
    failed = DiscordMessage.objects.get(recipient=PEOPLE[1].id)
    assert failed.status == DiscordMessage.FAILED and failed.attempts == 1 and "50007" in failed.last_error
    page = client.get(f"/h/{match.host_token}/").content.decode()
    assert "Last message not sent" in page and "DM to Player 2 (seat 2)" in page and "50007" in page
    assert "discord message match:" in caplog.text
    secrets = [match.host_token, *match.seats.values_list("token", flat=True), "stand-in_interaction-token", BOT_TOKEN]
    assert not any(s in caplog.text for s in secrets)


def test_a_dm_refused_with_another_403_code_is_told_to_the_host_too(post: Post, discord: FakeDiscord,
                                                                      http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.fail("open-dm", 403, {"message": "Cannot send messages to this user due to having no mutual guilds",
                                  "code": 50278})
    drain(http)
    (told,) = [m for m in discord.delivered() if m.kind == "ephemeral"]
    assert told.to == HOST.id and "/p/" in told.content


def test_other_4xx_are_given_up_at_once_with_the_reason(post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.fail("send", 400, {"message": "Invalid Form Body", "code": 50035})
    drain(http)
    failed = DiscordMessage.objects.get(status=DiscordMessage.FAILED)
    assert failed.attempts == 1 and "HTTP 400 (code 50035: Invalid Form Body)" in failed.last_error
    assert DiscordMessage.objects.filter(status=DiscordMessage.SENT).count() == 2


def test_the_dashboard_says_nothing_of_discord_for_a_match_from_the_web(make_match: Any, client: Any) -> None:
    match = make_match("grid-master")
    assert "discord-status" not in client.get(f"/h/{match.host_token}/").content.decode()


def bot_calls(discord: FakeDiscord, token: str) -> int:
    return len([c for c in discord.calls if c.authorization == f"Bot {token}"])


def test_a_refused_bot_token_is_sent_once_then_never_until_it_changes(
        post: Post, discord: FakeDiscord, http: httpx.Client, client: Any, settings: Any,
        caplog: pytest.LogCaptureFixture) -> None:
    """Each 401 counts toward Discord's invalid-request limit (10,000 in 10 minutes, then the server's
    address is banned from the API): after Discord refuses the bot token, nothing is sent with it
    again, by this worker or another; the hosts read it on their dashboards and in their replies; the
    messages wait, not failed, and go out once the setting holds another token."""
    host_reply = reply(post(new_command("grid-master", PEOPLE[:2])))
    settings.DISCORD_BOT_TOKEN = "not-the-token"
    start = timezone.now()
    with caplog.at_level(logging.INFO), time_machine.travel(start, tick=False):
        assert drain(http) == 1  # the channel's post: a follow-up carries the interaction's token, not the bot's
    assert bot_calls(discord, "not-the-token") == 1
    for minutes in (1, 10, 60, 24 * 60):
        with time_machine.travel(start + dt.timedelta(minutes=minutes), tick=False), api.client() as other:
            assert sender.run_round(http) == 0 and sender.run_round(other) == 0
    assert bot_calls(discord, "not-the-token") == 1
    waiting = DiscordMessage.objects.filter(kind=DiscordMessage.DM)
    assert [(m.status, m.attempts) for m in waiting] == [(DiscordMessage.PENDING, 0)] * 2
    assert "HTTP 401" in waiting[0].last_error
    assert "Discord refused the bot token" in caplog.text and "not-the-token" not in caplog.text
    match = Match.objects.get()
    page = client.get(f"/h/{match.host_token}/").content.decode()
    assert "Discord refuses the bot's token" in page and "not-the-token" not in page
    assert "Discord refuses my bot token" not in host_reply
    assert hosting.TOKEN_REFUSED in reply(post(new_command("grid-master", PEOPLE[2:4])))

    settings.DISCORD_BOT_TOKEN = BOT_TOKEN  # the operator set a new token: the waiting messages go out
    drain(http)
    dms = sorted(m.to for m in discord.delivered() if m.kind == "dm")
    assert dms == sorted(p.id for p in PEOPLE[:4])
    assert bot_calls(discord, "not-the-token") == 1
    assert "Discord refuses the bot's token" not in client.get(f"/h/{match.host_token}/").content.decode()


def test_no_ping_is_queued_while_the_token_is_refused(post: Post, discord: FakeDiscord, http: httpx.Client,
                                                      settings: Any) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    settings.DISCORD_BOT_TOKEN = "not-the-token"
    drain(http)
    match = Match.objects.get()
    services.start_match(match)
    later = timezone.now() + dt.timedelta(seconds=pings.AWAY + 60)
    with time_machine.travel(later, tick=False):
        sender.run_round(http)
    assert not DiscordMessage.objects.filter(key__startswith="ping:").exists()
    settings.DISCORD_BOT_TOKEN = BOT_TOKEN
    with time_machine.travel(later, tick=False):
        sender.run_round(http)
    assert DiscordMessage.objects.filter(key__startswith="ping:").exists()


def test_a_follow_ups_401_is_its_interaction_tokens_not_the_bots(post: Post, discord: FakeDiscord,
                                                               http: httpx.Client) -> None:
    """An expired interaction token (401, code 50027) gives up that follow-up; the bot token still sends."""
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.fail("followup", 401, {"message": "Invalid Webhook Token", "code": 50027})
    assert drain(http) == 2
    failed = DiscordMessage.objects.get(status=DiscordMessage.FAILED)
    assert failed.kind == DiscordMessage.FOLLOWUP and failed.attempts == 1 and "50027" in failed.last_error
    assert not sender.token_refused()


def test_429_and_403_and_500_never_refuse_the_token(post: Post, discord: FakeDiscord, http: httpx.Client) -> None:
    reply(post(new_command("grid-master", PEOPLE[:2])))
    discord.rate_limit("open-dm", 0.5, is_global=True)
    discord.fail("send", 403, {"message": "Missing Access", "code": 50001})
    discord.fail("followup", 500, {"message": "Internal Server Error", "code": 0})
    start = timezone.now()
    for seconds in (0, 5, 20, 60):
        with time_machine.travel(start + dt.timedelta(seconds=seconds), tick=False):
            drain(http)
    assert not sender.token_refused()
    assert next(c.status for c in discord.calls if c.route == "open-dm") == 429
    # the channel's post (tried again after its 500), the other DM, and the host told of the refused one
    sent = DiscordMessage.objects.filter(status=DiscordMessage.SENT)
    pk = Match.objects.get().pk
    assert sorted(sent.values_list("key", flat=True)) == [f"match:{pk}:channel", f"match:{pk}:seat:1:closed",
                                                          f"match:{pk}:seat:2:link"]
    refused = DiscordMessage.objects.get(status=DiscordMessage.FAILED)  # the 403: given up at once
    assert refused.kind == DiscordMessage.DM and refused.attempts == 1 and "50001" in refused.last_error


# -- where the bot connects ------------------------------------------------------------------------


def test_the_bot_reaches_the_configured_api_host_and_nothing_else(discord: FakeDiscord, http: httpx.Client) -> None:
    assert api.call(http, "PUT", f"/applications/{api.application_id()}/commands", []).ok
    for url in (f"http://127.0.0.2:{discord.port}/api/v10/users/@me/channels",
                f"http://localhost:{discord.port}/api/v10/users/@me/channels",
                f"http://127.0.0.1:{discord.port + 1}/api/v10/users/@me/channels",
                f"https://127.0.0.1:{discord.port}/api/v10/users/@me/channels"):
        with pytest.raises(safe_http.RefusedAddress):
            http.post(url, json={})
    assert len(discord.calls) == 1


def test_a_named_api_host_must_resolve_to_public_addresses(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.DISCORD_API_BASE = "https://discord.example/api/v10"
    monkeypatch.setattr(safe_http, "resolve", lambda host: ["10.0.0.7"])
    with api.client() as http:
        outcome = api.call(http, "POST", "/users/@me/channels", {"recipient_id": "1"})
    assert not outcome.ok and "private or local address" in outcome.error
