"""Sealed-round games on the platform, through the pages and sockets:
Bidding (2 seats) and Back to the Wall (4 seats).  Every seat submits, the
round resolves; the deadline sweeper resolves missing orders; the host
enters orders for a seat; nothing sealed reaches another audience, not even
on (re)connect."""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from config.asgi import application
from matches.models import TurnLog
from matches.play import services
from tests.hostform import seq
from tests.wsclient import Communicator

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def _bout(match: Any) -> Any:
    return match.bouts.order_by("-number").first()


def _round(match: Any) -> int:
    result: int = match.game.public_view(services.bout_state(_bout(match)))["round"]
    return result


def _visible(html: str) -> str:
    """The page's text and markup without attribute values (tokens, timestamps)
    and clock times, where 17 or 63 may turn up by chance."""
    return re.sub(r"\d+:\d\d(:\d\d)?", "", re.sub(r'"[^"]*"', '""', html))


def _move(client: Client, token: str, text: str, version: int) -> str:
    response = client.post(f"/p/{token}/move/", {"text": text, "version": version})
    assert response.status_code == 200
    hit = re.search(r'id="move-error"[^>]*>([^<]*)<', response.content.decode())
    assert hit is not None
    return hit.group(1)


@pytest.mark.django_db
def test_bidding_both_seats_post_the_round_resolves_and_a_doubled_post_is_refused(client: Client, make_match: Any) -> None:
    match = make_match("bidding-ttt")
    seats = {s.number: s.token for s in match.seats.all()}
    version = _bout(match).version
    assert _move(client, seats[1], "A1 17", version) == ""
    rows = TurnLog.objects.count()
    # the same post again (a page retrying a request cut by a restarting process): answered as
    # done, applied once (views.player_move, issue 40)
    assert _move(client, seats[1], "A1 17", version) == ""
    assert TurnLog.objects.count() == rows and _bout(match).version == version + 1
    assert _move(client, seats[2], "pass", version) == ""  # loaded before seat 1 submitted: same round
    assert _round(match) == 2
    # Red's bid and what it has left (80 - 17 = 63) stay Red's
    for url in (f"/p/{seats[2]}/", f"/w/{match.watch_token}/", f"/f/{seats[2]}/", f"/f/{match.watch_token}/"):
        html = _visible(client.get(url).content.decode())
        assert not re.search(r"\b(17|63)\b", html), url
    assert re.search(r"\b63\b", _visible(client.get(f"/p/{seats[1]}/").content.decode()))
    assert re.search(r"\b63\b", _visible(client.get(f"/h/{match.host_token}/").content.decode()))


@pytest.mark.django_db
def test_four_seats_play_a_back_to_the_wall_round_through_the_pages(client: Client, make_match: Any) -> None:
    match = make_match("back-to-the-wall")
    game = match.game
    seats = {s.number: s.token for s in match.seats.all()}
    rng = random.Random(5)
    version = _bout(match).version
    orders = {}
    for seat in (1, 2, 3):
        orders[seat] = game.format(game.random_action(services.bout_state(_bout(match)), seat, rng))
        assert _move(client, seats[seat], orders[seat], version) == ""
    for seat in (1, 2, 3, 4):
        html = client.get(f"/p/{seats[seat]}/").content.decode()
        assert "Back to the Wall" in html and 'id="move-form"' in html
        assert all(text not in html for other, text in orders.items() if other != seat)
    orders[4] = game.format(game.random_action(services.bout_state(_bout(match)), 4, rng))
    response = client.post(f"/h/{match.host_token}/act/", {"host_seq": seq(match.host_token), "action": "orders", "seat": 4, "text": orders[4],
                                                          "version": _bout(match).version})
    assert "entered for seat 4" in response.content.decode()
    assert _round(match) == 2
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert all(text not in watch for text in orders.values())
    assert "Di (by host)" in watch and watch.count("submitted sealed orders") == 4
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert all(text in host for text in orders.values())


@pytest.mark.django_db
def test_the_round_deadline_resolves_back_to_the_wall_with_orders_missing(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("back-to-the-wall", clock={"round_seconds": 90})
    game = match.game
    rng = random.Random(2)
    version = _bout(match).version
    for seat in (2, 4):
        services.submit(match, seat, game.format(game.random_action(services.bout_state(_bout(match)), seat, rng)),
                        version)
    time_machine.shift(91)
    assert services.sweep_clocks() == 1 and services.sweep_clocks() == 0
    assert _round(match) == 2
    bout = _bout(match)
    assert bout.state == game.dump(services.replay_bout(bout))
    assert bout.round_deadline == T0 + dt.timedelta(seconds=181)


@pytest.mark.django_db(transaction=True)
async def test_sealed_bids_never_reach_another_audience_on_connect(make_match: Any, settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    match = await database_sync_to_async(make_match)("bidding-ttt")

    @database_sync_to_async
    def setup() -> dict[int, str]:
        services.submit(match, 1, "A1 7; E5 11", _bout(match).version)
        return {s.number: s.token for s in match.seats.all()}

    seats = await setup()
    for token, sees in ((seats[1], True), (seats[2], False), (match.watch_token, False), (match.host_token, True)):
        comm = Communicator(application, f"/ws/m/{token}/", headers=[(b"origin", b"http://testserver")])
        assert (await comm.connect())[0]
        while 'id="live-meta"' not in (first := await comm.receive_from(timeout=5)):
            assert first.lstrip().startswith('<section id="presence"'), first[:200]  # host: may come first
        assert bool(re.search(r"E5\W{1,4}11", first)) == sees
        assert (seats[1] in first) is False and (seats[2] in first) is False
        await comm.send_to(text_data=json.dumps({"type": "refresh"}))
        again = await comm.receive_from(timeout=5)
        while 'id="live-meta"' not in again:
            again = await comm.receive_from(timeout=5)
        assert bool(re.search(r"E5\W{1,4}11", again)) == sees
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_doubled_sealed_submission_over_the_websocket_is_applied_once_and_answered_as_done(
        make_match: Any, settings: Any) -> None:
    """As over HTTP (issue 40): the same submission with the same version again is answered as done
    and applied once; it was refused "you already submitted" over the socket only (issue 51)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    match = await database_sync_to_async(make_match)("bidding-ttt")
    token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    version = await database_sync_to_async(lambda: _bout(match).version)()
    comm = Communicator(application, f"/ws/m/{token}/", headers=[(b"origin", b"http://testserver")])
    assert (await comm.connect())[0]
    await comm.receive_from(timeout=5)
    errors = []
    for text in ("A1 3", "A1 3", "A2 3"):  # the last: another submission on that old version
        await comm.send_to(text_data=json.dumps({"type": "move", "text": text, "version": version}))
        for _ in range(5):
            got = await comm.receive_from(timeout=5)
            if got.startswith('<div id="move-error"'):
                hit = re.search(r">([^<]*)</div>", got)
                assert hit is not None
                errors.append(hit.group(1))
                break
    assert errors[:2] == ["", ""] and "already submitted" in errors[2]
    moves = await database_sync_to_async(lambda: TurnLog.objects.filter(kind="move").count())()
    assert moves == 1 and await database_sync_to_async(lambda: _bout(match).version)() == version + 1
    await comm.disconnect()
