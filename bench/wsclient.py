"""A minimal asyncio websocket client (RFC 6455 text frames) for the benchmarks.

Why not a library: the figures are the server's, so the client that holds
2,000 sockets on the same 2 cores must cost as little as possible per
message; the project's only websocket client dependency (autobahn, via
daphne) validates and buffers much more per frame than this needs.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct


class HandshakeError(Exception):
    pass


class WebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed = False

    @classmethod
    async def connect(cls, host: str, port: int, path: str, timeout: float = 30.0) -> WebSocket:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, limit=2**22), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://{host}:{port}\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        status = head.split(b"\r\n", 1)[0].decode(errors="replace")
        if " 101 " not in status + " ":
            writer.close()
            raise HandshakeError(status)
        return cls(reader, writer)

    async def recv(self) -> str | None:
        """The next text message, or None once the connection is closed."""
        parts: list[bytes] = []
        try:
            while True:
                b1, b2 = await self.reader.readexactly(2)
                length = b2 & 0x7F
                if length == 126:
                    (length,) = struct.unpack(">H", await self.reader.readexactly(2))
                elif length == 127:
                    (length,) = struct.unpack(">Q", await self.reader.readexactly(8))
                mask = await self.reader.readexactly(4) if b2 & 0x80 else b""
                payload = await self.reader.readexactly(length) if length else b""
                if mask:
                    payload = _mask(payload, mask)
                opcode = b1 & 0x0F
                if opcode == 8:
                    self.closed = True
                    return None
                if opcode == 9:
                    self._frame(0xA, payload)
                    continue
                if opcode == 10:
                    continue
                parts.append(payload)
                if b1 & 0x80:
                    return b"".join(parts).decode()
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed = True
            return None

    def send(self, text: str) -> None:
        self._frame(0x1, text.encode())

    def _frame(self, opcode: int, payload: bytes) -> None:
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.writer.write(head + mask + _mask(payload, mask))

    async def close(self) -> None:
        if not self.closed:
            try:
                self._frame(0x8, struct.pack(">H", 1000))
                await self.writer.drain()
            except ConnectionError:
                pass
        self.closed = True
        self.writer.close()


def _mask(data: bytes, mask: bytes) -> bytes:
    if not data:
        return data
    repeat = (mask * (len(data) // 4 + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeat, "big")).to_bytes(len(data), "big")
