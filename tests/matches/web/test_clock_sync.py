"""Clock sync on the match socket through the real ASGI application: ping -> pong with the
server's time, ack -> the seat's network lag measured by the server; a move's think time by
socket and by form post reaches the clock (issue 26)."""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import datetime
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from config.asgi import application
from matches.core import netlag
from matches.models import Match, TurnLog
from tests.matches.web.test_consumers import state_on_connect
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://testserver")]


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


async def _open(token: str) -> Communicator:
    comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
    connected, _ = await comm.connect()
    assert connected
    await state_on_connect(comm)
    return comm


async def _json(comm: Communicator) -> dict[str, Any]:
    """The next JSON message (skipping HTML updates such as the host's presence box)."""
    for _ in range(10):
        text = await comm.receive_from(timeout=5)
        if text.startswith("{"):
            return dict(json.loads(text))
    raise AssertionError("no JSON message arrived")


async def test_a_ping_is_answered_with_the_server_time_and_the_ack_measures_the_seat_lag(roles: Any) -> None:
    match = roles.match
    seat = await _open(roles.player1.token)
    watcher = await _open(roles.spectator)
    before = time.time() * 1000
    await seat.send_json_to({"type": "ping", "n": 7})
    pong = await _json(seat)
    assert pong["type"] == "pong" and pong["n"] == 7 and before <= pong["now"] <= time.time() * 1000
    assert await database_sync_to_async(netlag.measured)(match.pk, 1) is None  # not before the ack
    await seat.send_json_to({"type": "ack", "n": 7})
    await seat.send_json_to({"type": "ping", "n": 8})  # answered after the ack was handled
    await _json(seat)
    measured = await database_sync_to_async(netlag.measured)(match.pk, 1)
    assert measured is not None and 0 <= measured < 5
    # an ack of a ping never sent measures nothing; a spectator pings for its clock only
    await seat.send_json_to({"type": "ack", "n": 99})
    await watcher.send_json_to({"type": "ping", "n": 1})
    assert (await _json(watcher))["n"] == 1
    await watcher.send_json_to({"type": "ack", "n": 1})
    assert await database_sync_to_async(netlag.measured)(match.pk, 2) is None
    await seat.disconnect()
    await watcher.disconnect()


@pytest.mark.parametrize("message", [
    {"type": "ping"},
    {"type": "ping", "n": "7"},
    {"type": "ping", "n": -1},
    {"type": "ack", "n": True},
    {"type": "move", "text": "place C3", "version": 1, "think": "soon"},
    {"type": "move", "text": "place C3", "version": 1, "think": -1},
    {"type": "move", "text": "place C3", "version": 1, "think": float("inf")},
])
async def test_a_malformed_clock_message_closes_the_socket(roles: Any, message: dict[str, Any]) -> None:
    seat = await _open(roles.player1.token)
    await seat.send_to(text_data=json.dumps(message))
    out = await seat.receive_output(timeout=5)
    while out["type"] != "websocket.close":
        out = await seat.receive_output(timeout=5)
    assert out["code"] == 4400
    assert await database_sync_to_async(TurnLog.objects.filter(kind=TurnLog.MOVE).count)() == 0


async def test_a_move_by_socket_carries_its_think_time_to_the_clock(roles: Any) -> None:
    match = roles.match
    seat = await _open(roles.player1.token)
    version = await database_sync_to_async(lambda: match.current_bout.version)()
    await seat.send_json_to({"type": "move", "text": "place C3", "version": version, "think": "0.001"})
    for _ in range(10):
        if 'id="move-error"' in await seat.receive_from(timeout=5):
            break
    entry = await database_sync_to_async(TurnLog.objects.get)(match=match, kind=TurnLog.MOVE)
    assert entry.elapsed is not None
    assert entry.client_time == pytest.approx(min(0.001, entry.elapsed), abs=1e-9)
    assert entry.elapsed is not None and entry.lag_comp is not None
    assert entry.time_used == pytest.approx(entry.elapsed - entry.lag_comp)
    await seat.disconnect()


