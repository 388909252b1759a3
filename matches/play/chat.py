"""The match chat: the only code that writes chat lines, mutes and chat options.

Rooms and who reads them: matches/core/chatrooms.py.  Moderation follows lichess (`Flood`,
`ChatTimeout`, `noPrivateUrl`):

- at most `FLOOD_COUNT` lines per `FLOOD_SECONDS` per writer (the host, who answers every thread,
  is not counted), never one of the writer's last
  `REPEATS` lines of the same room again, at most `MAX_LENGTH` characters;
- every secret link, and everything shaped like a token (a seat, host, watch or manage token of
  any match or season), becomes "[secret link removed]" before it is stored (`scrub`); invisible
  format characters (zero-width spaces and joiners, Unicode category Cf), which would split a
  token that still reads whole, are dropped first (`clean`: only joiners between emoji or letters
  no token has, and a flag's tag letters, stay), and the text is also matched in
  its NFKC form (fullwidth letters read as a token too);
- the host removes a line, mutes a writer (15 or 60 minutes, or the whole match) with a reason
  (a muted seat still writes in its private thread: a ruling is never out of reach; the host
  may close that thread too), lifts a mute before it ends (`unmute`), closes and reopens a room; each action goes to the audit log ("deathmatch.audit") and to the
  match's own log of host actions.  A mute also holds the address the writer wrote from
  (`ChatMute.address`): a spectator who asks for a new name cookie writes from it still.

Each change is one `_change`: a transaction that locks the match's `ChatSettings` row (never the
match row: chat never waits for a move, and a move never waits for chat), then publishes
`events.Chatted` on commit.  An announcement also writes the match log (it locks the match row
after the settings row, always in that order).  Refusals raise `ChatRefused`, a plain sentence.
"""

from __future__ import annotations

import contextlib
import logging
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.core import HOST, SPECTATOR
from matches.core import chatrooms, events
from matches.core.errors import ServiceError
from matches.core.outcome import title
from matches.models import ChatMessage, ChatMute, ChatSettings, Match, Season, Seat
from matches.play.change import change, part
from matches.seasons import webhooks

audit = logging.getLogger("deathmatch.audit")

MAX_LENGTH = 500
FLOOD_COUNT = 5
FLOOD_SECONDS = 10
REPEATS = 2
MAX_NAME = 40
MAX_REASON = 200
REMOVED = "[secret link removed]"
#: how long a mute lasts: minutes, or None for the rest of the match
MUTES: dict[str, int | None] = {"15": 15, "60": 60, "match": None}

#: a link to a page of this site (any scheme and host, or none): its prefix, then a token
_LINK = re.compile(r"(?:\b[a-z][a-z0-9+.-]*://[^\s/]*)?/(?:ws/m|p|h|w|f|s)/[A-Za-z0-9_-]{6,}/?[^\s]*", re.I)
#: words of a message looked up among the real tokens (500 characters hold at most ~45 of 10+)
MAX_LOOKUPS = 50
#: a run of the token alphabet (secrets.token_urlsafe)
_RUN = re.compile(r"[A-Za-z0-9_-]{10,}")
#: a writer the host may mute: a seat, or a spectator's cookie id (pages/chat_panel.spectator)
_WRITER = re.compile(r"^(?:seat-[0-9]{1,2}|spectator-[A-Za-z0-9]{1,32})$")
#: no address to hold (config.ratelimits.UNKNOWN_CLIENT: every client of a unix socket shares it)
_NO_ADDRESS = ("", "0.0.0.0")


class ChatRefused(ServiceError):
    """A chat line or moderation action refused; `str(e)` says why."""


#: joiners an emoji sequence or a script needs (👩‍💻 is 👩 U+200D 💻; Persian words need U+200C)
_JOINERS = "\u200c\u200d"
#: a subdivision flag is 🏴, its region's code in tag letters and digits (Cf; at most 6: "gbsct"),
#: then the cancel tag; more tags could spell an invisible token, so a longer run is dropped
_BLACK_FLAG, _CANCEL_TAG, _TAG_CODE = "\U0001f3f4", "\U000e007f", 6


def _tag_code(ch: str) -> bool:
    return 0xE0030 <= ord(ch) <= 0xE0039 or 0xE0061 <= ord(ch) <= 0xE007A


def _in_token(ch: str) -> bool:
    """Whether `ch` could be part of a token as `scrub` reads it (after NFKC: fullwidth ones too)."""
    return any(c.isascii() and (c.isalnum() or c in "_-") for c in unicodedata.normalize("NFKC", ch))


