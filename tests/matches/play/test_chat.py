"""The match chat's services (matches/play/chat.py): rooms, moderation as strict as lichess's,
secret links removed before anything is stored, every moderation action audited."""

from __future__ import annotations

import logging
from datetime import UTC, timedelta
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core import HOST, SPECTATOR
from matches.core import chatrooms
from matches.models import ChatMessage, ChatMute, Season, TurnLog
from matches.play import chat, services

pytestmark = pytest.mark.django_db

ROOM1 = chatrooms.private_room(1)


@pytest.fixture
def match(make_match: Any) -> Any:
    return make_match("lance-assembly")


def _spectator(match: Any, text: str, ident: str = "abc123", name: str = "Zed") -> Any:
    return chat.post(match, SPECTATOR, chatrooms.SPECTATORS, text, spectator_id=ident, spectator_name=name)


def _refused(call: Any, *args: Any, **kwargs: Any) -> str:
    before = ChatMessage.objects.count()
    with pytest.raises(chat.ChatRefused) as refused:
        call(*args, **kwargs)
    assert ChatMessage.objects.count() == before  # a refusal writes nothing
    return str(refused.value)


def test_rooms_each_audience_reads(make_match: Any) -> None:
    two = make_match("lance-assembly")
    opts = chatrooms.options(two)
    assert chatrooms.readable(two, HOST, opts) == ["announce", "seat-1", "seat-2", "table", "spectators"]
    assert chatrooms.readable(two, 1, opts) == ["seat-1", "announce", "table"]
    assert chatrooms.readable(two, SPECTATOR, opts) == ["announce", "spectators"]
    four = make_match("back-to-the-wall")  # the players' table is on by default for 2 players only
    assert "table" not in chatrooms.readable(four, 3, chatrooms.options(four))
    assert chatrooms.readable(four, 3, chatrooms.options(four)) == ["seat-3", "announce"]


def test_who_may_write_where(match: Any) -> None:
    assert _refused(chat.post, match, 1, chatrooms.ANNOUNCE, "hi") == "Only the host writes announcements."
    assert _refused(chat.post, match, 1, "seat-2", "psst") == "You cannot write in that room."
    assert _refused(chat.post, match, 2, chatrooms.SPECTATORS, "hi") == "You cannot write in that room."
    assert _refused(chat.post, match, SPECTATOR, chatrooms.TABLE, "hi", spectator_id="a1",
                    spectator_name="Zed") == "You cannot write in that room."
    assert _refused(chat.post, match, SPECTATOR, chatrooms.SPECTATORS, "hi") == "Choose a name to chat under first."
    assert _refused(chat.post, match, 1, "../../etc", "x") == "You cannot write in that room."
    line = chat.post(match, 1, ROOM1, "May I pass?")
    assert (line.room, line.writer, line.name) == ("seat-1", "seat-1", "Ann")
    assert chat.post(match, HOST, ROOM1, "Yes.").name == "host"


def test_announcement_goes_to_the_match_log(match: Any) -> None:
    chat.post(match, HOST, chatrooms.ANNOUNCE, "Bout 2 starts at nine")
    assert TurnLog.objects.filter(match=match, kind=TurnLog.HOST_NOTE,
                                  text="announcement: Bout 2 starts at nine").count() == 1


def test_flood_five_lines_in_ten_seconds(match: Any) -> None:
    for n in range(chat.FLOOD_COUNT):
        chat.post(match, 1, chatrooms.TABLE, f"line {n}")
    refusal = _refused(chat.post, match, 1, ROOM1, "one more")  # any room: the writer is counted
    assert refusal.startswith("You are writing too fast: at most 5 messages in 10 seconds.")
    chat.post(match, 2, chatrooms.TABLE, "seat 2 is not slowed by seat 1")
    # ten seconds later (the lines moved back in time) seat 1 writes again
    ChatMessage.objects.filter(writer="seat-1").update(created=timezone.now() - timedelta(seconds=11))
    chat.post(match, 1, ROOM1, "one more")


def test_no_repeat_of_the_last_two_lines(match: Any) -> None:
    chat.post(match, 1, chatrooms.TABLE, "good luck")
    assert _refused(chat.post, match, 1, chatrooms.TABLE, "Good luck ") == "You just wrote that. Say something new."
    chat.post(match, 1, chatrooms.TABLE, "have fun")
    assert _refused(chat.post, match, 1, chatrooms.TABLE, "good luck") == "You just wrote that. Say something new."
    chat.post(match, 1, chatrooms.TABLE, "gg")
    chat.post(match, 1, chatrooms.TABLE, "good luck")  # three lines back: allowed again
    chat.post(match, HOST, ROOM1, "ok")
    chat.post(match, HOST, "seat-2", "ok")  # the host answers each thread alike


