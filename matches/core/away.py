"""Whether a seat has a page of its match open, and since when it has none: presence (live)
knows, the clock sweeper (play) asks.  Live provides the answer at start-up
(`apps.MatchesConfig.ready`), as it subscribes to `events`: play never imports live."""

from __future__ import annotations

from collections.abc import Callable

#: (match_id, seat) -> (open sockets or None when unknown, when its last socket closed or None)
Source = Callable[[int, int], tuple[int | None, float | None]]
_source: Source | None = None


def provide(source: Source) -> None:
    global _source
    _source = source


def presence(match_id: int, seat: int) -> tuple[int | None, float | None]:
    """(open sockets, when the last one closed, as a Unix time); (None, None) when unknown."""
    return (None, None) if _source is None else _source(match_id, seat)
