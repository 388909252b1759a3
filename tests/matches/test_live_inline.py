"""A move's first update drawn in the moving thread while its COMMIT is on the wire
(live._draw_inline, on PostgreSQL), with a real server loop: it is sent only once the commit is
known, exactly once, byte for byte the update read back after the commit, and the other
audiences follow from the loop's worker; nothing at all when the commit fails; an audience that
needs the database is left to the worker."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import IntegrityError
from django.utils import timezone

from matches import engine, live, presence, services, statements
from tests.conftest import POSTGRES
from tests.matches.test_live import _legal, _open

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL (COMMIT folded)"),
    pytest.mark.django_db(transaction=True),  # a real COMMIT, not a savepoint in the test's transaction
]


class Loop:
    """The server's loop, in a thread; `sent` is every message its broadcasts sent: (group, html,
    whether the move had committed by then, the thread that drew it)."""

    def __init__(self, monkeypatch: Any) -> None:
        self.sent: list[tuple[str, str, bool]] = []
        self.outcomes: list[statements.Outcome] = []
        self.inline: list[bool] = []
        self.loop = live.start_background_loop()
        real_notify, real_draw = live.notify_committing, live._draw_inline

        def notify_committing(match_id: int, written: live.Written) -> bool:
            assert written.committed is not None
            self.outcomes.append(written.committed)
            return real_notify(match_id, written)

        def draw_inline(*args: Any) -> bool:
            drawn = real_draw(*args)
            self.inline.append(drawn)
            return drawn

        async def send(messages: list[tuple[str, dict[str, Any]]], written: Any = None) -> None:
            committed = bool(self.outcomes) and self.outcomes[-1].ok
            self.sent += [(group, message["html"], committed) for group, message in messages]
            if written is not None:
                written()

        monkeypatch.setattr(live, "notify_committing", notify_committing)
        monkeypatch.setattr(live, "_draw_inline", draw_inline)
        monkeypatch.setattr(live, "_send", send)

    def settle(self) -> None:
        """Wait until the loop has nothing left to broadcast."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0.01), self.loop).result(5)
            with live._lock:
                if not live._pending and not live._scheduled:
                    return
        raise AssertionError("the loop never finished broadcasting")

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        live._loop = None


def _move(match: Any, rng: random.Random) -> tuple[int, str, int]:
    """A legal move of the seat to act: (seat, text, version)."""
    found = _legal(match, rng)
    assert found is not None
    return found


@pytest.fixture
def server(monkeypatch: Any) -> Iterator[Loop]:
    live.forget()
    monkeypatch.setattr(presence, "store", presence._Local())
    loop = Loop(monkeypatch)
    yield loop
    loop.close()


def test_the_spectators_update_is_drawn_by_the_mover_and_sent_once_it_committed(make_match: Any, server: Loop,
                                                                                 monkeypatch: Any) -> None:
    match = make_match("lance-assembly")
    _open(match, "watch", "seat-1", "seat-2", "host")
    server.settle()  # (the match's start)
    live.prepare(match.id)
    rng = random.Random(11)
    for _ in range(8):
        seat, text, version = _move(match, rng)
        before = live._sent[match.id]
        server.sent.clear()
        with monkeypatch.context() as frozen:
            at = timezone.now()
            frozen.setattr(timezone, "now", lambda at=at: at)  # clocks read the same in both drawings
            services.submit(match.id, seat, text, version)
            server.settle()
            assert server.inline[-1] is True  # drawn in the moving thread
            assert all(committed for _, _, committed in server.sent)
            groups = [group for group, _, _ in server.sent]
            assert groups[0].endswith("-watch") and len(groups) == len(set(groups)) == 4, groups
            after = live._sent[match.id]
            assert after.version == before.version + 1
            live._sent[match.id] = before
            read = live.prepare(match.id)  # drawn again after the commit, from the database
        assert [(g, html) for g, html, _ in server.sent] == [(g, m["html"]) for g, m in read], text
        assert f'<span class="text">{text}</span>' in server.sent[0][1]


