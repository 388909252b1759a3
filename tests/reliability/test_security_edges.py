"""Issue 37, "Security at the edges": what an adversarial run against the site found, through
the real stack (Django test client, one cookie jar per client; the websocket through
config.asgi.application).

- a season form's double-submit key only ever finds what the same client created;
- every answer holding a secret link is `Cache-Control: no-store, private`;
- every way of creating a match counts against the one `matches` budget;
- a NUL in a chat or moderation field is a sentence, never PostgreSQL's DataError;
- zero-width characters cannot smuggle a token into the chat, and a mute holds the address.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.core import SPECTATOR
from matches.models import ChatMessage, ChatMute, Match, Season
from matches.pages import chat_panel
from matches.play import chat, services
from matches.seasons import ledger as seasons
from tests.conftest import POSTGRES

pytestmark = pytest.mark.django_db


def _season_form(client: Client) -> dict[str, str]:
    """The season list's form as the page draws it for this client: its key and CSRF token."""
    page = client.get(reverse("season_list")).content.decode()
    key = re.search(r'name="key" value="([^"]+)"', page)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert key is not None and csrf is not None
    return {"key": key.group(1), "csrfmiddlewaretoken": csrf.group(1)}


# -- 1. the season form's key ------------------------------------------------------------------


def test_a_season_key_replayed_by_another_client_never_returns_the_first_clients_manage_link() -> None:
    alice, mallory = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    form = _season_form(alice)
    first = alice.post(reverse("season_list"), {"name": "Summer Cup", **form})
    summer = Season.objects.get(name="Summer Cup")
    assert first.status_code == 302 and summer.manage_token in first["Location"]
    again = alice.post(reverse("season_list"), {"name": "Summer Cup", **form})  # alice's doubled submit
    assert again.status_code == 302 and again["Location"] == first["Location"]

    # mallory replays alice's key with a page (and CSRF cookie) of her own, under any name
    stolen = {**_season_form(mallory), "key": form["key"]}
    other = mallory.post(reverse("season_list"), {"name": "Winter Cup", **stolen})
    assert other.status_code == 302 and summer.manage_token not in other["Location"]
    assert Season.objects.get(name="Winter Cup").manage_token in other["Location"]  # a new season: hers
    eve = Client(enforce_csrf_checks=True)
    same_name = eve.post(reverse("season_list"), {"name": "Summer Cup", **_season_form(eve), "key": form["key"]})
    assert same_name.status_code == 400 and summer.manage_token not in same_name.content.decode()
    assert "already a season called Summer Cup" in same_name.content.decode()


def test_a_season_key_the_page_did_not_make_is_refused() -> None:
    client = Client(enforce_csrf_checks=True)
    form = {**_season_form(client), "key": "12345678"}
    reply = client.post(reverse("season_list"), {"name": "Short Key", **form})
    assert reply.status_code == 400 and "reload the page: the form lost its key" in reply.content.decode()
    assert not Season.objects.filter(name="Short Key").exists()


# -- 1. no-store on every answer that holds a secret link ------------------------------------------


def _no_store(response: Any) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= directives


def test_every_answer_holding_a_secret_link_is_no_store_private(make_match: Any) -> None:
    client = Client()
    season = client.post(reverse("season_list"), {"name": "Cached", **_season_form(client)})
    assert season["Location"].startswith("/s/") and _no_store(season)
    home = client.post("/", {"game": "squava", "seat1": "Ann", "seat2": "Bob", "seat3": "Cy"})
    assert home.status_code == 302 and home["Location"].startswith("/h/") and _no_store(home)
    practice = client.post("/practice/", {"game": "squava", "strength": "easy", "seat": "1"})
    assert practice.status_code == 302 and practice["Location"].startswith("/p/") and _no_store(practice)
    match = make_match("lance-assembly")
    for path in (f"/h/{match.host_token}/", f"/p/{match.seats.get(number=1).token}/", f"/f/{match.host_token}/",
                 home["Location"], season["Location"]):
        page = client.get(path)
        assert page.status_code in (200, 404) and _no_store(page), path


# -- 3. one budget for every way of making a match ---------------------------------------------