def test_length_and_empty(match: Any) -> None:
    assert _refused(chat.post, match, 1, ROOM1, "   ") == "Type a message first."
    assert _refused(chat.post, match, 1, ROOM1, "x" * 501) == "A message is at most 500 characters; this one has 501."
    assert len(chat.post(match, 1, ROOM1, "y" * 500).text) == 500
    assert chat.post(match, 1, ROOM1, "a\x00b\nc").text == "a b c"  # no control characters stored


def test_secret_links_removed_before_storing(make_match: Any, match: Any) -> None:
    other = make_match("grid-master")
    seat = other.seats.get(number=1)
    season = Season.objects.create(name="Spring")
    texts = {
        f"join me http://example.org/p/{seat.token}/ now": "join me [secret link removed] now",
        f"host: /h/{other.host_token}/act/": "host: [secret link removed]",
        f"manage https://x.test/s/{season.manage_token}/": "manage [secret link removed]",
        f"/%70/{seat.token}/": "[secret link removed]",
        f"token {seat.token} ok": "token [secret link removed] ok",
        f"half of it {seat.token[:14]}": "half of it [secret link removed]",
        "looks like one: Zq3_kP0aLm9xWv2bYt7RcN4s": "looks like one: [secret link removed]",
        "a long ordinary word: internationalization, and B4 to C5": "a long ordinary word: internationalization, and B4 to C5",
    }
    for typed, stored in texts.items():
        line = chat.post(match, HOST, chatrooms.SPECTATORS, typed)
        assert line.text == stored, typed
        match_tokens = [seat.token, other.host_token, season.manage_token]
        assert not any(t[:14] in line.text for t in match_tokens)
    assert chat.display_name(f"me {seat.token}") == "me [secret link removed]"


def test_mute_tells_until_when_and_is_audited(match: Any, caplog: Any) -> None:
    _spectator(match, "spoiler: seat 2 bid 40")
    with caplog.at_level(logging.INFO, logger="deathmatch.audit"):
        chat.mute(match, "spectator-abc123", "15", "ghosting")
    mute = ChatMute.objects.get()
    assert (mute.name, mute.reason) == ("Zed", "ghosting")
    assert mute.until is not None
    until = mute.until.astimezone(UTC)
    refusal = _refused(_spectator, match, "again")
    assert refusal == f"The host muted you in this match's chat until {until:%H:%M} UTC. Reason: ghosting"
    assert any("host muted Zed for 15 minutes: ghosting" in r.getMessage() for r in caplog.records)
    assert TurnLog.objects.filter(match=match, text="chat: host muted Zed for 15 minutes: ghosting").exists()
    _spectator(match, "I am someone else", ident="other9", name="Yan")  # another spectator still writes
    ChatMute.objects.update(until=timezone.now() - timedelta(seconds=1))  # the 15 minutes passed
    _spectator(match, "again")


def test_mute_a_seat_for_the_match_and_refusals(match: Any) -> None:
    chat.mute(match, "seat-2", "match", "rude")
    assert _refused(chat.post, match, 2, chatrooms.TABLE, "!!") == (
        "The host muted you in this match's chat for the rest of this match. Reason: rude")
    chat.post(match, 2, "seat-2", "may I still ask you for a ruling?")  # the private thread stays open
    with pytest.raises(chat.ChatRefused, match="Give a reason"):
        chat.mute(match, "seat-1", "15", "  ")
    with pytest.raises(chat.ChatRefused, match="15 minutes, 60 minutes or the rest"):
        chat.mute(match, "seat-1", "5", "x")
    with pytest.raises(chat.ChatRefused, match="Nobody of that name"):
        chat.mute(match, "spectator-nobody", "15", "x")
    assert ChatMute.objects.count() == 1


def test_unmute_lifts_every_mute_of_the_writer_once_and_is_audited(match: Any, caplog: Any) -> None:
    chat.mute(match, "seat-2", "15", "rude")
    chat.mute(match, "seat-2", "match", "still rude")  # two mutes in force: lifting frees the writer
    _refused(chat.post, match, 2, chatrooms.TABLE, "sorry")
    with caplog.at_level(logging.INFO, logger="deathmatch.audit"):
        assert chat.unmute(match, "seat-2") == 2
    assert any("host lifted the mute of Bob" in r.getMessage() for r in caplog.records)
    assert TurnLog.objects.filter(match=match, text="chat: host lifted the mute of Bob").exists()
    assert chat.post(match, 2, chatrooms.TABLE, "sorry").text == "sorry"
    assert chatrooms.active_mutes(match.pk) == []
    # a second click finds nothing to lift: refused in a sentence, nothing logged twice
    with pytest.raises(chat.ChatRefused, match="That writer is not muted in this match"):
        chat.unmute(match, "seat-2")
    assert TurnLog.objects.filter(match=match, text__startswith="chat: host lifted").count() == 1
    assert ChatMute.objects.filter(lifted__isnull=False).count() == 2


