"""Who is here, on the wire (issues 25 and 26): every audience sees the spectators' count and each
seat online or offline, kept live as pages open and close, in a small fragment of its own (never a
redraw of the page); players and spectators never get the host's details (since when a seat is
away, its lag, the host's alerts); the sweeper's away alert reaches the host's page alone."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone

from config.asgi import application
from matches.live import presence
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://testserver")]
#: what only the host may see of presence
HOST_DETAILS = ('id="presence"', "disconnected for", 'class="away"', "lag ", "given back", 'id="away-alerts"',
                "has had no page open")


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    """Presence in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


async def _open(token: str) -> tuple[Communicator, str]:
    """An open socket and the state it was sent on connect."""
    comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
    connected, _ = await comm.connect()
    assert connected
    while 'id="live-meta"' not in (text := await comm.receive_from(timeout=5)):
        pass  # (a presence box that came through the relay first)
    return comm, text


async def _until(comm: Communicator, pattern: str, frames: list[str] | None = None) -> str:
    """The first frame that matches `pattern` (every frame read is kept in `frames`)."""
    for _ in range(30):
        text = await comm.receive_from(timeout=5)
        if frames is not None:
            frames.append(text)
        if re.search(pattern, text):
            return text
    raise AssertionError(f"no frame showed {pattern!r}")


def _public_box(html: str) -> str:
    found = re.search(r'<section id="watching".*?</section>', html, re.S)
    assert found is not None, html[:300]
    return found.group(0)


def _seat_state(box: str, name: str) -> str:
    found = re.search(rf'<li class="(\w+)" data-seat="\d+"><span class="dot" aria-hidden="true"></span>{name} '
                      r'<span class="online-state">(\w+)</span>', box)
    assert found is not None and found.group(1) == found.group(2), box
    return found.group(2)


async def test_players_and_spectators_see_the_count_and_who_is_online_but_no_host_detail(roles: Any) -> None:
    secrets = (roles.host, roles.player1.token, roles.player2.token)
    host, _ = await _open(roles.host)
    ann, ann_state = await _open(roles.player1.token)
    watcher, watch_state = await _open(roles.spectator)
    # on connect: the count (this spectator included), Ann online, Bob (who never opened his page) offline
    box = _public_box(watch_state)
    assert '<strong id="spectator-count">1</strong>' in box
    assert _seat_state(box, "Ann") == "online" and _seat_state(box, "Bob") == "offline"
    assert _seat_state(_public_box(ann_state), "Bob") == "offline"
    for state in (ann_state, watch_state):
        assert not any(detail in state for detail in HOST_DETAILS), state[:300]
    # a second spectator: the others' count goes to 2, in a fragment of its own
    second, _ = await _open(roles.spectator)
    for comm in (ann, watcher):
        frame = await _until(comm, r'id="spectator-count">2<')
        assert frame.strip() == _public_box(frame)  # the box alone
        assert frame.startswith('<section id="watching" hx-swap-oob="true"')
        assert 'id="live-meta"' not in frame and not any(d in frame for d in HOST_DETAILS)
    # Bob opens his page: he is online for Ann, for the spectators and for himself
    bob, bob_state = await _open(roles.player2.token)
    assert _seat_state(_public_box(bob_state), "Bob") == "online"
    for comm in (ann, watcher):
        frame = await _until(comm, r"Bob <span class=\"online-state\">online")
        assert _seat_state(frame, "Ann") == "online" and 'id="spectator-count">2<' in frame
    # Bob's page closes: "offline" for the others; the host alone sees since when
    await bob.disconnect()
    got = {name: await _until(comm, r"Bob <span class=\"online-state\">offline")
           for name, comm in (("ann", ann), ("watch", watcher), ("second", second))}
    for name, frame in got.items():
        assert not any(detail in frame for detail in HOST_DETAILS), (name, frame)
        assert not any(secret in frame for secret in secrets), name
    hosted = await _until(host, r"Bob \(seat 2\) <span class=\"away\" data-since=")
    assert "disconnected for" in hosted and 'id="watching"' not in hosted
    # a spectator leaves: the count goes down for the players
    await second.disconnect()
    assert 'id="spectator-count">1<' in await _until(ann, r'id="spectator-count">1<')
    # and a fresh load shows what the live pages show
    fresh = await database_sync_to_async(lambda: Client().get(f"/p/{roles.player1.token}/").content.decode())()
    box = _public_box(fresh)
    assert 'id="spectator-count">1<' in box and _seat_state(box, "Bob") == "offline"
    for comm in (host, ann, watcher):
        await comm.disconnect()


