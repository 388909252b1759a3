"""The live path off the move's path: a move's update drawn off the request, handed to other
processes through the layer, relayed to every socket, and a move drawn from its own transaction;
what happens when a broadcast, a loop or Redis fails."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.live import drawing, fanout
from matches.play import services
from tests.matches.live.conftest import META, PROCESS, move, open_sockets

# -- off the move's path; failures ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_notify_returns_before_rendering_when_a_server_loop_runs(make_match: Any, monkeypatch: Any) -> None:
    from asgiref.sync import sync_to_async

    match = await sync_to_async(make_match)("lance-assembly")
    started = threading.Event()
    released = threading.Event()
    rendered = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow_prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        started.set()
        released.wait(5)
        loop.call_soon_threadsafe(rendered.set)
        return []

    monkeypatch.setattr(drawing, "prepare", slow_prepare)
    fanout.attach(loop)
    try:
        await asyncio.to_thread(fanout.notify, match.id)  # returns while nothing is rendered yet
        assert not rendered.is_set()
        released.set()
        await asyncio.wait_for(rendered.wait(), 5)
        assert started.is_set()
    finally:
        fanout._loop = None  # the next tests run without a server loop


@contextlib.contextmanager
def _server_loop(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Draw and send from `loop`, as a server does; the next tests run without a server loop."""
    fanout.attach(loop)
    try:
        yield
    finally:
        fanout._loop = None
        fanout._pending.clear()


async def test_each_audiences_update_leaves_while_the_next_one_is_drawn(monkeypatch: Any) -> None:
    """Issue 22 (spectators' p95): the spectators' update is sent as soon as it is drawn, not
    after the seats' and the host's.  Here the drawing of the second audience waits until the
    first was sent: were the sends held until the whole draw ended, it would wait in vain."""
    loop = asyncio.get_running_loop()
    sent: list[str] = []
    first_sent = threading.Event()
    done = asyncio.Event()

    async def record(group: str, drawn: Any) -> None:
        sent.append(group)
        if "watch" in sent:
            first_sent.set()
        if "host" in sent:
            done.set()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("watch", {"html": "spectators"})
        assert first_sent.wait(5), "the spectators' update waited for the rest of the draw"
        on_drawn("host", {"html": "host"})
        return []

    monkeypatch.setattr(drawing, "prepare", prepare)
    monkeypatch.setattr(fanout, "_send_drawing", record)
    with _server_loop(loop):
        await asyncio.to_thread(fanout.notify, 3)
        await asyncio.wait_for(done.wait(), 10)
        assert sent == ["watch", "host"]


async def _broadcast(monkeypatch: Any, match_id: int, prepare: Any, deliver: Any, publish: Any, until: asyncio.Event) -> None:
    """Draw `match_id`'s update with `prepare` and send it from this loop as a server does, writing
    to this process's sockets with `deliver` and to the others with `publish`, until `until` is set."""
    class Here:  # this process's relay
        async def write_drawing(self, group: str, drawn: Any) -> None:
            await deliver([(group, drawn)])

    monkeypatch.setattr(drawing, "prepare", prepare)
    monkeypatch.setattr(fanout, "_local_relay", Here)
    monkeypatch.setattr(fanout, "_publish", publish)
    with _server_loop(asyncio.get_running_loop()):
        await asyncio.to_thread(fanout.notify, match_id)
        await asyncio.wait_for(until.wait(), 10)


async def test_an_update_reaches_this_process_while_the_one_before_is_still_relayed(monkeypatch: Any) -> None:
    """The spectators' update is written to this process's sockets without waiting for the seat's,
    drawn before it, to be sent on to the other web processes (Redis):
    here that relay waits until the spectators' update is here, which it never would if this
    process's writing waited for it."""
    here: list[str] = []
    relayed: list[str] = []
    seat_here = threading.Event()
    spectators_here, both_relayed = asyncio.Event(), asyncio.Event()

    async def deliver(messages: list[Any], **kwargs: Any) -> None:
        here.extend(group for group, _ in messages)
        seat_here.set()
        if "watch" in here:
            spectators_here.set()

    async def publish(messages: list[Any]) -> None:
        await spectators_here.wait()
        relayed.extend(group for group, _ in messages)
        if len(relayed) == 2:
            both_relayed.set()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("seat", {"html": "seat"})
        assert seat_here.wait(5)  # drawn apart: the seat's update is handled before the next is drawn
        on_drawn("watch", {"html": "spectators"})
        return []

    await _broadcast(monkeypatch, 4, prepare, deliver, publish, until=both_relayed)
    assert here == ["seat", "watch"] and relayed == ["seat", "watch"]


