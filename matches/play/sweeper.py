"""The clock sweeper: applies expired deadlines, waking at the next one.

`sweep_clocks()` applies every expired deadline once: each bout is claimed
with a compare-and-swap on its version (healthchecks' sendalerts pattern),
so any number of sweepers (web processes, `manage.py run_clocks`) and a
move racing them apply a time-out exactly once.

`run()` is the loop: sweep, then sleep until the earliest running deadline
(`Bout.deadline` is indexed: one query) or until a change in this process
may have moved one (`clocks.deadlines_changed`, set after every commit by
the engine), but never longer than `max_idle` seconds, so deadlines set by
other processes are seen within that time.  No fixed poll: a time-out is
applied a few milliseconds after its deadline.

The loop runs inside the web process when it is a web server (runserver's
serving child, or daphne) and `settings.DEATHMATCH_INPROCESS_CLOCKS` is on:
never in tests, migrations or other management commands; and in
`manage.py run_clocks`.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime

from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Min, Q, QuerySet
from django.db.utils import DatabaseError
from django.utils import timezone

from matches.core import away, events, formats
from matches.core.runtime import is_web_server, start_worker
from matches.models import Bout, Clock, Match, Seat, TurnLog
from matches.play import clocks, engine

log = logging.getLogger(__name__)

_started = threading.Event()
#: a due bout that another sweeper holds: look again this soon (seconds)
RETRY = 0.005


# -- applying deadlines ----------------------------------------------------------------


def _due(now: datetime) -> QuerySet[Bout]:
    return Bout.objects.filter(deadline__lte=now, finished__isnull=True, match__status=Match.RUNNING,
                               match__paused=False)


def sweep_clocks(now: datetime | None = None) -> int:
    """Apply every expired deadline exactly once; the number applied.

    `now` fixes the time (tests); by default each bout is judged at the
    moment it is claimed, so its time-out is stamped when it is applied."""
    due = list(_due(now or timezone.now()).order_by("deadline").values_list("id", "version", "match_id"))
    applied = 0
    for bout_id, version, match_id in due:
        try:
            if claim_and_expire(match_id, bout_id, version, now or timezone.now()):
                applied += 1
        except Exception:  # one broken bout must not stop the others' clocks
            log.exception("clock sweep failed for bout %s", bout_id)
    return applied


def claim_and_expire(match_id: int, bout_id: int, version: int, now: datetime) -> bool:
    """Claim bout `bout_id` at `version` and apply its time-out.

    False when another process (a sweeper, or a move) changed the bout since
    `version` was read: the compare-and-swap updated 0 rows.
    """
    with transaction.atomic():
        # the match row first: every service locks match then bout (no deadlock)
        match = Match.objects.select_for_update(no_key=True).get(pk=match_id)
        claimed = Bout.objects.filter(id=bout_id, version=version, deadline__lte=now).update(version=version + 1)
        if not claimed:
            return False
        bout = Bout.objects.select_for_update(no_key=True).get(pk=bout_id)
        return engine.expire(match, bout, now, bumped=True)


# -- a seat away: pause, and restart when it is back (issue 26) -------------------------------


def sweep_away(now: datetime | None = None) -> int:
    """Pause the clocks of every match whose seat to act has had no page open for the match's
    `away_pause` seconds, and restart them when that seat has a page open again; the number of
    matches changed.  Presence is shared by every web process and expires with a killed one, so
    this sweeper, not the socket's process, decides; each change is made under the match's lock
    after checking again, so any number of sweepers make it once."""
    now = now or timezone.now()
    candidates = Match.objects.filter(status=Match.RUNNING).filter(
        Q(paused=False, format__clock__away_pause__isnull=False) | Q(paused=True, away_paused__isnull=False))
    changed = 0
    for match_id, paused, seat, fmt in candidates.values_list("id", "paused", "away_paused", "format"):
        try:
            if paused:
                if seat is not None and (away.presence(match_id, seat)[0] or 0) > 0:
                    changed += _restart_when_back(match_id, now)
                continue
            limit = formats.away_pause(fmt)
            running = Clock.objects.filter(bout__match_id=match_id, bout__finished__isnull=True,
                                           running_since__isnull=False).values_list("seat", "running_since")
            computers = set(Seat.objects.filter(match_id=match_id).exclude(bot="").values_list("number", flat=True))
            for seat, since in running:
                if seat in computers:
                    continue  # a computer player has no page to open
                count, left = away.presence(match_id, seat)
                # a seat that never opened its page (or not for a day) has been away at least since
                # its clock started: a player who never turns up does not lose on time either
                gone = left if left is not None else since.timestamp() if since is not None else now.timestamp()
                if limit is not None and count == 0 and now.timestamp() - gone >= limit:
                    changed += _pause_while_away(match_id, seat, now, now.timestamp() - gone)
                    break
        except Exception:  # one broken match must not stop the others' clocks
            log.exception("away check failed for match %s", match_id)
    return changed


def _pause_while_away(match_id: int, seat: int, now: datetime, seconds: float) -> bool:
    with transaction.atomic():
        match, bout = engine.lock(match_id)
        if match.paused or match.status != Match.RUNNING or bout is None or bout.finished is not None:
            return False
        match.paused, match.away_paused = True, seat
        match.save(update_fields=["paused", "away_paused"])
        clocks.pause(bout, now)
        engine.bump(bout)
        bout.save()
        engine.note(match, bout, f"paused the clocks: {engine.seat_label(match, seat)} has had no page open for "
                                 f"{int(seconds)} s", now, kind=TurnLog.CLOCK)
        engine.notify(match.pk)
    return True


def _restart_when_back(match_id: int, now: datetime) -> bool:
    with transaction.atomic():
        match, bout = engine.lock(match_id)
        seat = match.away_paused
        if not match.paused or seat is None:
            return False  # the host restarted them, or another sweeper did
        match.paused, match.away_paused = False, None
        match.save(update_fields=["paused", "away_paused"])
        if bout is not None:
            to_act = match.game.to_act(engine.bout_state(bout)) if bout.finished is None else ()
            clocks.resume(bout, to_act, now)
            engine.bump(bout)
            bout.save()
        engine.note(match, bout, f"restarted the clocks: {engine.seat_label(match, seat)} is back", now,
                    kind=TurnLog.CLOCK)
        engine.notify(match.pk)
    return True


# -- a seat away: alert the host (issue 26) ---------------------------------------------------


def sweep_alerts(now: datetime | None = None) -> int:
    """Alert the host of every seat (a person's) of a running match that has had no page open for
    the match's `away_alert` seconds, and clear the alert when the seat has a page open again; the
    number of alerts raised or cleared.  Like `sweep_away`, this sweeper decides from the presence
    every web process shares, not the socket's process; each alert is set or cleared by
    compare-and-swap on the seat (`Seat.away_alert`), so any number of sweepers change it once, and
    only the host's presence box is drawn again (`events.publish_alerts`)."""
    now = now or timezone.now()
    candidates = Match.objects.filter(status=Match.RUNNING, format__away_alert__isnull=False)
    changed = 0
    for match_id, fmt, started in candidates.values_list("id", "format", "started"):
        limit = formats.away_alert(fmt)
        if limit is None:
            continue
        try:
            seats = Seat.objects.filter(match_id=match_id, bot="").values_list("id", "number", "away_alert")
            for seat_id, number, alerted in seats:
                count, left = away.presence(match_id, number)
                if count is None:
                    continue  # presence unknown (Redis away): decide nothing
                if count > 0:
                    if alerted is not None and Seat.objects.filter(pk=seat_id, away_alert=alerted).update(
                            away_alert=None):
                        changed += 1
                        events.publish_alerts(match_id)
                    continue
                # a seat that never opened its page has been away since the match started
                gone = left if left is not None else (started or now).timestamp()
                if alerted is None and now.timestamp() - gone >= limit and Seat.objects.filter(
                        pk=seat_id, away_alert__isnull=True).update(away_alert=datetime.fromtimestamp(gone, tz=UTC)):
                    changed += 1
                    events.publish_alerts(match_id)
        except Exception:  # one broken match must not stop the others
            log.exception("away alert check failed for match %s", match_id)
    return changed


def next_deadline() -> datetime | None:
    """The earliest deadline of a running, unpaused bout (one indexed query)."""
    found: datetime | None = Bout.objects.filter(
        deadline__isnull=False, finished__isnull=True, match__status=Match.RUNNING, match__paused=False
    ).aggregate(at=Min("deadline"))["at"]
    return found


# -- the loop --------------------------------------------------------------------------


def run(max_idle: float = 1.0, stop: threading.Event | None = None, on_applied: object = None) -> None:
    """Sweep, sleep until the next deadline (or a change, or `max_idle`), repeat."""
    warned = False
    while stop is None or not stop.is_set():
        wait = max_idle
        try:
            close_old_connections()
            clocks.deadlines_changed.clear()
            applied = sweep_clocks() + sweep_away() + sweep_alerts()
            if applied and callable(on_applied):
                on_applied(applied)
            upcoming = next_deadline()
            if upcoming is not None:
                wait = min(max_idle, max(RETRY, (upcoming - timezone.now()).total_seconds()))
            warned = False
        except DatabaseError as error:  # e.g. before `migrate`: keep trying quietly
            if not warned:
                log.warning("clock sweeper: database not ready (%s)", error)
                warned = True
        except Exception:
            log.exception("clock sweeper failed; retrying")
        clocks.deadlines_changed.wait(wait)


# -- inside the web process --------------------------------------------------------------


def maybe_start() -> bool:
    if not getattr(settings, "DEATHMATCH_INPROCESS_CLOCKS", False) or not is_web_server():
        return False
    return start()


def start(max_idle: float | None = None) -> bool:
    if _started.is_set():
        return False
    _started.set()
    idle = max_idle or float(getattr(settings, "DEATHMATCH_CLOCK_MAX_IDLE", 1.0))
    start_worker(run, idle, name="deathmatch-clocks")
    return True
