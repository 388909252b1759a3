"""Websockets through the real ASGI application (origin check included):
each audience gets its own rendering, hidden data never reaches another
seat or a spectator, every incoming message is validated."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async

from config.asgi import application
from matches.live import presence
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://testserver")]


async def _open(token: str) -> Communicator:
    comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
    connected, _ = await comm.connect()
    assert connected
    first = await state_on_connect(comm)  # the current state, sent on (re)connect
    assert 'id="live-meta"' in first
    return comm


PRESENCE_BOXES = ('<section id="presence"', '<section id="watching"')


async def state_on_connect(comm: Communicator) -> str:
    """The state sent on connect.  A page may get a presence box first (the host's "presence",
    everyone else's "watching"): the socket joins the relay before it draws the state (so no
    update in between is lost), and the box of the sockets that just arrived comes through the
    relay."""
    while 'id="live-meta"' not in (text := await comm.receive_from(timeout=5)):
        assert text.lstrip().startswith(PRESENCE_BOXES), text[:200]
    return text


async def _drain(comm: Communicator) -> list[str]:
    """Everything the socket got until it stays quiet for longer than the presence boxes wait
    before they are redrawn (a shorter wait let that redraw arrive after the drain): the host's,
    and the players' and spectators' box of who is here."""
    out = []
    while not await comm.receive_nothing(timeout=max(presence.PUSH_DELAY, presence.PUBLIC_DELAY) + 0.25):
        out.append(await comm.receive_from())
    return out


async def _reply(comm: Communicator) -> str:
    """The next message that is not a presence box: the boxes of who is here are redrawn through
    the relay a moment after any socket of the match opens (another player's page included), so
    one may come between a sent message and its reply."""
    while (text := await comm.receive_from(timeout=5)).lstrip().startswith(PRESENCE_BOXES):
        pass
    return text


async def _update(comm: Communicator, *, after: int | None = None) -> str:
    """The next message that carries a board update (skips presence/errors); `after`: the next
    one newer than that version (a page is resent the current state whenever the channel layer
    recovers from a Redis time-out, which a loaded machine can cause at any moment)."""
    for _ in range(10):
        text = await comm.receive_from(timeout=5)
        if 'id="live-meta"' in text and (after is None or _version_of(text) > after):
            return text
    raise AssertionError("no board update arrived")


def _version_of(html: str) -> int:
    hit = re.search(r'id="live-meta"[^>]*data-version="(\d+)"', html)
    assert hit is not None
    return int(hit.group(1))


@database_sync_to_async
def _submit(match: Any, seat: int, text: str) -> None:
    from matches.play import services

    match.refresh_from_db()
    services.submit(match, seat, text, match.current_bout.version)


@database_sync_to_async
def _current_version(match: Any) -> int:
    match.refresh_from_db()
    result: int = match.current_bout.version
    return result


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    """Presence counters in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.fixture
def lance(make_match: Any) -> Any:
    return make_match("lance-assembly")


async def test_bad_token_closes_with_4404(lance: Any) -> None:
    comm = Communicator(application, "/ws/m/not-a-real-token/", headers=ORIGIN)
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4404}


async def test_foreign_origin_is_refused(lance: Any) -> None:
    comm = Communicator(application, f"/ws/m/{lance.watch_token}/", headers=[(b"origin", b"http://evil.example")])
    connected, code = await comm.connect()
    assert not connected and code == 1008  # policy violation (the client sees HTTP 403)
    # and the application has ended by itself: a refused socket holds nothing (channels'
    # WebsocketDenier waited on a channel-layer channel until the client went)
    await comm.wait(timeout=5)


async def test_each_audience_receives_its_own_rendering(lance: Any) -> None:
    seats = {s.number: s.token async for s in lance.seats.all()}
    p1, p2, watch, host = [await _open(t) for t in (seats[1], seats[2], lance.watch_token, lance.host_token)]
    for comm in (p1, p2, watch, host):
        await _drain(comm)
    await _submit(lance, 1, "place C3")
    version = await _current_version(lance)
    got = {name: await _update(comm, after=version - 1) for name, comm in (("p1", p1), ("p2", p2), ("watch", watch), ("host", host))}
    for html in got.values():
        assert _version_of(html) == version
        assert 'data-coord="C3" data-value="R"' in html
    assert "Your turn." in got["p2"] and "Your turn." not in got["p1"]
    # the host's own rows carry the correction form (its panel is redrawn only when it changes)
    assert 'class="correct"' in got["host"]
    for name in ("p1", "p2", "watch"):
        assert 'id="host-panel"' not in got[name] and 'class="correct"' not in got[name]
        assert lance.host_token not in got[name]
    assert seats[2] not in got["p1"] and seats[1] not in got["p2"]
    for comm in (p1, p2, watch, host):
        await comm.disconnect()


