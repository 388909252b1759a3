"""Issue 37, item 2, on the pages: the host's home form sets a seat's away time per bout (checked,
with a clear message), and the host's presence box shows each seat's away time left in the bout,
counting down while an away pause uses it, on the page and live; nobody else sees it."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from config.asgi import application
from matches.live import presence
from matches.models import Match
from matches.play import services, sweeper
from tests.wsclient import Communicator

ORIGIN = [(b"origin", b"http://testserver")]
START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
BASE = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


def _created(reply: Any) -> Match:
    assert reply.status_code == 302, reply.content[:300]
    return Match.objects.get(host_token=reply["Location"].rstrip("/").rsplit("/", 1)[1])


def test_the_home_form_sets_the_away_time_per_bout(db: Any) -> None:
    page = Client().get(reverse("home")).content.decode()
    assert re.search(r'<input name="away_budget" type="number" min="1" step="any" id="away_budget" placeholder="120"',
                     page)
    match = _created(Client().post(reverse("home"), {**BASE, "away_pause": "30", "away_budget": "90"}))
    assert match.format["clock"]["away_pause"] == 30.0 and match.format["clock"]["away_budget"] == 90.0
    match = _created(Client().post(reverse("home"), {**BASE, "away_pause": "30", "away_budget": ""}))
    assert "away_budget" not in match.format["clock"]  # the default, 120 s


@pytest.mark.parametrize(("value", "pause", "message"), [
    ("0", "30", "the away time per bout must be more than 0 seconds"),
    ("-5", "30", "the away time per bout cannot be negative"),
    ("soon", "30", "the away time per bout must be a number of seconds"),
    ("1e9", "30", "the away time per bout must be at most 604800 seconds (a week)"),
    ("90", "", "the away time per bout is how long the clocks may stay paused for a player away: set the time "
               "away before the clocks pause too, or leave it empty"),
])
def test_a_wrong_away_time_per_bout_is_refused_with_a_clear_message(db: Any, value: str, pause: str,
                                                                      message: str) -> None:
    count = Match.objects.count()
    reply = Client().post(reverse("home"), {**BASE, "away_pause": pause, "away_budget": value})
    page = reply.content.decode()
    assert reply.status_code == 400 and message in page, page[:400]
    assert 'class="field-error">for at most, in all, a player a bout' in page  # the field is marked
    assert Match.objects.count() == count


def _seat_row(html: str, name: str) -> str:
    found = re.search(rf"<li [^>]*><span class=\"dot\"></span>{name} \(seat \d\).*?</li>", html, re.S)
    assert found is not None, html[:2000]
    return found.group(0)


def test_the_host_page_shows_each_seats_away_time_left(make_match: Any, time_machine: Any) -> None:
    time_machine.move_to(START, tick=False)
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 0, "away_pause": 3,
                                                "away_budget": 100, "lag_compensation": False})
    host = reverse("host_page", args=[match.host_token])
    page = Client().get(host).content.decode()
    assert "away time left this bout <span class=\"away-left\">1:40</span>" in _seat_row(page, "Ann")
    assert "away time left this bout <span class=\"away-left\">1:40</span>" in _seat_row(page, "Bob")
    ann = presence.key(match.pk, "seat-1")
    presence.store.add([(ann, "page")])
    time_machine.move_to(START + timedelta(seconds=1), tick=False)
    presence.store.remove([(ann, "page")])
    time_machine.move_to(START + timedelta(seconds=4), tick=False)
    assert sweeper.sweep_away() == 1
    time_machine.move_to(START + timedelta(seconds=34), tick=False)  # 30 s of the pause
    until = (START + timedelta(seconds=104)).isoformat()
    running = f'away time left this bout <span class="away-left" data-until="{until}">1:10</span> (running)'
    for html in (Client().get(host).content.decode(), presence.host_html(match.pk)[0][1]):  # page, live box
        assert running in _seat_row(html, "Ann")
        assert "away time left this bout <span class=\"away-left\">1:40</span>" in _seat_row(html, "Bob")
    time_machine.move_to(START + timedelta(seconds=44), tick=False)
    services.resume_clocks(match)  # the host: 40 s used
    page = Client().get(host).content.decode()
    assert "away time left this bout <span class=\"away-left\">1:00</span></small>" in _seat_row(page, "Ann")
    # the host's alone: not on a player's page nor a spectator's
    for url in (reverse("player_page", args=[match.seats.get(number=2).token]),
                reverse("watch_page", args=[match.watch_token])):
        assert "away time left" not in Client().get(url).content.decode()


@pytest.mark.django_db(transaction=True)
async def test_the_host_sees_the_away_time_left_live_when_the_sweeper_pauses(make_match: Any) -> None:
    """The sweeper's pause redraws the host's presence box (not the page), on the host's socket."""
    match = await database_sync_to_async(make_match)(
        "lance-assembly", clock={"per_move": 60, "reserve": 300, "away_pause": 5})
    token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    host = Communicator(application, f"/ws/m/{match.host_token}/", headers=ORIGIN)
    seat = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
    for comm in (host, seat):
        assert (await comm.connect())[0]
    online = re.compile(r'Ann \(seat 1\)(?![^<]*<span class="away")')
    for _ in range(30):  # first the box with the seat's page open (the host's first state may predate it)
        text = await host.receive_from(timeout=5)
        if text.startswith('<section id="presence"') and online.search(text):
            break
    else:
        raise AssertionError("the host's presence box never showed the seat here")
    await seat.disconnect()
    # the seat's leaving is written (presence) before the host's box says it is away: sweep only then
    # (on SQLite the sweep and that write raced for the table: "database table is locked")
    away = re.compile(r'Ann \(seat 1\)[^<]*<span class="away"')
    for _ in range(30):
        text = await host.receive_from(timeout=5)
        if text.startswith('<section id="presence"') and away.search(text):
            break
    else:
        raise AssertionError("the host's presence box never showed the seat away")
    assert await database_sync_to_async(sweeper.sweep_away)(timezone.now() + timedelta(seconds=6)) == 1
    running = re.compile(r'Ann \(seat 1\)[^<]*<span class="away"[^\n]*\n\s*<small class="away-budget muted">away time '
                         r'left this bout <span class="away-left" data-until="[^"]+">\d:\d\d</span> \(running\)')
    for _ in range(30):
        text = await host.receive_from(timeout=5)
        if running.search(text):
            break
    else:
        raise AssertionError("the host's presence box never showed the away time running down")
    assert text.startswith('<section id="presence"') and "live-meta" not in text  # the box alone
    await host.disconnect()
