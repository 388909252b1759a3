"""The only code that changes a match (see matches/play/README.md).

Every function that changes a match is one `change.change(...)`: one transaction with the
match row and its current bout locked (`select_for_update`, always match first, then bout),
the checks it asks for (the bout running, the seat, the client's expected bout version where
the caller acted on what it saw), and the change announced after commit (`engine.notify`: an
event the live path subscribes to; nothing here knows how it is drawn or sent).  Refusals raise `ServiceError`
subclasses whose message is a plain sentence for the user, or the game's
`RuleError`; either way nothing changes.

Host actions are logged (kind "host") with readable text; moves are logged
(kind "move") with their canonical text and are what a replay applies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.core import HOST, RuleError
from games.registry import get_game
from matches.core import chatrooms, formats, netlag
from matches.core.errors import NotAllowed, ServiceError, StaleVersion
from matches.models import (
    Bout,
    ChatSettings,
    Match,
    Season,
    SeasonPlayer,
    Seat,
    TurnLog,
)
from matches.play import clocks, engine, offers, sweeper
from matches.play.change import RUNNING, STARTED, change, clean
from matches.play.engine import bout_state, replay_bout
from matches.play.host_adjust import adjust_clock, adjust_garnets, pause_clocks, resume_clocks
from matches.seasons import results as season_results

__all__ = [
    "NotAllowed",
    "ServiceError",
    "StaleVersion",
    "adjust_clock",
    "adjust_garnets",
    "award_bout",
    "bout_state",
    "correct",
    "create_match",
    "declare_result",
    "end_match",
    "forfeit",
    "host_apply",
    "pause_clocks",
    "reopen_bout",
    "reopen_refusal",
    "replay_bout",
    "resume_clocks",
    "set_replay_access",
    "start_match",
    "start_next_bout",
    "submit",
    "sweep_clocks",
    "undo",
]

sweep_clocks = sweeper.sweep_clocks

_SEAT_ORDERS = re.compile(r"^\s*seat\s*(\d+)\s*[:,]\s*(.*)$", re.IGNORECASE | re.DOTALL)


# -- creating and starting -----------------------------------------------------------


class AlreadyCreated(ServiceError):
    """A doubled submit of the form that creates a match: `match` is the one its first submit made."""

    def __init__(self, match: Match) -> None:
        super().__init__("this form already created a match")
        self.match = match


def create_match(
    game_slug: str,
    *,
    seat_names: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    bouts: int | None = None,
    clock: Mapping[str, Any] | bool | None = None,
    season: Season | None = None,
    starting_seat: int = 1,
    elimination: bool = False,
    chat_table: bool | None = None,
    chat_spectators: str = chatrooms.ON,
    key: str | None = None,
    **format_overrides: Any,
) -> Match:
    """A match in setup, with a token per seat, a host token and a watch token.

    `clock`: None keeps the game's default clock, False turns it off, a dict
    changes some of its keys (see formats.py).  `options` are the game's
    options; "variant" is kept for the format when the game has no such option.
    `season`: a Season the caller may put matches in (seasons.create_season_match, from its
    manage link), never a name: a name would let anyone who creates a season of that name first
    take the match (issue 21).
    `chat_table`: the players' table on or off (None: on for 2-player games); `chat_spectators`:
    the spectators' room "on", "off" or "delayed" (players read it once the match has ended).  The
    host changes both later from the chat's moderation panel (`chat.set_options`).
    `key`: the form's double-submit key, bound to who posted it (the web layer's `forms.create_key`):
    a second match with the same key is not made, `AlreadyCreated` names the first one.
    """
    if key is not None and (found := Match.objects.filter(create_key=key).first()) is not None:
        raise AlreadyCreated(found)
    if season is not None and not isinstance(season, Season):
        raise ServiceError("a match joins a season from the season's manage page, not by its name")
    try:
        game = get_game(game_slug)
    except KeyError:
        raise ServiceError(f"there is no game called {game_slug!r}") from None
    options = dict(options or {})
    try:
        fmt = formats.build_format(
            game_slug, options, bouts=bouts, clock=True if clock is None else clock, **format_overrides
        )
    except formats.FormatError as error:
        raise ServiceError(str(error)) from None
    if "variant" in options and "variant" not in game.default_options:
        fmt["variant"] = options.pop("variant")
    try:  # refuse bad options now, not when the first bout starts
        game.new(game.options(options))
        count = game.seat_count(options)  # the host's game: its "seats" option
    except RuleError:
        raise
    except (ValueError, TypeError, KeyError) as error:
        raise ServiceError(f"these options do not work for {game.name}: {error}") from None
    names = [clean(n) for n in (seat_names or [])]
    if len(names) > count:
        raise ServiceError(f"{game.name} has {count} seats, not {len(names)}")
    names += [""] * (count - len(names))
    names = [n or f"Seat {i}" for i, n in enumerate(names, start=1)]
    if not 1 <= int(starting_seat) <= count:
        raise ServiceError(f"there is no seat {starting_seat} to start")
    fmt["starting_seat"] = int(starting_seat)
    try:  # who answers draw offers and takeback requests: the host's choice, or the game's default
        fmt["answers"] = formats.settle_answers(game, count, fmt.get("answers"))
    except formats.FormatError as error:
        raise ServiceError(str(error)) from None
    if chat_spectators not in (chatrooms.OFF, chatrooms.ON, chatrooms.DELAYED):
        raise ServiceError("the spectators' room is on, off, or shown to players when the match ends")
    with transaction.atomic():
        if elimination and (season is None or count != 2):
            raise ServiceError("only a 2-player match in a season can be the elimination match")
        try:
            with transaction.atomic():
                match = Match.objects.create(game_slug=game_slug, options=options, format=fmt, season=season,
                                             elimination=bool(elimination), create_key=key)
        except IntegrityError:
            # the same key's other submit, at the same moment, committed first (PostgreSQL made this
            # insert wait for it): the match is that one
            found = Match.objects.filter(create_key=key).first() if key is not None else None
            if found is None:
                raise
            raise AlreadyCreated(found) from None
        for number, name in enumerate(names, start=1):
            player = SeasonPlayer.objects.get_or_create(season=season, name=name)[0] if season else None
            Seat.objects.create(match=match, number=number, name=name, season_player=player)
        if chat_table is not None or chat_spectators != chatrooms.ON:  # the row chatrooms.options reads
            ChatSettings.objects.create(match=match, table=chat_table, spectators=chat_spectators)
        if season is not None:  # announced to the season (spectator link only)
            season_results.match_created(match)
    return match


def start_match(match: Match, *, starting_seat: int | None = None) -> Bout:
    """Host: start bout 1 with the chosen starting seat."""
    with change(match) as c:
        match, now = c.match, c.now
        if match.status != Match.SETUP:
            raise NotAllowed("the match has already started")
        seat = engine.require_seat(match, starting_seat or match.format.get("starting_seat", 1))
        match.status = Match.RUNNING
        match.started = now
        match.save()
        bout = engine.begin_bout(match, 1, seat, now)
        c.note(f"started the match; {engine.seat_label(match, seat)} starts bout 1", bout=bout)
        if match.season_id:
            season_results.match_started(match)
        return bout


def start_next_bout(match: Match) -> Bout:
    """Host: start the next bout (the starter alternates, or repeats after a stalemate)."""
    with change(match) as c:
        match, bout = c.match, c.bout
        if match.status != Match.RUNNING or bout is None:
            raise NotAllowed("the match is not running")
        if bout.finished is None:
            raise NotAllowed(f"bout {bout.number} is still being played")
        seat = engine.next_starter(match, bout)
        new = engine.begin_bout(match, bout.number + 1, seat, c.now)
        replay_note = " (replay of the stalemate)" if not bout.counts else ""
        c.note(f"started bout {new.number}{replay_note}; {engine.seat_label(match, seat)} starts", bout=new)
        return new


# -- moves ----------------------------------------------------------------------------


def submit(match: Match | int, seat: int, text: str, expected_version: int, *, think: float | None = None,
           network_lag: float | None = None) -> TurnLog:
    """A seat's move (or sealed submission) on the current bout (`match`: the match or its id).

    `think`: the seconds the page says its player took (position shown -> Play pressed); the
    seat's clock gives back the lag beyond it, within its quota (play/lag.py).  `network_lag`: the
    round trip the server measured on the socket the move came by (core/netlag.py); when None,
    the latest one measured on any of the seat's sockets."""
    now = timezone.now()  # the move's arrival: before the round trip is looked up, which the clock must not charge
    match_id = match if isinstance(match, int) else match.pk
    if network_lag is None and isinstance(seat, int):
        network_lag = netlag.measured(match_id, seat)
    with change(match, bout=RUNNING, seat=seat, playing=True, expected=expected_version, with_clocks=True,
                now=now) as c:
        match, bout, seat = c.match, c.running, c.seat
        clock = clocks.of(bout, seat)
        charge = clocks.account(clock, now, think, network_lag) if clock is not None and clock.running else None
        late = [seat] if clock is not None and charge is not None and clocks.late(clock, charge) else []
        if engine.expire(match, bout, now, late=late):  # the time-out stands, the move is refused
            offers.end_by_move(match, bout, HOST, now)  # a round its deadline closed (a bout it ended has none)
            c.refuse_after_commit(NotAllowed("time ran out before your move arrived"))
        else:
            entry = engine.play(match, bout, seat, clean(text), now, charge=charge)
            if not offers.end_by_move(match, bout, seat, now):  # else more than the move was written
                c.move(entry)
    return entry