def clean(text: Any) -> str:
    """Typed text without control characters (newlines become spaces), invisible format characters
    (Cf: U+200B, U+2060, U+202E...: a token split by one still reads whole, and passed `scrub`),
    lone surrogates (Cs: no database stores them) and outer spaces.  The Cf characters that join
    emoji and scripts stay where they cannot split a token: a joiner between two characters that
    are no part of one, and the tag characters of a subdivision flag after its 🏴."""
    text = str(text)
    kept: list[str] = []
    for i, ch in enumerate(text):
        kind = unicodedata.category(ch)
        if kind == "Cc":
            kept.append(" ")
        elif kind == "Cf":
            before = kept[-1] if kept else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if ch in _JOINERS and before and after and not _in_token(before) and not _in_token(after) \
                    and not before.isspace() and not after.isspace() and unicodedata.category(after) != "Cf":
                kept.append(ch)
            elif (_tag_code(ch) or ch == _CANCEL_TAG) and _BLACK_FLAG in kept[-_TAG_CODE - 1:]:
                flag = len(kept) - 1 - kept[::-1].index(_BLACK_FLAG)
                code = kept[flag + 1:]
                if all(_tag_code(c) for c in code) and (len(code) < _TAG_CODE or ch == _CANCEL_TAG):
                    kept.append(ch)
        elif kind != "Cs":
            kept.append(ch)
    return "".join(kept).strip()


def _looks_like_token(run: str) -> bool:
    letters = sum(ch.isalpha() for ch in run)
    digits = sum(ch.isdigit() for ch in run)
    upper = sum(ch.isupper() for ch in run)
    lower = letters - upper
    if len(run) < 16:
        return False
    return (digits > 0 and letters > 0) or "_" in run or (upper >= 3 and lower >= 3 and len(run) >= 20)


def _classes(run: str) -> int:
    return sum((any(ch.islower() for ch in run), any(ch.isupper() for ch in run), any(ch.isdigit() for ch in run),
                any(ch in "_-" for ch in run)))


def _known_tokens(runs: list[str]) -> set[str]:
    """Those of `runs` that are (part of) a real token of any match, seat or season (a cut token is
    still secret): one query a table for the whole message."""
    if not runs:
        return set()
    found: set[str] = set()
    tables: list[tuple[Any, list[str]]] = [(Seat.objects, ["token"]), (Match.objects, ["host_token", "watch_token"]),
                                           (Season.objects, ["manage_token"])]
    for manager, fields in tables:
        where = Q()
        for run in runs:
            for name in fields:
                where |= Q(**{f"{name}__contains": run})
        for row in manager.filter(where).values_list(*fields):
            found.update(run for run in runs if any(run in token for token in row))
    return found


def _scrub_view(text: str) -> str:
    text = _LINK.sub(REMOVED, text)
    # words of more than one kind of character (a token's letters, digits, "_", "-" mixed) are
    # looked up; plain words ("internationalization") never are
    candidates = [w for w in dict.fromkeys(_RUN.findall(text)) if not _looks_like_token(w) and _classes(w) > 1]
    known = _known_tokens(candidates[:MAX_LOOKUPS])

    def run(found: re.Match[str]) -> str:
        word = found.group(0)
        return REMOVED if _looks_like_token(word) or word in known else word

    return _RUN.sub(run, text)


def scrub(text: str) -> str:
    """`text` with every secret link and token-shaped word replaced by "[secret link removed]".
    Percent-escapes are read as a browser reads them (/%70/<token>/ opens a seat page too)."""
    scrubbed = _scrub_view(text)
    if "%" in text:
        decoded = unquote(text)
        if decoded != text and _scrub_view(decoded) != decoded:
            return _scrub_view(decoded)
    folded = unicodedata.normalize("NFKC", text)  # a token in fullwidth letters still reads as one
    if folded != text and _scrub_view(folded) != folded:
        return _scrub_view(folded)
    return scrubbed


def display_name(typed: Any) -> str:
    """A spectator's chosen name, checked; raises ChatRefused with what is wrong."""
    name = clean(typed)
    if not name:
        raise ChatRefused("Choose a name to chat under first.")
    if len(name) > MAX_NAME:
        raise ChatRefused(f"A name is at most {MAX_NAME} characters.")
    name = scrub(name)
    if name.casefold() in ("host", "the host"):
        raise ChatRefused("Choose another name: that one belongs to the host.")
    return name


def _settings(match_id: int) -> ChatSettings:
    """The match's settings row, locked (made first outside the transaction when missing)."""
    ChatSettings.objects.get_or_create(match_id=match_id)
    return ChatSettings.objects.select_for_update().get(match_id=match_id)