async def test_move_over_websocket_and_errors_inline(lance: Any) -> None:
    seats = {s.number: s.token async for s in lance.seats.all()}
    p1, p2 = await _open(seats[1]), await _open(seats[2])
    version = await _current_version(lance)
    await p1.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": version}))
    messages = [await _reply(p1), await _reply(p1)]
    assert any('data-coord="C3" data-value="R"' in m for m in messages)
    assert any('id="move-error"' in m and "hidden" in m for m in messages)
    assert _version_of(await _update(p2, after=version)) == version + 1
    # an illegal move: the error comes back in plain words, nothing changes
    await p2.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": str(version + 1)}))
    error = await _reply(p2)
    assert 'id="move-error"' in error and "C3" in error and "hidden" not in error
    # a stale version is refused
    await p2.send_to(text_data=json.dumps({"type": "move", "text": "place D4", "version": version}))
    assert "version" in (await _reply(p2)).lower()
    assert await _current_version(lance) == version + 1
    await p1.disconnect()
    await p2.disconnect()


async def test_a_move_sent_again_over_the_socket_is_answered_as_done(lance: Any) -> None:
    """A duplicate move over the websocket (the same words and the same expected version as the one
    this seat just had applied: a retry whose answer was lost, a double click) was answered "the
    board changed since you loaded it" although it went through (issue 51); over HTTP it is answered
    as done.  Both paths now ask play the same question.  A different move with that stale version,
    or the same words from the other seat, still get the stale message."""
    seats = {s.number: s.token async for s in lance.seats.all()}
    p1, p2 = await _open(seats[1]), await _open(seats[2])
    version = await _current_version(lance)
    await p1.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": version}))
    assert _version_of(await _update(p2, after=version)) == version + 1
    await _drain(p1)
    await p1.send_to(text_data=json.dumps({"type": "move", "text": "Place C3 ", "version": version}))
    answer = await _reply(p1)
    assert 'id="move-error"' in answer and "hidden" in answer, answer
    assert "board changed" not in answer
    assert await _current_version(lance) == version + 1  # applied once
    # a genuinely stale, different move is still refused as stale
    await p1.send_to(text_data=json.dumps({"type": "move", "text": "place D4", "version": version}))
    stale = await _reply(p1)
    assert "board changed" in stale and "hidden" not in stale
    await p2.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": version}))
    assert "board changed" in await _reply(p2)
    assert await _current_version(lance) == version + 1
    await p1.disconnect()
    await p2.disconnect()


@pytest.mark.parametrize(
    "message",
    [
        "not json",
        "[1, 2]",
        json.dumps({"type": "explode"}),
        json.dumps({"type": "move", "text": "place C3"}),
        json.dumps({"type": "move", "text": "", "version": 1}),
        json.dumps({"type": "move", "text": "place C3", "version": -1}),
        json.dumps({"type": "move", "text": "place C3", "version": True}),
        json.dumps({"type": "move", "text": ["place C3"], "version": 1}),
        json.dumps({"type": "move", "text": "x" * 600, "version": 1}),
        json.dumps({"type": "move", "text": "place C3", "version": 1, "seat": 2}),
    ],
)
async def test_invalid_messages_close_with_4400(lance: Any, message: str) -> None:
    token = await database_sync_to_async(lambda: lance.seats.get(number=1).token)()
    comm = await _open(token)
    await comm.send_to(text_data=message)
    assert (await comm.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4400}
    moves = await database_sync_to_async(lambda: lance.turns.filter(kind="move").count())()
    assert moves == 0


@pytest.mark.parametrize("audience", ["watch", "host"])
async def test_spectator_and_host_socket_cannot_move(lance: Any, audience: str) -> None:
    comm = await _open(lance.watch_token if audience == "watch" else lance.host_token)
    await _drain(comm)  # the host page also gets its own presence update
    version = await _current_version(lance)
    await comm.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": version}))
    # the page's own presence update ("Watching: 1") may still be on its way: read past it to the close
    output = await comm.receive_output(timeout=5)
    while output["type"] == "websocket.send":
        assert 'id="board"' not in output.get("text", "")  # nothing of a move
        output = await comm.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4403}
    assert await _current_version(lance) == version


