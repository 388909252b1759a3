"""Internals of `matches.services`: locking, the log, replays, bout and match
ends.  Everything here runs inside a service's transaction with the match
row (then the bout row) locked; nothing here is called from views."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Max

from games.core import HOST, IllegalAction, Result, RuleError

from . import clocks, endings, statements
from .models import Bout, Clock, Match, TurnLog

log = logging.getLogger(__name__)


class ServiceError(Exception):
    """A refusal; `str(e)` is a plain sentence shown to the user."""


class StaleVersion(ServiceError):
    """The client acted on an old version of the bout."""


class NotAllowed(ServiceError):
    """This person may not do this now."""


# -- locking, versions, broadcast -----------------------------------------------


def lock(match: Match | int, *, with_clocks: bool = False, reuse: bool = False) -> tuple[Match, Bout | None]:
    """Lock the match row, then its current bout row (always in this order).  `with_clocks`: read
    the bout's clocks too (clocks.rows), in the same round trip where the database allows.
    `reuse` (a move, on PostgreSQL): the three as this process's last move of the match wrote
    them, when it kept them (`_kept`), locked and checked with the move's writes
    (statements.reuse); `statements.Reread` when there are none."""
    pk = match if isinstance(match, int) else match.pk
    if reuse:
        return _reused(pk)
    current = statements.Query(Bout, {"match_id": pk}, order_by="number", descending=True, limit=1, lock=True,
                               xmin=with_clocks and statements.can_batch())
    if with_clocks and statements.can_batch():
        found, bouts, clock_rows = statements.read(
            statements.Query(Match, {"id": pk}, lock=True, xmin=True), current,
            statements.Query(Clock, {"bout_id": current.scalar("id")}, order_by="seat", xmin=True))
        if bouts:
            bouts[0].__dict__["_clock_rows"] = clock_rows  # what clocks.rows(bout) would read
    else:
        found, bouts = statements.read(statements.Query(Match, {"id": pk}, lock=True), current)
    if not found:
        raise Match.DoesNotExist(f"there is no match {pk}")
    return found[0], (bouts[0] if bouts else None)


#: match id -> the rows (columns and xmin, statements.written_row) of the match, its current bout
#: and the bout's clocks as this process's last move of the match committed them
_kept: OrderedDict[int, tuple[tuple[Any, ...], tuple[Any, ...], tuple[tuple[Any, ...], ...]]] = OrderedDict()
_kept_lock = threading.Lock()
KEPT_MATCHES = 1000
#: moves of a match drawn from a locked read after its kept rows were found changed: another
#: process moves in it too (the seats' sockets on two web processes), and a failed guard costs a
#: round trip and a ROLLBACK
CONTENDED_MOVES = 16
_contended: dict[int, int] = {}


def reusable(match: Match | int) -> bool:
    """Whether a move of the match may be drawn from rows this process kept (`lock(reuse=True)`)."""
    from django.conf import settings

    pk = match if isinstance(match, int) else match.pk
    with _kept_lock:
        if pk not in _kept or "reuse" in getattr(settings, "DEATHMATCH_LIVE_OFF", ()):
            return False
        left = _contended.get(pk, 0)
        if left:
            _contended[pk] = left - 1
            return False
    return True


def forget_rows(match_id: int, *, changed: bool = False) -> None:
    """Keep no rows of the match; `changed`: they were found changed (`CONTENDED_MOVES`)."""
    with _kept_lock:
        _kept.pop(int(match_id), None)
        if changed:
            _contended[int(match_id)] = CONTENDED_MOVES
            while len(_contended) > KEPT_MATCHES:
                _contended.pop(next(iter(_contended)))


def _keep(match: Match, bout: Bout) -> None:
    """After a move committed: keep the rows of the match, the bout and its clocks as it left them,
    when all of them are known (read with their xmin and written, if at all, through
    statements.update; a move that did more, such as ending the bout, keeps nothing)."""
    rows = [statements.written_row(match), statements.written_row(bout)]
    held = bout.__dict__.get("_clock_rows")
    clock_rows = [statements.written_row(c) for c in held] if held is not None else [None]
    with _kept_lock:
        if any(r is None for r in (*rows, *clock_rows)) or bout.finished is not None:
            _kept.pop(match.pk, None)
            return
        _kept[match.pk] = (rows[0], rows[1], tuple(clock_rows))  # type: ignore[arg-type]
        _kept.move_to_end(match.pk)
        while len(_kept) > KEPT_MATCHES:
            _kept.popitem(last=False)


def _reused(pk: int) -> tuple[Match, Bout]:
    """The match, bout and clocks from the rows kept for the match (`_keep`), and the guard that
    locks them (match, then bout, as `lock` does) and fails unless they are still as kept: no
    other transaction wrote any of them since (same xmin), and no newer bout exists."""
    with _kept_lock:
        kept = _kept.get(pk)
    if kept is None:
        raise statements.Reread("no rows kept")
    match_row, bout_row, clock_rows = kept
    match = statements.Query(Match, {}, xmin=True).instances([match_row])[0]
    bout = statements.Query(Bout, {}, xmin=True).instances([bout_row])[0]
    held = statements.Query(Clock, {}, xmin=True).instances(list(clock_rows))
    bout.__dict__["_clock_rows"] = held
    quote = connection.ops.quote_name
    tables = {model: quote(model._meta.db_table) for model in (Match, Bout, Clock)}
    guard = [
        (f"SELECT 1 FROM {tables[Match]} WHERE id = %s FOR UPDATE", [pk]),
        (f"SELECT 1 FROM {tables[Bout]} WHERE id = %s FOR UPDATE", [bout.pk]),
        ("SELECT deathmatch_unchanged("
         f"(SELECT xmin::text FROM {tables[Match]} WHERE id = %s) IS NOT DISTINCT FROM %s"
         f" AND (SELECT xmin::text FROM {tables[Bout]} WHERE id = %s) IS NOT DISTINCT FROM %s"
         f" AND NOT EXISTS (SELECT 1 FROM {tables[Bout]} WHERE match_id = %s AND number > %s)"
         f" AND (SELECT coalesce(string_agg(id::text || ':' || xmin::text, ',' ORDER BY id), '')"
         f" FROM {tables[Clock]} WHERE bout_id = %s) = %s)",
         [pk, match_row[-1], bout.pk, bout_row[-1], pk, bout.number, bout.pk,
          ",".join(f"{c.pk}:{row[-1]}" for c, row in sorted(zip(held, clock_rows, strict=True), key=lambda p: p[0].pk))]),
    ]
    if not statements.reuse(guard):
        raise statements.Reread("this transaction cannot reuse rows")
    return match, bout


def check_version(bout: Bout, expected: int | None) -> None:
    if expected is None or int(expected) != bout.version:
        raise StaleVersion(
            f"the board changed since you loaded it (version {bout.version}, you sent {expected}); reload and try again"
        )


def check_sealed_version(bout: Bout, seat: int, expected: int | None) -> None:
    """Sealed rounds: several seats submit against the same round at once, so
    a seat's submission only needs a version from the current round (no
    resolution and no host rewrite since) that is not older than its own
    last submission (which is how a doubled submit is caught)."""
    if expected is None or int(expected) > bout.version or int(expected) < bout.round_version:
        raise StaleVersion(
            f"the round changed since you loaded it (version {bout.version}, you sent {expected}); reload and try again"
        )
    own = (
        bout.active_moves()
        .filter(actor=seat, version__gt=bout.round_version)
        .order_by("-sequence", "-id")
        .values_list("version", flat=True)
        .first()
    )
    if own is not None and int(expected) < own:
        raise StaleVersion(
            f"you already submitted after version {expected} (your submission made version {own}); reload to change it"
        )


def bump(bout: Bout) -> None:
    bout.version += 1


def notify(match_id: int, *, written: tuple[Match, Bout, list[TurnLog]] | None = None) -> None:
    """After commit, hand the match id to the live layer (it renders and fans
    out, off this request's path) and wake the clock sweeper (a deadline may
    have moved).  A failing broadcast never undoes or blocks a move.

    `written`: the locked match and bout as this transaction saved them and the
    log rows it wrote, when that is all it changed (a move): the live layer can
    then draw the update without reading them back (live.Written).  When the
    transaction sends its COMMIT with its last writes (statements.atomic), the
    update is handed over as they leave: it is drawn while the database commits
    and sent once the commit is known (live.notify_committing)."""
    handed = False

    def handing(live: Any, clock_rows: Iterable[Clock], outcome: statements.Outcome | None = None) -> Any:
        match, bout, rows = written  # type: ignore[misc]
        return live.Written(match, bout, rows, clocks=tuple(clock_rows), state=bout.__dict__.get("_game_state"),
                            committed=outcome)

    def early(outcome: statements.Outcome) -> None:
        nonlocal handed
        from . import live

        match, bout, _ = written  # type: ignore[misc]
        outcome.then(lambda ok: _keep(match, bout) if ok else forget_rows(match_id))
        held = bout.__dict__.get("_clock_rows")  # no query now: the writes are on their way
        if held is not None:
            handed = live.notify_committing(match_id, handing(live, held, outcome))

    def send() -> None:
        clocks.deadlines_changed.set()
        if handed:
            return
        try:
            from . import live
        except ImportError:  # the live layer is optional for the services
            return
        try:
            if written is None:
                live.notify(match_id)
            else:
                live.notify(match_id, handing(live, clocks.rows(written[1])))
        except Exception:
            log.exception("live.notify failed for match %s", match_id)

    if written is not None:
        statements.when_committing(early)
    transaction.on_commit(send)


# -- the log -----------------------------------------------------------------------


def next_sequence(match: Match) -> int:
    top = TurnLog.objects.filter(match=match).aggregate(top=Max("sequence"))["top"]
    return (top or 0) + 1


def write(
    match: Match,
    bout: Bout | None,
    kind: str,
    actor: int,
    text: str,
    now: datetime,
    *,
    sequence: int | None = None,
    **fields: Any,
) -> TurnLog:
    entry = TurnLog(match=match, bout=bout, sequence=sequence or 0, kind=kind, actor=actor, text=text, created=now,
                    version=bout.version if bout is not None else None, **fields)
    if not connection.features.can_return_columns_from_insert:
        entry.sequence = next_sequence(match) if sequence is None else sequence
        entry.save()
    elif sequence is None:
        # numbered by the INSERT itself (the match row is locked: no other transaction writes its
        # log meanwhile) and read back: one round trip instead of two
        quote = connection.ops.quote_name
        top = (f"(SELECT COALESCE(MAX({quote('sequence')}), 0) + 1 FROM {quote(TurnLog._meta.db_table)} "
               f"WHERE {quote('match_id')} = %s)")
        statements.insert(entry, {"sequence": (top, [match.pk])})
    else:
        statements.insert(entry)
    return entry


def note(match: Match, bout: Bout | None, text: str, now: datetime, *, kind: str = TurnLog.HOST_NOTE) -> TurnLog:
    """A match event in the log (host action or clock); never replayed."""
    return write(match, bout, kind, HOST, text, now)


def seat_label(match: Match, seat: int) -> str:
    name = match.seats.filter(number=seat).values_list("name", flat=True).first()
    return f"seat {seat} ({name})" if name else f"seat {seat}"


# -- replay --------------------------------------------------------------------------


def replay(game: Any, bout: Bout, entries: Iterable[tuple[int, str]]) -> Any:
    """State after applying `(actor, text)` entries from `new(bout.options)`."""
    state = game.new(bout.options)
    for actor, text in entries:
        state = game.play(state, actor, text)
    return state


def replay_bout(bout: Bout) -> Any:
    """The bout's state from its log alone (the truth the snapshot caches)."""
    game = bout.match.game
    return replay(game, bout, [(t.actor, t.text) for t in bout.active_moves()])


