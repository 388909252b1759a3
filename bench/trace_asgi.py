"""bench/fanout.py --trace: the app's ASGI application with timestamps at each step of a move's
live path, written to BENCH_TRACE (one line per event: name, perf_counter).  Bench only."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.fanout_asgi import application  # noqa: F401  (sets Django up; what daphne serves)
from matches.live import drawing, fanout, relay
from matches.play import services
from matches.web import consumers

_out = open(os.environ["BENCH_TRACE"], "a", buffering=1)  # noqa: SIM115 (open for the process's life)
_lock = threading.Lock()


def mark(name: str) -> None:
    with _lock:
        _out.write(f"{name} {time.perf_counter():.6f}\n")


def _wrap_async(owner: Any, name: str, before: str, after: str | None = None) -> None:
    real = getattr(owner, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        mark(before)
        try:
            return await real(*args, **kwargs)
        finally:
            if after:
                mark(after)

    setattr(owner, name, wrapped)


def _wrap_sync(owner: Any, name: str, before: str, after: str | None = None) -> None:
    real = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        mark(before)
        try:
            return real(*args, **kwargs)
        finally:
            if after:
                mark(after)

    setattr(owner, name, wrapped)


_wrap_async(consumers.MatchConsumer, "receive", "receive", "replied")
_wrap_sync(services, "submit", "submit", "committed")
_wrap_sync(drawing, "prepare", "prepare", "prepared")
_real_send = fanout._send_drawing


async def _send(group: str, drawn: dict[str, Any]) -> None:
    mark("send:" + group.rsplit("-", 1)[-1])
    try:
        await _real_send(group, drawn)
    finally:
        mark("sent:" + group.rsplit("-", 1)[-1])


fanout._send_drawing = _send
_real_deliver = relay.Relay.deliver


async def deliver(self: relay.Relay, group: str, html: str, between: Callable[[], Awaitable[None]] | None = None) -> None:
    watch = group.endswith("-watch") and not between
    if watch:
        mark("deliver")
    await _real_deliver(self, group, html, between=between)
    if watch:
        mark("delivered*")


# patching the class is what this module is for (mypy's method-assign code is meant to be silenced so)
relay.Relay.deliver = deliver  # type: ignore[method-assign]

from bench import fanout_asgi  # noqa: E402

_wrap_async(fanout_asgi.BareConsumer, "receive", "bare:receive", "bare:sent")
_real_bare = fanout_asgi.BareConsumer.bare_page


async def bare_page(self: fanout_asgi.BareConsumer, event: dict[str, Any]) -> None:
    mark("bare:deliver")
    await _real_bare(self, event)
    mark("bare:delivered*")


fanout_asgi.BareConsumer.bare_page = bare_page  # type: ignore[method-assign]  # patched on purpose, as Relay.deliver

from channels_redis import pubsub as _pubsub  # noqa: E402

_real_receive_message = _pubsub.RedisSingleShardConnection._receive_message


def _receive_message(self: Any, message: Any) -> None:
    if message is not None:
        mark("layer:received")
    _real_receive_message(self, message)


_pubsub.RedisSingleShardConnection._receive_message = _receive_message

import gc  # noqa: E402

_gc_started: list[float] = []


def _gc_callback(phase: str, info: dict[str, Any]) -> None:
    """Every collection of generations 1 and 2, and of generation 0 when it took 0.5 ms or more."""
    if phase == "start":
        _gc_started.append(time.perf_counter())
    elif _gc_started:
        took = time.perf_counter() - _gc_started.pop()
        generation = info.get("generation")
        if generation or took >= 0.0005:
            mark(f"gc{generation}:{took * 1000:.1f}ms")


gc.callbacks.append(_gc_callback)
