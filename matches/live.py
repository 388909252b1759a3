"""Live updates: render once per audience, fan out through the channel layer.

`notify(match_id)` is called by services after commit.  It renders the
fragments of each audience (host, each seat, spectators) ONCE and sends them
to that audience's group; every connection of the group gets the same text.

Presence ("who is connected") lives in Django's cache as one counter per
audience and match (`cache.incr` is atomic in Redis and in the local-memory
cache).  With several web processes the cache must be shared: settings use
Redis for the cache whenever REDIS_URL is set.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import cache

from games.core import HOST

from . import render

log = logging.getLogger(__name__)

PRESENCE_TTL = 24 * 3600
UPDATE_TYPE = "match.update"


def presence_key(match_id: int, audience: str) -> str:
    return f"deathmatch:presence:{int(match_id)}:{audience}"


def message(match: Any, viewer: int, snapshot: dict[str, Any]) -> dict[str, Any]:
    bout = snapshot["bout"]
    return {
        "type": UPDATE_TYPE,
        "bout": bout.number if bout is not None else 0,
        "version": bout.version if bout is not None else 0,
        "html": render.fragments(match, viewer, snapshot),
    }


def notify(match_id: int) -> None:
    """Push the current state of a match to every audience (sync; after commit)."""
    from .models import Match

    layer = get_channel_layer()
    if layer is None:
        return
    try:
        match = Match.objects.get(pk=match_id)
    except Match.DoesNotExist:
        return
    snapshot = render.shared(match)  # read the database once for every audience
    for viewer in render.audiences(match):
        try:
            async_to_sync(layer.group_send)(render.group_name(match.id, viewer), message(match, viewer, snapshot))
        except Exception:  # a broken broadcast must never undo a committed move
            log.exception("live update of match %s for %s failed", match_id, viewer)


def presence(match: Any) -> list[dict[str, Any]]:
    """Open connections per audience, for the host dashboard."""
    names = {s.number: s.name for s in match.seats.all()}
    rows = [("host", "Host"), ("watch", "Spectators")]
    rows += [(f"seat-{n}", f"{names[n]} (seat {n})") for n in sorted(names)]
    counts = cache.get_many([presence_key(match.id, a) for a, _ in rows])
    return [{"audience": a, "label": label, "count": max(0, int(counts.get(presence_key(match.id, a), 0)))}
            for a, label in rows]


async def arrive(match_id: int, audience: str) -> None:
    key = presence_key(match_id, audience)
    await cache.aadd(key, 0, PRESENCE_TTL)
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
        await layer.group_send(render.group_name(match_id, HOST), {"type": "presence.update", "html": html})


def _presence_html(match_id: int) -> str:
    from django.template.loader import render_to_string

    from .models import Match

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return ""
    return render_to_string("matches/partials/presence.html", {"presence": presence(match), "oob": True})
