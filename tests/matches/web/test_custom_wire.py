"""A whole 6-seat Host's game on the wire (issue 23): what every audience receives.

The host, a spectator and six seats keep a websocket open from start to end;
every frame each one receives is kept, and after every action each audience's
page (and at the end the replay steps and records) is fetched too.  Three
rounds: a number round (every seat, revealed to everyone), a choice round
(four seats, revealed one answer at a time), a free-text round whose answers
stay with their authors.  Then:

- no answer reaches a seat or the spectator before its reveal: a frame drawn
  at an earlier version (its `#live-meta` says which), or a page fetched
  before the reveal, never holds it; frames without a version (presence)
  never hold one at all;
- an author-only answer never reaches anyone but its author and the host,
  in any frame, page, replay step or record;
- the host and each author do receive them (so the checks can fail).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from config.asgi import application
from games.core import HOST, SPECTATOR
from matches.play import services
from tests.hostform import seq
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://testserver")]
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
#: round 1 (number 1000-9999): distinctive numbers, one per seat
NUMBERS = {1: 4817, 2: 5923, 3: 6071, 4: 7346, 5: 8152, 6: 9284}
#: round 2 (choice, seats 1-4): each seat's pick; a leak makes one choice show up more often than the others
CHOICES = ("Amaranth", "Beryl", "Cobalt", "Damask")
PICKS = {1: "Beryl", 2: "Damask", 3: "Beryl", 4: "Amaranth"}
#: round 3 (text, reveal author)
#: the "version" of replay steps and records: drawn after the end, at any step
REPLAY = 10**9
WORDS = {1: "quokka-sunrise", 2: "marmalade-tundra", 3: "velvet-oboe", 4: "cinder-lantern", 5: "harbor-quince",
         6: "pepper-glacier"}


def _visible(html: str) -> str:
    """Text and markup without attribute values (tokens, times, notation a click would compose)
    and clock readings."""
    return re.sub(r"\d+:\d\d(:\d\d)?", "", re.sub(r'"[^"]*"', '""', html.replace('\\"', "")))


def _has_number(html: str, number: int) -> bool:
    return bool(re.search(rf"(?<![\d.]){number}(?![\d.])", _visible(html)))


def _version(html: str) -> int | None:
    found = re.search(r'id="live-meta"[^>]*data-version="(\d+)"', html)
    return int(found.group(1)) if found else None


def _uniform(counts: dict[str, int], shown: list[int]) -> bool:
    extra = {c: sum(1 for s in shown if PICKS[s] == c) for c in CHOICES}
    return len({counts[c] - extra[c] for c in CHOICES}) == 1


def _choice_counts(html: str) -> dict[str, int]:
    text = _visible(html)
    return {c: len(re.findall(rf"\b{c}\b", text)) for c in CHOICES}


class Wire:
    """One audience: its socket's frames (received in the background) and the pages fetched."""

    def __init__(self, viewer: int, token: str, prefix: str) -> None:
        self.viewer, self.token, self.prefix = viewer, token, prefix
        self.frames: list[str] = []
        self.pages: list[tuple[int, str]] = []  # (bout version when fetched, html)
        self.comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
        self.task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        connected, _ = await self.comm.connect()
        assert connected
        self.task = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        while True:
            try:
                self.frames.append(await self.comm.receive_from(timeout=30))
            except TimeoutError:
                continue

    async def close(self) -> None:
        assert self.task is not None
        self.task.cancel()
        await self.comm.disconnect()


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


