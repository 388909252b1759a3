"""The live path's tests share one stand-in of this process's sockets (`PROCESS`: what its relay
writes them), a clean slate per test, and a few moves and audiences to open."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from matches.core import events
from matches.live import drawing, fanout, presence
from matches.play import services
from tests.live_pages import Process

META = re.compile(r'<div id="live-meta"[^>]*data-version="(\d+)"(?:[^>]*data-base="(\d+)")?')

#: this process's sockets, one per audience (what its relay writes them)
PROCESS = Process()


@pytest.fixture(autouse=True)
def fresh(monkeypatch: Any) -> None:
    drawing.forget()
    PROCESS.sent.clear()
    monkeypatch.setattr(presence, "store", presence.LocalStore())  # this test's own connections
    monkeypatch.setattr(presence, "TTL", 3600.0)  # open for the whole test, however slow the machine


@pytest.fixture
def handed() -> Iterator[list[Any]]:
    """What moves hand over after commit (events.Moved), drawn by the test itself, not by the live path."""
    got: list[Any] = []

    def record(match_id: int, moved: Any) -> None:
        got.append(moved)

    events.unsubscribe(fanout.notify)
    events.subscribe(record)
    try:
        yield got
    finally:
        events.unsubscribe(record)
        events.subscribe(fanout.notify)


def open_sockets(match: Any, *labels: str) -> None:
    """Pretend sockets of these audiences are open (what the consumers record on connect)."""
    presence.store.add([(presence.key(match.id, label), f"socket-{label}") for label in labels])


def updates(match: Any) -> dict[str, str]:
    """What this process's sockets of `match` are sent now, by audience label."""
    return {group.rsplit("-", 1)[-1] if "seat" not in group else group.split("-", 2)[2]: msg["html"]
            for group, msg in PROCESS.prepare(match.id)}


def move(match: Any, seat: int, text: str) -> None:
    match.refresh_from_db()
    services.submit(match, seat, text, match.current_bout.version)
