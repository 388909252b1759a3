"""Text records of bouts and matches: export, parse, import.

A record is plain UTF-8 text, one fact a line, readable without this app and
read back by `manage.py import_record FILE`:

    # Deathmatch record 1
    Game: <the game's slug>
    Game-name: <the game's name>
    Options: {"starting_seat": 1, ...}        (JSON, the match's options)
    Format: {"bouts": 3, "clock": {...}, ...}  (JSON, the match's format)
    Seat 1: Ann
    Seat 2: Bob
    Date: 2026-03-01
    Result: Ann won (bouts)
    Complete: yes

    Bout 1
    Starting-seat: 1
    Bout-options: {...}
    Started: 2026-03-01T12:00:00+00:00
    Result: Ann won (<reason>)
    Result-JSON: {"winners": [1], "reason": "<reason>", ...}
    State-SHA256: 3f1c...                     (complete records only)
    1. seat 1: place C3 {4.2 s}
    # host: corrected turn #2 from 'place D4' to 'place D5'
    2. seat 2: place D5 {3.0 s} {was: place D4}
    # undone: 3. seat 1: place E5 {1.0 s}
    3. seat 1 by host: place E6
    4. host: resolve
    End of bout 1

Move lines hold the canonical notation and the time the move took; host
actions, a seat's own say (its draw offer, takeback request, answer or
resignation) and clock events are comments (`# host: ...`,
`# seat 2 (Bob): accepts the takeback request of seat 1 (Ann)`, `# clock: ...`), undone
entries are comments too.  Import replays only the move lines, through the
services, plus the comments that end a bout without the rules (award,
forfeit, declared draw/stalemate, end of match, time-out), then checks every
bout's state against State-SHA256.

Each audience gets its own record: in sealed games another seat's orders are
hidden from everyone but the host (as on the live page), and a running bout
is cut where that audience's replay stops.  Such a record says
`Complete: no` and is not importable.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from games.core import HOST, RuleError
from games.registry import get_game
from matches.core.replay_access import REPLAY_KEY
from matches.models import Bout, Match, Seat, TurnLog
from matches.pages import render as rendering
from matches.play import clocks, engine
from matches.replays import steps as replays

MAGIC = "# Deathmatch record 1"
#: deeper JSON than any option or result holds is refused (a 3,000-deep one overflows the parser)
MAX_JSON_DEPTH = 20
SEAT_NAME_MAX = Seat._meta.get_field("name").max_length or 80

_HEADER = re.compile(r"^([A-Z][A-Za-z-]*|Seat \d+): ?(.*)$")
_MOVE = re.compile(r"^(\d+)\. (?:host|seat (\d+)( by host)?): (.*?)(?: \{([0-9.]+) s\})?(?: \{was: .*\})?$")
_NOTE = re.compile(r"^# (host|clock): (.*)$")
_SEAT_IN_NOTE = re.compile(r"^seat (\d+)")
_AWARD = re.compile(r"^awarded bout \d+ to seat (\d+)")
_FORFEIT = re.compile(r"^seat (\d+)(?: \(.*\))? forfeits the (bout|match)$", re.DOTALL)
_TIMEOUT = re.compile(r"^seat (\d+)(?: \(.*\))? ran out of time and forfeits the (bout|match)$", re.DOTALL)
_DECLARED = re.compile(r"^declared bout \d+ a (draw|stalemate)")
_ENDED = re.compile(r"^ended the match: (.*)$", re.DOTALL)


class RecordError(ValueError):
    """A record that cannot be read or imported (the message says which line or why)."""


# -- export ---------------------------------------------------------------------------


def export(match: Match, viewer: int, bout_number: int | None = None) -> str:
    """The record of one bout (or, with no number, the whole match) as `viewer` may see it."""
    bouts = list(match.bouts.order_by("number"))
    if bout_number is not None:
        bouts = [b for b in bouts if b.number == bout_number]
    seats = list(match.seats.order_by("number"))
    names = {s.number: s.name for s in seats}
    parts = [_bout_lines(match, bout, viewer, names) for bout in bouts]
    complete = all(ok for ok, _ in parts)
    head = [
        MAGIC,
        f"Game: {match.game_slug}",
        f"Game-name: {match.game.name}",
        f"Options: {json.dumps(match.options, sort_keys=True)}",
        f"Format: {json.dumps(match.format, sort_keys=True)}",
        *(f"Seat {s.number}: {_line(s.name)}" for s in seats),
        f"Date: {(match.started or match.created).date().isoformat()}",
        f"Result: {_match_result(match, names)}",
        f"Complete: {'yes' if complete else 'no'}",
    ]
    if bout_number is not None:
        head.append(f"Excerpt: bout {bout_number} of match #{match.pk}")
    if not complete:
        head.append("# Parts of this record are hidden from this audience (sealed orders, or a bout still")
        head.append("# being played); only a complete record (the host's) can be imported.")
    out = head
    for _, lines in parts:
        out += ["", *lines]
    return "\n".join(out) + "\n"


def filename(match: Match, bout_number: int | None = None) -> str:
    what = f"bout-{bout_number}" if bout_number is not None else "match"
    return f"deathmatch-{match.game_slug}-{match.pk}-{what}.txt"


def state_digest(game: Any, state: Any) -> str:
    return hashlib.sha256(json.dumps(game.dump(state), sort_keys=True).encode()).hexdigest()


def _bout_lines(match: Match, bout: Bout, viewer: int, names: dict[int, str]) -> tuple[bool, list[str]]:
    """(complete?, lines) of one bout for `viewer`."""
    game = match.game
    lines = [
        f"Bout {bout.number}",
        f"Starting-seat: {bout.starting_seat}",
        f"Bout-options: {json.dumps(bout.options, sort_keys=True)}",
        f"Started: {bout.started.isoformat()}",
    ]
    replay = replays.load(match, bout, viewer)
    if not replay.allowed:
        lines += [f"# {replay.note}", f"End of bout {bout.number}"]
        return False, lines
    rows = replay.shown_rows()
    cut = replay.visible < len(replay.steps) - 1 or (len(rows) < len(replay.rows))
    complete = not cut
    if bout.finished is not None:
        lines.append(f"Result: {_bout_result(bout, names)}")
        lines.append(f"Result-JSON: {json.dumps(bout.result, sort_keys=True)}")
    else:
        lines.append("Result: still being played" + (" (this record stops behind the live board)" if cut else ""))
    entries = rendering.log_entries(match, rows, viewer, names)  # the live log's masking of sealed orders
    body: list[str] = []
    for row, shown in zip(rows, entries, strict=True):
        hidden = row.kind == TurnLog.MOVE and shown["text"] != row.text
        if hidden:
            complete = False
        body.append(_row_line(row, shown, hidden, names))
    if complete:
        lines.append(f"State-SHA256: {state_digest(game, engine.bout_state(bout))}")
    lines += body
    lines.append(f"End of bout {bout.number}")
    return complete, lines


def _row_line(row: TurnLog, shown: dict[str, Any], hidden: bool, names: dict[int, str]) -> str:
    if row.kind != TurnLog.MOVE:
        prefix = "# clock" if row.kind == TurnLog.CLOCK else "# host"
        if row.kind == TurnLog.SEAT_NOTE and row.actor >= 1:
            # the seat's own say (an offer, a request, its answer, a resignation): credited to it, as
            # the live log does; `shown` has its text without the seat's name
            name = names.get(row.actor)
            prefix = f"# seat {row.actor}" + (f" ({_line(name)})" if name else "")
        return f"{prefix}{' (undone)' if row.undone else ''}: {_line(shown['text'])}"
    who = "host" if row.actor == HOST else f"seat {row.actor}{' by host' if row.by_host else ''}"
    if hidden:
        return f"# {row.sequence}. {who}: ({_line(shown['text'])})"
    time = f" {{{row.time_used:.1f} s}}" if row.time_used is not None else ""
    was = f" {{was: {_line(shown['corrected_from'])}}}" if shown["corrected_from"] and row.active else ""
    line = f"{row.sequence}. {who}: {_line(row.text)}{time}{was}"
    if row.undone:
        return f"# undone: {line}"
    if row.corrected:
        return f"# corrected: {line}"
    return line


def _line(text: Any) -> str:
    return " ".join(str(text).split())


def _bout_result(bout: Bout, names: dict[int, str]) -> str:
    winners = bout.winners
    reason = (bout.result or {}).get("reason") or bout.reason or ""
    if not winners:
        return f"no winner ({reason or 'draw'})"
    return f"{' and '.join(names.get(w, f'seat {w}') for w in winners)} won ({reason})"


def _match_result(match: Match, names: dict[int, str]) -> str:
    if match.status == Match.SETUP:
        return "not started"
    if match.status == Match.RUNNING:
        return "still being played"
    winners = list(match.winners or [])
    if not winners:
        return f"no winner ({match.result_reason or 'draw'})"
    return f"{' and '.join(names.get(int(w), f'seat {w}') for w in winners)} won ({match.result_reason})"


# -- parse ------------------------------------------------------------------------------


@dataclass
class Event:
    """One line import acts on: a move, or a note that ends a bout."""

    kind: str  # "move" | "award" | "forfeit" | "timeout" | "declare" | "end"
    actor: int = 0
    by_host: bool = False
    text: str = ""
    seats: list[int] = field(default_factory=list)
    scope: str = ""
    line: int = 0


@dataclass
class BoutRecord:
    number: int
    line: int = 0  # of "Bout n" (errors found on import name it)
    starting_seat: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    digest: str = ""
    events: list[Event] = field(default_factory=list)


@dataclass
class Record:
    game: str
    options: dict[str, Any]
    format: dict[str, Any]
    seats: dict[int, str]
    complete: bool
    excerpt: bool
    bouts: list[BoutRecord]
    lines: dict[str, int] = field(default_factory=dict)  # header key -> its line number


def parse(text: str) -> Record:
    """A record's text -> Record; `RecordError` naming the line on anything unreadable."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != MAGIC:
        raise RecordError(f"this is not a Deathmatch record (the first line must be {MAGIC!r})")
    header: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    objects: dict[str, dict[str, Any]] = {}
    seats: dict[int, str] = {}
    bouts: list[BoutRecord] = []
    current: BoutRecord | None = None
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip()
        if not line.strip():
            continue
        try:
            if current is None:
                if line.startswith("Bout "):
                    current = BoutRecord(int(line[5:]), line=number)
                    continue
                if line.startswith("#"):
                    continue
                found = _HEADER.match(line)
                if not found:
                    raise RecordError("expected 'Key: value'")
                key, value = found.groups()
                lines_of[key] = number
                if key.startswith("Seat "):
                    if len(value) > SEAT_NAME_MAX:
                        raise RecordError(f"a seat name has at most {SEAT_NAME_MAX} characters, not {len(value)}")
                    seats[int(key[5:])] = value
                else:
                    header[key] = value
                    if key in ("Options", "Format"):
                        objects[key] = _json_object(value, key)
                continue
            if line == f"End of bout {current.number}":
                bouts.append(current)
                current = None
                continue
            _bout_line(current, line, number)
        except RecordError as error:
            raise RecordError(f"line {number}: {error}: {line[:80]!r}") from None
        except (ValueError, json.JSONDecodeError) as error:
            raise RecordError(f"line {number}: cannot read {line[:80]!r} ({str(error)[:120]})") from None
    if current is not None:
        raise RecordError(f"bout {current.number} has no 'End of bout {current.number}' line")
    for key in ("Game", "Options", "Format"):
        if key not in header:
            raise RecordError(f"the record has no {key}: line")
    return Record(
        game=header["Game"],
        options=objects["Options"],
        format=objects["Format"],
        seats=seats,
        complete=header.get("Complete", "yes").strip() == "yes",
        excerpt="Excerpt" in header,
        bouts=bouts,
        lines=lines_of,
    )


