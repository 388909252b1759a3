"""config/gcsweep.py: one full collection once enough sockets have closed and closes stopped.
(The memory it keeps flat, on a real daphne: tests/chaos/test_socket_memory.py.)"""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from config import gcsweep


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_collection_runs_once_after_enough_closes_and_frees_their_cycles(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(gcsweep, "CLOSES", 3)
    monkeypatch.setattr(gcsweep, "QUIET", 0.0)  # the next turn of the loop: nothing here waits on a clock

    def cycles() -> int:
        return sum(type(o) is Cycle for o in gc.get_objects())

    async def scenario() -> list[int]:
        seen = []
        gc.disable()  # only the sweep may collect here
        try:
            for _ in range(5):
                Cycle()
            start = cycles()
            gcsweep.socket_closed()
            gcsweep.socket_closed()
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            seen.append(cycles() - start)  # 2 closes: below CLOSES, nothing collected
            gcsweep.socket_closed()
            gcsweep.socket_closed()  # a close re-arms the timer: still one collection
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            seen.append(cycles())
        finally:
            gc.enable()
        return seen

    with caplog.at_level(logging.INFO, logger="config.gcsweep"):
        kept_before, kept_after = asyncio.run(scenario())
    assert kept_before == 0
    assert kept_after == 0
    sweeps = [r.getMessage() for r in caplog.records if r.name == "config.gcsweep"]
    assert len(sweeps) == 1, sweeps
    assert sweeps[0].startswith("full garbage collection after 4 sockets closed")
