"""Whether a seat has a page of its match open, and since when it has none: presence (live)
knows, the clock sweeper (play) asks.  Live provides the answer at start-up
(`apps.MatchesConfig.ready`), as it subscribes to `events`: play never imports live."""

from __future__ import annotations

from collections.abc import Callable

#: (match_id, seat) -> (open sockets or None when unknown, when its last socket closed or None)
Source = Callable[[int, int], tuple[int | None, float | None]]
_source: Source | None = None


#: (match_id, seats) -> when one of them last had a page open (Unix time), or None when unknown
LastSeen = Callable[[int, list[int]], float | None]
_last_seen: LastSeen | None = None


def provide(source: Source, last_seen_source: LastSeen | None = None) -> None:
    global _source, _last_seen
    _source = source
    if last_seen_source is not None:
        _last_seen = last_seen_source


def presence(match_id: int, seat: int) -> tuple[int | None, float | None]:
    """(open sockets, when the last one closed, as a Unix time); (None, None) when unknown."""
    return (None, None) if _source is None else _source(match_id, seat)


def last_seen(match_id: int, seats: list[int]) -> float | None:
    """When one of `seats` last had a page of the match open, as a Unix time (now while one has;
    the time presence began keeping records if none is on record); None when unknown."""
    return None if _last_seen is None else _last_seen(match_id, seats)