def _bout_line(bout: BoutRecord, line: str, number: int) -> None:
    if line.startswith("Starting-seat: "):
        bout.starting_seat = int(line.split(": ", 1)[1])
    elif line.startswith("Bout-options: "):
        bout.options = _json_object(line.split(": ", 1)[1], "Bout-options")
    elif line.startswith("Result-JSON: "):
        bout.result = _json_object(line.split(": ", 1)[1], "Result-JSON")
        winners = bout.result.get("winners", [])
        if not isinstance(winners, list) or not all(type(w) is int for w in winners):
            raise RecordError("the winners of a result are a list of seat numbers")
    elif line.startswith("State-SHA256: "):
        bout.digest = line.split(": ", 1)[1].strip()
    elif line.startswith(("Started: ", "Result: ")):
        pass
    elif line.startswith("#"):
        note = _NOTE.match(line)
        if note:
            event = _ending(note.group(2))
            if event is not None:
                event.line = number
                bout.events.append(event)
    else:
        move = _MOVE.match(line)
        if not move:
            raise RecordError("expected a move line ('12. seat 1: place C3')")
        actor = int(move.group(2)) if move.group(2) else HOST
        bout.events.append(Event("move", actor, bool(move.group(3)), move.group(4), line=number))


def _ending(text: str) -> Event | None:
    """The note of an ending import must reproduce (other notes are only read)."""
    if not engine.ENDING_NOTES.match(text):
        return None
    if found := _AWARD.match(text):
        return Event("award", seats=[int(found.group(1))])
    if found := _TIMEOUT.match(text):
        return Event("timeout", seats=[int(found.group(1))], scope=found.group(2))
    if found := _FORFEIT.match(text):
        return Event("forfeit", seats=[int(found.group(1))], scope=found.group(2))
    if found := _DECLARED.match(text):
        return Event("declare", text=found.group(1))
    if found := _ENDED.match(text):
        return Event("end", seats=[int(s) for s in re.findall(r"\bseat (\d+)", found.group(1))])
    return None


