"""Channels' websocket test client as these tests use it: the app's sockets send text frames only.

`Communicator.receive_from` returns `str` (channels types it `str | bytes`, for binary frames that
no consumer here sends) and fails on a binary frame.  The constructor takes any ASGI callable:
config.drain types its wrapped application over any `MutableMapping` scope, which channels' stubs
do not take where they expect asgiref's `TypedDict` scopes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from channels.testing import WebsocketCommunicator


class Communicator(WebsocketCommunicator):
    def __init__(self, application: Callable[..., Awaitable[Any]], path: str,
                 headers: Iterable[tuple[bytes, bytes]] | None = None,
                 subprotocols: Iterable[str] | None = None) -> None:
        super().__init__(application, path, headers=headers, subprotocols=subprotocols)

    async def connect(self, timeout: float = 10) -> tuple[bool, int | str | None]:
        """channels' default of 1 s raced the handshake on a loaded 2-core CI machine (a six-seat
        match's eighth socket timed out once): a handshake is waited for, not timed."""
        return await super().connect(timeout)

    async def receive_from(self, timeout: float = 10) -> str:
        """A frame, waited for up to 10 s (channels' 1 s, as for the handshake above, times a frame
        instead of waiting for it)."""
        data = await super().receive_from(timeout)
        assert isinstance(data, str), f"a binary frame: {data[:200]!r}"
        return data
