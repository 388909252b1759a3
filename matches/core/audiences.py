"""Who sees a match: the host, each seat, spectators; their labels and channel-layer groups."""

from __future__ import annotations

from typing import Any

from games.core import HOST, SPECTATOR

AUDIENCE_HOST = "host"
AUDIENCE_WATCH = "watch"


def viewer_label(viewer: int) -> str:
    if viewer == HOST:
        return AUDIENCE_HOST
    if viewer == SPECTATOR:
        return AUDIENCE_WATCH
    return f"seat-{viewer}"


def group_name(match_id: int, viewer: int) -> str:
    """Channel-layer group of one audience (built from ids only, never user input)."""
    return f"match-{int(match_id)}-{viewer_label(viewer)}"


def audiences(match: Any) -> list[int]:
    return [HOST, SPECTATOR, *range(1, match.seat_count + 1)]