def _json_object(text: str, what: str) -> dict[str, Any]:
    value: object
    try:
        value = json.loads(text)
    except RecursionError:  # the parser recurses once a level
        value = None
    else:
        if not isinstance(value, dict):
            raise RecordError(f"{what} must be a JSON object")
    if not isinstance(value, dict) or _depth(value) > MAX_JSON_DEPTH:
        raise RecordError(f"{what} is nested more than {MAX_JSON_DEPTH} levels deep")
    return value


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (walked without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            todo += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list):
            todo += [(v, depth + 1) for v in item]
    return deepest


# -- import -------------------------------------------------------------------------------


def import_record(text: str) -> Match:
    """A new match played from a complete record through the services; every
    bout ends in the recorded state (checked), or nothing is created.  Each
    move publishes its event like any other; nobody has a socket open on a
    match whose links nobody has yet, so the live path draws nothing for it."""
    from matches.play import services, sweeper

    record = parse(text)
    if not record.complete:
        raise RecordError("this record is not complete (sealed orders or moves are hidden from the audience "
                          "that downloaded it); import the host's record")
    if not record.bouts:
        raise RecordError("the record has no bouts")
    where = record.lines
    try:
        game = get_game(record.game)
    except KeyError:
        raise RecordError(f"line {where.get('Game')}: there is no game called {record.game!r}") from None
    try:  # the host's game: as many seats as its "seats" option says
        count = game.seat_count({k: v for k, v in record.options.items() if k in game.default_options})
    except RuleError as error:
        raise RecordError(f"line {where.get('Options')}: these options do not work for {game.name}: {error}") from None
    for seat in record.seats:
        if not 1 <= seat <= count:
            raise RecordError(f"line {where.get(f'Seat {seat}')}: {game.name} has no seat {seat}")
    for bout_record in record.bouts:
        if not 1 <= bout_record.starting_seat <= count:
            raise RecordError(f"line {bout_record.line}: bout {bout_record.number} cannot start with seat "
                              f"{bout_record.starting_seat}: {game.name} has seats 1 to {count}")
    fmt = dict(record.format)
    options = dict(record.options)
    if "variant" in fmt and "variant" not in game.default_options:
        options["variant"] = fmt["variant"]
    first = record.bouts[0]
    if "garnets" in first.options and "garnets" in game.default_options and not options.get("garnets"):
        options["garnets"] = first.options["garnets"]  # the season balances the bouts started with
    overrides = {k: fmt[k] for k in ("alternate", "stalemate_replays", "forfeit", "auto_next_bout") if k in fmt}
    clock = fmt.get("clock") or False
    if isinstance(clock, dict):
        clock = {k: v for k, v in clock.items() if k in {"per_move", "reserve", "refill", "on_timeout",
                                                            "round_seconds"}}
    names = [record.seats.get(n, f"Seat {n}") for n in range(1, count + 1)]
    try:
        game.new(game.options({k: v for k, v in options.items() if k in game.default_options or k != "variant"}))
    except (ValueError, TypeError, KeyError) as error:  # as create_match would refuse them
        raise RecordError(f"line {where.get('Options')}: these options do not work for {game.name}: {error}") from None
    with transaction.atomic():
        try:
            match = services.create_match(
                record.game, seat_names=names, options=options, bouts=1 if record.excerpt else fmt.get("bouts"),
                clock=clock, starting_seat=first.starting_seat, **overrides,
            )
        except (services.ServiceError, RuleError) as error:  # what is left to refuse is the format
            raise RecordError(f"line {where.get('Format')}: {error}") from None
        behind = fmt.get(REPLAY_KEY)
        for index, bout_record in enumerate(record.bouts):
            if index == 0:
                services.start_match(match, starting_seat=first.starting_seat)
            else:
                match.refresh_from_db()
                current = match.current_bout
                if current is None or current.number < index + 1:
                    services.start_next_bout(match)
            match.refresh_from_db()
            bout = match.current_bout
            assert bout is not None
            if bout.starting_seat != bout_record.starting_seat:
                raise RecordError(f"line {bout_record.line}: bout {bout_record.number}: the format makes seat "
                                  f"{bout.starting_seat} start, "
                                  f"the record says seat {bout_record.starting_seat}")
            for event in bout_record.events:
                try:
                    _play(match, event, sweeper, services)
                except (services.ServiceError, ValueError) as error:
                    raise RecordError(f"line {event.line}: {error}") from None
            try:
                _check(match, bout_record, game)
            except RecordError as error:
                raise RecordError(f"line {bout_record.line}: {error}") from None
        if behind is not None:
            services.set_replay_access(match, behind)
    match.refresh_from_db()
    return match


