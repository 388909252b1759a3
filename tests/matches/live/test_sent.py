"""The drawing a delta is made from, kept for every web process (matches/live/sent.py): a process
that did not draw the version before reads it from the shared cache, waiting while the process
drawing it has not kept it yet."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from typing import Any

import pytest

from matches.live import sent


@pytest.fixture(autouse=True)
def own_cache(settings: Any, monkeypatch: Any) -> None:
    """A cache namespace and a process memory of this test only."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    monkeypatch.setattr(sent, "_memory", OrderedDict())


def drawing(version: int, bout: int = 1, token: str = "tok") -> sent.Sent:
    return sent.Sent(token, bout, version, False, log_max_id=version, log_flagged=0, log_top=version)


def as_another_process(monkeypatch: Any) -> None:
    monkeypatch.setattr(sent, "_memory", OrderedDict())


def test_the_version_before_drawn_by_another_process_is_read_from_the_cache(monkeypatch: Any) -> None:
    sent.keep(7, drawing(4))
    as_another_process(monkeypatch)
    found = sent.base(7, "tok", 1, 5)
    assert found is not None and found.mark == ("tok", 1, 4)
    assert sent.base(7, "other-match", 1, 5) is None  # a reused id is another match
    assert sent.base(7, "tok", 2, 1) is None  # another bout: a whole update


def test_the_newest_drawing_wins_over_an_older_one_kept_late(monkeypatch: Any) -> None:
    sent.keep(7, drawing(5))
    as_another_process(monkeypatch)
    sent.keep(7, drawing(4))  # a slow process keeps version 4 after version 5 was kept
    as_another_process(monkeypatch)
    found = sent.base(7, "tok", 1, 6)
    assert found is not None and found.version == 5


def test_a_version_drawn_for_nobody_needs_no_base_and_no_wait(monkeypatch: Any) -> None:
    sent.keep(7, drawing(3))
    as_another_process(monkeypatch)
    sent.drawn_for_nobody(7, "tok", 1, 4)
    monkeypatch.setattr(sent, "WAIT", 60.0)  # a wait would be seen
    assert sent.base(7, "tok", 1, 5) is None


def test_a_drawing_waits_for_the_version_before_while_another_process_draws_it(monkeypatch: Any) -> None:
    """Version 5 committed on process B while A still draws version 4: B waits until A keeps it
    (an event, not a time: `WAIT` is made longer than any test takes), then makes its delta from it."""
    monkeypatch.setattr(sent, "WAIT", 60.0)
    sent.keep(7, drawing(3))
    read = threading.Event()
    real_read = sent._read

    def reading(key: str) -> Any:
        found = real_read(key)
        read.set()
        return found

    monkeypatch.setattr(sent, "_read", reading)
    as_another_process(monkeypatch)  # B
    got: list[sent.Sent | None] = []
    waiting = threading.Thread(target=lambda: got.append(sent.base(7, "tok", 1, 5)))
    waiting.start()
    assert read.wait(10)  # B has seen version 3 in the cache, and waits
    assert waiting.is_alive()
    sent.keep(7, drawing(4))  # A (B's memory stands in for A's: it is the cache B reads)
    waiting.join(10)
    assert not waiting.is_alive() and got[0] is not None and got[0].version == 4


def test_when_the_version_before_never_comes_the_update_is_whole(monkeypatch: Any) -> None:
    """Version 4 was committed on a process killed before it kept its drawing: after `WAIT` (here 0:
    the cache is read once), no delta from version 3, which every page showing 4 would refetch for."""
    monkeypatch.setattr(sent, "WAIT", 0.0)
    sent.keep(7, drawing(3))
    assert sent.base(7, "tok", 1, 5) is None


def test_without_waiting_the_newest_earlier_drawing_is_the_base(monkeypatch: Any) -> None:
    """Several changes drawn together (fanout's merged changes): version 4 may never be drawn."""
    monkeypatch.setattr(sent, "WAIT", 60.0)
    sent.keep(7, drawing(3))
    as_another_process(monkeypatch)
    found = sent.base(7, "tok", 1, 5, wait=False)
    assert found is not None and found.version == 3
