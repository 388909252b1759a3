"""What a live update's delta is made from: the parts drawn for the version before, whoever drew it.

Every web process draws the changes it commits (fanout.py), and the proxy spreads a match's moves
over the processes: version v may be committed on one and v+1 on another.  A delta for v+1 made from
what the drawing process itself sent last (v-2, say) applies to no page showing v, and every such page
refetched its fragments (tests/chaos/test_cluster.py counted 2,100 refetches for 10 moves and 300
pages).  So each drawing is kept twice:

- in this process's memory (`_memory`): when the same process drew the version before, which is
  every update of a match played on one process, nothing is read;
- in the Django cache (Redis, shared by every web process): a pointer (watch token, bout, version)
  and the drawing itself, once the drawing's updates have been published (fanout.py: so a delta
  made from it never reaches a relay before its base, and a process killed in between leaves no
  drawing whose updates nobody got).  A process drawing v that did not draw v-1 reads it there, waiting (at most
  `WAIT`) while the pointer still says an older version of the same bout: v-1 committed before v,
  and the process that committed it is drawing it.

When the version before never comes (its process was killed, or took longer than `WAIT`) the update
is whole: it applies to any page.  When changes were merged into one drawing the delta is made from
the newest earlier drawing known.  What a receiving process does
with updates that arrive out of order is inorder.py's.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache

from matches.live import render

log = logging.getLogger(__name__)

#: matches whose last drawing this process keeps in memory
CACHE_MATCHES = 1000
#: seconds a drawing waits for the version before it to be kept by the process drawing it
WAIT = 0.5
#: seconds a drawing stays in the shared cache (a match not moved for longer is drawn whole)
TTL = 3600
_POLL_FIRST, _POLL_MOST = 0.002, 0.02


@dataclass
class Sent:
    """One drawing of a match: what the next update's delta is made from."""

    match_token: str  # the match's watch token: a reused id (a test database) is another match
    bout: int
    version: int
    finished: bool
    log_max_id: int
    log_flagged: int
    log_top: int = 0  # the highest sequence in the log sent
    host_seq: int | None = None  # host actions so far (None: not counted, no host socket)
    panel_key: str | None = None  # what the host panel showed (render.host_panel_key)
    last_move: tuple[int, str] | None = None
    status: str = ""  # the match's
    standing: tuple[dict[int, Any], str] | None = None  # score and bout label (render.shared)
    seats: list[Any] | None = None  # the match's seats (they change only before it starts)
    parts: dict[int, dict[str, render.Drawn]] = field(default_factory=dict)

    @property
    def mark(self) -> tuple[str, int, int]:
        return (self.match_token, self.bout, self.version)


_memory: OrderedDict[int, Sent] = OrderedDict()
_lock = threading.Lock()


def _pointer_key(match_id: int) -> str:
    return f"live-sent:{match_id}"


def _drawing_key(match_id: int) -> str:
    return f"live-sent-parts:{match_id}"


def forget(match_id: int | None = None) -> None:
    """Drop what was drawn (all matches when None: this process's memory): the next update is whole."""
    with _lock:
        if match_id is None:
            _memory.clear()
            return
        _memory.pop(int(match_id), None)
    try:
        cache.delete_many([_pointer_key(match_id), _drawing_key(match_id)])
    except Exception as error:  # the cache away: its copy expires
        log.info("live: drawing of match %s not forgotten in the cache: %r", match_id, error)


def base(match_id: int, token: str, bout: int, version: int, wait: bool = True) -> Sent | None:
    """The drawing to make version `version` of bout `bout` from: the version before, whichever
    process drew it (waiting for it when `wait`).  None (a whole update) when it was committed but
    its drawing never came (its process killed, or slower than `WAIT`): a delta from an older version
    would make every page showing the version before refetch, a whole update applies to any page.
    Without waiting (changes merged into one drawing: the version before may be one of them, drawn
    by nobody), the newest earlier drawing of the bout known; when nothing of the bout is kept in the
    cache, whatever this process drew last (fanout decides whether it can be a delta)."""
    with _lock:
        mine = _memory.get(int(match_id))
    if mine is not None and mine.mark == (token, bout, version - 1):
        return mine  # one process drawing a match's changes one after another: nothing read
    pointer = _pointer(match_id, token, bout, version, wait)
    if pointer is None:
        return mine
    kept, nobody = pointer
    if kept < version - 1 and wait:
        return None
    known = mine if mine is not None and mine.mark[:2] == (token, bout) and mine.version < version else None
    if kept < version and (known is None or kept > known.version):
        if nobody:  # drawn for nobody (no page was open then): no base
            return None
        shared = _read(_drawing_key(match_id))
        if isinstance(shared, Sent) and shared.mark == (token, bout, kept):
            return shared
    return known


def _pointer(match_id: int, token: str, bout: int, version: int, wait: bool) -> tuple[int, bool] | None:
    """(version, drawn for nobody) of the newest drawing of this bout in the cache; while it is older
    than the version before `version` and `wait`, read again until `WAIT` has passed."""
    deadline = time.monotonic() + WAIT
    pause = _POLL_FIRST
    while True:
        found = _read(_pointer_key(match_id))
        if not (isinstance(found, tuple) and len(found) == 4 and tuple(found[:2]) == (token, bout)):
            return None  # nothing kept of this bout: no process drew it lately
        if not wait or found[2] >= version - 1 or time.monotonic() >= deadline:
            return int(found[2]), bool(found[3])
        time.sleep(pause)  # the process that committed the version before is drawing it
        pause = min(pause * 2, _POLL_MOST)


def keep(match_id: int, now: Sent) -> None:
    """Remember a drawing here and share it with the other processes."""
    remember(match_id, now)
    share(match_id, now)


def remember(match_id: int, now: Sent) -> None:
    """Remember a drawing in this process (the base of its next delta of the match)."""
    match_id = int(match_id)
    with _lock:
        _memory[match_id] = now
        _memory.move_to_end(match_id)
        while len(_memory) > CACHE_MATCHES:
            _memory.popitem(last=False)


def share(match_id: int, now: Sent) -> None:
    """Keep a drawing in the cache for the other processes (unless it holds a newer one of the bout).
    fanout shares it once its updates have been published: a process that makes the next delta from
    it never sends one that reaches a page before its base."""
    _share(int(match_id), now.mark, now)


def drawn_for_nobody(match_id: int, token: str, bout: int, version: int) -> None:
    """No page of the match was open at this version: the next drawing is whole, and waits for nothing."""
    with _lock:
        _memory.pop(int(match_id), None)
    _share(int(match_id), (token, bout, version), None)


def _share(match_id: int, mark: tuple[str, int, int], drawing: Sent | None) -> None:
    found = _read(_pointer_key(match_id))
    if isinstance(found, tuple) and len(found) == 4 and tuple(found[:2]) == mark[:2] and found[2] > mark[2]:
        return  # a later version is kept already (this drawing was slow): keep that one
    values: dict[str, Any] = {_pointer_key(match_id): (*mark, drawing is None)}
    if drawing is not None:
        values[_drawing_key(match_id)] = drawing
    try:
        cache.set_many(values, timeout=TTL)
    except Exception as error:  # the cache away: other processes' next deltas are made otherwise
        log.info("live: drawing of match %s not shared: %r", match_id, error)


def _read(key: str) -> Any:
    try:
        return cache.get(key)
    except Exception as error:  # the cache away: as if nothing were kept
        log.info("live: %s not read: %r", key, error)
        return None