def already_applied(match: Match | int, seat: int, expected_version: int, text: str) -> bool:
    """A move `submit` refused as stale (`StaleVersion`) that is the seat's own move sent again with
    the version it was first sent with, which the first try applied: the page retries a move whose
    answer was lost when its web process restarted (static/js/retry.js), or its player clicked twice,
    on the form or the socket.  It was applied once; both answer it as done, not with "the board
    changed".  Its seat's move made the next version of the current bout, in the same words (as
    typed, or in the log's canonical form).  Read only."""
    found = match if isinstance(match, Match) else Match.objects.filter(pk=match).first()
    bout = found.current_bout if found is not None else None
    if found is None or bout is None:
        return False
    done = bout.active_moves().filter(actor=seat, by_host=False, version=int(expected_version) + 1).last()
    if done is None:
        return False
    if done.text.strip().lower() == text.strip().lower():
        return True
    game = found.game
    try:
        return bool(game.format(game.parse(game.load(bout.state), seat, text)) == done.text)
    except RuleError:
        return False


def host_apply(match: Match, text: str, expected_version: int) -> TurnLog:
    """Host: a game action as HOST ("resolve"), or orders for a seat ("seat 2: A1 3")."""
    text = clean(text)
    found = _SEAT_ORDERS.match(text)
    orders = int(found.group(1)) if found else None
    over = ("no orders can be entered in it; start the next bout first" if orders else
            "there is no round to resolve" if text == "resolve" else
            "no more host actions can be played in it; start the next bout first")
    with change(match, bout=RUNNING, seat=orders, expected=expected_version, with_clocks=True, over=over) as c:
        actor = c.seat or HOST
        entry = engine.play(c.match, c.running, actor, found.group(2) if found else text, c.now, by_host=actor != HOST)
        if not offers.end_by_move(c.match, c.running, actor, c.now):
            c.move(entry)
        return entry


