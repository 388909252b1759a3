"""Presence: how many sockets each audience of a match has open.

One counter per audience and match in Django's cache (`cache.incr` is atomic
in Redis and in the local-memory cache).  With several web processes the
cache must be shared: settings use Redis for the cache whenever REDIS_URL is
set.  The host dashboard shows the counts; `live` renders updates only for
audiences that have a socket open (`open_audiences`).
"""

from __future__ import annotations

import logging
from typing import Any

from channels.layers import get_channel_layer
from django.core.cache import cache

from games.core import HOST

from .audiences import group_name

log = logging.getLogger(__name__)

#: Counters never expire: a socket may stay open for days, and an audience whose counter is
#: missing would look empty.  (One small key per audience and match.)
PRESENCE_TTL = None


KNOWN_KEY = "deathmatch:presence:known"


def known_key(match_id: int | None = None) -> str:
    """Set when any socket arrived (any match): while it exists the counters are complete and a
    missing counter means "nobody"; a Redis restart loses it, and presence is unknown again."""
    return KNOWN_KEY


def presence_key(match_id: int, audience: str) -> str:
    return f"deathmatch:presence:{int(match_id)}:{audience}"


def presence(match: Any, seats: list[Any] | None = None) -> list[dict[str, Any]]:
    """Open connections per audience, for the host dashboard."""
    names = {s.number: s.name for s in (seats if seats is not None else match.seats.all())}
    rows = [("host", "Host"), ("watch", "Spectators")]
    rows += [(f"seat-{n}", f"{names[n]} (seat {n})") for n in sorted(names)]
    counts = cache.get_many([presence_key(match.id, a) for a, _ in rows])
    return [{"audience": a, "label": label, "count": max(0, int(counts.get(presence_key(match.id, a), 0)))}
            for a, label in rows]


def open_audiences(match_id: int, labels: list[str]) -> set[str] | None:
    """The audiences (of `labels`) that may have a socket open; None when unknown.

    An audience is left out when its counter is 0 or less, or missing while
    the `known` marker exists (nobody of that audience ever arrived).
    When the marker is missing too (the cache was emptied: Redis restarted)
    or the cache fails, presence is unknown and every audience is rendered
    (an update too many is harmless, one missing is not)."""
    keys = {presence_key(match_id, label): label for label in labels}
    try:
        counts = cache.get_many([*keys, known_key(match_id)])
    except Exception:
        log.warning("presence unknown for match %s (cache error); rendering every audience", match_id)
        return None
    if known_key(match_id) not in counts:
        return None
    return {label for key, label in keys.items() if int(counts.get(key, 0)) > 0}


async def arrive(match_id: int, audience: str) -> None:
    key = presence_key(match_id, audience)
    await cache.aadd(key, 0, PRESENCE_TTL)
    await cache.aset(known_key(match_id), 1, PRESENCE_TTL)
    try:
        await cache.aincr(key)
    except ValueError:  # expired between add and incr
        await cache.aset(key, 1, PRESENCE_TTL)
    await _push_presence(match_id)


async def leave(match_id: int, audience: str) -> None:
    key = presence_key(match_id, audience)
    try:
        if await cache.adecr(key) < 0:
            await cache.aset(key, 0, PRESENCE_TTL)
    except ValueError:
        pass
    await _push_presence(match_id)


async def _push_presence(match_id: int) -> None:
    from asgiref.sync import sync_to_async

    layer = get_channel_layer()
    if layer is None:
        return
    html = await sync_to_async(_presence_html)(match_id)
    if html:
        await layer.group_send(group_name(match_id, HOST), {"type": "presence.update", "html": html})


def _presence_html(match_id: int) -> str:
    from django.template.loader import render_to_string

    from .models import Match

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return ""
    return render_to_string("matches/partials/presence.html", {"presence": presence(match), "oob": True})
