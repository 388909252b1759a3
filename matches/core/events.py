"""What the play side announces once a change of a match has committed.

The services (through `engine.notify`) publish; whoever cares subscribes, once,
in `MatchesConfig.ready()` (the live path: `live.notify`).  So the code that
changes a match never imports what draws or sends it, as Zulip's
`send_event_on_commit` keeps its actions apart from its event queues.

    events.publish(match.pk, Moved(match, bout, [entry], clocks))   # inside the transaction
    events.subscribe(callback)                                       # callback(match_id, moved)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Moved:
    """What a move's transaction wrote, handed over so nothing is read back: the locked match and
    bout as saved, the log rows it inserted (numbered, with their ids) and the bout's clocks."""

    match: Any
    bout: Any
    rows: list[Any]
    clocks: tuple[Any, ...] = ()


class _Topic:
    """Subscribers called with a topic's announcement once the transaction that made it commits
    (at once outside one); a subscriber's failure never undoes or blocks the committed change."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.subscribers: list[Callable[..., None]] = []

    def subscribe(self, callback: Callable[..., None]) -> None:
        if callback not in self.subscribers:  # once per callback
            self.subscribers.append(callback)

    def unsubscribe(self, callback: Callable[..., None]) -> None:
        if callback in self.subscribers:
            self.subscribers.remove(callback)

    def on_commit(self, match_id: int, args: tuple[Any, ...]) -> None:
        """Call every subscriber with `args` after the commit (`match_id` names it in a failure's log)."""
        transaction.on_commit(lambda: self.deliver(match_id, args))

    def deliver(self, match_id: int, args: tuple[Any, ...]) -> None:
        for callback in list(self.subscribers):
            try:
                callback(*args)
            except Exception:
                log.exception("a %s subscriber failed for match %s", self.what, match_id)


Subscriber = Callable[[int, "Moved | None"], None]
_moves = _Topic("event")


def subscribe(callback: Subscriber) -> None:
    """Have `callback(match_id, moved)` called after every committed change (once per callback)."""
    _moves.subscribe(callback)


def unsubscribe(callback: Subscriber) -> None:
    """Stop calling `callback` (a benchmark that draws the updates itself, a test)."""
    _moves.unsubscribe(callback)


def publish(match_id: int, moved: Moved | None = None) -> None:
    """Announce a change of the match when the current transaction commits (at once outside one).
    `moved`: what a move wrote, when that is all the transaction changed; None for anything else
    (the subscribers read the match as it is then)."""
    match_id = int(match_id)
    _moves.on_commit(match_id, (match_id, moved))


# -- chat (matches/play/chat.py publishes, live/chat_feed.py subscribes) ----------------------------


@dataclass(frozen=True)
class Chatted:
    """A chat change of a match that committed: a new line (`message_id`), a line the host
    removed (`removed` too), or a change of the rooms (`message_id` None: closed, reopened,
    options) that every page redraws its chat panel for."""

    match_id: int
    message_id: int | None = None
    removed: bool = False


ChatSubscriber = Callable[[Chatted], None]
_chat = _Topic("chat")


def subscribe_chat(callback: ChatSubscriber) -> None:
    """Have `callback(chatted)` called after every committed chat change (once per callback)."""
    _chat.subscribe(callback)


def publish_chat(chatted: Chatted) -> None:
    """Announce a chat change when the current transaction commits (at once outside one)."""
    _chat.on_commit(chatted.match_id, (chatted,))


# -- the host's away alerts (matches/play/sweeper.py publishes, live/fanout.py subscribes) -------------

AlertSubscriber = Callable[[int], None]
_alerts = _Topic("alert")


def subscribe_alerts(callback: AlertSubscriber) -> None:
    """Have `callback(match_id)` called after the sweeper raised or cleared a seat's away alert."""
    _alerts.subscribe(callback)


def publish_alerts(match_id: int) -> None:
    """Announce that a seat's away alert of the match changed (after commit): only the host's
    presence box and alerts are drawn again, never the pages."""
    match_id = int(match_id)
    _alerts.on_commit(match_id, (match_id,))