async def test_refresh_resends_the_audience_fragments(lance: Any) -> None:
    comm = await _open(lance.watch_token)
    await comm.send_to(text_data=json.dumps({"type": "refresh"}))
    html = await _reply(comm)
    assert 'id="board" hx-swap-oob="morph"' in html and 'id="move-form"' not in html
    await comm.disconnect()


async def test_host_sees_who_is_connected(lance: Any) -> None:
    host = await _open(lance.host_token)
    token = await database_sync_to_async(lambda: lance.seats.get(number=2).token)()
    await _drain(host)
    p2 = await _open(token)
    # presence is redrawn once per burst of arrivals (matches/presence.py): read until it shows
    assert await _presence_shows(host, r'<li class="on"><span class="dot"></span>Bob \(seat 2\)')
    await p2.disconnect()
    assert await _presence_shows(host, r'<li class="off"><span class="dot"></span>Bob \(seat 2\)')
    await host.disconnect()


async def _presence_shows(host: Communicator, pattern: str) -> bool:
    for _ in range(5):
        presence = await host.receive_from(timeout=5)
        if 'id="presence"' in presence and re.search(pattern, presence):
            return True
    return False


async def test_sealed_bids_never_reach_the_opponent_or_spectators(make_match: Any) -> None:
    from games.registry import get_game

    try:
        get_game("bidding-ttt")
    except Exception:
        pytest.skip("bidding-ttt not registered yet")
    match = await database_sync_to_async(make_match)("bidding-ttt")
    seats = {s.number: s.token async for s in match.seats.all()}
    p1, p2, watch, host = [await _open(t) for t in (seats[1], seats[2], match.watch_token, match.host_token)]
    for comm in (p1, p2, watch, host):
        await _drain(comm)
    version = await _current_version(match)
    await p1.send_to(text_data=json.dumps({"type": "move", "text": "A1 7; E5 11", "version": version}))
    got = {name: await _update(comm, after=version) for name, comm in (("p2", p2), ("watch", watch), ("host", host))}
    p1_update = await _update(p1, after=version)
    assert "E5" in p1_update and "11" in p1_update  # the seat sees its own sealed bid
    assert "E5" in got["host"] and "11" in got["host"]
    for name in ("p2", "watch"):
        html = got[name]
        assert "A1 7" not in html and "E5 11" not in html
        assert not re.search(r"E5\W{1,4}11", html), name
        assert "submitted sealed orders" not in html and ">bid<" in html
        assert "Only you see this" not in html or name == "p2"
    # the opponent's own private panel holds only its own (empty) bid
    assert seats[1] not in got["p2"] and seats[2] not in got["watch"]
    for comm in (p1, p2, watch, host):
        await comm.disconnect()


async def test_notify_renders_once_per_audience_with_a_socket_not_per_connection(
        make_match: Any, monkeypatch: Any) -> None:
    from matches.live import fanout
    from matches.pages import render

    match = await database_sync_to_async(make_match)("lance-assembly")
    token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    tabs = [await _open(token) for _ in range(3)] + [await _open(match.watch_token) for _ in range(2)]
    for comm in tabs:
        await _drain(comm)
    contexts: list[int] = []
    snapshots: list[int] = []
    real_context, real_shared = render.context, render.snapshot

    def counting(m: Any, viewer: int, snapshot: Any = None) -> Any:
        contexts.append(viewer)
        return real_context(m, viewer, snapshot)

    def counting_shared(m: Any, **kwargs: Any) -> Any:
        snapshots.append(1)
        return real_shared(m, **kwargs)

    monkeypatch.setattr(render, "context", counting)
    monkeypatch.setattr(render, "snapshot", counting_shared)
    await database_sync_to_async(fanout.notify)(match.id)
    got = [await _update(comm) for comm in tabs]
    # seat 1 and the spectators have sockets open; the host and seat 2 have none: nothing rendered for them
    assert sorted(contexts) == [-1, 1] and snapshots == [1]
    assert got[0] == got[1] == got[2] and got[3] == got[4]  # one rendering fanned out per group
    for comm in tabs:
        await comm.disconnect()