def test_a_move_by_form_post_carries_its_think_time(roles: Any) -> None:
    match = roles.match
    url = reverse("player_move", args=[roles.player1.token])
    reply = Client().post(url, {"text": "place C3", "version": match.current_bout.version, "think": "0.0005"})
    assert reply.status_code == 200
    entry = TurnLog.objects.get(match=match, kind=TurnLog.MOVE)
    assert entry.elapsed is not None and entry.lag_comp is not None
    assert entry.client_time is not None and entry.client_time <= entry.elapsed
    assert entry.time_used == pytest.approx(entry.elapsed - entry.lag_comp)
    # a think time that is not a number is no report at all: the seat is charged what the server saw
    reply = Client().post(reverse("player_move", args=[roles.player2.token]),
                          {"text": "place D4", "version": match.current_bout.version, "think": "later"})
    latest = TurnLog.objects.filter(match=match, kind=TurnLog.MOVE).order_by("-sequence").first()
    assert latest is not None
    entry = latest
    assert (entry.text, entry.client_time, entry.lag_comp, entry.time_used) == ("place D4", None, 0, entry.elapsed)


async def _presence(host: Communicator, pattern: str) -> str:
    for _ in range(8):
        text = await host.receive_from(timeout=30)  # waited for: a loaded CI machine took over 5 s once
        if 'id="presence"' in text and re.search(pattern, text):
            return text
    raise AssertionError(f"the host's presence box never showed {pattern!r}")


async def test_the_host_sees_since_when_a_seat_is_away_and_its_lag(roles: Any) -> None:
    match = roles.match
    host = await _open(roles.host)
    seat = await _open(roles.player1.token)
    await _presence(host, r'<li class="on"><span class="dot"></span>Ann \(seat 1\)')
    version = await database_sync_to_async(lambda: match.current_bout.version)()
    await seat.send_json_to({"type": "move", "text": "place C3", "version": version, "think": 0})
    await seat.disconnect()
    box = await _presence(host, r"Ann \(seat 1\) <span class=\"away\"")
    since = re.search(r'Ann \(seat 1\) <span class="away" data-since="([^"]+)">disconnected for', box)
    assert since is not None and abs(datetime.fromisoformat(since.group(1)).timestamp() - time.time()) < 30
    entry = await database_sync_to_async(TurnLog.objects.get)(match=match, kind=TurnLog.MOVE)
    assert entry.lag_comp is not None
    lag_ms = round(1000 * entry.lag_comp)  # the lag the move was counted (issue 41), not its claim
    assert f"lag {lag_ms} ms a move on average · {entry.lag_comp:.2f} s given back" in box
    # a seat that never connected is "off" with no time away
    assert '<li class="off"><span class="dot"></span>Bob (seat 2)' in box and 'Bob (seat 2) <span class="away"' not in box
    await host.disconnect()


def test_the_host_form_turns_lag_compensation_off(db: Any) -> None:
    base = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}
    for extra, expected in [({}, True), ({"no_lag_comp": "on"}, False),
                            ({"per_move": "30", "reserve": "100", "no_lag_comp": "on"}, False)]:
        reply = Client().post(reverse("home"), {**base, **extra})
        assert reply.status_code == 302, reply.content[:300]
        match = Match.objects.get(host_token=reply["Location"].rstrip("/").rsplit("/", 1)[1])
        assert match.format["clock"].get("lag_compensation", True) is expected, extra
        assert match.format["clock"]["per_move"] == float(extra.get("per_move", 60))


async def test_clocks_pause_while_the_seat_to_act_is_away_and_restart_when_it_is_back(make_match: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from matches.play import sweeper

    match = await database_sync_to_async(make_match)(
        "lance-assembly", clock={"per_move": 60, "reserve": 300, "away_pause": 5})
    token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    sweep = database_sync_to_async(sweeper.sweep_away)

    def state() -> tuple[bool, int | None, bool]:
        match.refresh_from_db()
        return match.paused, match.away_paused, match.current_bout.clocks.get(seat=1).running

    seat = await _open(token)
    await seat.disconnect()  # the seat's page is gone
    assert await sweep(timezone.now() + timedelta(seconds=4)) == 0
    assert await database_sync_to_async(state)() == (False, None, True)
    assert await sweep(timezone.now() + timedelta(seconds=6)) == 1
    assert await sweep(timezone.now() + timedelta(seconds=7)) == 0  # paused once
    assert await database_sync_to_async(state)() == (True, 1, False)
    seat = await _open(token)  # back
    assert await sweep() == 1
    assert await database_sync_to_async(state)() == (False, None, True)
    notes = await database_sync_to_async(
        lambda: list(TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).values_list("text", flat=True)))()
    assert notes == ["paused the clocks: seat 1 (Ann) has had no page open for 6 s",
                     "restarted the clocks: seat 1 (Ann) is back"]
    await seat.disconnect()