def host_play(match: Match, texts: Sequence[str], expected_version: int) -> list[TurnLog]:
    """Host: the host's own game actions (games with `host_moves`), several at once, in order,
    each logged as its own turn: all or none (an illegal one refuses the lot, naming it), on one
    version, so a doubled Send is refused as stale, never applied twice."""
    texts = [clean(text) for text in texts]
    if not texts:
        raise NotAllowed("nothing to send: add an action first")
    with change(match, bout=RUNNING, expected=expected_version, with_clocks=True,
                over="no more host actions can be played in it; start the next bout first") as c:
        entries: list[TurnLog] = []
        for number, text in enumerate(texts, start=1):
            where = f"action {number} of {len(texts)} ({text})"
            if c.running.finished is not None:
                raise NotAllowed(f"{where} comes after the bout ended: none was done")
            try:
                entries.append(engine.play(c.match, c.running, HOST, text, c.now))
            except RuleError as error:
                if len(texts) == 1:
                    raise
                raise engine.illegal_after(error, f"{where} is refused, so none was done") from None
        if len(entries) == 1:
            c.move(entries[0])  # one move: a delta carries it; several: pages read the match back
        return entries


# -- host: rewriting the log --------------------------------------------------------------


def undo(match: Match, expected_version: int, count: int = 1, *, by_seat: int = 0, why: str = "") -> Bout:
    """Host: mark the last `count` turns of the current bout undone and replay the rest.  `by_seat`:
    a seat's own undo (it accepted its opponent's takeback request: `why`), logged as that seat's note."""
    with change(match, bout=STARTED, expected=expected_version) as c:
        match, bout, now = c.match, c.running, c.now
        _require_ended_by_a_move(match, bout)
        moves = list(bout.active_moves())
        count = int(count)
        if count < 1:
            raise NotAllowed("undo at least one turn")
        if count > len(moves):
            raise NotAllowed(f"bout {bout.number} has only {len(moves)} turn(s) to undo")
        keep, drop = moves[: len(moves) - count], moves[len(moves) - count :]
        state = engine.replay(match.game, bout, [(t.actor, t.text) for t in keep])
        TurnLog.objects.filter(pk__in=[t.pk for t in drop]).update(undone=True)
        what = "; ".join(f"{t.who}: {t.text}" for t in drop)
        # a seat's note names no move: every audience reads it (the host's undo note quotes sealed orders)
        text = f"{why}: {count} turn(s) taken back" if by_seat else f"undo {count} ({what})"
        _rewrite(match, bout, state, now, text, by_seat=by_seat)
        return bout


