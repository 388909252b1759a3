"""Discord signs every interaction it posts: Ed25519 over the X-Signature-Timestamp header followed by
the raw body, with the application's key pair; the public key (hex) is DISCORD_PUBLIC_KEY.  A post
that is not signed so, or whose timestamp is more than `MAX_AGE` seconds away from now (a recorded
interaction played again later), is not from Discord and changes nothing."""

from __future__ import annotations

import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

#: seconds a signed interaction stays acceptable (either way: a clock ahead is as suspect as behind)
MAX_AGE = 300


def valid(public_key_hex: str, signature_hex: str, timestamp: str, body: bytes, now: float | None = None) -> bool:
    """True when `signature_hex` signs `timestamp + body` with the key and the timestamp is recent."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
        signature = bytes.fromhex(signature_hex)
        stamp = int(timestamp)
    except ValueError:  # not hex, not 32 bytes, not a whole number of seconds
        return False
    if abs((time.time() if now is None else now) - stamp) > MAX_AGE:
        return False
    try:
        key.verify(signature, timestamp.encode("ascii") + body)
    except (InvalidSignature, UnicodeEncodeError):
        return False
    return True
