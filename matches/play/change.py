"""One wrapper for every change of a match (Zulip's `do_*` actions, each one transaction ended by
`send_event_on_commit`): `with change(match, ...) as c:` and the body says only what it changes.

The wrapper opens the transaction, locks the match row then its current bout (`engine.lock`),
checks what the caller asks for, always in this order (a refusal raises and nothing changes):

1. `bout=RUNNING`: the current bout is in play (`engine.require_running_bout`); `bout=STARTED`:
   the match has a bout at all;
2. `seat`: the match has that seat (`engine.require_seat`; `c.seat` is its number);
3. `playing=True`: the clocks are not paused (a seat's move);
4. `expected`: the version the client acted on (`engine.check_version`, or in sealed rounds
   `engine.check_sealed_version` for the seat): a stale or doubled submit is refused, never applied
   twice.  `...` (the default): no version to check.

When the body ends the change is announced once, when the transaction commits (`engine.notify`;
`c.move(entry)` makes it a move's event, which carries what the move wrote).  A change made
inside another change of the same match (the host accepting a takeback runs `undo`) is part of
the outer one and announced with it.  `c.refuse_after_commit(error)`: keep what was done, then
refuse (a move that arrived after its time ran out: the time-out stands); `c.unchanged()`: nothing
to do after all, nothing announced."""

from __future__ import annotations

import contextlib
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from types import EllipsisType
from typing import Any

from django.db import transaction
from django.utils import timezone

from matches.core import events
from matches.core.errors import NotAllowed, ServiceError
from matches.models import Bout, Match, TurnLog
from matches.play import engine

RUNNING = "running"
STARTED = "started"

_open = threading.local()  # the changes this thread is inside: how many, and of which matches


@dataclass(eq=False)
class Change:
    """The locked match and current bout, the moment of the change, and the checked seat."""

    match: Match
    bout: Bout | None
    now: datetime
    seat: int = 0
    moved: TurnLog | None = None
    refusal: ServiceError | None = field(default=None, repr=False)
    quiet: bool = False
    alerts: bool = False

    @property
    def running(self) -> Bout:
        """The bout, for a change made with `bout=RUNNING` or `bout=STARTED`."""
        assert self.bout is not None
        return self.bout

    def note(self, text: str, *, kind: str = TurnLog.HOST_NOTE, bout: Bout | None = None) -> TurnLog:
        """A match event in the log, on the current bout (or `bout`)."""
        return engine.note(self.match, bout or self.bout, text, self.now, kind=kind)

    def move(self, entry: TurnLog) -> None:
        """The change is this move: its event carries the match, bout, log row and clocks as saved."""
        self.moved = entry

    def unchanged(self) -> bool:
        """Nothing to do after all (found so under the lock, e.g. another sweeper did it): nothing
        is announced.  False, for `return c.unchanged()`."""
        self.quiet = True
        return False

    def alert_host(self) -> None:
        """Draw the host's presence box again too (`events.publish_alerts`), after the change's event."""
        self.alerts = True

    def refuse_after_commit(self, error: ServiceError) -> None:
        """Commit what the body did (it announced itself, as `engine.expire` does), then raise `error`."""
        self.refusal = error


@contextlib.contextmanager
def change(match: Match | int, *, bout: str | None = None, seat: int | None = None, playing: bool = False,
           expected: int | EllipsisType | None = ..., with_clocks: bool = False,
           now: datetime | None = None, over: str = "") -> Iterator[Change]:
    """One change of `match` (or its id): see the module's docstring.  `with_clocks`: read the
    bout's clocks with it, as the change will use them; `now`: the moment it is made (a sweep's);
    `over`: with `bout=RUNNING`, the refusal's words when the bout has ended (what cannot be done)."""
    now = now or timezone.now()
    # inside another change it is part of that one's transaction: no savepoint (two queries) of its own
    with transaction.atomic(savepoint=not inside()), part():
        locked, current = engine.lock(match, with_clocks=with_clocks)
        if bout == RUNNING:
            current = engine.require_running_bout(locked, current, over)
        elif bout == STARTED and current is None:
            raise NotAllowed("the match has not started yet")
        number = engine.require_seat(locked, seat) if seat is not None else 0
        if playing and locked.paused:
            raise NotAllowed("the clocks are paused while a player has no page open; they restart when it is back"
                             if locked.away_paused else "the host has paused the match; wait for the clocks to restart")
        if not isinstance(expected, EllipsisType):
            assert current is not None, "a version is checked on a bout: ask for bout=RUNNING or STARTED"
            if locked.game.sealed and number:
                engine.check_sealed_version(current, number, expected)
            else:
                engine.check_version(current, expected)
        done = Change(locked, current, now, number)
        changing: set[int] = _open.__dict__.setdefault("matches", set())
        outermost = locked.pk not in changing
        changing.add(locked.pk)
        try:
            yield done
        finally:
            if outermost:
                changing.discard(locked.pk)
        if outermost and done.refusal is None and not done.quiet:
            if done.moved is not None and done.bout is not None:
                engine.notify_move(locked, done.bout, done.moved)
            else:
                engine.notify(locked.pk)
            if done.alerts:
                events.publish_alerts(locked.pk)
    if done.refusal is not None:
        raise done.refusal


def inside() -> bool:
    """Whether this thread is inside a change (of a match, or of its chat)."""
    return bool(getattr(_open, "depth", 0))


@contextlib.contextmanager
def part() -> Iterator[None]:
    """Count a change open in this thread (the chat's changes count themselves too)."""
    _open.depth = getattr(_open, "depth", 0) + 1
    try:
        yield
    finally:
        _open.depth -= 1


def clean(text: Any) -> str:
    """Typed text without control characters (PostgreSQL refuses NUL in text
    columns; the others only garble the log)."""
    return "".join(ch for ch in str(text) if ch in "\t\n" or unicodedata.category(ch) != "Cc").strip()