def correct(match: Match, sequence: int, text: str, expected_version: int) -> TurnLog:
    """Host: replace turn #`sequence` of the current bout and replay the bout.

    The old entry is marked corrected; the new one takes its place (same
    sequence).  If the new text, or any later turn, is illegal in the replay,
    a RuleError says which and nothing changes.
    """
    with change(match, bout=STARTED, expected=expected_version) as c:
        match, bout, now = c.match, c.running, c.now
        _require_ended_by_a_move(match, bout)
        moves = list(bout.active_moves())
        old = next((t for t in moves if t.sequence == int(sequence)), None)
        if old is None:
            raise NotAllowed(f"there is no turn #{sequence} in the current bout to correct")
        game = match.game
        state = game.new(bout.options)
        canonical = ""
        for entry in moves:
            if entry is old:
                try:
                    action = game.parse(state, entry.actor, clean(text))
                    state = game.apply(state, entry.actor, action)
                except RuleError as error:
                    raise engine.illegal_after(error, f"the correction of turn #{sequence} is illegal") from None
                canonical = game.format(action)
                continue
            try:
                state = game.play(state, entry.actor, entry.text)
            except RuleError as error:
                where = f"after the correction, turn #{entry.sequence} ({entry.who}: {entry.text}) is no longer legal"
                raise engine.illegal_after(error, where) from None
        old.corrected = True
        old.save(update_fields=["corrected"])
        new = engine.write(
            match, bout, TurnLog.MOVE, old.actor, canonical, now,
            sequence=old.sequence, by_host=old.by_host, time_used=old.time_used, corrected_from=old.text,
        )  # fmt: skip
        _rewrite(match, bout, state, now, f"corrected turn #{sequence} from {old.text!r} to {canonical!r}")
        new.version = bout.version
        new.save(update_fields=["version"])
        return new


def reopen_bout(match: Match, expected_version: int) -> Bout:
    """Host: take back the last award, forfeit, time-out, declared draw or
    stalemate, or `end_match` of the current bout (the host "can correct anything").

    The ending's log entry is marked undone (never deleted) and a note
    "reopened bout N" is logged; the bout's result is cleared and its state is
    the replay of its moves; the seat to act gets a fresh turn on its clock
    (unless paused; the clocks stay paused if it has no time left); a match
    the ending had finished runs again.  Refused (NotAllowed, plain message)
    when the bout was decided on the board, when the next bout (or a
    stalemate's replay) has started, or when the match end gave tokens of life.
    """
    with change(match, bout=STARTED, expected=expected_version) as c:
        refusal = engine.reopen_refusal(c.match, c.running)
        if refusal:
            raise NotAllowed(refusal)
        engine.bump(c.running)
        c.note(engine.reopen_ending(c.match, c.running, c.now))
        return c.running


def reopen_refusal(match: Match) -> str:
    """Why `reopen_bout` would refuse now ("" when the host can reopen); read only."""
    bout = match.current_bout
    return engine.reopen_refusal(match, bout)


def _require_ended_by_a_move(match: Match, bout: Bout) -> None:
    """Undo and correct rewind moves.  A bout the host or a clock ended (award,
    forfeit, time-out, declared draw, ended match) has no result in its state:
    rewinding a move would silently revive it, and the match the host ended."""
    if bout.finished is not None and match.game.result(bout_state(bout)) is None:
        raise NotAllowed(
            f"bout {bout.number} was ended by {bout.reason or 'the host'}, not by a move: "
            "undo and correct only rewind moves of a bout still in play or won on the board "
            "(reopen the bout first to take that ending back)"
        )


def _rewrite(match: Match, bout: Bout, state: Any, now: datetime, text: str, *, by_seat: int = 0) -> None:
    """After undo/correct: the replayed state becomes the bout's; a finished
    bout (and match) whose result the replay no longer has runs again."""
    if bout.finished is not None:
        engine.reopen(match, bout)
    engine.bump(bout)
    if by_seat:
        offers.seat_note(match, bout, by_seat, text, now)
    else:
        engine.note(match, bout, text, now)
    engine.after_state_change(match, bout, state, now, new_round=True)