def test_remove_once_and_audited(match: Any, caplog: Any) -> None:
    line = chat.post(match, 1, chatrooms.TABLE, "rude words")
    with caplog.at_level(logging.INFO, logger="deathmatch.audit"):
        chat.remove(match, line.pk)
        chat.remove(match, line.pk)  # a doubled click changes nothing more
    line.refresh_from_db()
    assert line.removed is not None
    assert sum("host removed a message of Ann (table)" in r.getMessage() for r in caplog.records) == 1
    with pytest.raises(chat.ChatRefused, match="no such message"):
        chat.remove(match, line.pk + 1000)


def test_close_and_reopen_a_room(match: Any) -> None:
    chat.set_closed(match, chatrooms.TABLE, True)
    assert _refused(chat.post, match, 1, chatrooms.TABLE, "hello") == (
        "The host closed this room: nobody but the host can write in it now.")
    chat.post(match, HOST, chatrooms.TABLE, "closed for now")  # the host still writes there
    chat.set_closed(match, chatrooms.TABLE, False)
    chat.post(match, 1, chatrooms.TABLE, "hello")
    notes = TurnLog.objects.filter(match=match, text__startswith="chat: host").values_list("text", flat=True)
    assert list(notes) == ["chat: host closed the table", "chat: host reopened the table"]


def test_options_table_off_and_spectators_delayed(match: Any) -> None:
    chat.set_options(match, table=False, spectators=chatrooms.DELAYED)
    assert _refused(chat.post, match, 1, chatrooms.TABLE, "hi") == "You cannot write in that room."
    _spectator(match, "seat 1 is winning")
    assert chatrooms.SPECTATORS not in chatrooms.readable(match, 1, chatrooms.options(match))
    services.end_match(match, [1])
    match.refresh_from_db()
    assert chatrooms.SPECTATORS in chatrooms.readable(match, 1, chatrooms.options(match))
    assert _refused(chat.post, match, 1, chatrooms.SPECTATORS, "thanks") == (
        "Players read the spectators' room once the match has ended; they do not write in it.")
    with pytest.raises(chat.ChatRefused):
        chat.set_options(match, table=True, spectators="sometimes")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=520))
def test_any_body_is_stored_clean_or_refused_in_a_sentence(match: Any, body: str) -> None:
    ChatMessage.objects.all().delete()
    try:
        line = chat.post(match, 1, ROOM1, body)
    except chat.ChatRefused as refused:
        assert str(refused).endswith(".")
        return
    assert 0 < len(line.text) <= chat.MAX_LENGTH + 100
    assert not any(ord(ch) < 32 for ch in line.text)


def test_announcement_to_the_season_webhook_only_when_asked(match: Any) -> None:
    from matches.models import WebhookPost

    season = Season.objects.create(name="Autumn", webhook_url="http://127.0.0.1:9/hook")
    match.season = season
    match.save()
    chat.post(match, HOST, chatrooms.ANNOUNCE, "no webhook for this one")
    seat = match.seats.get(number=1)
    chat.post(match, HOST, chatrooms.ANNOUNCE, f"<@everyone> break at /p/{seat.token}/", webhook=True)
    chat.post(match, 1, ROOM1, "private", webhook=True)  # only announcements are posted
    assert list(WebhookPost.objects.values_list("content", flat=True)) == [
        f"Announcement in Lance Assembly #{match.pk}: <@everyone> break at [secret link removed]"]


# -- what `clean` keeps of the format characters ---------------------------------------------------



def _tags(code: str) -> str:
    return "".join(chr(0xE0000 + ord(ch)) for ch in code)


@pytest.mark.parametrize("typed", [
    "pair programming 👩\u200d💻 tonight",  # one glyph: woman, joiner, laptop
    "family 👨\u200d👩\u200d👧 day",
    "go " + "\U0001f3f4" + _tags("gbsct") + "\U000e007f",  # Scotland's flag
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian needs its non-joiner
])
def test_joined_emoji_flags_and_scripts_are_stored_whole(match: Any, typed: str) -> None:
    assert chat.post(match, 1, ROOM1, typed).text == typed


@pytest.mark.parametrize("typed, stored", [
    ("a\u200db", "ab"),  # a joiner inside a word of the token alphabet could hide a token
    ("\uff41\u200d\uff42", "\uff41\uff42"),  # fullwidth letters read as a token's too
    ("x\u200d💻", "x💻"),
    ("👩\u200d \u200d💻", "👩 💻"),
    ("\U0001f3f4" + _tags("abcdefghij") + "\U000e007f", "\U0001f3f4" + _tags("abcdef") + "\U000e007f"),  # no invisible words
    ("hi " + _tags("secret"), "hi"),  # tag letters with no flag before them
])
def test_format_characters_that_could_hide_text_are_dropped(match: Any, typed: str, stored: str) -> None:
    assert chat.post(match, 1, ROOM1, typed).text == stored


def test_a_token_joined_to_emoji_is_still_removed(match: Any) -> None:
    token = match.host_token
    line = chat.post(match, 1, ROOM1, f"👩\u200d{token[:9]}\u200d{token[9:]}\u200d💻")
    assert token not in line.text and token[9:] not in line.text and chat.REMOVED in line.text