def test_the_season_manage_page_home_form_and_rematch_share_the_matches_budget(settings: Any) -> None:
    settings.DEATHMATCH_RATE_LIMITS = {**settings.DEATHMATCH_RATE_LIMITS, "matches": "3/m"}
    client = Client()
    season = seasons.create_season("Budget")
    ann, bob = seasons.add_player(season, "Ann"), seasons.add_player(season, "Bob")
    act = reverse("season_act", args=[season.manage_token])

    def season_match(key: str) -> int:
        return client.post(act, {"key": key, "action": "match", "game": "lance-assembly", "seat1": ann.pk,
                                 "seat2": bob.pk}).status_code

    before = Match.objects.count()
    assert season_match("k" * 22) == 302
    assert client.post("/", {"game": "squava", "seat1": "Ann", "seat2": "Bob", "seat3": "Cy"}).status_code == 302
    assert season_match("m" * 22) == 302
    assert Match.objects.count() == before + 3
    assert season_match("n" * 22) == 429  # the fourth, whichever form
    assert client.post("/", {"game": "squava", "seat1": "Ann", "seat2": "Bob", "seat3": "Cy"}).status_code == 429
    finished = services.create_match("lance-assembly", seat_names=["Ann", "Bob"], clock=False)
    services.start_match(finished)
    services.forfeit(finished, 1, "match")
    rematch = client.post(reverse("host_act", args=[finished.host_token]), {"action": "rematch"})
    assert rematch.status_code == 429 and Match.objects.count() == before + 4  # (+ the one made here)


# -- 5. NUL and other unstorable text in every chat and moderation field ---------------------------


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL refuses a NUL in text (DataError); SQLite stores it")
@pytest.mark.parametrize("action", ["mute", "unmute"])
@pytest.mark.parametrize("bad", ["\x00", "seat-\x00", "spectator-a\x00b"])
def test_a_nul_in_the_moderation_writer_is_a_sentence_not_a_500(make_match: Any, action: str, bad: str) -> None:
    match = make_match("lance-assembly")
    client = Client(raise_request_exception=False)
    reply = client.post(f"/h/{match.host_token}/chat/mod/",
                        {"action": action, "writer": bad, "duration": "match", "reason": "spam"})
    assert reply.status_code == 400
    assert "Nobody of that name" in reply.content.decode() or "not muted" in reply.content.decode()
    assert not ChatMute.objects.filter(match=match).exists()


#: (a form cannot carry a lone surrogate: Django reads a post's bytes as UTF-8, replacing what is not)
HOSTILE = ["\x00", "a\x00b", "\u200b", "\x00" * 600, "\ufeff\u2060"]


@pytest.mark.parametrize("bad", HOSTILE)
def test_every_chat_and_moderation_field_takes_hostile_text_without_a_500(make_match: Any, bad: str) -> None:
    match = make_match("lance-assembly")
    seat = match.seats.get(number=1)
    host, client = f"/h/{match.host_token}/chat/", Client(raise_request_exception=False)
    client.post(f"/p/{seat.token}/chat/", {"room": "table", "text": "hello"})
    posts = [(f"/p/{seat.token}/chat/", {"room": bad, "text": "hi"}), (f"/p/{seat.token}/chat/", {"room": "table", "text": bad}),
             (f"/w/{match.watch_token}/chat/name/", {"name": bad}), (f"/w/{match.watch_token}/chat/", {"room": bad, "text": bad})]
    for field in ("action", "writer", "duration", "reason", "room", "message", "table", "spectators"):
        for action in ("remove", "mute", "unmute", "close", "open", "options"):
            data = {"action": action, "writer": "seat-1", "duration": "15", "reason": "r", "room": "table",
                    "message": "1", "spectators": "on", field: bad}
            posts.append((f"{host}mod/", data))
    for path, data in posts:
        reply = client.post(path, data)
        assert reply.status_code in (200, 302, 400), (path, data)
    texts = list(ChatMessage.objects.values_list("text", "name", "room")) + list(ChatMute.objects.values_list("reason", "writer"))
    assert not any(unicodedata.category(ch) in ("Cc", "Cf") for row in texts for value in row for ch in value)


# -- 7. zero-width characters and mutes by address ---------------------------------------------------