async def test_the_other_processes_get_an_update_while_this_one_writes_its_own_sockets(monkeypatch: Any) -> None:
    """Issue 40: with 1,000 spectators a process, the drawing process's own writing took ~80 ms, and
    the other processes heard of the update only after it.  Here this process's writing waits
    until the update is on its way: were it published after the writing, it would wait in vain."""
    published, written = asyncio.Event(), asyncio.Event()
    order: list[str] = []

    async def deliver(messages: list[Any], **kwargs: Any) -> None:
        await asyncio.wait_for(published.wait(), 5)
        order.append("here")
        written.set()

    async def publish(messages: list[Any]) -> None:
        order.append("published: " + ",".join(group for group, _ in messages))
        published.set()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("watch", {"html": "spectators"})
        return []

    await _broadcast(monkeypatch, 5, prepare, deliver, publish, until=written)
    assert order == ["published: watch", "here"]


async def test_a_broadcaster_lost_with_its_loop_does_not_stop_the_next_loops(monkeypatch: Any) -> None:
    """A change queued on a loop that closed before its broadcaster ran (a test's loop ending, a
    server shutting down) must not leave every later change of the process queued forever."""
    drawn = asyncio.Event()
    loop = asyncio.get_running_loop()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        loop.call_soon_threadsafe(drawn.set)
        return []

    monkeypatch.setattr(drawing, "prepare", prepare)
    gone = asyncio.new_event_loop()
    assert fanout._schedule(gone, 1)  # queued on a loop that never runs its broadcaster...
    gone.close()  # ...and closes
    fanout.attach(loop)
    try:
        await asyncio.to_thread(fanout.notify, 2)
        await asyncio.wait_for(drawn.wait(), 5)
    finally:
        fanout._loop = None
        fanout._pending.clear()


def test_a_failed_broadcast_is_logged_and_never_undoes_the_move(roles: Any, monkeypatch: Any, caplog: Any,
                                                                django_capture_on_commit_callbacks: Any) -> None:
    class Broken:
        async def group_send(self, group: str, message: Any) -> None:
            raise ConnectionError("redis is down")

    monkeypatch.setattr(fanout, "get_channel_layer", lambda: Broken())
    match = roles.match
    open_sockets(match, "watch")
    with django_capture_on_commit_callbacks(execute=True):
        move(match, 1, "place C3")
    match.refresh_from_db()
    assert match.turns.filter(text="place C3").exists()
    assert "live update to" in caplog.text and "redis is down" in caplog.text




# -- a move drawn from its own transaction ---------------------------------------------------------


def _legal(match: Any, rng: random.Random) -> tuple[int, str, int] | None:
    """A random legal action of a seat that may act now, with the bout version to send."""
    bout = match.bouts.order_by("-number").first()
    game = match.game
    state = game.load(bout.state)
    if bout.finished is not None or game.result(state) is not None:
        return None
    seat = sorted(game.pending(state))[0]
    options = list(itertools.islice(game.legal_actions(state, seat), 80))
    return seat, game.format(rng.choice(options)), bout.version


@pytest.mark.parametrize("slug", ["lance-assembly", "grid-master", "two-connect", "squava", "gomoku", "yinsh",
                                  "bidding-ttt", "back-to-the-wall"])