@dataclass(eq=False)
class _Change:
    """One change of a match's chat: its locked settings row, its moment, and what to publish."""

    match_id: int
    settings: ChatSettings
    now: datetime
    chatted: events.Chatted | None = None

    def publish(self, message_id: int | None = None, *, removed: bool = False) -> None:
        """Announce the change when it commits (`events.Chatted`): a line, a removed line, the rooms."""
        self.chatted = events.Chatted(self.match_id, message_id, removed=removed)

    def note(self, text: str) -> None:
        """A moderation action: the audit log and the match's log of host actions."""
        audit.info("match %s chat: %s", self.match_id, text)
        with change(self.match_id) as c:
            c.note(f"chat: {text}")


@contextlib.contextmanager
def _change(match: Match | int) -> Iterator[_Change]:
    """The chat's one wrapper (like play/change.py's for a match): one transaction that locks the
    match's `ChatSettings` row, never the match row, and publishes what the body says on commit."""
    match_id = match if isinstance(match, int) else match.pk
    now = timezone.now()
    with transaction.atomic(), part():
        done = _Change(match_id, _settings(match_id), now)
        yield done
        if done.chatted is not None:
            events.publish_chat(done.chatted)


def post(match: Match | int, viewer: int, room: str, text: Any, *, spectator_id: str = "",
         spectator_name: str = "", webhook: bool = False, address: str = "") -> ChatMessage:
    """Write one chat line in `room` as `viewer` (a seat, HOST or SPECTATOR; a spectator with the
    id and name of their cookie).  Refuses with a sentence; nothing is written then.  `webhook`:
    an announcement of a match in a season is also posted to the season's webhook (its outbox).
    `address`: the writer's client address (config.ratelimits.client_network), kept with the line;
    a spectator writing from an address a mute holds is muted."""
    match_id = match if isinstance(match, int) else match.pk
    body = clean(text)
    if not body:
        raise ChatRefused("Type a message first.")
    if len(body) > MAX_LENGTH:
        raise ChatRefused(f"A message is at most {MAX_LENGTH} characters; this one has {len(body)}.")
    if viewer == SPECTATOR and (not spectator_id or not spectator_name):
        raise ChatRefused("Choose a name to chat under first.")
    body = scrub(body)
    writer = chatrooms.writer_of(viewer, spectator_id)
    with _change(match_id) as c:
        settings, now = c.settings, c.now
        found = Match.objects.get(pk=match_id)
        opts = chatrooms.options_of(found, settings)
        refusal = chatrooms.write_refusal(found, viewer, str(room), opts)
        if refusal:
            raise ChatRefused(refusal)
        # a muted seat still reaches the host in its private thread (the host may close that one)
        held = address if viewer == SPECTATOR and address not in _NO_ADDRESS else None
        mute = None if chatrooms.seat_of(room) == viewer else chatrooms.active_mute(match_id, writer, now, held)
        if mute is not None:
            raise ChatRefused(chatrooms.mute_sentence(mute))
        own = ChatMessage.objects.filter(match_id=match_id, writer=writer)
        recent_count = own.filter(created__gt=now - timedelta(seconds=FLOOD_SECONDS)).count()
        if viewer != HOST and recent_count >= FLOOD_COUNT:  # the host moderates: never slowed
            raise ChatRefused(f"You are writing too fast: at most {FLOOD_COUNT} messages in {FLOOD_SECONDS} "
                              "seconds. Wait a moment, then send it again.")
        recent = own.filter(room=room).order_by("-id").values_list("text", flat=True)[:REPEATS]
        if any(body.casefold() == earlier.casefold() for earlier in recent):
            raise ChatRefused("You just wrote that. Say something new.")
        name = _name(found, viewer, spectator_name)
        message = ChatMessage.objects.create(match_id=match_id, room=room, writer=writer, name=name,
                                             text=body, created=now,
                                             address=None if address in _NO_ADDRESS else address)
        if room == chatrooms.ANNOUNCE:
            with change(match_id) as announced:
                announced.note(f"announcement: {body}")
            locked = announced.match
            if webhook and locked.season_id is not None:
                season = Season.objects.get(pk=locked.season_id)
                webhooks.announce(season, f"Announcement in {title(locked)} #{locked.pk}: {body}")
        c.publish(message.pk)
    return message


def _name(match: Match, viewer: int, spectator_name: str) -> str:
    if viewer == HOST:
        return "host"
    if viewer == SPECTATOR:
        return display_name(spectator_name)
    name = match.seats.filter(number=viewer).values_list("name", flat=True).first() or f"seat {viewer}"
    return scrub(name)


