"""bench/gcpause.py: the app's ASGI application, unchanged, with every full (generation 2)
collection and every stall of the event loop of 20 ms or more written to BENCH_GC_LOG, and when
each spectators' update was written to this process's last spectator socket ("wrote", for
bench/fanout_procs.py: when the last process was done, whatever the client's own speed).
Bench only: production routing (config/asgi.py) is untouched."""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

from config.asgi import application as app  # sets Django up (and the GC policy of the web process)
from matches.live import relay

_out = open(os.environ["BENCH_GC_LOG"], "a", buffering=1)  # noqa: SIM115 (open for the process's life)
_started: list[float] = []
_probe: asyncio.Task[None] | None = None


def _collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started.append(time.perf_counter())
    elif _started:
        took = time.perf_counter() - _started.pop()
        if info.get("generation") == 2:
            _out.write(f"gc2 {time.time():.3f} {took * 1000:.1f} collected={info.get('collected')} "
                       f"frozen={gc.get_freeze_count()}\n")


gc.callbacks.append(_collection)


async def _stalls() -> None:
    """How late the loop wakes a task that sleeps 10 ms: the longest time it served nothing."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(0.01)
        late = time.perf_counter() - started - 0.01
        if late >= 0.02:
            _out.write(f"stall {time.time():.3f} {late * 1000:.1f}\n")


_write_drawing = relay.Relay.write_drawing


async def _timed_update(self: relay.Relay, group: str, drawing: dict[str, Any]) -> None:
    await _write_drawing(self, group, drawing)
    if group.endswith("-watch") and self.sockets.get(group):
        _out.write(f"wrote {time.time():.6f} {drawing.get('version')} {len(self.sockets[group])}\n")


relay.Relay.write_drawing = _timed_update  # type: ignore[method-assign]


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    global _probe
    if _probe is None:
        _probe = asyncio.get_running_loop().create_task(_stalls())
    await app(scope, receive, send)
