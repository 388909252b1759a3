"""A practice match with no page of its player open for 30 minutes ends as abandoned (issue 51,
section 3): without a clock it ran for ever, and every round of the computer players' worker looked
at its bot seats (31 still "running" at the end of a run).  Its log says so, its bots are no longer
looked at, and it frees its place among the client's running practice matches.

Through the real stack: the match made by the practice form, the player's page over the websocket
(presence, which the clock sweeper reads through core/away.py), the sweeper's round, the page and
the record.  Time is frozen and moved (time_machine); the presence heartbeat is run by hand after
each move of the clock, as a page kept open renews its presence."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.test import Client

from config.asgi import application
from matches.live import presence
from matches.models import Match, TurnLog
from matches.play import bots, sweeper
from matches.replays import records
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://testserver")]
MINUTE = dt.timedelta(minutes=1)


def _now() -> dt.datetime:
    # near the real time: a Redis store's presence epoch may have been set by an earlier test
    return dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{secrets.token_hex(8)}"  # presence of this test only
    settings.CACHES = caches


def _practise() -> tuple[Match, Client]:
    client = Client()
    client.get("/")
    reply = client.post("/practice/", {"game": "squava", "strength": "easy", "seat": "1",
                                       "key": secrets.token_urlsafe(16)})
    assert reply.status_code == 302, reply.content.decode()[:300]
    match = Match.objects.get()
    # A Redis store begins keeping presence (its epoch) at its first use, as a web process's first
    # page does; this test's own key prefix is a store nobody has used yet, so use it now: else the
    # sweeper's first look, 30 minutes on, would be its beginning (a restart, seen as a sighting).
    presence.last_seen(match.pk, [])
    return match, client


def _sweep() -> int:
    return sweeper.sweep()


def _state() -> dict[str, Any]:
    match = Match.objects.get()
    bot_seats = set(match.seats.exclude(bot="").values_list("id", flat=True))
    return {"status": match.status, "reason": match.result_reason,
            "bots looked at": bool(bot_seats & set(bots.due_seats())),
            "notes": list(match.turns.filter(kind=TurnLog.CLOCK).values_list("text", flat=True))}


async def _open_page(token: str) -> Communicator:
    comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
    assert (await comm.connect())[0]
    while 'id="live-meta"' not in await comm.receive_from(timeout=5):
        pass
    return comm


async def test_a_practice_match_nobody_has_open_for_30_minutes_ends_as_abandoned() -> None:
    start = _now()
    with time_machine.travel(start, tick=False) as clock:
        assert await database_sync_to_async(_sweep)() == 0  # (the sweeper runs all the time)
        match, client = await database_sync_to_async(_practise)()
        seat = await database_sync_to_async(lambda: match.seats.get(bot="").token)()
        page = await _open_page(seat)
        for _ in range(4):  # a page kept open for 40 minutes: never abandoned
            clock.shift(10 * MINUTE)
            await presence.refresh()  # its heartbeat
            assert await database_sync_to_async(_sweep)() == 0
        assert (await database_sync_to_async(_state)())["bots looked at"]
        await page.disconnect()  # the player closes the page
        clock.shift(29 * MINUTE)
        assert await database_sync_to_async(_sweep)() == 0
        assert (await database_sync_to_async(_state)())["status"] == Match.RUNNING
        clock.shift(MINUTE)
        assert await database_sync_to_async(_sweep)() == 1
        state = await database_sync_to_async(_state)()
        assert state["status"] == Match.FINISHED and state["reason"] == "abandoned"
        assert not state["bots looked at"]  # its computer player is not looked at any more
        assert state["notes"] == ["abandoned: nobody has had a page of this practice match open for 30 minutes; "
                                  "it ends with no winner"]
        assert await database_sync_to_async(_sweep)() == 0  # ended once
        # the player who comes back reads why; the record says it too
        html = (await database_sync_to_async(client.get)(f"/p/{seat}/")).content.decode()
        assert "no winner — abandoned" in html and "nobody had a page of it open for 30 minutes" in html
        text = await database_sync_to_async(lambda: records.export(Match.objects.get(), 1))()
        assert "# clock: abandoned: nobody has had a page of this practice match open for 30 minutes" in text


def _move_by_form(client: Client, match: Match) -> None:
    seat = match.seats.get(bot="")
    version = match.bouts.get().version
    reply = client.post(f"/p/{seat.token}/move/", {"text": "squava C3", "version": version})
    assert reply.status_code == 200 and 'id="move-error" class="move-error" role="alert" hidden' in \
        reply.content.decode().replace('hx-swap-oob="true" ', ""), reply.content.decode()[:400]


def test_a_page_never_opened_counts_from_the_start_and_a_move_by_form_is_a_sighting() -> None:
    start = _now()
    with time_machine.travel(start, tick=False) as clock:
        match, client = _practise()
        assert sweeper.sweep() == 0  # (the sweeper runs all the time)
        clock.shift(20 * MINUTE)
        _move_by_form(client, match)  # a page without a socket (no JavaScript): its move says it is there
        clock.shift(29 * MINUTE)
        assert sweeper.sweep() == 0 and _state()["status"] == Match.RUNNING
        clock.shift(MINUTE)
        assert sweeper.sweep() == 1 and _state()["reason"] == "abandoned"


def test_an_abandoned_match_frees_its_place_among_the_browsers_three() -> None:
    start = _now()
    with time_machine.travel(start, tick=False) as clock:
        client = Client()
        client.get("/")

        def practise() -> int:
            return int(client.post("/practice/", {"game": "squava", "strength": "easy", "seat": "1",
                                                  "key": secrets.token_urlsafe(16)}).status_code)

        assert [practise(), practise(), practise(), practise()] == [302, 302, 302, 429]
        presence.last_seen(Match.objects.latest("pk").pk, [])  # the store's first use (see _practise)
        assert sweeper.sweep() == 0
        clock.shift(30 * MINUTE)
        assert sweeper.sweep() == 3
        assert practise() == 302