# -- host: results --------------------------------------------------------------------------

#: the refusals of the endings below on a bout already over: the ending must be taken back first
_REOPEN = " (to change how it ended, reopen it first)"


def declare_result(match: Match, kind: str, expected_version: int) -> Bout:
    """Host: end the current bout as a "stalemate" or a "draw"."""
    if kind not in ("stalemate", "draw"):
        raise ServiceError("the host can declare a stalemate or a draw")
    with change(match, bout=RUNNING, expected=expected_version,
                over=f"it cannot be declared a {kind} now{_REOPEN}") as c:
        match, bout = c.match, c.running
        engine.bump(bout)
        replayed = " (the bout will be replayed with the same starter)" if match.format.get("stalemate_replays") and kind == "stalemate" else ""
        c.note(f"declared bout {bout.number} a {kind}{replayed}")
        engine.finish_bout(match, bout, [], kind, c.now)
        return bout


def award_bout(match: Match, seat: int) -> Bout:
    """Host: the current bout goes to `seat`."""
    with change(match, bout=RUNNING, seat=seat, with_clocks=True, over=f"it cannot be awarded now{_REOPEN}") as c:
        engine.bump(c.running)
        c.note(f"awarded bout {c.running.number} to {engine.seat_label(c.match, c.seat)}")
        engine.finish_bout(c.match, c.running, [c.seat], "award", c.now)
        return c.running


def forfeit(match: Match, seat: int, scope: str | None = None) -> Bout:
    """Host: `seat` forfeits the bout or the match (`scope`, default from the format)."""
    over = (f"no seat can forfeit it now{_REOPEN}" if (scope or match.format.get("forfeit")) == "bout" else
            "a seat forfeits the match during a bout; between bouts, End match names the winners")
    with change(match, bout=RUNNING, seat=seat, with_clocks=True, over=over) as c:
        match, bout, seat = c.match, c.running, c.seat
        scope = scope or match.format.get("forfeit", "match")
        if scope not in ("bout", "match"):
            raise ServiceError("a seat forfeits either the bout or the match")
        engine.bump(bout)
        c.note(f"{engine.seat_label(match, seat)} forfeits the {scope}")
        winners = [s for s in range(1, match.seat_count + 1) if s != seat]
        engine.finish_bout(match, bout, winners, "forfeit", c.now, whole_match=scope == "match")
        return bout


def end_match(match: Match, winners: Sequence[int] | None = None) -> Match:
    """Host: end the match now; winners given, or by bouts won."""
    with change(match) as c:
        match, bout, now = c.match, c.bout, c.now
        if match.status == Match.FINISHED:
            raise NotAllowed("the match is already over")
        if winners is None:
            score = match.score()
            best = max(score.values(), default=0)
            winners = [s for s, won in score.items() if won == best and best > 0]
        winners = [engine.require_seat(match, w) for w in winners]
        if bout is not None:
            engine.bump(bout)
            if bout.finished is None:
                clocks.stop_all(bout, now)
                bout.finished = now
                bout.result = {"winners": [], "reason": "ended", "scores": None, "detail": "ended by the host"}
                bout.reason = "ended"
                bout.counts = False
                clocks.refresh(bout)
            bout.save()
        names = ", ".join(engine.seat_label(match, w) for w in winners) or "no winner"
        c.note(f"ended the match: {names}")
        engine.finish_match(match, bout, winners, "ended by the host", now)
        return match


# -- host: replays ---------------------------------------------------------------------------


def set_replay_access(match: Match, behind: int | None) -> None:
    """Host: who may replay the running bout.  None: the host only; N >= 0:
    everyone, N moves (sealed games: rounds) behind the live board.  Finished
    bouts are open to everyone whatever this says.  Stored in `match.format`
    (see `matches.replays.steps`); not a change of the board, so the bout version
    stays (players' loaded boards stay current)."""
    from matches.core.replay_access import MAX_BEHIND, REPLAY_KEY, describe_access

    if behind is not None and not 0 <= int(behind) <= MAX_BEHIND:
        raise ServiceError(f"choose a delay between 0 and {MAX_BEHIND} moves")
    with change(match) as c:
        match = c.match
        fmt = dict(match.format or {})
        if behind is None:
            fmt.pop(REPLAY_KEY, None)
        else:
            fmt[REPLAY_KEY] = int(behind)
        if fmt == match.format:
            raise NotAllowed(f"nothing to change: {describe_access(match)}")
        match.format = fmt
        match.save(update_fields=["format"])
        c.note(f"replays: {describe_access(match)}")