def test_an_update_drawn_from_the_moves_transaction_is_the_one_read_back(
        make_match: Any, slug: str, monkeypatch: Any, handed: list[Any],
        django_capture_on_commit_callbacks: Any) -> None:
    """services hand over what a move wrote (events.Moved); when it follows the version this process
    sent, the update is drawn from it with no query.  For every game and audience it is, byte for
    byte, the update drawn by reading the match back (the time frozen so clocks read the same)."""
    from django.utils import timezone

    match = make_match(slug)
    open_sockets(match, "watch", "host", *(f"seat-{n}" for n in range(1, match.game.seats + 1)))
    PROCESS.prepare(match.id)
    rng = random.Random(slug)
    drawn_alone = 0
    for _ in range(10):
        found = _legal(match, rng)
        if found is None:
            break
        seat, text, version = found
        handed.clear()
        with django_capture_on_commit_callbacks(execute=True):
            services.submit(match.id, seat, text, version)
        (written,) = handed
        assert written is not None and written.rows[-1].text == text
        before = drawing._last[match.id]
        with monkeypatch.context() as patched:
            patched.setattr(timezone, "now", functools.partial(lambda at: at, timezone.now()))
            with CaptureQueriesContext(connection) as queries:
                quick = drawing.prepare(match.id, written)
            drawing._last[match.id] = before  # the same drawing again, read back from the database
            read = drawing.prepare(match.id)
        assert quick == read, text
        if drawing._follows(before, written):  # drawn from the transaction: nothing of the move read back
            # (the host panel's one aggregate of the match's own garnets is not the move's: it is read)
            read_back = [q["sql"] for q in queries.captured_queries if "matches_matchgarnet" not in q["sql"]]
            assert not read_back, (text, read_back)
            drawn_alone += 1
    assert drawn_alone >= 3, drawn_alone


def test_a_move_that_does_not_follow_the_update_sent_is_read_back(
        roles: Any, handed: list[Any], django_capture_on_commit_callbacks: Any) -> None:
    """Version n+1 was drawn by no process this one can read (this one holds n; the other's drawing
    never reached the cache): the move making n+2 is read back from the database, and its delta
    carries both moves' log rows; a transaction's hand-over arriving after a newer update never
    takes a page back."""
    match = roles.match
    open_sockets(match, "watch")
    with django_capture_on_commit_callbacks(execute=True):
        move(match, 1, "place C3")
    PROCESS.prepare(match.id, handed[-1])
    with django_capture_on_commit_callbacks(execute=True):
        move(match, 2, "place D4")  # broadcast by "another process": this one never draws it
    older = handed[-1]
    with django_capture_on_commit_callbacks(execute=True):
        move(match, 1, "place C4")
    with CaptureQueriesContext(connection) as queries:
        ((_, sent),) = PROCESS.prepare(match.id, handed[-1])
    assert queries.captured_queries  # read back
    assert "place D4" in sent["html"] and "place C4" in sent["html"]
    hit = META.search(sent["html"])
    assert hit is not None
    version = int(hit.group(1))
    ((_, late),) = PROCESS.prepare(match.id, older)  # the hand-over of version n+1 arrives last
    assert late["html"] == "" and version == late["version"]  # read back: nothing new to send


def test_the_seat_to_act_is_sent_first_then_spectators(roles: Any) -> None:
    """Its clock runs from the commit: every audience drawn before it would be charged to it."""
    match = roles.match
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    move(match, 1, "place C3")  # seat 2 to act
    order = [group.split(f"match-{match.id}-")[1] for group, _ in PROCESS.prepare(match.id)]
    assert order == ["seat-2", "watch", "seat-1", "host"]


def _whole(html: str, version: int) -> dict[str, Any]:
    """A drawing whose every socket is sent `html` (no socket here was sent one of its frame)."""
    return {"bout": 1, "version": version, "log": 0, "frame": f"test {version}", "meta": "", "parts": {}, "rows": [],
            "rows_from": 0, "whole": html}


class _Recorded:
    """`count` sockets of `group` on the relay `mine`, each recording what it is sent.  `on_chat()`
    is called when the first socket the relay writes gets "chat"; `done` is set once the last one
    has two messages (then every socket has both: each message is written to them in one order)."""

    def __init__(self, on_chat: Any) -> None:
        self.got: dict[int, list[str]] = {}
        self.order: list[int] = []  # the sockets in the order the relay writes them
        self.done = asyncio.Event()
        self.on_chat = on_chat

    async def join(self, mine: Any, group: str, count: int) -> None:
        recorded = self

        class Sock:
            def __init__(self, number: int) -> None:
                self.number = number
                recorded.got[number] = []

            async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                           close: bool = False) -> None:
                got = recorded.got[self.number]
                got.append(text_data or "")
                if self.number == recorded.order[0] and text_data == "chat":
                    recorded.on_chat()
                if self.number == recorded.order[-1] and len(got) == 2:
                    recorded.done.set()

        for number in range(count):
            await mine.join(group, Sock(number))
        self.order.extend(sock.number for sock in mine.sockets[group])


