"""Sockets arriving together share one drawing of their audience, never one that started before
they asked (matches/web/shared_draw.py)."""

from __future__ import annotations

import asyncio

import pytest

from matches.web import shared_draw


class Drawer:
    """A drawing that waits to be let go: each one returns its number."""

    def __init__(self) -> None:
        self.started = 0
        self.go = asyncio.Event()
        self.fail = False

    async def draw(self) -> str:
        self.started += 1
        number = self.started
        await self.go.wait()
        if self.fail:
            raise RuntimeError(f"drawing {number} failed")
        return f"drawing {number}"


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_crowd_asking_together_gets_one_drawing() -> None:
    drawer = Drawer()
    crowd = [asyncio.create_task(shared_draw.draw_once("watch", drawer.draw)) for _ in range(200)]
    await _settle()
    drawer.go.set()
    assert set(await asyncio.gather(*crowd)) == {"drawing 1"}
    assert drawer.started == 1


async def test_who_asks_while_a_drawing_runs_gets_the_next_one_shared_with_the_others_after_it() -> None:
    drawer = Drawer()
    first = asyncio.create_task(shared_draw.draw_once("watch", drawer.draw))
    await _settle()
    assert drawer.started == 1  # running: it may have read the state before what came next
    later = [asyncio.create_task(shared_draw.draw_once("watch", drawer.draw)) for _ in range(50)]
    await _settle()
    assert drawer.started == 1  # the next drawing waits for the running one to end
    drawer.go.set()
    assert await first == "drawing 1"
    assert set(await asyncio.gather(*later)) == {"drawing 2"}
    assert drawer.started == 2


async def test_other_keys_are_drawn_on_their_own() -> None:
    drawer = Drawer()
    tasks = [asyncio.create_task(shared_draw.draw_once(key, drawer.draw)) for key in ("watch", "seat 1", "watch")]
    await _settle()
    drawer.go.set()
    results = await asyncio.gather(*tasks)
    assert results[0] == results[2] != results[1]
    assert drawer.started == 2


async def test_a_failed_drawing_fails_its_callers_and_the_next_caller_gets_a_new_one() -> None:
    drawer = Drawer()
    drawer.fail = True
    tasks = [asyncio.create_task(shared_draw.draw_once("watch", drawer.draw)) for _ in range(3)]
    await _settle()
    drawer.go.set()
    for task in tasks:
        with pytest.raises(RuntimeError, match="drawing 1 failed"):
            await task
    drawer.fail = False
    assert await shared_draw.draw_once("watch", drawer.draw) == "drawing 2"


async def test_a_caller_that_goes_away_leaves_the_drawing_to_the_others() -> None:
    drawer = Drawer()
    gone, staying = (asyncio.create_task(shared_draw.draw_once("watch", drawer.draw)) for _ in range(2))
    await _settle()
    gone.cancel()
    await _settle()
    drawer.go.set()
    assert await staying == "drawing 1"
    assert gone.cancelled()
