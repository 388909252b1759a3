"""The match chat on the wire: what each audience's socket receives (host, each seat, a spectator)
through the real ASGI application, and the chat's form posts with and without JavaScript."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import threading
import uuid
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client

from config.asgi import application
from games.core import HOST, SPECTATOR
from matches.core import chatrooms
from matches.live import presence
from matches.models import ChatMessage
from matches.pages import chat_panel
from matches.play import chat
from tests.matches.web.test_consumers import state_on_connect
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://testserver")
SPECTATOR_COOKIE = chat_panel.spectator_cookie("f00d42", "Zed")


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    """Presence counters in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


async def _open(token: str, cookie: str = "") -> tuple[Communicator, str]:
    headers = [ORIGIN] + ([(b"cookie", f"{chat_panel.COOKIE}={cookie}".encode())] if cookie else [])
    comm = Communicator(application, f"/ws/m/{token}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    first = await state_on_connect(comm)  # the page's state and the chat's history
    assert 'id="live-meta"' in first and 'id="chat"' in first
    return comm, first


async def _frames(comm: Communicator) -> str:
    """Everything the socket received until it stays quiet."""
    out: list[str] = []
    while not await comm.receive_nothing(timeout=presence.PUSH_DELAY + 0.3):
        out.append(await comm.receive_from())
    return "\n".join(out)


async def _until(comm: Communicator, needle: str) -> str:
    """Everything the socket received until `needle` arrived and it then stayed quiet."""
    out: list[str] = []
    while not any(needle in text for text in out):
        out.append(await comm.receive_from(timeout=10))
    return "\n".join(out) + "\n" + await _frames(comm)


def _rooms_in(panel: str) -> list[str]:
    return re.findall(r'<div class="chat-room" id="chat-room-([a-z0-9-]+)"', panel)


@database_sync_to_async
def _post(match: Any, viewer: int, room: str, text: str, *, spectator_id: str = "",
          spectator_name: str = "") -> None:
    chat.post(match, viewer, room, text, spectator_id=spectator_id, spectator_name=spectator_name)


async def test_each_audience_receives_only_its_rooms(make_match: Any) -> None:
    match = await database_sync_to_async(make_match)("lance-assembly")
    seats = await database_sync_to_async(lambda: {s.number: s.token for s in match.seats.all()})()
    # history: written before anyone connects
    await _post(match, 1, "seat-1", "history: ruling on A1?")
    host, host_panel = await _open(match.host_token)
    one, one_panel = await _open(seats[1])
    two, two_panel = await _open(seats[2])
    watch, watch_panel = await _open(match.watch_token, SPECTATOR_COOKIE)
    assert _rooms_in(host_panel) == ["announce", "seat-1", "seat-2", "table", "spectators"]
    assert _rooms_in(one_panel) == ["seat-1", "announce", "table"]
    assert _rooms_in(two_panel) == ["seat-2", "announce", "table"]
    assert _rooms_in(watch_panel) == ["announce", "spectators"]
    assert "history: ruling on A1?" in host_panel and "history: ruling on A1?" in one_panel
    assert "history: ruling on A1?" not in two_panel + watch_panel
    assert "write as Zed" in watch_panel  # the socket read the spectator's signed cookie
    await asyncio.gather(*(_frames(comm) for comm in (host, one, two, watch)))

    await _post(match, 1, "seat-1", "private: may I pass?")
    await _post(match, HOST, "seat-2", "private: your bid arrived")
    await _post(match, 2, chatrooms.TABLE, "table: good luck")
    await _post(match, HOST, chatrooms.SPECTATORS, "spectators: welcome")
    await _post(match, SPECTATOR, chatrooms.SPECTATORS, "spectators: seat 2 holds the lance",
                spectator_id="f00d42", spectator_name="Zed")
    await _post(match, HOST, chatrooms.ANNOUNCE, "announce: break at nine")
    # every audience reads the announcement, written last: what came before it, and nothing after
    got = dict(zip(("host", "seat1", "seat2", "watch"),
                   await asyncio.gather(*(_until(comm, "announce: break at nine") for comm in (host, one, two, watch))),
                   strict=True))
    expected = {
        "host": ["private: may I pass?", "private: your bid arrived", "table: good luck", "spectators: welcome",
                 "spectators: seat 2 holds the lance", "announce: break at nine"],
        "seat1": ["private: may I pass?", "table: good luck", "announce: break at nine"],
        "seat2": ["private: your bid arrived", "table: good luck", "announce: break at nine"],
        "watch": ["spectators: welcome", "spectators: seat 2 holds the lance", "announce: break at nine"],
    }
    every = expected["host"]
    for audience, frames in got.items():
        for line in every:
            assert (line in frames) == (line in expected[audience]), (audience, line)
    # a line goes to its room's list, each once
    assert got["seat1"].count('hx-swap-oob="beforeend:#chat-list-seat-1"') == 1
    assert got["host"].count("beforeend:#chat-list-spectators") == 2
    assert 'name="message"' in got["host"] and 'name="message"' not in got["seat1"]  # only the host removes

    # a chat line over the socket, and a refusal answered to the writer alone
    await one.send_to(text_data=json.dumps({"type": "chat", "room": "seat-1", "text": "over the socket"}))
    await two.send_to(text_data=json.dumps({"type": "chat", "room": "seat-1", "text": "let me in"}))
    reply_one, reply_two, to_host = await asyncio.gather(
        _until(one, "over the socket"), _until(two, "You cannot write"), _until(host, "over the socket"))
    to_watch = await _frames(watch)
    assert "over the socket" in reply_one and 'id="chat-error-seat-1"' in reply_one
    assert "over the socket" in to_host
    assert "You cannot write in that room." in reply_two and "over the socket" not in reply_two
    assert "over the socket" not in to_watch
    # a malformed chat message closes the socket, as any bad message does
    await watch.send_to(text_data=json.dumps({"type": "chat", "room": ["x"], "text": "hi"}))
    assert (await watch.receive_output(timeout=5))["type"] == "websocket.close"

    # removed by the host: replaced by id for the readers of its room only
    removed = await database_sync_to_async(lambda: ChatMessage.objects.get(text="table: good luck"))()
    await database_sync_to_async(chat.remove)(match, removed.pk)
    removed_one, removed_host = await asyncio.gather(_until(one, "removed by the host"),
                                                     _until(host, "removed by the host"))
    assert f'id="chat-msg-{removed.pk}"' in removed_one and "removed by the host" in removed_one
    assert "table: good luck" not in removed_one and "removed by the host" in removed_host
    for comm in (host, one, two):
        await comm.disconnect()


def test_form_posts_with_and_without_javascript(make_match: Any) -> None:
    match = make_match("lance-assembly")
    seat = match.seats.get(number=1)
    client = Client()
    # without JavaScript: a redirect back to the page, the line in its room
    response = client.post(f"/p/{seat.token}/chat/", {"room": "seat-1", "text": "<b>hi</b> & bye"})
    assert response.status_code == 302 and response["Location"] == f"/p/{seat.token}/#chat-room-seat-1"
    page = client.get(f"/p/{seat.token}/").content.decode()
    assert "&lt;b&gt;hi&lt;/b&gt; &amp; bye" in page and "<b>hi</b>" not in page
    refused = client.post(f"/p/{seat.token}/chat/", {"room": "spectators", "text": "peek"})
    assert refused.status_code == 400 and "You cannot write in that room." in refused.content.decode()
    # with htmx: the room's lines and its error, out of band
    hx = client.post(f"/p/{seat.token}/chat/", {"room": "seat-1", "text": "<b>hi</b> & bye"}, HTTP_HX_REQUEST="true")
    assert 'id="chat-error-seat-1"' in hx.content.decode() and "You just wrote that." in hx.content.decode()
    # a spectator chooses a name once (a signed cookie), then writes under it
    watch = Client()
    assert watch.post(f"/w/{match.watch_token}/chat/", {"room": "spectators", "text": "hi"}).status_code == 400
    named = watch.post(f"/w/{match.watch_token}/chat/name/", {"name": "<i>Zed</i>"})
    assert named.status_code == 302 and named.cookies[chat_panel.COOKIE]["httponly"]
    assert watch.post(f"/w/{match.watch_token}/chat/", {"room": "spectators", "text": "hello"}).status_code == 302
    line = ChatMessage.objects.get(room="spectators")
    assert (line.name, line.writer.startswith("spectator-")) == ("<i>Zed</i>", True)
    forged = Client()
    forged.cookies[chat_panel.COOKIE] = SPECTATOR_COOKIE[:-2] + "xx"
    assert "Choose a name" in forged.post(f"/w/{match.watch_token}/chat/",
                                          {"room": "spectators", "text": "x"}).content.decode()
    host_page = client.get(f"/h/{match.host_token}/").content.decode()
    assert "&lt;i&gt;Zed&lt;/i&gt;" in host_page and "<i>Zed</i>" not in host_page
    # the host moderates; seats and spectators have no such URL
    assert client.post(f"/p/{seat.token}/chat/mod/", {"action": "remove", "message": line.pk}).status_code == 404
    done = client.post(f"/h/{match.host_token}/chat/mod/",
                       {"action": "mute", "writer": line.writer, "duration": "60", "reason": "spoilers"},
                       HTTP_HX_REQUEST="true")
    assert "Writer muted." in done.content.decode()
    told = watch.post(f"/w/{match.watch_token}/chat/", {"room": "spectators", "text": "again"})
    assert "The host muted you in this match&#x27;s chat until" in told.content.decode()
    assert "Reason: spoilers" in told.content.decode()
    assert "The host muted you" in watch.get(f"/w/{match.watch_token}/").content.decode()
    # private threads are the host's download only
    export = client.get(f"/h/{match.host_token}/chat/export.txt")
    assert export.status_code == 200 and "Ann: <b>hi</b> & bye" in export.content.decode()
    assert client.get(f"/w/{match.watch_token}/chat/export.txt").status_code == 404


def test_records_hold_announcements_never_private_threads(make_match: Any) -> None:
    match = make_match("lance-assembly")
    chat.post(match, 1, "seat-1", "private: my bid is 40")
    chat.post(match, HOST, chatrooms.ANNOUNCE, "announce: bout 2 at nine")
    chat.post(match, HOST, chatrooms.TABLE, "table: hello")
    client = Client()
    for prefix, token in (("h", match.host_token), ("w", match.watch_token)):
        record = client.get(f"/{prefix}/{token}/record.txt")
        assert record.status_code == 200
        text = record.content.decode()
        assert ("announce: bout 2 at nine" in text) == (prefix == "h")  # the running bout: the host's only
        assert "private: my bid is 40" not in text and "table: hello" not in text
    export = client.get(f"/h/{match.host_token}/chat/export.txt").content.decode()
    assert "private: my bid is 40" in export and "table: hello" not in export


def test_new_chat_names_are_rate_limited_per_address(make_match: Any) -> None:
    """Each cookie-less name is a new writer: flood control must not be dodged by clearing cookies.
    The clock stands still: eleven posts across the end of a window would be two windows' counts."""
    match = make_match("lance-assembly", start=False)
    with time_machine.travel(dt.datetime.now(dt.UTC), tick=False):
        codes = [Client().post(f"/w/{match.watch_token}/chat/name/", {"name": f"Zed{n}"}).status_code
                 for n in range(11)]
    assert codes == [302] * 10 + [429]


async def test_a_lifted_mute_lets_the_writer_chat_again(make_match: Any) -> None:
    """The host lifts a spectator's mute from the moderation panel (its form post): the spectator's
    page drops the mute note, and their next line over the socket is taken and reaches the host."""
    match = await database_sync_to_async(make_match)("lance-assembly")
    await _post(match, SPECTATOR, chatrooms.SPECTATORS, "seat 2 bid 40", spectator_id="f00d42", spectator_name="Zed")
    await database_sync_to_async(chat.mute)(match, "spectator-f00d42", "match", "ghosting")
    host, host_panel = await _open(match.host_token)
    watch, watch_panel = await _open(match.watch_token, SPECTATOR_COOKIE)
    assert "Lift the mute of Zed" in host_panel and 'id="chat-mute-note"' in watch_panel
    await asyncio.gather(_frames(host), _frames(watch))
    await watch.send_to(text_data=json.dumps({"type": "chat", "room": "spectators", "text": "still here"}))
    assert "The host muted you" in await _until(watch, "The host muted you")

    def lift() -> str:
        return Client().post(f"/h/{match.host_token}/chat/mod/", {"action": "unmute", "writer": "spectator-f00d42"},
                             HTTP_HX_REQUEST="true").content.decode()

    answer = await database_sync_to_async(lift)()
    assert "Mute lifted." in answer and "Lift the mute of Zed" not in answer
    # every page is told its chat changed (the spectator's page fetches its panel again, unmuted)
    assert 'id="chat-stale"' in await _until(watch, 'id="chat-stale"')
    await _until(host, "host lifted the mute of Zed")  # the match log, as every moderation action
    fresh = await database_sync_to_async(lambda: chat_panel.panel(match, SPECTATOR, spectator_id="f00d42",
                                                                 spectator_name="Zed"))()
    assert 'id="chat-mute-note"' not in fresh
    await watch.send_to(text_data=json.dumps({"type": "chat", "room": "spectators", "text": "sorry, host"}))
    to_watch, to_host = await asyncio.gather(_until(watch, "sorry, host"), _until(host, "sorry, host"))
    assert "beforeend:#chat-list-spectators" in to_host and "The host muted you" not in to_watch
    # a second click has nothing to lift: a sentence, nothing logged twice
    again = await database_sync_to_async(lift)()
    assert "That writer is not muted in this match" in again
    count = await database_sync_to_async(
        lambda: match.turns.filter(text="chat: host lifted the mute of Zed").count())()
    assert count == 1
    for comm in (host, watch):
        await comm.disconnect()


@pytest.mark.skipif(connection.vendor == "sqlite",
                    reason="PostgreSQL: SQLite takes one writer at a time, so there chat waits for the moves")
async def test_a_chat_line_is_taken_while_the_moves_thread_is_busy(make_match: Any) -> None:
    """A move (`database_sync_to_async`, Channels' one thread for them) never queues behind a chat
    line, nor a line behind a move: the line is written and drawn in a worker thread of its own."""
    from matches.web import chat_socket

    match = await database_sync_to_async(make_match)("lance-assembly")
    entered, release = threading.Event(), threading.Event()

    def a_long_move() -> None:  # holds the moves' thread until the line was taken
        entered.set()
        release.wait(30)

    holding = asyncio.ensure_future(database_sync_to_async(a_long_move)())
    assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, 10)
    try:
        reply = await asyncio.wait_for(
            chat_socket.post(match.id, HOST, chatrooms.SPECTATORS, "while a move is drawn", {}), 10)
        taken = await database_sync_to_async(
            lambda: ChatMessage.objects.filter(match=match, text="while a move is drawn").exists(),
            thread_sensitive=False)()
        assert not release.is_set()  # the moves' thread was held all along
    finally:
        release.set()
        await holding
    assert taken and 'class="chat-error"' in reply and " hidden" in reply  # taken: the error line hidden