def remove(match: Match | int, message_id: int) -> ChatMessage:
    """Host: remove a line (its readers see "removed by the host"); removing it again changes nothing."""
    with _change(match) as c:
        message = ChatMessage.objects.filter(match_id=c.match_id, pk=message_id).first()
        if message is None:
            raise ChatRefused("There is no such message in this match.")
        if message.removed is None:
            message.removed = c.now
            message.save(update_fields=["removed"])
            c.note(f"host removed a message of {message.name} ({_room_words(message.room)})")
            c.publish(message.pk, removed=True)
    return message


def _room_words(room: str) -> str:
    seat = chatrooms.seat_of(room)
    if seat is not None:
        return f"private thread of seat {seat}"
    return {chatrooms.ANNOUNCE: "announcements", chatrooms.TABLE: "table",
            chatrooms.SPECTATORS: "spectators' room"}.get(room, room)


def mute(match: Match | int, writer: str, duration: str, reason: Any) -> ChatMute:
    """Host: silence `writer` ("seat-2", "spectator-<id>") for 15 or 60 minutes or the match."""
    match_id = match if isinstance(match, int) else match.pk
    if not _WRITER.match(writer):  # checked before any query: a NUL would reach the database
        raise ChatRefused("Nobody of that name writes in this match's chat.")
    if duration not in MUTES:
        raise ChatRefused("Mute for 15 minutes, 60 minutes or the rest of the match.")
    why = scrub(clean(reason))
    if not why:
        raise ChatRefused("Give a reason for the mute: the writer is told it.")
    if len(why) > MAX_REASON:
        raise ChatRefused(f"A reason is at most {MAX_REASON} characters.")
    with _change(match_id) as c:
        now = c.now
        found = Match.objects.get(pk=match_id)
        seat = chatrooms.seat_of(writer)
        last = ChatMessage.objects.filter(match_id=match_id, writer=writer).order_by("-id").first()
        if seat is not None and 1 <= seat <= found.seat_count:
            name = found.seats.filter(number=seat).values_list("name", flat=True).first() or f"seat {seat}"
        else:
            if last is None or not writer.startswith("spectator-"):
                raise ChatRefused("Nobody of that name writes in this match's chat.")
            name = last.name
        minutes = MUTES[duration]
        until = None if minutes is None else now + timedelta(minutes=minutes)
        row = ChatMute.objects.create(match_id=match_id, writer=writer, name=name, until=until, reason=why,
                                      created=now, address=last.address if last is not None else None)
        span = "for the rest of the match" if minutes is None else f"for {minutes} minutes"
        c.note(f"host muted {name} {span}: {why}")
        c.publish()
    return row


def unmute(match: Match | int, writer: str) -> int:
    """Host: lift `writer`'s mutes before they end (a second click finds none and is refused);
    the number lifted."""
    if not _WRITER.match(str(writer)):  # checked before any query: a NUL would reach the database
        raise ChatRefused("That writer is not muted in this match (the mute may have ended or been lifted).")
    with _change(match) as c:
        active = ChatMute.objects.filter(match_id=c.match_id, writer=str(writer), lifted__isnull=True).filter(
            Q(until__isnull=True) | Q(until__gt=c.now))
        name = active.values_list("name", flat=True).first()
        if name is None:
            raise ChatRefused("That writer is not muted in this match (the mute may have ended or been lifted).")
        lifted = active.update(lifted=c.now)
        c.note(f"host lifted the mute of {name}")
        c.publish()
    return lifted


def set_closed(match: Match | int, room: str, closed: bool) -> None:
    """Host: close a room (nobody but the host writes in it) or open it again."""
    with _change(match) as c:
        settings = c.settings
        found = Match.objects.get(pk=c.match_id)
        if room not in chatrooms.readable(found, HOST, chatrooms.options_of(found, settings)):
            raise ChatRefused("There is no such room in this match.")
        rooms = set(settings.closed or [])
        if (room in rooms) == closed:
            return  # already so (a doubled click)
        settings.closed = sorted(rooms | {room} if closed else rooms - {room})
        settings.save(update_fields=["closed"])
        c.note(f"host {'closed' if closed else 'reopened'} the {_room_words(room)}")
        c.publish()


def set_options(match: Match | int, table: bool, spectators: str) -> None:
    """Host: switch the players' table on or off, and the spectators' room off, on, or delayed
    (players read it once the match has ended)."""
    if spectators not in (chatrooms.OFF, chatrooms.ON, chatrooms.DELAYED):
        raise ChatRefused("The spectators' room is off, on, or shown to players when the match ends.")
    with _change(match) as c:
        settings = c.settings
        if settings.table == table and settings.spectators == spectators:
            return
        settings.table, settings.spectators = table, spectators
        settings.save(update_fields=["table", "spectators"])
        c.note(f"host set the chat: table {'on' if table else 'off'}, spectators' room {spectators}")
        c.publish()
