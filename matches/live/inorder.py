"""A match's updates reach this process's sockets in the order of their versions.

Each web process draws the changes it commits (fanout.py), so version v of a match may be drawn on
one process and v+1 on another, and the two reach a third through Redis in either order: v+1 drawn
quickly could overtake v (the page dropped v, older than what it showed, and a delta made from v
found a page still on v-1 and refetched).  The relay (relay.py) hands every update of a match to
`InOrder` first, per audience group:

- a delta made from the version the group was last given goes out at once, and so does any update
  held behind it that now follows; so does a whole update (it applies to any page: one that
  overtook the version before makes that one stale);
- a delta made from a version the group has not been given yet is held until that version arrives,
  at most `HOLD` seconds; then the held updates go out in version order (a page refetches what does
  not follow: static/js/live.js);
- one older than what the group was given is dropped (every page of the group shows a later state;
  a page that connected since was sent its state on connect, drawn from the database later still),
  and so is a second delta of the same version (two processes drew it).

Messages without a version (a chat line, the host's presence box) are not ordered.  Time is passed
in (the relay's loop clock), so the rules are tested without waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: seconds an update waits for the version before it (drawn and relayed by another process)
HOLD = 1.0


@dataclass(frozen=True)
class Update:
    bout: int
    version: int
    base: int | None  # the version a delta applies to; None: whole
    html: str

    @classmethod
    def of(cls, message: dict[str, Any]) -> Update | None:
        """The update a relayed message carries, None when it has no version (not ordered)."""
        if not isinstance(message.get("version"), int) or not isinstance(message.get("bout"), int):
            return None
        base = message.get("base")
        return cls(message["bout"], message["version"], base if isinstance(base, int) else None,
                   str(message.get("html", "")))

    def follows(self, bout: int, version: int) -> bool:
        """It may go out to a group last given `version` of `bout`: a whole update always (it applies
        to any page), a delta once the group has its base (or a later version: made from an older
        base, it is the best that will come)."""
        return self.base is None or self.bout != bout or self.base <= version


@dataclass
class _Held:
    update: Update
    since: float


class InOrder:
    """Per audience group: the version last given, and updates held for the one before them."""

    def __init__(self, hold: float = HOLD) -> None:
        self.hold = hold
        self.given: dict[str, tuple[int, int]] = {}  # group -> (bout, version) last given
        self.held: dict[str, list[_Held]] = {}

    def offer(self, group: str, update: Update, now: float) -> list[str]:
        """What to write to the group's sockets now, in order (the update, and held ones it frees)."""
        given = self.given.get(group)
        if given is None:
            self.given[group] = (update.bout, update.version)
            return [update.html, *self._freed(group)]
        if self._stale(update, given):
            return []
        if update.follows(*given):
            self.given[group] = (update.bout, update.version)
            return [update.html, *self._freed(group)]
        held = self.held.setdefault(group, [])
        held.append(_Held(update, now))
        held.sort(key=lambda h: (h.update.bout, h.update.version))
        return []

    def due(self) -> float | None:
        """When the oldest held update stops waiting (None: nothing held)."""
        return min((h.since + self.hold for held in self.held.values() for h in held), default=None)

    def expire(self, now: float) -> list[tuple[str, str]]:
        """[(group, html)] of every group with an update held `hold` seconds: its held updates go out
        in version order (a page refetches what does not follow the version it shows)."""
        out = []
        for group in [g for g, held in self.held.items() if any(now >= h.since + self.hold for h in held)]:
            for held in self.held.pop(group):
                given = self.given.get(group)
                if given is None or not self._stale(held.update, given):
                    self.given[group] = (held.update.bout, held.update.version)
                    out.append((group, held.update.html))
        return out

    def forget(self, group: str | None = None) -> None:
        """The group has no socket here any more (None: every group, the layer came back after an
        outage and every page resyncs): what it was given no longer says what its pages show."""
        if group is None:
            self.given.clear()
            self.held.clear()
        else:
            self.given.pop(group, None)
            self.held.pop(group, None)

    def _freed(self, group: str) -> list[str]:
        out = []
        held = self.held.get(group, [])
        progress = True
        while held and progress:
            progress = False
            for entry in list(held):
                given = self.given[group]
                if self._stale(entry.update, given):
                    held.remove(entry)
                elif entry.update.follows(*given):
                    held.remove(entry)
                    self.given[group] = (entry.update.bout, entry.update.version)
                    out.append(entry.update.html)
                    progress = True
                    break
        if not held:
            self.held.pop(group, None)
        return out

    @staticmethod
    def _stale(update: Update, given: tuple[int, int]) -> bool:
        """Older than what the group was given, or a second delta of the same version."""
        bout, version = given
        if update.bout != bout:
            return update.bout < bout
        return update.version < version or (update.version == version and update.base is not None)
