"""config/gcfreeze.py: open sockets' objects are kept out of full collections once the sockets
settle, and what died among them in reference cycles is still collected when it is time."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from config import gcfreeze


class Node:
    """An object in a reference cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def quick(monkeypatch: Any) -> Iterator[None]:
    monkeypatch.setattr(gcfreeze, "SETTLE", 0.05)
    monkeypatch.setattr(gcfreeze, "_left", 0)
    monkeypatch.setattr(gcfreeze, "_timer", None)
    gc.unfreeze()
    yield
    if gcfreeze._timer is not None:
        gcfreeze._timer.cancel()
    gc.unfreeze()


async def test_objects_are_frozen_once_the_sockets_stop_changing() -> None:
    held = Node()
    gcfreeze.changed()
    await asyncio.sleep(0.02)
    gcfreeze.changed()  # another connection: the freeze waits for the burst to end
    await asyncio.sleep(0.03)
    assert gc.get_freeze_count() == 0
    await asyncio.sleep(0.1)
    assert gc.get_freeze_count() > 0
    # frozen: in no generation a collection walks
    assert held.me is held and not any(o is held for o in gc.get_objects())


async def test_cycles_of_sockets_that_left_are_collected_when_the_refresh_is_due(monkeypatch: Any) -> None:
    gone = Node()
    alive = weakref.ref(gone)
    gcfreeze.changed()
    await asyncio.sleep(0.1)
    del gone  # a socket's objects, frozen, then dead in a cycle
    gc.collect()
    assert alive() is not None  # frozen objects wait for the refresh
    monkeypatch.setattr(gcfreeze, "REFRESH", 0.0)
    gcfreeze.changed(left=True)
    await asyncio.sleep(0.1)
    assert alive() is None and gc.get_freeze_count() > 0


async def test_the_freeze_can_be_turned_off(monkeypatch: Any) -> None:
    monkeypatch.setenv("DEATHMATCH_GC_FREEZE", "0")
    gcfreeze.changed()
    await asyncio.sleep(0.1)
    assert gc.get_freeze_count() == 0 and gcfreeze._timer is None