async def test_a_six_seat_match_shows_no_answer_before_its_reveal_and_author_answers_to_nobody_else(
        make_match: Any) -> None:
    match = await database_sync_to_async(make_match)("custom", options={"seats": 6}, seat_names=NAMES)
    tokens = await database_sync_to_async(lambda: {s.number: s.token for s in match.seats.all()})()
    wires = {HOST: Wire(HOST, match.host_token, "h"), SPECTATOR: Wire(SPECTATOR, match.watch_token, "w"),
             **{n: Wire(n, tokens[n], "p") for n in range(1, 7)}}
    for wire in wires.values():
        await wire.open()
    client = Client()

    @database_sync_to_async
    def version() -> int:
        result: int = match.bouts.get().version
        return result

    @database_sync_to_async
    def fetch_pages() -> None:
        now = match.bouts.get().version
        for wire in wires.values():
            page = client.get(f"/{wire.prefix}/{wire.token}/")
            assert page.status_code == 200
            wire.pages.append((now, page.content.decode()))

    @database_sync_to_async
    def host(text: str) -> None:
        response = client.post(f"/h/{match.host_token}/act/", {"action": "play", "host_seq": seq(match.host_token),
                                                               "version": match.bouts.get().version, "text": text})
        assert re.search(r'id="host-flash" class="flash"', response.content.decode()), response.content[:300]

    @database_sync_to_async
    def answer(seat: int, text: str) -> None:
        response = client.post(f"/p/{tokens[seat]}/move/", {"text": text, "version": match.bouts.get().version})
        assert re.search(r'id="move-error"[^>]*>\s*<', response.content.decode()), (seat, text)

    async def settle() -> None:
        """Every socket has its audience's drawing of the current version (and nothing is on its way)."""
        want = await version()
        for _ in range(200):
            if all(any(_version(f) == want for f in w.frames) for w in wires.values()):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"not every audience received version {want}")

    await fetch_pages()
    await host('round "Pick a number" number 1000-9999')
    for seat in range(1, 7):
        if seat == 2:  # a change of mind: only the last answer counts
            await answer(2, "1234")
        await answer(seat, str(NUMBERS[seat]))
        if seat in (3, 6):
            await fetch_pages()
    await settle()
    reveal_1 = await version() + 1
    await host("reveal round 1")
    await fetch_pages()

    await host('round "Which gem?" choice "Amaranth", "Beryl", "Cobalt", "Damask" seats 1,2,3,4')
    for seat, pick in PICKS.items():
        await answer(seat, pick)
        if seat in (2, 4):
            await fetch_pages()
    await settle()
    reveal_2 = {}
    for seat in (2, 4, 1, 3):  # one answer at a time
        reveal_2[seat] = await version() + 1
        await host(f"reveal round 2 seat {seat}")
        if seat in (2, 3):
            await fetch_pages()

    await host('round "Your secret word" text reveal author')
    for seat in range(1, 7):
        await answer(seat, WORDS[seat])
        if seat in (3, 6):
            await fetch_pages()
    await host('give 2 3 "best word"')
    await host("end ranking 2, 1=3=4=5=6")
    await fetch_pages()
    await settle()
    for wire in wires.values():
        await wire.close()

    # the replays step by step and the records, as every audience may see them
    @database_sync_to_async
    def replays() -> None:
        for wire in wires.values():
            first = client.get(f"/{wire.prefix}/{wire.token}/bouts/1/?step=0")
            assert first.status_code == 200
            hit = re.search(r'id="replay"[^>]*data-last="(\d+)"', first.content.decode())
            assert hit is not None
            last = int(hit.group(1))
            assert last >= 8  # a step per host action and per closed round (round by round)
            for step in range(last + 1):
                page = client.get(f"/{wire.prefix}/{wire.token}/bouts/1/?step={step}&partial=1")
                wire.pages.append((REPLAY, page.content.decode()))
            for path in ("record.txt", "bouts/1/record.txt"):
                record = client.get(f"/{wire.prefix}/{wire.token}/{path}")
                assert record.status_code == 200
                wire.pages.append((REPLAY, b"".join(record).decode() if record.streaming else record.content.decode()))

    await replays()

    def received(wire: Wire) -> list[tuple[int | None, str]]:
        """Everything the audience got: frames (with the version they were drawn at) and pages."""
        return [(_version(f), f) for f in wire.frames] + [(v, p) for v, p in wire.pages]

    for viewer, wire in wires.items():
        got = received(wire)
        assert wire.frames and wire.pages
        for drawn, html in got:
            for seat, number in NUMBERS.items():
                allowed = viewer in (HOST, seat) or (drawn is not None and drawn >= reveal_1)
                if not allowed:
                    assert not _has_number(html, number), (viewer, seat, drawn)
            assert not _has_number(html, 1234) or viewer in (HOST, 2), viewer
            if viewer not in (HOST, *PICKS):
                # every choice is listed as often as the others, but for the picks revealed by then
                # (a replay step or a record may stand at any point: some prefix of the reveals)
                counts = _choice_counts(html)
                order = list(reveal_2)
                shown = [order[:k] for k in range(len(order) + 1)] if drawn == REPLAY else \
                    [[s for s, at in reveal_2.items() if drawn is not None and drawn >= at]]
                assert any(_uniform(counts, prefix) for prefix in shown), (viewer, drawn, counts)
            for seat, word in WORDS.items():
                if viewer not in (HOST, seat):
                    assert word not in html, (viewer, seat, drawn)
    # ...and the ones allowed do receive them: the host every answer, each author its own
    host_text = "".join(h for _, h in received(wires[HOST]))
    assert all(w in host_text for w in WORDS.values()) and all(_has_number(host_text, n) for n in NUMBERS.values())
    for seat in range(1, 7):
        mine = "".join(h for _, h in received(wires[seat]))
        assert WORDS[seat] in mine and _has_number(mine, NUMBERS[seat])
    spectator = [h for v, h in received(wires[SPECTATOR]) if v is not None and v >= reveal_1]
    assert any(all(_has_number(h, n) for n in NUMBERS.values()) for h in spectator)
    assert any("Bob: <b>Damask</b>" in h for _, h in wires[5].pages)
    # the log tells others that a seat answered, in the game's own words (not "sealed orders")
    spectator_text = "".join(h for _, h in received(wires[SPECTATOR]))
    assert "answered" in spectator_text and "submitted sealed orders" not in spectator_text
    state = await database_sync_to_async(lambda: services.bout_state(match.bouts.get()))()
    assert [r.closed for r in state.rounds] == [True, True, True] and state.ending is not None
