"""The rooms of a match's chat and who reads and writes each (read by play, live and web).

- "announce": the host writes, every audience reads (also written to the match log).
- "seat-N": seat N's private thread with the host; only that seat and the host read it.
- "table": the players' table, seats and host; a match option, on by default for 2-player games.
- "spectators": spectators and host; players never read it, except when the option is
  "delayed" and the match has ended (then they read it, and cannot write in it).

A practice match (no host, the computer in every other seat) has only the spectators' room.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.db.models import F, Q
from django.utils import timezone

from games.core import HOST, SPECTATOR

ANNOUNCE, TABLE, SPECTATORS = "announce", "table", "spectators"
OFF, ON, DELAYED = "off", "on", "delayed"
#: the host's mute lengths: form value -> words
DURATIONS = [("15", "15 minutes"), ("60", "60 minutes"), ("match", "the rest of the match")]


def private_room(seat: int) -> str:
    return f"seat-{int(seat)}"


def seat_of(room: str) -> int | None:
    """The seat of a private thread ("seat-2" -> 2), else None."""
    if room.startswith("seat-") and room[5:].isdecimal() and len(room) < 9:
        return int(room[5:])
    return None


@dataclass(frozen=True)
class Options:
    table: bool
    spectators: str
    closed: frozenset[str] = field(default_factory=frozenset)


def options(match: Any) -> Options:
    """The match's chat options (defaults when the host never changed them)."""
    from matches.models import ChatSettings

    row = ChatSettings.objects.filter(match_id=match.pk).first()
    return options_of(match, row)


def options_of(match: Any, row: Any) -> Options:
    default_table = match.seat_count == 2
    if row is None:
        return Options(default_table, ON)
    table = default_table if row.table is None else bool(row.table)
    return Options(table, row.spectators, frozenset(str(r) for r in row.closed or []))


def readable(match: Any, viewer: int, opts: Options) -> list[str]:
    """The rooms `viewer` reads, in the order the chat panel shows them."""
    seats = range(1, match.seat_count + 1)
    if match.practice and viewer != HOST:
        # a practice match has no host and a computer in every other seat: nobody would read the
        # player's lines; spectators (someone the player sent the link) still talk among themselves
        return [SPECTATORS] if viewer == SPECTATOR and opts.spectators != OFF else []
    if viewer == HOST:
        rooms = [ANNOUNCE, *(private_room(s) for s in seats)]
        rooms += [TABLE] if opts.table else []
        return rooms + ([SPECTATORS] if opts.spectators != OFF else [])
    if viewer == SPECTATOR:
        return [ANNOUNCE] + ([SPECTATORS] if opts.spectators != OFF else [])
    rooms = [private_room(viewer), ANNOUNCE] + ([TABLE] if opts.table else [])
    if opts.spectators == DELAYED and match.status == "finished":
        rooms.append(SPECTATORS)
    return rooms


def audiences_of(match: Any, room: str, opts: Options) -> list[int]:
    """Every viewer (HOST, SPECTATOR, seat numbers) that reads `room`."""
    viewers = [HOST, SPECTATOR, *range(1, match.seat_count + 1)]
    return [v for v in viewers if room in readable(match, v, opts)]


def write_refusal(match: Any, viewer: int, room: str, opts: Options) -> str:
    """Why `viewer` may not write in `room` now, as a sentence; "" when they may."""
    if room not in readable(match, viewer, opts):
        return "You cannot write in that room."
    if room == ANNOUNCE and viewer != HOST:
        return "Only the host writes announcements."
    if room == SPECTATORS and viewer not in (HOST, SPECTATOR):
        return "Players read the spectators' room once the match has ended; they do not write in it."
    if room in opts.closed and viewer != HOST:
        return "The host closed this room: nobody but the host can write in it now."
    return ""


def title(match: Any, viewer: int, room: str, seat_names: dict[int, str]) -> str:
    """The room's name on the tab `viewer` sees."""
    seat = seat_of(room)
    if seat is not None:
        if viewer == HOST:
            return f"{seat_names.get(seat, f'Seat {seat}')} (private)"
        return "Host (private)"
    return {ANNOUNCE: "Announcements", TABLE: "Table", SPECTATORS: "Spectators"}.get(room, room)


def writer_of(viewer: int, spectator_id: str = "") -> str:
    """Who writes, for flood control and mutes: "host", "seat-N" or "spectator-<cookie id>"."""
    if viewer == HOST:
        return "host"
    if viewer == SPECTATOR:
        return f"spectator-{spectator_id}"
    return private_room(viewer)


def active_mute(match_id: int, writer: str, now: datetime | None = None, address: str | None = None) -> Any:
    """The writer's mute in force (the longest), or None; with `address`, also a mute that holds
    that address (whoever it was given to: a new cookie does not lift it)."""
    from matches.models import ChatMute

    now = now or timezone.now()
    who = Q(writer=writer) | Q(address=address) if address else Q(writer=writer)
    return (ChatMute.objects.filter(who, match_id=match_id, lifted__isnull=True)
            .filter(Q(until__isnull=True) | Q(until__gt=now)).order_by(F("until").desc(nulls_first=True)).first())


def active_mutes(match_id: int, now: datetime | None = None) -> list[Any]:
    """Every writer's mute in force (the longest of each), by name."""
    from matches.models import ChatMute

    now = now or timezone.now()
    rows = (ChatMute.objects.filter(match_id=match_id, lifted__isnull=True)
            .filter(Q(until__isnull=True) | Q(until__gt=now)).order_by(F("until").desc(nulls_first=True)))
    longest: dict[str, Any] = {}
    for row in rows:
        longest.setdefault(row.writer, row)
    return sorted(longest.values(), key=lambda row: (row.name.casefold(), row.writer))


def mute_words(mute: Any) -> str:
    """How long a mute lasts: "until 21:15 UTC" or "for the rest of this match"."""
    return ("for the rest of this match" if mute.until is None
            else f"until {mute.until.astimezone(UTC).strftime('%H:%M')} UTC")


def mute_sentence(mute: Any) -> str:
    """What a muted writer is told: until when, and why."""
    return f"The host muted you in this match's chat {mute_words(mute)}. Reason: {mute.reason}"