async def test_audiences_with_sockets_on_this_process_are_drawn_without_asking_the_store(
        make_match: Any, monkeypatch: Any) -> None:
    """The shared store of who is connected (Redis) is asked only about audiences with no socket on
    this process.  Here it has forgotten everything (a restart): asked only about the two audiences
    open here, it is not asked and both are open; once one closes, it is asked about that one, and
    its answer (unknown) has every audience of an update drawn."""

    match = await database_sync_to_async(make_match)("lance-assembly")
    seat_token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    seat, watch = await _open(seat_token), await _open(match.watch_token)
    for comm in (seat, watch):
        await _drain(comm)
    asked: list[list[str]] = []
    def known(match_id: int, names: list[str]) -> None:
        asked.append(names)

    monkeypatch.setattr(presence.store, "known", known)
    opened = await database_sync_to_async(presence.open_audiences)(match.id, ["seat-1", "watch"])
    assert opened == {"seat-1", "watch"} and asked == []
    await seat.disconnect()
    await _drain(watch)
    assert await database_sync_to_async(presence.open_audiences)(match.id, ["seat-1", "watch"]) is None
    assert asked == [[presence.key(match.id, "seat-1")]]
    from matches.live import drawing

    drawn = await database_sync_to_async(drawing.prepare)(match.id)
    assert len(drawn) == 4  # unknown: every audience drawn
    await watch.disconnect()


async def test_moves_over_sockets_reach_every_audience_as_deltas_drawn_from_their_transactions(
        make_match: Any, monkeypatch: Any) -> None:
    """Every audience gets every version, each a delta on the one before (the first one whole
    when this process has drawn nothing of the match yet), drawn from what its transaction wrote
    (events.Moved: nothing read back), the spectators' first."""
    from matches.live import fanout

    match = await database_sync_to_async(make_match)("lance-assembly")
    tokens = await database_sync_to_async(lambda: {s.number: s.token for s in match.seats.all()})()
    socks = {"watch": await _open(match.watch_token), "host": await _open(match.host_token),
             1: await _open(tokens[1]), 2: await _open(tokens[2])}
    for comm in socks.values():
        await _drain(comm)
    read_back: list[bool] = []
    from matches.live import drawing

    real = drawing._draw  # (args[3]: what the transaction wrote, when the update is drawn from it)
    def draw(*args: Any) -> Any:
        read_back.append(args[3] is None)
        return real(*args)

    monkeypatch.setattr(drawing, "_draw", draw)
    sent: list[str] = []
    real_send = fanout._send_drawing

    async def recording(group: str, drawn: Any) -> None:
        sent.append(group.rsplit("-", 1)[-1])
        await real_send(group, drawn)

    monkeypatch.setattr(fanout, "_send_drawing", recording)
    held = dict.fromkeys(socks, await _current_version(match))
    for index, text in enumerate(["place C3", "place D4", "place C4", "place E5"]):
        seat = 1 + index % 2
        version = await _current_version(match)
        await socks[seat].send_to(text_data=json.dumps({"type": "move", "text": text, "version": version}))
        for name, comm in socks.items():
            html = await _update(comm)
            assert _version_of(html) == version + 1, name
            base = re.search(r'data-base="(\d+)"', html)
            assert (base is None and index == 0) or (base is not None and int(base.group(1)) == held[name]), \
                (name, text)
            held[name] = version + 1
        await _drain(socks[seat])  # the mover's own (empty) error box
    assert read_back[1:] == [False, False, False]
    # the seat to act first (its clock runs from the commit), then the spectators
    assert [sent[i:i + 2] for i in range(0, len(sent), 4)] == [[str(2 - i % 2), "watch"] for i in range(4)], sent
    for comm in socks.values():
        await comm.disconnect()


async def test_one_relay_member_per_audience_and_process_carries_the_updates(make_match: Any) -> None:
    """Three spectator sockets on this process: the layer's relay group of the audience has one
    member, every socket gets the move, a socket that left gets nothing more, and when the last
    one leaves the relay leaves the group."""
    from channels.layers import get_channel_layer

    from matches.live import relay
    from matches.pages import render

    match = await database_sync_to_async(make_match)("lance-assembly")
    token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    watchers = [await _open(match.watch_token) for _ in range(3)]
    mover = await _open(token)
    for comm in [*watchers, mover]:
        await _drain(comm)
    layer = get_channel_layer()
    assert layer is not None
    group = relay.relay_group(render.group_name(match.id, -1))
    mine = relay.for_loop(layer)
    if hasattr(layer, "groups"):  # the in-memory layer shows its members
        assert list(layer.groups[group]) == [mine.channel]
    await watchers[2].disconnect()
    version = await _current_version(match)
    await mover.send_to(text_data=json.dumps({"type": "move", "text": "place C3", "version": version}))
    for comm in watchers[:2]:
        assert _version_of(await _update(comm, after=version)) == version + 1
    assert len(mine.sockets[render.group_name(match.id, -1)]) == 2
    for comm in [*watchers[:2], mover]:
        await comm.disconnect()
    assert render.group_name(match.id, -1) not in mine.sockets
    if hasattr(layer, "groups"):
        assert not layer.groups.get(group)