@pytest.mark.parametrize("mark", ["\u200b", "\u2060", "\u00ad", "\ufeff", "\u200d", "\U000e0041"])
def test_a_token_split_by_invisible_characters_is_removed_and_the_line_stored_without_them(make_match: Any,
                                                                                           mark: str) -> None:
    match = make_match("lance-assembly")
    seat = match.seats.get(number=1)
    token = match.host_token
    split = token[:7] + mark + token[7:15] + mark + token[15:]
    client = Client()
    for text in (f"host link: /h/{split}/", f"try {split} now", f"http://x.example/{mark}h/{split}"):
        ChatMessage.objects.filter(match=match).delete()
        client.post(f"/p/{seat.token}/chat/", {"room": "table", "text": text})
        line = ChatMessage.objects.get(match=match)
        assert token not in line.text and chat.REMOVED in line.text, text
        assert mark not in line.text
    page = client.get(f"/p/{match.seats.get(number=2).token}/").content.decode()
    assert token[:12] not in page


def test_a_fullwidth_token_is_removed_too(make_match: Any) -> None:
    match = make_match("lance-assembly")
    wide = "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in match.host_token)
    line = chat.post(match, 1, "table", f"see {wide}")
    assert chat.REMOVED in line.text and wide not in line.text


def _spectator(client: Client, match: Match, name: str, address: str) -> None:
    assert client.post(f"/w/{match.watch_token}/chat/name/", {"name": name}, REMOTE_ADDR=address).status_code == 302


def test_a_mute_holds_the_spectators_address_through_a_new_name_cookie(make_match: Any) -> None:
    match = make_match("lance-assembly")
    watch, host = f"/w/{match.watch_token}/chat/", Client()
    troll, other = Client(), Client()
    _spectator(troll, match, "Troll", "203.0.113.7")
    _spectator(other, match, "Fan", "198.51.100.2")
    assert troll.post(watch, {"room": "spectators", "text": "spam"}, REMOTE_ADDR="203.0.113.7").status_code == 302
    writer = ChatMessage.objects.get(match=match, text="spam").writer
    muted = host.post(f"/h/{match.host_token}/chat/mod/",
                      {"action": "mute", "writer": writer, "duration": "match", "reason": "spam"})
    assert muted.status_code == 302
    troll.cookies.clear()  # a new cookie jar: a new spectator id and name
    _spectator(troll, match, "Innocent", "203.0.113.7")
    again = troll.post(watch, {"room": "spectators", "text": "back again"}, REMOTE_ADDR="203.0.113.7")
    assert again.status_code == 400 and "muted you" in again.content.decode()
    assert not ChatMessage.objects.filter(match=match, text="back again").exists()
    # another address writes on; lifting the mute frees the address too
    assert other.post(watch, {"room": "spectators", "text": "hi"}, REMOTE_ADDR="198.51.100.2").status_code == 302
    host.post(f"/h/{match.host_token}/chat/mod/", {"action": "unmute", "writer": writer})
    assert troll.post(watch, {"room": "spectators", "text": "sorry"}, REMOTE_ADDR="203.0.113.7").status_code == 302


@pytest.mark.django_db(transaction=True)  # on PostgreSQL a chat line is written in a thread of its own
def test_a_mute_holds_the_address_over_the_websocket_too(make_match: Any) -> None:
    """The socket's writer address is the handshake's (config.ratelimits.scope_request)."""
    from asgiref.sync import async_to_sync

    from matches.web import chat_socket

    match = make_match("lance-assembly")
    scope = {"client": ("203.0.113.9", 5000), "headers": [
        (b"cookie", f"{chat_panel.COOKIE}={chat_panel.spectator_cookie('aaaa1111', 'Old')}".encode())]}
    who = chat_socket.identity(scope, SPECTATOR)
    assert who["address"] == "203.0.113.9"
    # a socket's JSON can carry a lone surrogate (no database stores one): dropped like NUL
    assert 'hidden' in async_to_sync(chat_socket.post)(match.pk, SPECTATOR, "spectators", "spam\ud800", who)
    assert ChatMessage.objects.get(match=match).text == "spam"
    chat.mute(match, "spectator-aaaa1111", "60", "spam")
    scope["headers"] = [(b"cookie", f"{chat_panel.COOKIE}={chat_panel.spectator_cookie('bbbb2222', 'New')}".encode())]
    reply = async_to_sync(chat_socket.post)(match.pk, SPECTATOR, "spectators", "hello", chat_socket.identity(scope, SPECTATOR))
    assert "muted you" in reply
