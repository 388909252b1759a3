"""The network lag the server measured on each seat's socket, shared by every web process.

A seat's page pings its socket (`{"type": "ping"}`), the server answers with a pong and the page
acknowledges it at once: the server times pong -> ack itself (web/consumers.py), so the round
trip stored here is the server's own measure, not the page's word.  A page can only make it
longer (by answering late), and what that buys is capped by the quota (play/lag.py).

Kept in Django's cache (Redis with REDIS_URL, so a move posted to another process finds it; this
process's memory otherwise, which is then the only process).  A cache that does not answer
makes the lag unknown, which compensates nothing beyond the margin: a move is never refused for it.
"""

from __future__ import annotations

import logging
import math

from django.core.cache import cache

log = logging.getLogger(__name__)

#: a measure older than this says nothing about the network now
TTL = 600
#: longer round trips are not a network we compensate for (and not worth storing)
MAX_ROUND_TRIP = 10.0


def _key(match_id: int, seat: int) -> str:
    return f"deathmatch:netlag:{int(match_id)}:{int(seat)}"


def clean(round_trip: float) -> float | None:
    """A measured round trip as it is kept (seconds, at most MAX_ROUND_TRIP), None if it is no measure."""
    if not math.isfinite(round_trip) or round_trip < 0:
        return None
    return min(round_trip, MAX_ROUND_TRIP)


def record(match_id: int, seat: int, round_trip: float) -> None:
    """Store the latest round trip (seconds) measured on seat `seat`'s socket."""
    kept = clean(round_trip)
    if kept is None:
        return
    try:
        cache.set(_key(match_id, seat), kept, TTL)
    except Exception as error:  # Redis away: the lag is unknown until the next ping
        log.info("network lag of a seat not stored: %s", type(error).__name__)


def measured(match_id: int, seat: int) -> float | None:
    """The latest round trip measured on the seat's socket, or None."""
    try:
        value = cache.get(_key(match_id, seat))
    except Exception as error:
        log.info("network lag of a seat unknown: %s", type(error).__name__)
        return None
    return float(value) if isinstance(value, (int, float)) else None