def _play(match: Match, event: Event, sweeper: Any, services: Any) -> None:
    match.refresh_from_db()
    bout = match.current_bout
    version = bout.version if bout is not None else 0
    if event.kind == "move":
        if event.actor == HOST:
            services.host_apply(match, event.text, version)
        elif event.by_host:
            services.host_apply(match, f"seat {event.actor}: {event.text}", version)
        else:
            services.submit(match, event.actor, event.text, version)
    elif event.kind == "award":
        services.award_bout(match, event.seats[0])
    elif event.kind == "forfeit":
        services.forfeit(match, event.seats[0], event.scope)
    elif event.kind == "declare":
        services.declare_result(match, event.text, version)
    elif event.kind == "end":
        services.end_match(match, event.seats)
    elif event.kind == "timeout":
        # the sweeper's own path, at the moment the seat's flag falls (its deadline and lag grace)
        clock = bout.clocks.filter(seat=event.seats[0]).first() if bout is not None else None
        if bout is None or clock is None or clock.deadline is None:
            raise RecordError(f"seat {event.seats[0]} has no running clock whose time could run out")
        flag = clocks.flag_at(clock)
        if flag is None or not sweeper.claim_and_expire(match.pk, bout.pk, bout.version, flag):
            raise RecordError(f"seat {event.seats[0]}'s time-out could not be reproduced")


def _check(match: Match, bout_record: BoutRecord, game: Any) -> None:
    bout = match.bouts.get(number=match.current_bout.number if match.current_bout else 1)
    state = engine.bout_state(bout)
    if bout_record.digest and state_digest(game, state) != bout_record.digest:
        raise RecordError(f"bout {bout_record.number} does not end in the recorded state")
    if bout_record.result is not None:
        got = bout.result or {}
        want = bout_record.result
        if sorted(got.get("winners", [])) != sorted(want.get("winners", [])) or got.get("reason") != want.get("reason"):
            raise RecordError(f"bout {bout_record.number} ends with {got or 'no result'}, the record says {want}")