async def test_a_seat_that_never_opened_its_page_is_away_from_when_its_clock_started(make_match: Any) -> None:
    """Issue 26: a player who never turns up is away too (counted from when the seat's clock started
    running); a computer player never is: it has no page."""
    from datetime import timedelta

    from django.utils import timezone

    from matches.play import sweeper

    match = await database_sync_to_async(make_match)(
        "lance-assembly", clock={"per_move": 60, "reserve": 300, "away_pause": 5})
    since = await database_sync_to_async(lambda: match.current_bout.clocks.get(seat=1).running_since)()
    host = await _open(match.host_token)  # the host moderates: presence is known (else nobody is paused)
    sweep = database_sync_to_async(sweeper.sweep_away)
    assert await sweep(since + timedelta(seconds=4)) == 0
    assert await sweep(since + timedelta(seconds=5)) == 1
    await database_sync_to_async(match.refresh_from_db)()
    assert match.paused and match.away_paused == 1
    note = await database_sync_to_async(
        lambda: TurnLog.objects.filter(match=match, kind=TurnLog.CLOCK).values_list("text", flat=True).get())()
    assert note == "paused the clocks: seat 1 (Ann) has had no page open for 5 s"
    seat = await _open(await database_sync_to_async(lambda: match.seats.get(number=1).token)())
    assert await sweep() == 1  # it turned up: the clocks run again
    await seat.disconnect()
    await host.disconnect()

    other = await database_sync_to_async(make_match)(
        "lance-assembly", clock={"per_move": 60, "reserve": 300, "away_pause": 5})
    await database_sync_to_async(lambda: other.seats.filter(number=1).update(bot="normal"))()
    host = await _open(other.host_token)

    def other_paused() -> bool:
        other.refresh_from_db()
        return bool(other.paused)

    await sweep(timezone.now() + timedelta(seconds=600))
    assert not await database_sync_to_async(other_paused)()  # the computer to act has no page
    await database_sync_to_async(lambda: other.seats.filter(number=1).update(bot=""))()
    await sweep(timezone.now() + timedelta(seconds=600))
    assert await database_sync_to_async(other_paused)()  # (a person in its seat would be away)
    await host.disconnect()


def test_the_host_form_sets_the_pause_for_a_seat_away(db: Any) -> None:
    base = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}
    reply = Client().post(reverse("home"), {**base, "away_pause": "30"})
    match = Match.objects.get(host_token=reply["Location"].rstrip("/").rsplit("/", 1)[1])
    assert match.format["clock"]["away_pause"] == 30.0 and match.format["clock"]["per_move"] == 60
    count = Match.objects.count()
    reply = Client().post(reverse("home"), {**base, "away_pause": "-3"})
    assert reply.status_code == 400 and b"time away before the clocks pause cannot be negative" in reply.content
    assert Match.objects.count() == count


def test_a_seat_whose_web_process_was_killed_is_away_from_its_last_renewal(
    make_match: Any, monkeypatch: pytest.MonkeyPatch, time_machine: Any, client: Any
) -> None:
    """No socket closed (the process died), yet its connection expires: the seat has been away since
    the connection was last renewed, and the sweeper pauses the clocks from that."""
    from datetime import UTC, timedelta

    from django.utils import timezone

    from matches.live import presence
    from matches.play import sweeper

    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 300, "away_pause": 5})
    monkeypatch.setattr(presence, "TTL", 2.0)
    start = datetime.now(UTC)
    time_machine.move_to(start, tick=False)
    presence.store.add([(presence.key(match.pk, "seat-1"), "conn-of-a-process-about-to-die")])
    assert presence.seat_presence(match.pk, 1)[0] == 1
    time_machine.move_to(start + timedelta(seconds=3), tick=False)  # past the TTL: never renewed
    count, left = presence.seat_presence(match.pk, 1)
    assert count == 0 and left == pytest.approx(start.timestamp(), abs=0.01)
    assert sweeper.sweep_away(timezone.now()) == 0  # away for 3 s
    assert sweeper.sweep_away(timezone.now() + timedelta(seconds=2.5)) == 1
    match.refresh_from_db()
    assert match.paused and match.away_paused == 1
    # the pages say why (not "by the host": the host did nothing)
    page = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Paused: a player has no page open." in page and "Paused by the host" not in page
