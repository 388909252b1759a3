"""The clock sweeper: applies expired deadlines, waking at the next one.

`sweep_clocks()` applies every expired deadline once: each bout is claimed
with a compare-and-swap on its version (healthchecks' sendalerts pattern),
so any number of sweepers (web processes, `manage.py run_clocks`) and a
move racing them apply a time-out exactly once.

`WORKER` is the clock worker (matches/core/runtime.py runs it): a round
sweeps, then it sleeps until the earliest running deadline (`Bout.deadline`
is indexed: one query) or until a change in this process may have moved one
(`clocks.deadlines_changed`, set after every commit by the engine), but never
longer than its idle time, so deadlines set by other processes are seen
within that time.  No fixed poll: a time-out is applied a few milliseconds
after its deadline.

It runs inside the web process when it is a web server (runserver's serving
child, or daphne) and `settings.DEATHMATCH_INPROCESS_CLOCKS` is on: never in
tests, migrations or other management commands; and as `manage.py run_clocks`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Min, Q, QuerySet
from django.utils import timezone

from games.core import HOST
from matches.core import away, events, formats, runtime
from matches.models import Bout, Clock, Match, Seat, TurnLog
from matches.play import awaytime, clocks, engine, offers
from matches.play.change import change

log = logging.getLogger(__name__)

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
        if not engine.expire(match, bout, now, bumped=True):
            return False
        offers.end_by_move(match, bout, HOST, now)  # a round its deadline closed is a turn played (announced by expire)
        return True


# -- a seat away: pause, and restart when it is back (issue 26) or its away time is used (37) --------


def sweep_away(now: datetime | None = None) -> int:
    """Pause the clocks of every match whose seat to act has had no page open for the match's
    `away_pause` seconds, and restart them when that seat has a page open again or has used its away
    time for the bout (awaytime.py); the number of matches changed.  Presence is shared by every web
    process and expires with a killed one, so this sweeper, not the socket's process, decides; each
    change is made under the match's lock after checking again, so any number of sweepers make it
    once.  A seat the host restarted the clocks for while it was away is not paused for again until
    it has had a page open (`Seat.away_resumed`, cleared here by compare-and-swap)."""
    now = now or timezone.now()
    candidates = Match.objects.filter(status=Match.RUNNING).filter(
        Q(paused=False, format__clock__away_pause__isnull=False) | Q(paused=True, away_paused__isnull=False))
    changed = 0
    for match_id, paused, seat, since, fmt in candidates.values_list(
            "id", "paused", "away_paused", "away_paused_since", "format"):
        try:
            skip = set()
            for seat_id, number, bot, resumed in Seat.objects.filter(match_id=match_id).values_list(
                    "id", "number", "bot", "away_resumed"):
                if bot:
                    skip.add(number)  # a computer player has no page to open
                elif resumed is not None:
                    if (away.presence(match_id, number)[0] or 0) > 0:  # back: the next time away counts again
                        Seat.objects.filter(pk=seat_id, away_resumed=resumed).update(away_resumed=None)
                    skip.add(number)  # the host restarted the clocks while it was away: the host wins
            if paused:
                changed += _away_paused(match_id, seat, since, fmt, now)
                continue
            limit = formats.away_pause(fmt)
            budget = formats.away_budget(fmt)
            running = Clock.objects.filter(bout__match_id=match_id, bout__finished__isnull=True,
                                           running_since__isnull=False).values_list("seat", "running_since", "away_used")
            for seat, started, used in running:
                if seat in skip or used >= budget:
                    continue  # its away time for the bout is used: its clock runs as usual
                count, left = away.presence(match_id, seat)
                # a seat that never opened its page (or not for a day) has been away at least since
                # its clock started: a player who never turns up does not lose on time either
                gone = left if left is not None else started.timestamp() if started is not None else now.timestamp()
                if limit is not None and count == 0 and now.timestamp() - gone >= limit:
                    changed += _pause_while_away(match_id, seat, now, now.timestamp() - gone)
                    break
        except Exception:  # one broken match must not stop the others' clocks
            log.exception("away check failed for match %s", match_id)
    return changed


def _away_paused(match_id: int, seat: int | None, since: datetime | None, fmt: Mapping[str, Any],
                 now: datetime) -> int:
    """A match the away `seat` paused: restart its clocks when the seat's away time for the bout is
    used (from that moment: the clock is charged the sweeper's own delay too) or the seat is back."""
    if seat is None:
        return 0
    found = (Clock.objects.filter(bout__match_id=match_id, seat=seat).order_by("-bout__number")
             .values_list("away_used", "bout__started").first())
    if found is not None and now >= awaytime.runs_out(fmt, since, found[1], found[0]):
        return int(_restart(match_id, seat, now, used_up=True))
    if (away.presence(match_id, seat)[0] or 0) > 0:
        return int(_restart(match_id, seat, now, used_up=False))
    return 0


def _pause_while_away(match_id: int, seat: int, now: datetime, seconds: float) -> bool:
    with change(match_id, now=now) as c:
        match, bout = c.match, c.bout
        if match.paused or match.status != Match.RUNNING or bout is None or bout.finished is not None:
            return c.unchanged()
        clock = clocks.of(bout, seat)
        if clock is None or clock.away_used >= formats.away_budget(match.format):
            return c.unchanged()  # another sweeper's pause used the rest of its away time meanwhile
        if Seat.objects.filter(match=match, number=seat, away_resumed__isnull=False).exists():
            return c.unchanged()  # the host restarted the clocks since this sweeper looked
        match.paused, match.away_paused, match.away_paused_since = True, seat, now
        match.save(update_fields=["paused", *awaytime.MATCH_FIELDS])
        clocks.pause(bout, now)
        engine.bump(bout)
        bout.save()
        c.note(f"paused the clocks: {engine.seat_label(match, seat)} has had no page open for {int(seconds)} s",
               kind=TurnLog.CLOCK)
        c.alert_host()  # the host's presence box: the away time left runs down
    return True


def _restart(match_id: int, seat: int, now: datetime, *, used_up: bool) -> bool:
    """Restart the clocks `seat`'s away pause stopped: at the moment its away time ran out
    (`used_up`), else now (it is back)."""
    with change(match_id, now=now) as c:
        match, bout = c.match, c.bout
        if not match.paused or match.away_paused != seat:
            return c.unchanged()  # the host restarted them, or another sweeper did
        at = now
        if used_up and bout is not None:
            clock = clocks.of(bout, seat)
            at = awaytime.runs_out(match.format, match.away_paused_since, bout.started,
                                   clock.away_used if clock is not None else 0.0)
            if at > now:
                return c.unchanged()  # not the pause this sweeper judged: it ended and another began since
        awaytime.close(match, bout, at)
        match.paused = False
        match.save(update_fields=["paused", *awaytime.MATCH_FIELDS])
        if bout is not None:
            to_act = match.game.to_act(engine.bout_state(bout)) if bout.finished is None else ()
            clocks.resume(bout, to_act, at)
            engine.bump(bout)
            bout.save()
        label = engine.seat_label(match, seat)
        text = (f"restarted the clocks: {label} has used its {_seconds(formats.away_budget(match.format))} of "
                "away time this bout" if used_up else f"restarted the clocks: {label} is back")
        c.note(text, kind=TurnLog.CLOCK)
        c.alert_host()
    return True


def _seconds(seconds: float) -> str:
    return f"{seconds:g} s"


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


# -- a practice match nobody has open: abandoned (issue 51) -------------------------------------

ABANDONED = "abandoned"


def abandoned_after() -> float:
    """Seconds a practice match may go with no page of its player open (settings, default 30 minutes)."""
    return float(getattr(settings, "DEATHMATCH_PRACTICE_ABANDONED_AFTER", 30 * 60.0))


def _duration(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes:g} minute{'s' if minutes != 1 else ''}" if minutes == int(minutes) else f"{seconds:g} s"


def sweep_abandoned(now: datetime | None = None) -> int:
    """End every practice match whose player has had no page of it open for `abandoned_after()`
    seconds (30 minutes) as abandoned (no winner; its log says so): without a clock it would wait for ever, and
    every round of the computer players' worker looks at it.  The player was last seen when a page
    of theirs last closed (presence, shared by every web process: core/away.py), or made a move or
    request (a page without a socket), or the match started; while presence is unknown (Redis away),
    nothing is decided.  Each ending is made under the match's lock after checking again, so any
    number of sweepers end it once; the number ended."""
    now = now or timezone.now()
    ended = 0
    # (one started less than that ago cannot be: the round asks nothing more of the young ones)
    old = Match.objects.filter(status=Match.RUNNING, format__practice=True,
                               started__lte=now - timedelta(seconds=abandoned_after()))
    for match_id in old.values_list("id", flat=True):
        try:
            seen = _last_seen(match_id, now)
            if seen is not None and now.timestamp() - seen >= abandoned_after():
                ended += int(_abandon(match_id, now))
        except Exception:  # one broken match must not stop the others
            log.exception("abandoned-match check failed for match %s", match_id)
    return ended


def _last_seen(match_id: int, now: datetime) -> float | None:
    """When a person of the match was last seen (a Unix time), None when presence is unknown."""
    people = list(Seat.objects.filter(match_id=match_id, bot="").values_list("number", flat=True))
    seen = away.last_seen(match_id, people)
    if seen is None:
        return None
    started = Match.objects.filter(pk=match_id).values_list("started", flat=True).first()
    acted = (TurnLog.objects.filter(match_id=match_id, actor__in=people)
             .exclude(kind=TurnLog.CLOCK).aggregate(at=Max("created"))["at"])
    times: list[float] = [seen] + [at.timestamp() for at in (started, acted) if at is not None]
    return max(times)


def _abandon(match_id: int, now: datetime) -> bool:
    with change(match_id, now=now) as c:
        match, bout = c.match, c.bout
        if match.status != Match.RUNNING or not match.practice:
            return c.unchanged()
        seen = _last_seen(match.pk, now)  # under the lock: a page opened or a move made since
        if seen is None or now.timestamp() - seen < abandoned_after():
            return c.unchanged()
        how_long = _duration(abandoned_after())
        if bout is not None:
            engine.bump(bout)
            if bout.finished is None:
                clocks.stop_all(bout, now)
                bout.finished = now
                bout.result = {"winners": [], "reason": ABANDONED, "scores": None,
                               "detail": f"nobody had a page of it open for {how_long}"}
                bout.reason, bout.counts = ABANDONED, False
                clocks.refresh(bout)
            bout.save()
        c.note(f"abandoned: nobody has had a page of this practice match open for {how_long}; it ends "
               "with no winner", kind=TurnLog.CLOCK)
        engine.finish_match(match, bout, [], ABANDONED, now)
    return True


def next_deadline() -> datetime | None:
    """The earliest deadline of a running, unpaused bout (one indexed query)."""
    found: datetime | None = Bout.objects.filter(
        deadline__isnull=False, finished__isnull=True, match__status=Match.RUNNING, match__paused=False
    ).aggregate(at=Min("deadline"))["at"]
    return found


# -- the worker (matches/core/runtime.py runs it) ---------------------------------------------


def sweep(now: datetime | None = None) -> int:
    """One round of the clock worker: deadlines, seats away, away alerts, abandoned practice matches."""
    return sweep_clocks(now) + sweep_away(now) + sweep_alerts(now) + sweep_abandoned(now)


def _until_next_deadline(max_idle: float) -> float:
    """Sleep until the earliest running deadline (a change in this process wakes it sooner:
    `clocks.deadlines_changed`), but never longer than `max_idle`, so that deadlines set by other
    processes are seen within that time."""
    upcoming = next_deadline()
    if upcoming is None:
        return max_idle
    return min(max_idle, max(RETRY, (upcoming - timezone.now()).total_seconds()))


WORKER = runtime.Worker(
    name="clocks", rounds=runtime.steps(sweep), wake=clocks.deadlines_changed, done="applied {} time-out(s)",
    enabled="DEATHMATCH_INPROCESS_CLOCKS", enabled_default=False, idle="DEATHMATCH_CLOCK_MAX_IDLE",
    wait=_until_next_deadline)