async def test_a_burst_of_spectators_sends_each_page_one_count_per_interval(roles: Any) -> None:
    """Twenty spectators arriving at once: the player's page gets the count at most once per
    `presence.PUBLIC_DELAY` (one claim for every web process), not a frame per arrival."""
    ann, _ = await _open(roles.player1.token)
    started = time.monotonic()
    crowd = await asyncio.gather(*(_open(roles.spectator) for _ in range(20)))
    frames: list[str] = []
    await _until(ann, r'id="spectator-count">20<', frames)
    last = time.monotonic()
    while not await ann.receive_nothing(timeout=presence.PUBLIC_DELAY + 0.5):  # and whatever else comes
        frames.append(await ann.receive_from())
        last = time.monotonic()
    boxes = [f for f in frames if f.startswith('<section id="watching"')]
    assert boxes == frames  # nothing but the box: no page redrawn
    assert 'id="spectator-count">20<' in boxes[-1]
    # boxes kept coming for `last - started` seconds: one per interval at most, give or take one (a frame
    # per arrival would be 20)
    assert len(boxes) <= (last - started) / presence.PUBLIC_DELAY + 2, (len(boxes), last - started)
    for comm, _ in crowd:
        await comm.disconnect()
    await ann.disconnect()


def test_one_web_process_at_a_time_may_push_the_public_box(db: Any) -> None:
    """The claim that keeps several web processes from each sending the count (shared in Redis)."""
    name = presence.public_claim_key(123456)
    assert presence.store.claim(name, 5.0) == 0.0
    wait = presence.store.claim(name, 5.0)
    assert 0 < wait <= 5.0


async def test_the_sweepers_away_alert_reaches_the_host_page_alone(make_match: Any) -> None:
    from matches.play import sweeper

    match = await database_sync_to_async(make_match)("lance-assembly", away_alert=30)
    tokens = await database_sync_to_async(lambda: {s.number: s.token for s in match.seats.all()})()
    host, _ = await _open(match.host_token)
    bob, _ = await _open(tokens[2])
    watcher, _ = await _open(match.watch_token)
    ann, _ = await _open(tokens[1])
    await ann.disconnect()  # Ann's page closes
    sweep = database_sync_to_async(sweeper.sweep_alerts)
    assert await sweep(timezone.now() + timedelta(seconds=20)) == 0
    assert await sweep(timezone.now() + timedelta(seconds=31)) == 1
    frame = await _until(host, r'role="alert" data-seat="1"')
    alert = re.search(r'<p class="away-alert" role="alert" data-seat="1">(.*?)</p>', frame, re.S)
    assert alert is not None and "Ann (seat 1) has had no page open for" in alert.group(1), frame
    assert 'data-since="' in alert.group(1)
    assert "live-meta" not in frame  # the host's boxes alone, not the page
    # the others never get it
    for comm in (bob, watcher):
        while not await comm.receive_nothing(timeout=presence.PUBLIC_DELAY + 0.25):
            text = await comm.receive_from()
            assert "has had no page open" not in text and 'id="away-alerts"' not in text
    # Ann is back: the alert goes from the host's page
    ann, _ = await _open(tokens[1])
    await _until(host, r'<div id="away-alerts" hx-swap-oob="true" class="away-alerts">\s*</div>')
    assert await sweep() == 1  # and the sweeper clears it
    for comm in (host, bob, watcher, ann):
        await comm.disconnect()


