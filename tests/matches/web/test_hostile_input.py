"""Hostile and absurd input, through the real stack: every bad parameter
gets a plain message (never a 500) and changes nothing."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from config.asgi import application
from matches.models import Match, MatchGarnet, TurnLog
from matches.play import services
from tests.hostform import seq
from tests.wsclient import Communicator


def _snapshot(match: Any) -> tuple[int, int, str, list[Any]]:
    bout = match.bouts.order_by("-number").first()
    reserves = sorted(bout.clocks.values_list("seat", "reserve", "deadline"))
    return TurnLog.objects.filter(match=match).count(), bout.version, json.dumps(bout.state, sort_keys=True), reserves


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "clock", "seat": "1", "seconds": str(10**15)}, "at most"),
        ({"action": "clock", "seat": "1", "seconds": str(-10**15)}, "at most"),
        ({"action": "clock", "seat": "9", "seconds": "5"}, "no such seat"),
        ({"action": "garnets", "seat": "1", "amount": str(10**30)}, "at most"),
        ({"action": "end", "winners": "²"}, "no such seat"),
        ({"action": "undo", "count": "1", "version": "x"}, "whole number"),
        ({"action": "undo", "count": "1", "version": str(10**30)}, "reload"),
        ({"action": "correct", "sequence": str(10**30), "text": "place C3", "version": "1"}, "no turn"),
        ({"action": "orders", "seat": "9", "text": "place C3", "version": "1"}, "no such seat"),
        ({"action": "start", "starting_seat": "²"}, "whole number"),
        ({}, "unknown host action"),
    ],
)
def test_bad_host_parameters_get_a_plain_message_and_change_nothing(
    client: Client, roles: Any, data: dict[str, str], message: str
) -> None:
    before = _snapshot(roles.match)
    garnets = MatchGarnet.objects.count()
    response = client.post(f"/h/{roles.host}/act/", {**data, "host_seq": seq(roles.host)})
    assert response.status_code == 200
    flash = response.content.decode().split("</div>", 1)[0]
    assert "flash error" in flash and message in flash, flash
    assert _snapshot(roles.match) == before and MatchGarnet.objects.count() == garnets


@pytest.mark.django_db
@pytest.mark.parametrize(
    "clock",
    [
        {"per_move": "1e15", "reserve": "5"},
        {"per_move": "nan", "reserve": "5"},
        {"per_move": "60", "reserve": "inf"},
    ],
)
def test_absurd_clock_settings_are_refused_when_the_match_is_created(client: Client, clock: dict[str, str]) -> None:
    response = client.post("/", {"game": "lance-assembly", **clock})
    assert response.status_code == 400
    assert "seconds" in response.content.decode()
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_absurd_round_deadline_is_refused(db: None) -> None:
    with pytest.raises(services.ServiceError, match="seconds"):
        services.create_match("bidding-ttt", clock={"round_seconds": 1e15})


@pytest.mark.django_db
def test_moving_a_round_deadline_by_absurd_time_is_refused(make_match: Any) -> None:
    match = make_match("bidding-ttt", clock={"round_seconds": 60})
    with pytest.raises(services.ServiceError, match="at most"):
        services.adjust_clock(match, 1, 10**12)
    services.adjust_clock(match, 1, 30)  # a sane change still works


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("version", ["²", "1.5", 10**30, True, [1]])
async def test_websocket_move_with_a_bad_version_closes_4400(make_match: Any, settings: Any, version: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    match = await database_sync_to_async(make_match)("lance-assembly")
    token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    comm = Communicator(application, f"/ws/m/{token}/", headers=[(b"origin", b"http://testserver")])
    connected, _ = await comm.connect()
    assert connected
    await comm.receive_from(timeout=5)
    await comm.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": version}))
    for _ in range(5):
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
    assert output == {"type": "websocket.close", "code": 4400}
    assert await database_sync_to_async(lambda: TurnLog.objects.filter(kind="move").count())() == 0


@pytest.mark.django_db
def test_staff_cannot_rewrite_or_delete_the_turn_log_in_the_admin(client: Client, roles: Any, play: Any,
                                                                    django_user_model: Any) -> None:
    play(roles.match, 1, "place C3")
    entry = TurnLog.objects.get(kind="move")
    bout = entry.bout
    client.force_login(django_user_model.objects.create_superuser("boss", password="pw-123-long"))
    assert client.get(f"/admin/matches/turnlog/{entry.pk}/change/").status_code == 200  # staff may read it
    client.post(f"/admin/matches/turnlog/{entry.pk}/change/", {"text": "place D4", "sequence": entry.sequence})
    assert client.post(f"/admin/matches/turnlog/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert bout is not None
    client.post(f"/admin/matches/bout/{bout.pk}/change/", {"version": 99})
    entry.refresh_from_db()
    bout.refresh_from_db()
    assert entry.text == "place C3" and bout.version == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    "ending",
    [
        lambda m: services.end_match(m, [1]),
        lambda m: services.forfeit(m, 2, "match"),
        lambda m: services.award_bout(m, 1),
        lambda m: services.declare_result(m, "draw", m.bouts.order_by("-number").first().version),
    ],
    ids=["ended", "forfeit", "award", "draw"],
)
def test_undo_and_correct_do_not_revive_what_the_host_ended(roles: Any, play: Any, ending: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    first = match.turns.get(kind="move").sequence
    ending(match)
    match.refresh_from_db()
    status, before = match.status, _snapshot(match)
    version = before[1]
    with pytest.raises(services.NotAllowed, match="not by a move"):
        services.undo(match, version)
    with pytest.raises(services.NotAllowed, match="not by a move"):
        services.correct(match, first, "place D4", version)
    match.refresh_from_db()
    assert match.status == status and _snapshot(match) == before


@pytest.mark.django_db
def test_pages_that_carry_a_secret_token_are_never_cached(client: Client, roles: Any) -> None:
    for url in (f"/h/{roles.host}/", f"/p/{roles.player1.token}/", f"/f/{roles.player1.token}/",
                f"/f/{roles.host}/"):
        response = client.get(url)
        assert response.status_code == 200
        assert "no-store" in response.get("Cache-Control", ""), url
        assert "private" in response.get("Cache-Control", ""), url


@pytest.mark.django_db
def test_control_characters_in_typed_text_never_reach_the_database(client: Client, roles: Any) -> None:
    response = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "garnets", "seat": 1, "amount": 2,
                                                      "reason": "won\x00 board\x07"})
    assert response.status_code == 200 and "garnets +2 recorded" in response.content.decode()
    assert MatchGarnet.objects.get().reason == "won board"
    response = client.post("/", {"game": "lance-assembly", "seat1": "A\x00nn", "seat2": "Bob"})
    assert response.status_code == 302
    assert list(Match.objects.latest("id").seats.values_list("name", flat=True)) == ["Ann", "Bob"]
    response = client.post(f"/p/{roles.player1.token}/move/", {"text": "place\x00 C3", "version": 1})
    assert response.status_code == 200


@pytest.mark.django_db
def test_correcting_a_turn_of_an_earlier_bout_is_refused(client: Client, roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    old = match.turns.get(kind="move").sequence
    services.award_bout(match, 1)
    services.start_next_bout(match)
    match.refresh_from_db()
    before = _snapshot(match)
    response = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "correct", "sequence": old, "text": "place D4",
                                                      "version": before[1]})
    assert f"there is no turn #{old} in the current bout" in response.content.decode()
    assert _snapshot(match) == before and match.turns.get(sequence=old, kind="move").text == "place C3"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("frame", [{"text_data": "x" * 100_000}, {"bytes_data": b'{"type": "refresh"}'},
                                   {"text_data": json.dumps({"type": "refresh", "pad": "x" * 5000})}])
async def test_huge_and_binary_websocket_frames_close_4400(make_match: Any, settings: Any, frame: dict[str, Any]) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    match = await database_sync_to_async(make_match)("lance-assembly")
    comm = Communicator(application, f"/ws/m/{match.watch_token}/", headers=[(b"origin", b"http://testserver")])
    assert (await comm.connect())[0]
    await comm.receive_from(timeout=5)
    await comm.send_to(**frame)
    assert (await comm.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4400}
