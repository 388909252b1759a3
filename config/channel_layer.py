"""The Redis channel layer, configured for long-lived websockets and for
Redis outages.

channels_redis is used as it is, with four changes that its options do not
offer:

1. **Read timeout vs. blocking read.**  Every consumer process waits for
   messages with a blocking ``BZPOPMIN`` of ``blocking_read`` seconds.
   redis-py 8 gives every connection a 5 s ``socket_timeout`` by default, the
   same as channels_redis's 5 s BZPOPMIN, so an idle consumer died with
   "Timeout reading" every few seconds (django/channels_redis#422).  The
   blocking read is set here, and a socket timeout that is not longer than it
   is refused at start-up.
2. **A pool sized for a process's sockets.**  channels_redis builds a plain
   ``ConnectionPool`` (redis-py caps it at 100 and raises
   ``MaxConnectionsError`` past that: 1,000 sockets connecting at once gave
   893 errors).  This layer uses a ``BlockingConnectionPool``: past
   ``pool_size`` a command waits (up to ``pool_timeout``) for a free
   connection instead of failing.
3. **Bounded calls.**  ``group_send`` gives up after ``send_timeout`` seconds,
   ``group_add``/``group_discard`` after ``group_timeout`` (longer: a burst of
   2,000 sockets arriving or leaving at once queues for pooled connections),
   so a frozen Redis (SIGSTOP) cannot hang a broadcast or a handshake for the
   socket timeout.  After a failure calls are skipped at once for
   ``retry_after`` seconds (then one tries again).
4. **Surviving an outage.**  A consumer's ``receive`` no longer raises when
   Redis is down or frozen (channels would close the socket with 1011): it
   waits and retries.  The layer remembers which groups this process's
   channels belong to; when Redis answers again it adds them back (a
   restarted Redis has lost them) and sends every local channel a
   ``{"type": "layer.recovered"}`` message, so each page resyncs at once.
   (All through the base layer's public calls: it has no hook for this.)

Time limits are ``asyncio.timeout`` blocks, never ``asyncio.wait_for``: on
Python 3.11 ``wait_for`` returns the inner call's result when a cancellation
lands as that call completes, so a consumer torn down while the layer was
recovering kept waiting on Redis for ever (tests/chaos/test_cancelled_receive.py).
redis-py itself writes every command through ``wait_for``, so ``receive``
passes a cancellation on until the wait below it has ended.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
import time
import weakref
from typing import Any

from channels_redis.core import ChannelLock, RedisChannelLayer
from django.core.exceptions import ImproperlyConfigured
from redis import asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger("deathmatch.redis")

#: what a Redis outage raises: refused/reset connections, read timeouts, our own time limits
REDIS_ERRORS = (RedisError, OSError, asyncio.TimeoutError)
RECOVERED = {"type": "layer.recovered"}


async def cancel_until_done(task: asyncio.Future[Any]) -> None:
    """Cancel `task` until it has ended (a cancellation can be lost below it: `receive`).  The
    caller being cancelled meanwhile does not stop this: it re-raises its own cancellation after."""
    while not task.done():
        task.cancel()
        try:
            await asyncio.wait([task], timeout=0.2)
        except asyncio.CancelledError:
            continue


class LayerUnavailable(Exception):
    """Redis did not answer (or has just failed and is not retried yet)."""


class ResilientRedisChannelLayer(RedisChannelLayer):
    def __init__(
        self,
        *,
        blocking_read: float = 5.0,
        pool_size: int = 500,
        pool_timeout: float = 10.0,
        send_timeout: float = 2.0,
        group_timeout: float = 5.0,
        retry_after: float = 1.0,
        check_every: float = 5.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.brpop_timeout = blocking_read
        self.pool_size = int(pool_size)
        self.pool_timeout = float(pool_timeout)
        self.send_timeout = float(send_timeout)
        self.group_timeout = float(group_timeout)
        self.retry_after = float(retry_after)
        self.check_every = float(check_every)
        #: shard -> the run_id of the Redis server answering there (a new one: it restarted, empty)
        self.run_ids: dict[int, str] = {}
        for host in self.hosts:
            read = host.get("socket_timeout", 5.0)  # redis-py 8's default
            if read is not None and float(read) <= blocking_read + 1:
                raise ImproperlyConfigured(
                    f"the Redis socket_timeout ({read} s) must be longer than the channel layer's blocking "
                    f"read ({blocking_read} s) plus a second, or idle websockets are closed")
        #: channel -> groups, for this process's channels (re-added after an outage)
        self.memberships: dict[str, set[str]] = collections.defaultdict(set)
        #: (group, channel) whose discard failed or was skipped: removed when Redis answers again,
        #: or a closed socket's channel would stay a member (and be sent every broadcast) until
        #: the group expires
        self.pending_discards: set[tuple[str, str]] = set()
        #: shard (index in `hosts`) -> its last failure; a shard that answers is not in it.  With
        #: several Redis servers (REDIS_URLS) one that fails costs only what lives on it: the
        #: groups it holds and the channels it carries (channels_redis's consistent hashing)
        self.failed_at: dict[int, float] = {}
        self._recovering: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary())  # one lock per event loop (tests run several)
        self._checkers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary())
        self._watchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary())
        self._receive_loop: weakref.ref[asyncio.AbstractEventLoop] | None = None
        self._recovery: asyncio.Task[bool] | None = None

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:  # sentinel or (host, port): channels_redis's own pool
            return super().create_pool(index)
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(
            address, max_connections=self.pool_size, timeout=self.pool_timeout, **host)

    # -- health ----------------------------------------------------------------------
    @property
    def healthy(self) -> bool:
        return not self.failed_at

    def shard(self, name: str) -> int:
        """The index in `hosts` of the Redis server that holds a group or a channel."""
        if "!" in name:  # a process's channel: its part before "!", as channels_redis hashes it
            name = self.non_local_name(name)
        return int(self.consistent_hash(name))

    def _where(self, index: int) -> str:
        return f" on Redis server {index + 1} of {self.ring_size}" if self.ring_size > 1 else ""

    def _failed(self, what: str, error: BaseException, index: int = 0) -> None:
        if index not in self.failed_at:
            log.warning("Redis channel layer unavailable%s (%s: %s); live updates paused", self._where(index),
                        what, type(error).__name__ + (f": {error}" if str(error) else ""))
        self.failed_at[index] = time.monotonic()
        # try again by itself: an idle process (no message, no broadcast) must notice Redis is back
        loop = asyncio.get_running_loop()
        watcher = self._watchers.get(loop)
        if watcher is None or watcher.done():
            self._watchers[loop] = loop.create_task(self._watch())

    async def _watch(self) -> None:
        while self.failed_at:
            await asyncio.sleep(self.retry_after / 2)
            await self.recover()

    def _skip(self, index: int) -> bool:
        """True while a recent failure of shard `index` says not to try it yet."""
        failed = self.failed_at.get(index)
        return failed is not None and time.monotonic() - failed < self.retry_after

    async def _bounded(self, what: str, call: Any, timeout: float, index: int) -> Any:
        if self._skip(index):
            call.close()
            raise LayerUnavailable(f"{what} skipped: Redis failed less than {self.retry_after} s ago")
        try:
            async with asyncio.timeout(timeout):
                result = await call
        except REDIS_ERRORS as error:
            self._failed(what, error, index)
            raise LayerUnavailable(f"{what} failed: {type(error).__name__}") from error
        if index in self.failed_at:
            self._recovery = asyncio.get_running_loop().create_task(self.recover())
        return result

    # -- groups ------------------------------------------------------------------------
    def _check_restarts(self) -> None:
        """With several Redis servers, a process may not touch one for a long while (its channel
        and the groups it sends to live on others) and so never see it fail: when that server
        comes back empty, this process's memberships there are gone and its pages get nothing
        more from those groups.  Every `check_every` seconds each server's run_id (new at every
        start) is read; a new one is handled as a failure that is over (the groups are added
        again, the pages resync)."""
        if self.ring_size < 2:  # one server: every process reads from it, and notices
            return
        loop = asyncio.get_running_loop()
        checker = self._checkers.get(loop)
        if checker is None or checker.done():
            self._checkers[loop] = loop.create_task(self._check_loop())

    async def _check_loop(self) -> None:
        while True:
            for index in range(self.ring_size):
                if index in self.failed_at:
                    continue
                try:
                    async with asyncio.timeout(self.group_timeout):
                        info = await self.connection(index).info("server")
                except REDIS_ERRORS as error:
                    self._failed("check", error, index)
                    continue
                run_id = str(info.get("run_id", ""))
                known = self.run_ids.setdefault(index, run_id)
                if known != run_id:
                    self.run_ids[index] = run_id
                    log.warning("Redis server %d of %d restarted; its groups are added again", index + 1,
                                self.ring_size)
                    self.failed_at[index] = time.monotonic()
                    await self.recover()
            await asyncio.sleep(self.check_every)

    async def group_add(self, group: str, channel: str) -> None:
        self._check_restarts()
        # remembered first: if Redis is away now, recover() adds it when it is back
        self.memberships[channel].add(group)
        await self._bounded("group_add", super().group_add(group, channel), self.group_timeout, self.shard(group))

    async def group_discard(self, group: str, channel: str) -> None:
        groups = self.memberships.get(channel)
        if groups is not None:
            groups.discard(group)
            if not groups:
                del self.memberships[channel]
        try:
            await self._bounded("group_discard", super().group_discard(group, channel), self.group_timeout,
                                self.shard(group))
        except LayerUnavailable:
            self.pending_discards.add((group, channel))
            raise

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        # (the group's members are read from its shard, each member's message written to the shard of
        # its channel: a failure is put down to the group's)
        await self._bounded("group_send", super().group_send(group, message), self.send_timeout, self.shard(group))

    # -- receiving -------------------------------------------------------------------------
    async def receive(self, channel: str) -> dict[str, Any]:
        """The next message of `channel`.  Cancelling this call ends the wait on Redis: the wait runs
        in a task of its own, cancelled again until it has ended.  redis-py writes each command
        through `asyncio.wait_for`, which on Python 3.11 returns the write's result when a
        cancellation lands as the write completes: the cancellation is lost, and channels_redis's
        receive goes back to its blocking read, an empty one every `blocking_read` seconds, for
        ever.  A socket refused or closed then leaked a task, and an event loop closing waited
        for it (tests/matches/web/test_consumers.py hung in CI; tests/reliability/test_cancelled_wait.py)."""
        waiting = asyncio.ensure_future(self._receive(channel))
        try:
            return await asyncio.shield(waiting)
        except asyncio.CancelledError:
            await cancel_until_done(waiting)
            raise

    async def _receive(self, channel: str) -> dict[str, Any]:
        self._forget_closed_loop()
        delay = 0.2
        while True:
            try:
                message: dict[str, Any] = await super().receive(channel)
            except REDIS_ERRORS as error:
                self._failed("receive", error, self.shard(channel))
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.retry_after)
                await self.recover()
                continue
            if self.failed_at:
                await self.recover()
            return message

    def _forget_closed_loop(self) -> None:
        """A layer outlives its event loop only in tests (one loop per test): the
        per-channel cleanup locks of a closed loop would refuse the next loop."""
        loop = asyncio.get_running_loop()
        previous = self._receive_loop() if self._receive_loop is not None else None
        if previous is not loop:
            if previous is None or previous.is_closed():
                self.receive_clean_locks = ChannelLock()
                self.receive_cleaners: list[asyncio.Future[Any]] = []
            self._receive_loop = weakref.ref(loop)

    async def recover(self) -> bool:
        """After a failure: for each failed shard that answers again, re-add this process's groups
        that live on it, then tell every local channel to resync.  True when every shard is healthy."""
        if not self.failed_at:
            return True
        lock = self._recovering.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with lock:
            back = []
            for index in sorted(self.failed_at):
                try:
                    async with asyncio.timeout(self.group_timeout):
                        await self._rejoin(index)
                except REDIS_ERRORS as error:
                    self.failed_at[index] = time.monotonic()
                    log.debug("Redis%s still unavailable: %s", self._where(index), type(error).__name__)
                    continue
                down = time.monotonic() - self.failed_at.pop(index)
                back.append(index)
                log.warning("Redis channel layer back%s after %.1f s: %d channels rejoined their groups",
                            self._where(index), down, len(self.memberships))
            if back:
                await asyncio.gather(*(self._tell(name, dict(RECOVERED)) for name in list(self.memberships)),
                                     return_exceptions=True)
            return not self.failed_at

    async def _tell(self, channel: str, message: dict[str, Any]) -> None:
        """Send one of this process's channels a message through Redis (the layer's public way to a
        channel).  With several servers not by `send`: channels_redis 4.3 writes a process
        channel's message to the server of the channel's whole name, and reads the channel from
        the server of its part before "!", so half the messages were never read (the pages of a
        process that lost a Redis server did not resync: tests/chaos/test_redis_shards.py).  A
        group of its own, which group_send maps to the server the channel is read from, does."""
        if self.ring_size == 1:
            await self.send(channel, message)
            return
        group = "deathmatch-tell-" + hashlib.sha1(channel.encode()).hexdigest()
        await RedisChannelLayer.group_add(self, group, channel)
        try:
            await RedisChannelLayer.group_send(self, group, message)
        finally:
            await RedisChannelLayer.group_discard(self, group, channel)

    async def _rejoin(self, index: int) -> None:
        """Add this process's channels to their groups on shard `index` again (a restarted Redis has
        lost them) and remove the members whose discard failed there, through the base layer's
        public group calls (it offers no call for many memberships at once; a burst is sent side by
        side)."""
        connection = self.connection(index)
        # idle pooled sockets may still point at the Redis that died: drop them first
        await connection.connection_pool.disconnect(inuse_connections=False)
        await connection.ping()
        # the base layer's calls, not this class's bounded ones (zero-argument super() does not
        # work inside a comprehension)
        leaving = {(group, channel) for group, channel in self.pending_discards if self.shard(group) == index}
        joins = [RedisChannelLayer.group_add(self, group, channel)
                 for channel, groups in self.memberships.items() for group in groups if self.shard(group) == index]
        await asyncio.gather(*joins, *(RedisChannelLayer.group_discard(self, group, channel)
                                       for group, channel in leaving))
        self.pending_discards -= leaving
