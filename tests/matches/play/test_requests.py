"""A seat's own requests (issue 25): resign the bout or the match, offer a draw, ask for a
takeback; in a match where the host answers them (`answers="host"`; the opponent answers by default
in a two-seat match: test_offers.py), the host accepts or declines with one click.  Through the form posts of each audience's
own link and the pages they get back: who sees what, what is logged, what a doubled post does."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.play import services
from matches.play.engine import host_seq
from tests.hostform import seq

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def _status(client: Client, url: str) -> str:
    found = re.search(r'<div id="status"[^>]*>(.*?)</div>', client.get(url).content.decode(), re.S)
    assert found
    return _text(found.group(1))


def _ask(client: Client, seat: Any, **data: str) -> str:
    html = client.post(f"/p/{seat.token}/request/", data).content.decode()
    found = re.search(r'<div id="move-error"[^>]*>(.*?)</div>', html, re.S)
    return _text(found.group(1)) if found else ""


def _answer(client: Client, match: Any, seat: int, kind: str, verdict: str) -> str:
    html = client.post(f"/h/{match.host_token}/act/", {"action": "answer", "seat": seat, "kind": kind,
                                                       "answer": verdict, "host_seq": seq(match.host_token)})
    hit = re.search(r'<div id="host-flash"[^>]*>(.*?)</div>', html.content.decode(), re.S)
    assert hit is not None
    return _text(hit.group(1))


def _log(match: Any) -> list[str]:
    return [f"{t.kind}:{t.text}" for t in match.turns.order_by("sequence", "id") if t.kind != "move"]


def test_resign_the_bout_then_the_match_and_reopen_takes_it_back(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    before = host_seq(match)
    assert _ask(client, ann, request="resign", scope="bout") == ""
    match.refresh_from_db()
    bout = match.bouts.get(number=1)
    assert bout.result["winners"] == [2] and bout.reason == "resign"
    assert _log(match)[-1] == "seat:seat 1 (Ann) resigns the bout"
    assert host_seq(match) == before  # a seat's note is not a host action: the host's forms stay valid
    assert _status(client, f"/w/{match.watch_token}/") == "Ann resigned bout 1: Bob wins it."
    # a doubled post is refused, and changes nothing
    assert _ask(client, ann, request="resign", scope="bout") == "the bout is over; the host starts the next one"
    assert match.bouts.get(number=1).version == bout.version
    # the host can take a resignation back like a forfeit
    services.reopen_bout(match, bout.version)
    match.refresh_from_db()
    assert match.current_bout.finished is None
    assert _ask(client, bob, request="resign", scope="match") == ""
    match.refresh_from_db()
    assert match.status == "finished" and match.winners == [1]
    assert _status(client, f"/p/{ann.token}/") == "Bob resigned the match: you win it."
    assert _ask(client, ann, request="resign", scope="sideways") == "resign either the bout or the match"


def test_draw_offer_seen_by_opponent_and_host_not_spectators_and_accepted(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3, answers="host")
    ann, bob = match.seat(1), match.seat(2)
    version = match.current_bout.version
    assert _ask(client, ann, request="draw") == ""
    assert _ask(client, ann, request="draw") == "you already offered a draw: the host has not answered yet"
    assert "Ann offers a draw: the host decides." in _status(client, f"/p/{bob.token}/")
    assert "You offered a draw: the host decides." in _status(client, f"/p/{ann.token}/")
    assert "draw" not in _status(client, f"/w/{match.watch_token}/")
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert re.search(r'id="host-requests".*Ann offers a draw.*value="accept".*value="decline"', host, re.S)
    assert "Ann offers a draw: answer it under Moderation." in _status(client, f"/h/{match.host_token}/")
    # the offer changed no board: a move made on the page drawn before it is played
    match.refresh_from_db()
    assert match.current_bout.version == version
    services.submit(match, 1, "place C3", version)
    assert _answer(client, match, 1, "draw", "accept") == "draw accepted: the bout is drawn"
    match.refresh_from_db()
    bout = match.bouts.get(number=1)
    assert bout.reason == "draw" and bout.result["winners"] == []
    assert _log(match)[-3:] == ["seat:seat 1 (Ann) offers a draw", "host:accepted the draw offer of seat 1 (Ann)",
                                "host:declared bout 1 a draw"]
    assert _answer(client, match, 1, "draw", "accept") == "the bout is over; the host starts the next one"


def test_takeback_request_goes_to_the_host_only_declined_then_accepted(client: Client, make_match: Any,
                                                                       play: Any) -> None:
    match = make_match("lance-assembly", bouts=3, answers="host")
    ann, bob = match.seat(1), match.seat(2)
    assert _ask(client, ann, request="takeback") == "you have no move in bout 1 to take back"
    play(match, 1, "place C3")
    play(match, 2, "place D4")
    assert _ask(client, ann, request="takeback") == ""
    assert "take back" not in _status(client, f"/p/{bob.token}/")
    assert "You asked to take back your last move" in _status(client, f"/p/{ann.token}/")
    assert _answer(client, match, 1, "takeback", "decline") == "takeback request declined"
    assert "take back" not in _status(client, f"/p/{ann.token}/")
    assert _answer(client, match, 1, "takeback", "accept") == \
        "that request is no longer open (it was answered, or the bout ended)"
    assert _ask(client, ann, request="takeback") == ""
    assert _answer(client, match, 1, "takeback", "accept") == "takeback accepted: 2 turn(s) taken back"
    match.refresh_from_db()
    assert [t.text for t in match.current_bout.active_moves()] == []
    assert _status(client, f"/p/{ann.token}/") == "Your turn."
    assert _log(match)[-2] == "host:accepted the takeback request of seat 1 (Ann)"


def test_requests_are_refused_with_a_reason(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", start=False)
    ann = match.seat(1)
    assert _ask(client, ann, request="draw") == "the match has not started yet"
    assert _ask(client, ann, request="dance") == "a seat may offer a draw or ask for a takeback"
    services.start_match(match)
    html = client.post(f"/h/{match.host_token}/act/", {"action": "answer", "seat": 1, "kind": "draw",
                                                       "answer": "maybe", "host_seq": seq(match.host_token)})
    assert "answer a draw offer or a takeback request with accept or decline" in html.content.decode()
    # spectators and outsiders have nothing to post to
    assert client.post(f"/w/{match.watch_token}/request/", {"request": "draw"}).status_code == 404


def test_a_takeback_of_a_move_the_host_undid_meanwhile_is_refused(client: Client, make_match: Any,
                                                                   play: Any) -> None:
    match = make_match("lance-assembly", answers="host")
    play(match, 1, "place C3")
    assert _ask(client, match.seat(1), request="takeback") == ""
    match.refresh_from_db()
    services.undo(match, match.current_bout.version, 1)
    assert _answer(client, match, 1, "takeback", "accept") == "seat 1 (Ann) has no move left in bout 1 to take back"
    assert "takeback" in str(match.__class__.objects.get(pk=match.pk).format)  # refused: nothing changed
