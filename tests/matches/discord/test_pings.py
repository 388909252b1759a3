"""Your-turn pings, time frozen: a Discord player to act with no page open for 30 s gets one DM for
that turn (and one for the next), none while a page is open, none for a computer player, none when
the host turned pings off or holds the clocks; a sealed round pings each seat it waits on once."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import httpx
import pytest

from matches.discord import pings, sender
from matches.live import presence
from matches.models import DiscordMessage, Match
from matches.play import bots, services
from tests.discordserver import FakeDiscord
from tests.matches.discord.conftest import HOST, PEOPLE, Post, new_command, reply

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def nobody_seen_yet(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """Presence of its own for each test: the in-process store lives as long as the process (and
    match ids come back after a rolled-back test), the Redis one is shared by every test process."""
    monkeypatch.setattr(presence, "store", type(presence.store)())
    settings.CACHES = {**settings.CACHES,
                       "default": {**settings.CACHES["default"], "KEY_PREFIX": f"pings-{uuid.uuid4().hex}"}}


def at(seconds: float) -> dt.datetime:
    return START + dt.timedelta(seconds=seconds)


def open_page(match: Match, audience: str, conn: str) -> None:
    presence.store.add([(presence.key(match.pk, audience), conn)])


def close_page(match: Match, audience: str, conn: str) -> None:
    presence.store.remove([(presence.key(match.pk, audience), conn)])


def hosted(post: Post, game: str, *, extra: list[dict[str, Any]] | None = None) -> Match:
    reply(post(new_command(game, PEOPLE[:2], extra=extra)))
    match = Match.objects.get(game_slug=game)
    services.start_match(match, starting_seat=1)
    open_page(match, "host", f"host-{match.pk}")  # the host watches (presence of the match is known)
    return match


def pinged() -> list[tuple[str, str]]:
    return list(DiscordMessage.objects.filter(key__startswith="ping:").values_list("recipient", "content"))


def move(match: Match, seat: int, text: str) -> None:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    services.submit(match, seat, text, bout.version)


def test_a_player_away_on_their_turn_is_pinged_once_per_turn(post: Post, time_machine: Any, discord: FakeDiscord,
                                                             http: httpx.Client) -> None:
    time_machine.move_to(START, tick=False)
    match = hosted(post, "grid-master", extra=[{"type": 3, "name": "clock", "value": "off"}])
    time_machine.move_to(at(29), tick=False)
    assert pings.queue_due() == 0
    time_machine.move_to(at(30), tick=False)
    assert pings.queue_due() == 1
    time_machine.move_to(at(300), tick=False)
    assert pings.queue_due() == 0  # once for that turn, however long it lasts
    seat1, seat2 = match.seats.get(number=1), match.seats.get(number=2)
    assert [r for r, _ in pinged()] == [PEOPLE[0].id]
    assert f"/p/{seat1.token}/" in pinged()[0][1]
    open_page(match, "seat-2", "p2")
    move(match, 1, "place A1")
    time_machine.move_to(at(340), tick=False)
    assert pings.queue_due() == 0  # seat 2's page is open
    close_page(match, "seat-2", "p2")
    time_machine.move_to(at(369), tick=False)
    assert pings.queue_due() == 0  # 30 s from when its page closed
    time_machine.move_to(at(370), tick=False)
    assert pings.queue_due() == 1
    move(match, 2, "place C3")
    open_page(match, "host", "host-again")  # (the host's page, renewed as its heartbeat would)
    time_machine.move_to(at(400), tick=False)  # seat 1's next turn: pinged again, 30 s after it began
    assert pings.queue_due() == 1
    assert [r for r, _ in pinged()] == [PEOPLE[0].id, PEOPLE[1].id, PEOPLE[0].id]
    assert f"/p/{seat2.token}/" in pinged()[1][1]
    sender.deliver_due(http)
    dms = [m for m in discord.delivered() if m.kind == "dm" and "your turn" in m.content]
    assert [m.to for m in dms] == [PEOPLE[0].id, PEOPLE[1].id, PEOPLE[0].id]


def test_no_ping_when_the_host_turned_them_off_or_holds_the_clocks(post: Post, time_machine: Any) -> None:
    time_machine.move_to(START, tick=False)
    hosted(post, "grid-master", extra=[{"type": 5, "name": "pings", "value": False}])
    held = hosted(post, "lance-assembly")
    services.pause_clocks(held)
    time_machine.move_to(at(600), tick=False)
    assert pings.queue_due() == 0


def test_a_computer_player_is_never_pinged(post: Post, time_machine: Any) -> None:
    time_machine.move_to(START, tick=False)
    match = hosted(post, "grid-master", extra=[{"type": 3, "name": "clock", "value": "off"}])
    bots.set_bot(match, 1, "easy")
    time_machine.move_to(at(600), tick=False)
    assert pings.queue_due() == 0


def test_a_sealed_round_pings_each_seat_it_waits_on_once(post: Post, time_machine: Any) -> None:
    time_machine.move_to(START, tick=False)
    match = hosted(post, "bidding-ttt", extra=[{"type": 3, "name": "clock", "value": "off"}])
    time_machine.move_to(at(10), tick=False)
    move(match, 1, "pass")  # seat 1 has answered: the round waits on seat 2 only
    time_machine.move_to(at(40), tick=False)
    assert pings.queue_due() == 1
    assert [r for r, _ in pinged()] == [PEOPLE[1].id]
    time_machine.move_to(at(400), tick=False)
    assert pings.queue_due() == 0


def test_the_host_is_not_pinged_for_a_match_they_only_host(post: Post, time_machine: Any) -> None:
    time_machine.move_to(START, tick=False)
    hosted(post, "grid-master")
    time_machine.move_to(at(600), tick=False)
    pings.queue_due()
    assert HOST.id not in [r for r, _ in pinged()]


def test_a_player_is_pinged_when_no_page_of_the_match_is_open_at_all(post: Post, time_machine: Any) -> None:
    """With Redis, presence says "unknown" for a match no page has been open for a minute (it keeps
    its "known" mark only while some page is open): that is the player the match waits on, away."""
    time_machine.move_to(START, tick=False)
    reply(post(new_command("grid-master", PEOPLE[:2], extra=[{"type": 3, "name": "clock", "value": "off"}])))
    services.start_match(Match.objects.get(), starting_seat=1)
    time_machine.move_to(at(30), tick=False)
    assert pings.queue_due() == 1
    assert [r for r, _ in pinged()] == [PEOPLE[0].id]