def bout_state(bout: Bout) -> Any:
    return bout.match.game.load(bout.state)


# -- bouts and matches -------------------------------------------------------------------


def bout_options(match: Match, starting_seat: int) -> dict[str, Any]:
    game = match.game
    options = game.options(match.options)
    if "starting_seat" in options:
        options["starting_seat"] = starting_seat
    if "garnets" in options and not match.options.get("garnets") and match.season_id:
        # Bidding's last tie-break: garnets held in the season ledger when the bout
        # starts (stored in Bout.options, so replays stay exact)
        options["garnets"] = {
            str(seat.number): max(0, seat.season_player.garnet_balance())
            for seat in match.seats.select_related("season_player")
            if seat.season_player is not None
        }
    return options


def begin_bout(match: Match, number: int, starting_seat: int, now: datetime) -> Bout:
    game = match.game
    bout = Bout(match=match, number=number, starting_seat=starting_seat, started=now)
    bout.options = bout_options(match, starting_seat)
    state = game.new(bout.options)
    bout.state = game.dump(state)
    bout.save()
    clocks.create_clocks(match, bout, game.seats)
    settle_clocks(match, bout, state, now, new_round=True)
    bout.save()
    return bout


def next_starter(match: Match, last: Bout) -> int:
    if not last.counts:  # a replayed stalemate keeps its starter
        return last.starting_seat
    if match.format.get("alternate", True):
        return last.starting_seat % match.game.seats + 1
    return last.starting_seat


