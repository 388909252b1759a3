"""Live updates: render once per audience, fan out through the channel layer.

`notify(match_id)` is called by services after commit.  It renders the
fragments of each audience (host, each seat, spectators) ONCE and sends them
to that audience's group; every connection of the group gets the same text.

Presence ("who is connected") is in matches/presence.py.  When Redis is down
or frozen the broadcast is skipped (the channel layer gives up within its
`op_timeout`) and logged; pages resync when Redis answers again.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from config.channel_layer import LayerUnavailable

from . import render
from .presence import rows as presence  # noqa: F401  (the host dashboard's presence box)

log = logging.getLogger(__name__)

UPDATE_TYPE = "match.update"


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
        except LayerUnavailable as error:  # Redis down or frozen: skip, pages resync when it is back
            log.warning("live update of match %s skipped: %s", match_id, error)
            return
        except Exception:  # a broken broadcast must never undo a committed move
            log.exception("live update of match %s for %s failed", match_id, viewer)