def test_a_move_whose_commit_fails_sends_nothing(make_match: Any, server: Loop, monkeypatch: Any) -> None:
    match = make_match("lance-assembly")
    _open(match, "watch", "seat-1")
    server.settle()  # (the match's start)
    live.prepare(match.id)
    before = live._sent[match.id]
    real_play = engine.play

    def play_then_break_a_deferred_key(*args: Any, **kwargs: Any) -> Any:
        entry = real_play(*args, **kwargs)
        # checked at COMMIT (Django's foreign keys are deferred on PostgreSQL): the COMMIT fails
        statements.execute("UPDATE matches_turnlog SET bout_id = %s WHERE match_id = %s", [10**9, match.id])
        return entry

    monkeypatch.setattr(engine, "play", play_then_break_a_deferred_key)
    seat, text, version = _move(match, random.Random(3))
    server.sent.clear()
    with pytest.raises(IntegrityError):
        services.submit(match.id, seat, text, version)
    server.settle()
    assert server.inline == [True]  # drawn while it committed, then dropped
    assert server.sent == [] and live._sent[match.id] is before


def test_an_audience_that_needs_the_database_is_left_to_the_worker(make_match: Any, server: Loop) -> None:
    """Spectators who had no page open at the last update get the whole page, log included: the
    moving thread cannot read it (its connection is busy with the COMMIT), the worker draws it
    once the commit is known."""
    match = make_match("lance-assembly")
    _open(match, "seat-1")
    server.settle()  # (the match's start)
    live.prepare(match.id)
    _open(match, "watch")
    seat, text, version = _move(match, random.Random(5))
    server.sent.clear()
    services.submit(match.id, seat, text, version)
    server.settle()
    assert server.inline == [False]
    spectators = [html for group, html, committed in server.sent if group.endswith("-watch") and committed]
    assert len(spectators) == 1 and 'id="log-list"' in spectators[0]
    assert f'<span class="text">{text}</span>' in spectators[0]


def test_the_moving_thread_draws_nothing_once_the_match_waits_for_a_broadcast(make_match: Any, server: Loop) -> None:
    """A move handed over while the match already waits for a broadcast is drawn with it, from the
    database, once: not also in the moving thread."""
    match = make_match("lance-assembly")
    _open(match, "watch")
    server.settle()
    live.prepare(match.id)
    with live._lock:
        live._pending[match.id] = None  # e.g. a host action of this process, not broadcast yet
    seat, text, version = _move(match, random.Random(7))
    server.sent.clear()
    services.submit(match.id, seat, text, version)
    live._schedule(server.loop, match.id)
    server.settle()
    assert server.inline == []
    spectators = [html for group, html, _ in server.sent if group.endswith("-watch")]
    assert len(spectators) == 1 and f'<span class="text">{text}</span>' in spectators[0]


def test_a_socket_that_opens_has_its_page_drawn_so_the_next_move_is_a_delta(make_match: Any, server: Loop,
                                                                           settings: Any) -> None:
    """live.prime (the consumer calls it on connect): what the open audiences show is drawn on the
    worker and nothing is sent; the next move's update is then drawn in the moving thread as a
    delta (a few parts, no log), not whole; an audience already drawn primes nothing."""
    from games.core import HOST, SPECTATOR

    match = make_match("lance-assembly")
    _open(match, "watch", "seat-1")
    server.settle()  # (the match's start)
    services.submit(match.id, *_move(match, random.Random(8)))  # (the first move of a bout redraws the log's frame)
    server.settle()
    live.forget()  # e.g. a process that just started
    server.inline.clear()
    server.sent.clear()
    live.prime(match.id, SPECTATOR)
    server.settle()
    primed = live._sent[match.id]
    assert server.sent == [] and set(primed.parts) == {SPECTATOR, 1}
    live.prime(match.id, 1)
    assert match.id not in live._pending  # drawn already
    seat, text, version = _move(match, random.Random(9))
    services.submit(match.id, seat, text, version)
    server.settle()
    assert server.inline == [True]
    spectators = [html for group, html, _ in server.sent if group.endswith("-watch")]
    assert len(spectators) == 1 and f'data-base="{version}"' in spectators[0]
    assert 'id="log-list"' not in spectators[0] and len(spectators[0]) < 2500
    # without it (the lever off), the first move after the sockets opened is drawn whole
    settings.DEATHMATCH_LIVE_OFF = frozenset({"prime"})
    live.forget()
    _open(match, "host")
    live.prime(match.id, HOST)
    assert match.id not in live._pending
    seat, text, version = _move(match, random.Random(9))
    server.sent.clear()
    services.submit(match.id, seat, text, version)
    server.settle()
    assert server.inline == [True, False]
    spectators = [html for group, html, _ in server.sent if group.endswith("-watch")]
    assert len(spectators) == 1 and 'id="log-list"' in spectators[0]