def settle_clocks(match: Match, bout: Bout, state: Any, now: datetime, *, new_round: bool,
                  save: bool = True) -> None:
    game = match.game
    if new_round:
        bout.round_version = bout.version
        if game.sealed:
            clocks.open_round(match, bout, now)
    clocks.sync(bout, game.to_act(state), paused=match.paused, now=now, save=save)


def finish_bout(
    match: Match,
    bout: Bout,
    winners: Iterable[int],
    reason: str,
    now: datetime,
    *,
    scores: dict[int, float] | None = None,
    detail: str = "",
    whole_match: bool = False,
) -> None:
    """End `bout`; then the match if the format says so (or `whole_match`)."""
    clocks.stop_all(bout, now)
    result = Result(frozenset(winners), reason, scores, detail)
    bout.result = result.to_json()
    bout.reason = reason
    bout.finished = now
    bout.counts = not (reason == "stalemate" and match.format.get("stalemate_replays"))
    clocks.refresh(bout)
    bout.save()
    if match.season_id:  # the season's ledger, exactly once (matches/season_results.py)
        from . import season_results

        season_results.bout_finished(match, bout, now)
    if whole_match:
        finish_match(match, bout, sorted(result.winners), reason, now)
        return
    score = match.score()
    played = match.bouts.filter(finished__isnull=False, counts=True).count()
    best = max(score.values(), default=0)
    if best >= match.bouts_needed or played >= int(match.format.get("bouts", 1)):
        if int(match.format.get("bouts", 1)) == 1:
            finish_match(match, bout, sorted(result.winners), reason, now)
        else:
            leaders = [s for s, won in score.items() if won == best and best > 0]
            finish_match(match, bout, leaders, "bouts", now)
    elif match.format.get("auto_next_bout"):
        begin_bout(match, bout.number + 1, next_starter(match, bout), now)


