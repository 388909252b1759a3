"""The Redis channel layer: channels_redis's pub/sub layer, with what a Redis outage needs.

`RedisPubSubChannelLayer` sends a group message as one PUBLISH, which each web process hands to its
own channels (one, the relay's: matches/live/relay.py), and redis-py subscribes its connection to
every channel and group again when it reconnects, so a restarted Redis loses no membership.  This
wrapper calls that layer's public methods only and adds:

- bounded calls: past `timeout` seconds a call raises LayerUnavailable; after a failure the calls
  of that group (of every group with one Redis server) fail at once for `retry_after` seconds;
- a watcher per event loop that asks each server for its run_id every `check_every` seconds; when
  one answers again (or with a new run_id: it restarted), the memberships changed meanwhile are
  done again and each local channel is sent `RECOVERED` (each round until it arrives), which the
  relay turns into a resync of every page.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer
from redis import asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger("deathmatch.redis")

#: what a Redis outage raises: refused/reset connections, read timeouts, our own time limits
REDIS_ERRORS = (RedisError, OSError, asyncio.TimeoutError)
RECOVERED = {"type": "layer.recovered"}


class LayerUnavailable(Exception):
    """Redis did not answer (or has just failed and is not asked again yet)."""


def raise_if_cancelled() -> None:
    """redis-py loses a cancellation that lands as its reply arrives (the call returns the reply):
    the task is still being cancelled, so it is raised here (a consumer torn down, the watcher at a
    loop's end, which otherwise ran for ever)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


@dataclass
class _Loop:
    """One event loop's view of Redis (redis-py's connections belong to the loop that made them)."""

    clients: list[aioredis.Redis]
    channels: set[str] = field(default_factory=set)  # made here and not yet given up
    members: dict[str, set[str]] = field(default_factory=dict)  # group -> local channels asked in
    unsure: dict[str, set[str]] = field(default_factory=dict)  # group -> channels added/discarded lately
    failed: dict[str, float] = field(default_factory=dict)  # group ("" for every group) -> when
    down: set[int] = field(default_factory=set)  # servers that did not answer the watcher
    run_ids: dict[int, str] = field(default_factory=dict)
    unheard: set[str] = field(default_factory=set)  # channels sent RECOVERED that did not get it yet
    watcher: asyncio.Task[None] | None = None


class ResilientRedisChannelLayer:
    extensions = ["groups", "flush"]

    def __init__(self, *, hosts: list[Any], timeout: float = 2.0, retry_after: float = 1.0,
                 check_every: float = 1.0, **kwargs: Any) -> None:
        self.layer = RedisPubSubChannelLayer(hosts=hosts, **kwargs)
        self.hosts = [host if isinstance(host, dict) else {"address": host} for host in hosts]
        self.timeout, self.retry_after, self.check_every = float(timeout), float(retry_after), float(check_every)
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Loop] = weakref.WeakKeyDictionary()

    def _loop(self) -> _Loop:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _Loop([aioredis.Redis.from_url(
                h["address"], socket_timeout=self.timeout,
                socket_connect_timeout=h.get("socket_connect_timeout", self.timeout)) for h in self.hosts])
        if state.watcher is None or state.watcher.done():  # an idle process must notice Redis is back
            state.watcher = loop.create_task(self._watch(state))
        return state

    @property
    def _queued(self) -> float:
        """The limit of a subscription: sockets connecting in a burst queue theirs one by one behind a
        server's lock, and a handshake refused for that is not a Redis outage."""
        return 5 * self.timeout

    @property
    def healthy(self) -> bool:
        try:
            state = self._loop()
        except RuntimeError:
            return True
        return not state.down and not state.failed

    async def _bounded(self, state: _Loop, group: str, call: Any, limit: float = 0.0) -> Any:
        key = group if len(self.hosts) > 1 else ""  # one server: its failure is every group's
        failed = state.failed.get(key)
        if failed is not None and time.monotonic() - failed < self.retry_after:
            call.close()  # a frozen Redis cost every call the full timeout: a move's audiences in turn
            raise LayerUnavailable(f"skipped: Redis failed less than {self.retry_after} s ago")
        try:
            async with asyncio.timeout(limit or self.timeout):  # a frozen Redis (SIGSTOP) must not hang a call
                result = await call
            raise_if_cancelled()
        except REDIS_ERRORS as error:
            raise_if_cancelled()
            if not state.failed:
                log.warning("Redis channel layer unavailable (%s); live updates paused", type(error).__name__)
            state.failed[key] = time.monotonic()
            raise LayerUnavailable(f"Redis failed: {type(error).__name__}") from error
        return result

    async def new_channel(self, prefix: str = "specific.") -> str:
        state = self._loop()
        channel: str = await self._bounded(state, "", self.layer.new_channel(prefix), self._queued)
        state.channels.add(channel)
        return channel

    async def receive(self, channel: str) -> dict[str, Any]:
        state = self._loop()
        try:  # (a plain queue: an outage does not end it, so sockets are not closed with 1011)
            message: dict[str, Any] = await self.layer.receive(channel)
        except asyncio.CancelledError:
            state.channels.discard(channel)
            raise
        if message.get("type") == RECOVERED["type"]:
            state.unheard.discard(channel)
        return message

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self._bounded(self._loop(), channel, self.layer.send(channel, message))

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self._bounded(self._loop(), group, self.layer.group_send(group, message))

    async def group_add(self, group: str, channel: str) -> None:
        state = self._loop()
        state.members.setdefault(group, set()).add(channel)
        await self._membership(state, group, channel, self.layer.group_add(group, channel))

    async def group_discard(self, group: str, channel: str) -> None:
        state = self._loop()
        members = state.members.get(group)
        if members is not None:
            members.discard(channel)
            if not members:
                del state.members[group]
        await self._membership(state, group, channel, self.layer.group_discard(group, channel))

    async def _membership(self, state: _Loop, group: str, channel: str, call: Any) -> None:
        # a SUBSCRIBE or UNSUBSCRIBE written as Redis dies raises nothing and is lost (redis-py then
        # resubscribes a group left): every change since the watcher last saw Redis up is redone
        state.unsure.setdefault(group, set()).add(channel)
        await self._bounded(state, group, call, self._queued)

    async def flush(self) -> None:
        await self.layer.flush()

    async def _watch(self, state: _Loop) -> None:
        while True:
            await asyncio.sleep(self.check_every)
            raise_if_cancelled()  # (one lost in the round before)
            back = False
            for index, client in enumerate(state.clients):
                try:
                    async with asyncio.timeout(self.timeout):
                        run_id = str((await client.info("server")).get("run_id", ""))
                except REDIS_ERRORS as error:
                    if index not in state.down:
                        log.warning("Redis server %d of %d does not answer (%s)", index + 1, len(state.clients),
                                    type(error).__name__)
                    state.down.add(index)
                    continue
                # a restart between two rounds is seen by its new run_id (it lost what it held)
                back = back or index in state.down or state.run_ids.setdefault(index, run_id) != run_id
                state.run_ids[index] = run_id
                state.down.discard(index)
            if state.down:
                continue
            if back or state.failed:
                state.failed.clear()
                await self._recover(state)
            else:
                state.unsure.clear()
            if state.unheard:  # a RECOVERED published before the subscription was back is lost
                await self._tell(state)

    async def _recover(self, state: _Loop) -> None:
        """Memberships changed during the outage are done again: adding then discarding puts the layer
        and the connection back in step (a discard that timed out may still land), then the wanted
        ones are added; every local page is then resynced (updates were missed)."""
        log.warning("Redis channel layer back: %d groups redone, %d channels resync", len(state.unsure),
                    len(state.channels))
        unsure, state.unsure = state.unsure, {}
        try:
            for group, channels in unsure.items():
                for channel in channels & state.channels:  # (the layer refuses a channel given up)
                    await self.layer.group_add(group, channel)
                    await self.layer.group_discard(group, channel)
                for channel in state.members.get(group, set()) & state.channels:
                    await self.layer.group_add(group, channel)
        except REDIS_ERRORS as error:
            log.warning("Redis channel layer: redoing memberships failed (%s)", type(error).__name__)
            for group, channels in unsure.items():
                state.unsure.setdefault(group, set()).update(channels)
            state.failed[""] = time.monotonic()
            return
        state.unheard = set(state.channels)
        await self._tell(state)

    async def _tell(self, state: _Loop) -> None:
        for channel in list(state.unheard & state.channels):
            try:
                async with asyncio.timeout(self.timeout):
                    await self.layer.send(channel, dict(RECOVERED))
            except REDIS_ERRORS:
                pass  # sent again next round
        state.unheard &= state.channels