async def test_a_chat_line_to_many_sockets_gives_way_to_a_move_committed_meanwhile(monkeypatch: Any) -> None:
    """Issue 24 (chat never slows a move): a chat line written to 200 spectators' sockets lets a
    move committed while it is written be drawn and written first; the line then goes on.  The
    move here commits when the first socket gets the line: the sockets of the first
    GIVE_WAY_EVERY got the line first, every later one the move first.  Written in one go, as
    before, every socket got the line first."""
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    # a move commits when the first socket gets the line (from the server's loop: notify only queues it)
    sockets = _Recorded(on_chat=lambda: fanout.notify(5))
    got, order = sockets.got, sockets.order

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("match-5-watch", _whole("move", 1))
        return []

    layer = InMemoryChannelLayer()
    monkeypatch.setattr(fanout, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(drawing, "prepare", prepare)
    monkeypatch.setattr(fanout, "GIVE_WAY_AT_MOST", 30.0)  # (the bound is not what is tested: a slow CI machine)
    mine = relay.for_loop(layer)
    await sockets.join(mine, "match-5-watch", 200)
    with _server_loop(asyncio.get_running_loop()):
        fanout.send_soon([("match-5-watch", {"html": "chat"})])
        await asyncio.wait_for(sockets.done.wait(), 10)
    first = order[:fanout.GIVE_WAY_EVERY]
    assert all(got[n] == ["chat", "move"] for n in first), [got[n] for n in first]
    assert all(got[n] == ["move", "chat"] for n in order[fanout.GIVE_WAY_EVERY:]), [got[n] for n in order]
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()


async def test_another_processs_relay_reads_a_move_sent_while_it_writes_a_chat_line() -> None:
    """A chat line drawn by another web process comes through the layer marked `give_way`; its relay
    writes it to 1,000 sockets from a task of its own, giving the loop a turn every 50 sockets, so a
    move sent while the line is written reaches the last sockets before the line does (here the
    relay read it within 250 sockets).  Read and written in line, as before, every socket got the
    line first."""
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    layer = InMemoryChannelLayer()
    sent: list[asyncio.Task[None]] = []

    def update(html: str) -> dict[str, Any]:
        return {"type": relay.DRAWING_TYPE, "group": "match-6-watch", "drawing": _whole(html, 1), "origin": "elsewhere"}

    # a move is sent when the first socket gets the line
    sockets = _Recorded(on_chat=lambda: sent.append(asyncio.get_running_loop().create_task(
        layer.group_send("relay-match-6-watch", update("move")))))
    got, order = sockets.got, sockets.order
    mine = relay.Relay(layer)
    await sockets.join(mine, "match-6-watch", 1000)
    await layer.group_send("relay-match-6-watch", {"type": relay.HTML_TYPE, "group": "match-6-watch", "html": "chat",
                                                   "origin": "elsewhere", "give_way": True})
    await asyncio.wait_for(sockets.done.wait(), 10)
    assert got[order[0]] == ["chat", "move"]
    assert got[order[-1]] == ["move", "chat"]
    for task in (mine.task, mine.refresher, mine.lines_task):
        assert task is not None
        task.cancel()


async def test_the_relay_writes_to_every_socket_and_drops_one_that_fails() -> None:
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    class Sock:
        def __init__(self, broken: bool = False) -> None:
            self.got: list[str] = []
            self.broken = broken

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            if self.broken:
                raise RuntimeError("socket closed")
            self.got.append(text_data or "")

        async def layer_recovered(self) -> None:  # relay.Socket's; no outage here
            pass

    layer = InMemoryChannelLayer()
    mine = relay.Relay(layer)
    good, bad, other = Sock(), Sock(broken=True), Sock()
    for sock in (good, bad):
        await mine.join("match-1-watch", sock)
    await mine.join("match-1-seat-1", other)
    assert set(layer.groups["relay-match-1-watch"]) == {mine.channel}  # one member for the process
    await layer.group_send("relay-match-1-watch", {"type": relay.HTML_TYPE, "group": "match-1-watch", "html": "v2"})
    for _ in range(50):
        if good.got:
            break
        await asyncio.sleep(0.01)
    assert good.got == ["v2"] and other.got == [] and bad not in mine.sockets["match-1-watch"]
    await mine.leave("match-1-watch", good)
    assert "match-1-watch" not in mine.sockets and not layer.groups.get("relay-match-1-watch")
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()


async def test_an_update_reaches_this_process_at_once_and_other_processes_through_the_layer(monkeypatch: Any) -> None:
    """The update is on its way to the layer before this loop's relay writes it; the relay of another
    process (another Relay on the same layer) gets it through the layer; nobody gets it twice; with
    Redis away this process's sockets still get it."""
    from channels.layers import InMemoryChannelLayer

    from config.channel_layer import LayerUnavailable
    from matches.live import relay

    class Sock:
        def __init__(self) -> None:
            self.got: list[str] = []

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            self.got.append(text_data or "")

        async def layer_recovered(self) -> None:  # relay.Socket's; no outage here
            pass

    layer = InMemoryChannelLayer()
    monkeypatch.setattr(fanout, "get_channel_layer", lambda: layer)
    mine, elsewhere = relay.for_loop(layer), relay.Relay(layer)
    here, there = Sock(), Sock()
    await mine.join("match-1-watch", here)
    await elsewhere.join("match-1-watch", there)
    asked: list[str] = []
    real_send = layer.group_send

    async def group_send(group: str, message: dict[str, Any]) -> None:
        asked.append(f"{group} with {len(here.got)} here")
        await real_send(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    await fanout._send_drawing("match-1-watch", _whole("v2", 2))
    assert asked == ["relay-match-1-watch with 0 here"] and here.got == ["v2"]  # asked, then written here
    # a marker sent through the layer after it, with no origin (both relays deliver it): each relay
    # reads its channel in order, so once both have the marker each has handled its copy of v2
    await real_send("relay-match-1-watch", {"type": relay.HTML_TYPE, "group": "match-1-watch", "html": "marker"})
    for _ in range(500):
        if "marker" in here.got and "marker" in there.got:
            break
        await asyncio.sleep(0.01)
    assert here.got == ["v2", "marker"] and there.got == ["v2", "marker"]

    async def away(group: str, message: dict[str, Any]) -> None:
        raise LayerUnavailable("Redis is away")

    monkeypatch.setattr(layer, "group_send", away)  # Redis away: this process's sockets still get it
    await fanout._send_drawing("match-1-watch", _whole("v3", 3))
    assert here.got == ["v2", "marker", "v3"] and there.got == ["v2", "marker"]
    for each in (mine, elsewhere):
        assert each.task is not None and each.refresher is not None
        each.task.cancel()
        each.refresher.cancel()


async def test_when_redis_is_back_the_relay_has_every_local_page_resync() -> None:
    """Sockets hold no layer channel: the layer's "Redis is back" note reaches the relay's channel,
    and the relay has each of its sockets, of every audience, resync (a closing one does not stop
    the others)."""
    from channels.layers import InMemoryChannelLayer

    from config.channel_layer import RECOVERED
    from matches.live import relay

    class Sock:
        def __init__(self, broken: bool = False) -> None:
            self.resynced = asyncio.Event()
            self.broken = broken

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            pass

        async def layer_recovered(self) -> None:
            if self.broken:
                raise RuntimeError("socket closed")
            self.resynced.set()

    layer = InMemoryChannelLayer()
    mine = relay.Relay(layer)
    watch, closing, seat = Sock(), Sock(broken=True), Sock()
    await mine.join("match-1-watch", watch)
    await mine.join("match-1-watch", closing)
    await mine.join("match-1-seat-1", seat)
    assert mine.channel is not None
    await layer.send(mine.channel, dict(RECOVERED))
    await asyncio.wait_for(asyncio.gather(watch.resynced.wait(), seat.resynced.wait()), 5)
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()


async def test_the_relay_renews_its_memberships(monkeypatch: Any) -> None:
    """Redis expires group members after a day: a relay whose sockets stay open joins again."""
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    class Sock:
        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            pass

        async def layer_recovered(self) -> None:  # relay.Socket's; no outage here
            pass

    monkeypatch.setattr(relay, "REJOIN_AFTER", 0.05)
    layer = InMemoryChannelLayer(group_expiry=1)
    mine = relay.Relay(layer)
    await mine.join("match-2-watch", Sock())
    added: list[str] = []
    renewed = asyncio.Event()
    real = layer.group_add

    async def counting(group: str, channel: str) -> None:
        added.append(group)
        await real(group, channel)
        renewed.set()

    monkeypatch.setattr(layer, "group_add", counting)
    await asyncio.wait_for(renewed.wait(), 5)  # the renewal itself, not a guess of when it comes
    assert added and set(added) == {"relay-match-2-watch"}
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()