def finish_match(match: Match, bout: Bout | None, winners: Sequence[int], reason: str, now: datetime) -> None:
    match.status = Match.FINISHED
    match.finished = now
    match.winners = sorted(int(w) for w in winners)
    match.result_reason = reason
    match.save()
    if bout is not None and bout.finished is None:
        clocks.stop_all(bout, now)
    if match.season_id:  # tokens, candidate, elimination (matches/season_results.py)
        from . import season_results

        season_results.match_finished(match, bout, now)


def reopen(match: Match, bout: Bout) -> None:
    """The host rewound a finished bout: it (and the match, if over) runs again,
    and what it fed into the season is taken back (NotAllowed if it cannot be)."""
    if match.season_id:
        from . import season_results

        season_results.reverse_results(match, bout)
    bout.finished = None
    bout.result = None
    bout.reason = ""
    bout.counts = True
    if match.status == Match.FINISHED:
        match.status = Match.RUNNING
        match.finished = None
        match.winners = []
        match.result_reason = ""
        match.save()


def after_state_change(match: Match, bout: Bout, state: Any, now: datetime, *, new_round: bool) -> None:
    """Store the new state; clocks; finish the bout if the rules ended it."""
    game = match.game
    bout.state = game.dump(state)
    bout.__dict__["_game_state"] = state  # what `bout.state` dumps, for the live layer (notify)
    result = game.result(state)
    if result is None:
        settle_clocks(match, bout, state, now, new_round=new_round, save=False)
        clocks.flush(bout)
        statements.update(bout)  # bout.save(), built once (the move path's statements)
        return
    bout.round_version = bout.version
    finish_bout(
        match, bout, result.winners, result.reason, now, scores=dict(result.scores or {}) or None, detail=result.detail
    )


def sealed_round_changed(game: Any, before: Any, after: Any, seat: int) -> bool:
    """True when a sealed submission closed the round (pending did not just lose `seat`)."""
    return game.pending(after) != game.pending(before) - {seat}


def play(
    match: Match, bout: Bout, actor: int, text: str, now: datetime, *, by_host: bool = False, bumped: bool = False
) -> TurnLog:
    """parse -> apply -> log -> clocks -> result (the bout is locked)."""
    game = match.game
    before = game.load(bout.state)
    action = game.parse(before, actor, text)
    after = game.apply(before, actor, action)
    if match.season_id:  # Back to the Wall garnet spends against the season ledger
        from . import season_results

        season_results.check_spends(match, bout, actor, action, by_host=by_host)
    canonical = game.format(action)
    used = None
    clock = clocks.of(bout, actor)
    if clock is not None and (clock.running or clock.used):
        used = clocks.stop(clock, now, save=False)  # written with the next seat's clock (clocks.flush)
    if not bumped:
        bump(bout)
    # the log row, the clocks and the bout go to the database together (statements.batched)
    with statements.batched():
        entry = write(match, bout, TurnLog.MOVE, actor, canonical, now, by_host=by_host, time_used=used)
        # the host's own game action ("resolve") always closes the round
        new_round = not game.sealed or actor == HOST or sealed_round_changed(game, before, after, actor)
        after_state_change(match, bout, after, now, new_round=new_round)
        clocks.flush(bout)  # when the bout ended, the mover's clock is still to write
    return entry