def test_the_sweeper_alerts_the_host_once_after_m_seconds_away_with_time_frozen(
        make_match: Any, time_machine: Any, client: Any) -> None:
    """The sweeper decides from the presence every web process shares: Ann's page closed at T0,
    the match alerts after 45 s; a second sweeper (or sweep) changes nothing; Bob, who never
    opened his page, is away since the match started; a computer player never is."""
    from datetime import UTC, datetime

    from matches.models import Seat
    from matches.play import sweeper

    t0 = datetime.now(UTC).replace(microsecond=0)
    time_machine.move_to(t0 - timedelta(seconds=10), tick=False)
    match = make_match("lance-assembly", away_alert=45)  # started 10 s before T0
    cy = make_match("lance-assembly", away_alert=45)
    Seat.objects.filter(match=cy).update(bot="normal")
    ann = presence.key(match.pk, "seat-1")
    presence.store.add([(ann, "ann-page")])
    time_machine.move_to(t0, tick=False)
    presence.store.remove([(ann, "ann-page")])

    def alerted() -> dict[int, Any]:
        return dict(Seat.objects.filter(match=match).values_list("number", "away_alert"))

    time_machine.move_to(t0 + timedelta(seconds=34), tick=False)
    assert sweeper.sweep_alerts() == 0 and alerted() == {1: None, 2: None}
    time_machine.move_to(t0 + timedelta(seconds=35), tick=False)  # Bob: 45 s since the start
    assert sweeper.sweep_alerts() == 1 and alerted() == {1: None, 2: t0 - timedelta(seconds=10)}
    time_machine.move_to(t0 + timedelta(seconds=45), tick=False)  # Ann: 45 s since her page closed
    assert sweeper.sweep_alerts() == 1 and alerted() == {1: t0, 2: t0 - timedelta(seconds=10)}
    assert sweeper.sweep_alerts() == 0  # once
    assert not Seat.objects.filter(match=cy, away_alert__isnull=False).exists()  # computers have no page

    time_machine.move_to(t0 + timedelta(seconds=107), tick=False)
    page = client.get(f"/h/{match.host_token}/").content.decode()
    alerts = re.findall(r'<p class="away-alert" role="alert" data-seat="(\d)">(.*?)</p>', page, re.S)
    assert [seat for seat, _ in alerts] == ["1", "2"]
    assert "Ann (seat 1) has had no page open for" in alerts[0][1] and f'data-since="{t0.isoformat()}"' in alerts[0][1]
    assert "1\xa0minute" in alerts[0][1]  # 1:47 (the page ticks it on: static/js/clocks.js)
    assert "Bob (seat 2) has had no page open for" in alerts[1][1]
    # neither a seat nor a spectator gets any of it
    for url in (f"/p/{match.seats.get(number=2).token}/", f"/w/{match.watch_token}/"):
        other = client.get(url).content.decode()
        assert "has had no page open" not in other and 'id="away-alerts"' not in other
        assert re.search(r"Ann <span class=\"online-state\">offline", other)

    # Ann is back: the sweeper clears her alert (her page already dropped it)
    presence.store.add([(ann, "ann-again")])
    assert 'role="alert" data-seat="1"' not in client.get(f"/h/{match.host_token}/").content.decode()
    assert sweeper.sweep_alerts() == 1 and alerted()[1] is None
    assert sweeper.sweep_alerts() == 0


@pytest.mark.parametrize(("value", "message"), [
    ("-3", "the time away before you are alerted cannot be negative"),
    ("0", "the time away before you are alerted must be more than 0 seconds"),
    ("soon", "the time away before you are alerted must be a number of seconds"),
    ("9e9", "the time away before you are alerted must be at most 604800 seconds (a week)"),
])
def test_the_host_form_refuses_a_bad_alert_time_and_says_why(db: Any, value: str, message: str) -> None:
    from matches.models import Match

    base = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}
    reply = Client().post("/", {**base, "away_alert": value})
    html = reply.content.decode()
    assert reply.status_code == 400 and message in html
    assert re.search(r'<label class="field-error">Alert me when a player has had no page open for <input name="away_alert"'
                     rf'[^>]*value="{re.escape(value)}" aria-invalid="true"', html)
    assert not Match.objects.exists()


def test_the_host_form_sets_the_alert_time_with_or_without_a_clock(db: Any) -> None:
    from matches.models import Match

    base = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}
    for extra in ({"away_alert": "45", "away_pause": "20"}, {"away_alert": "90", "per_move": "", "reserve": ""}):
        reply = Client().post("/", {**base, **extra})
        assert reply.status_code == 302, reply.content[:300]
        match = Match.objects.get(host_token=reply["Location"].rstrip("/").rsplit("/", 1)[1])
        assert match.format["away_alert"] == float(extra["away_alert"])
    assert Match.objects.get(format__away_alert=90.0).format["clock"] is None
    assert Match.objects.get(format__away_alert=45.0).format["clock"]["away_pause"] == 20.0