def expired(match: Match, bout: Bout, now: datetime) -> bool:
    """Whether `expire` would apply a time-out now (it changes nothing)."""
    if bout.finished is not None or match.status != Match.RUNNING or match.paused:
        return False
    return clocks.round_expired(bout, now) or bool(clocks.expired_seats(bout, now))


def expire(match: Match, bout: Bout, now: datetime, *, bumped: bool = False) -> bool:
    """Apply the time-out rule of every expired deadline of `bout` (locked)."""
    if bout.finished is not None or match.status != Match.RUNNING or match.paused:
        return False
    game = match.game
    if clocks.round_expired(bout, now):
        bout.round_deadline = None
        if not bumped:
            bump(bout)
        note(match, bout, "the round deadline passed: the round is resolved", now, kind=TurnLog.CLOCK)
        try:
            play(match, bout, HOST, "resolve", now, bumped=True)
        except RuleError as error:
            note(match, bout, f"the round could not be resolved: {error}", now, kind=TurnLog.CLOCK)
            clocks.refresh(bout)
            bout.save()
        notify(match.pk)
        return True
    out = clocks.expired_seats(bout, now)
    if not out:
        return False
    if not bumped:
        bump(bout)
    scope = (match.format.get("clock") or {}).get("on_timeout", "bout")
    losers = set(out)
    for seat in sorted(losers):
        note(match, bout, f"{seat_label(match, seat)} ran out of time and forfeits the {scope}", now, kind=TurnLog.CLOCK)
    winners = [s for s in range(1, game.seats + 1) if s not in losers]
    finish_bout(match, bout, winners, "time", now, whole_match=scope == "match")
    notify(match.pk)
    return True


def require_running_bout(match: Match, bout: Bout | None) -> Bout:
    if match.status == Match.SETUP:
        raise NotAllowed("the match has not started yet")
    if match.status == Match.FINISHED:
        raise NotAllowed("the match is over")
    if bout is None or bout.finished is not None:
        raise NotAllowed("the bout is over; the host starts the next one")
    return bout


def require_seat(match: Match, seat: int) -> int:
    if not 1 <= int(seat) <= match.game.seats:
        raise NotAllowed(f"there is no seat {seat} in this match")
    return int(seat)


def illegal_after(error: RuleError, where: str) -> IllegalAction:
    return IllegalAction(f"{where}: {error}")


# -- taking back what the host or a clock ended ---------------------------------------------

# the read-only half (what ended a bout, whether it may be reopened) lives in
# endings.py, so pages can ask it without importing the engine
ENDING_NOTES, last_ending, ended_match_only, reopen_refusal = (
    endings.ENDING_NOTES, endings.last_ending, endings.ended_match_only, endings.reopen_refusal)


def reopen_ending(match: Match, bout: Bout, now: datetime) -> str:
    """Take back the last host/clock ending of `bout` (checked by `reopen_refusal`);
    the log note's text.  The bout is bumped by the caller."""
    ending = last_ending(bout)
    if match.season_id:
        from . import season_results

        season_results.reverse_results(match, bout, now, bout_too=not ended_match_only(match, bout, ending))
    TurnLog.objects.filter(pk__in=[e.pk for e in ending]).update(undone=True)
    what = "; ".join(f"{e.who}: {e.text}" for e in ending)
    text = f"reopened bout {bout.number} (took back {what})"
    if match.status == Match.FINISHED:
        match.status = Match.RUNNING
        match.finished = None
        match.winners = []
        match.result_reason = ""
        match.save()
    if ended_match_only(match, bout, ending):
        bout.save()
        return text
    game = match.game
    state = replay_bout(bout)
    bout.finished = None
    bout.result = None
    bout.reason = ""
    bout.counts = True
    broke = [
        c.seat for c in bout.clocks.filter(seat__in=game.to_act(state)) if (c.per_move or 0.0) + c.reserve - c.used <= 0
    ]
    if broke and not match.paused and game.result(state) is None:
        match.paused = True
        match.save(update_fields=["paused"])
        who = ", ".join(seat_label(match, s) for s in broke)
        text += f"; the clocks stay paused because {who} has no time left: add time, then restart them"
    after_state_change(match, bout, state, now, new_round=True)
    if match.paused:
        clocks.pause(bout, now)
        bout.save()
    return text
