"""Issue 41, item 1: the opponent answers a draw offer or a takeback request, as on lichess or BGA.

The match option `answers` says who answers: the opponent (the default with two seats; the host may
overrule) or the host (the default with more seats and in the host's game, where a seat has nothing
to offer).  An offer lasts one turn: the next move ends it.  Through each audience's own link (its
form posts and the pages it gets back), and on the wire of each audience's socket."""

from __future__ import annotations

import datetime as dt
import html as htmllib
import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from config.asgi import application
from games.registry import get_game
from matches.core import events
from matches.models import Bout, Match
from matches.play import requests, services, sweeper
from matches.play.engine import host_seq
from tests.hostform import seq
from tests.wsclient import Communicator

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return htmllib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip())


def _offers(client: Client, seat: Any) -> str:
    """The seat's offers box as its page draws it ("" when hidden)."""
    html = client.get(f"/p/{seat.token}/").content.decode()
    found = re.search(r'<section id="offers"[^>]*>(.*?)</section>', html, re.S)
    assert found, html[:300]
    return "" if re.search(r'<section id="offers"[^>]* hidden>', html) else found.group(1)


def _offer_id(client: Client, seat: Any, kind: str) -> str:
    found = re.search(rf'id="offer-answer-{kind}".*?name="offer" value="(\d+)"', _offers(client, seat), re.S)
    assert found
    return found.group(1)


def _post(client: Client, seat: Any, **data: str) -> str:
    """A seat's post to its request link: its refusal ("" when done)."""
    html = client.post(f"/p/{seat.token}/request/", data).content.decode()
    found = re.search(r'<div id="move-error"[^>]*>(.*?)</div>', html, re.S)
    return _text(found.group(1)) if found else ""


def _respond(client: Client, seat: Any, kind: str, verdict: str, offer: str) -> str:
    return _post(client, seat, request="answer", kind=kind, answer=verdict, offer=offer)


def _host(client: Client, match: Any, seat: int, kind: str, verdict: str) -> str:
    html = client.post(f"/h/{match.host_token}/act/", {"action": "answer", "seat": seat, "kind": kind,
                                                       "answer": verdict, "host_seq": seq(match.host_token)})
    hit = re.search(r'<div id="host-flash"[^>]*>(.*?)</div>', html.content.decode(), re.S)
    assert hit is not None
    return _text(hit.group(1))


def _notes(match: Any) -> list[str]:
    return [f"{t.kind}:{t.text}" for t in match.turns.order_by("sequence", "id") if t.kind != "move"]


def _fresh(match: Any) -> Match:
    return Match.objects.get(pk=match.pk)


def _fresh_bout(match: Any) -> Bout:
    bout = _fresh(match).current_bout
    assert bout is not None
    return bout


# -- who answers ------------------------------------------------------------------------------


def test_who_answers_by_default_comes_from_the_game_and_its_seats(make_match: Any) -> None:
    assert make_match("lance-assembly").format["answers"] == "opponent"
    assert make_match("bidding-ttt").format["answers"] == "opponent"
    assert make_match("back-to-the-wall").format["answers"] == "host"  # four seats: whose opponent?
    assert make_match("custom", options={"seats": 2}).format["answers"] == "host"  # nothing to offer there
    assert make_match("lance-assembly", answers="host").format["answers"] == "host"
    assert get_game("custom").seat_offers == frozenset() and get_game("gomoku").seat_offers == {"draw", "takeback"}


@pytest.mark.parametrize(("game", "answers", "message"), [
    ("back-to-the-wall", "opponent", "the opponent answers only in a match of two seats, not 4"),
    ("custom", "opponent", "Host's game has no draw offers or takebacks for seats: there is nothing to answer"),
    ("lance-assembly", "the butler", "answered by the opponent or by the host"),
])
def test_an_answerer_that_cannot_work_is_refused_on_the_home_form(db: Any, game: str, answers: str,
                                                                 message: str) -> None:
    count = Match.objects.count()
    reply = Client().post(reverse("home"), {"game": game, "answers": answers})
    page = htmllib.unescape(reply.content.decode())
    assert reply.status_code == 400 and message in page, page[:400]
    assert 'class="field-error">Draw offers and takebacks are answered by' in page
    assert Match.objects.count() == count
    with pytest.raises(services.ServiceError, match=re.escape(message.split(":")[0])):
        services.create_match(game, answers=answers)


def test_the_home_form_chooses_who_answers(db: Any) -> None:
    page = Client().get(reverse("home")).content.decode()
    assert re.search(r'<select name="answers" id="answers">\s*<option value="">as usual: the opponent in a 2-player '
                     r'game \(you may overrule\), else you</option>', page)
    reply = Client().post(reverse("home"), {"game": "lance-assembly", "answers": "host"})
    assert Match.objects.get(host_token=reply["Location"].rstrip("/").rsplit("/", 1)[1]).format["answers"] == "host"


# -- the opponent answers ----------------------------------------------------------------------


def test_the_opponent_accepts_a_draw_once_and_each_audience_sees_its_own(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    seq_before = host_seq(match)
    assert _post(client, ann, request="draw") == ""
    assert _post(client, ann, request="draw") == "you already offered a draw: Bob has not answered yet"
    assert _post(client, bob, request="draw") == "Ann offers you a draw already: accept it instead"
    # Bob answers it on his page; Ann sees it pending, without Bob's buttons; spectators see no box
    assert "Ann offers a draw." in _text(_offers(client, bob)) and 'value="accept"' in _offers(client, bob)
    assert _text(_offers(client, ann)) == "You offered a draw: waiting for Bob's answer (a move ends it)."
    assert "offer-answer" not in client.get(f"/p/{ann.token}/").content.decode()
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert 'id="offers"' not in watch and "offer-answer" not in watch and 'value="accept"' not in watch
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert re.search(r'id="host-requests".*Ann offers a draw: Bob answers, or you overrule under Moderation\.'
                     r'.*value="accept".*value="decline"', host, re.S)
    offer = _offer_id(client, bob, "draw")
    assert _respond(client, ann, "draw", "accept", offer) == "you cannot answer your own draw offer: Bob answers it"
    version = match.current_bout.version
    assert _respond(client, bob, "draw", "accept", offer) == ""
    bout = match.bouts.get(number=1)
    assert bout.reason == "agreed" and bout.result["winners"] == [] and bout.version == version + 1
    # a doubled Accept is refused and changes nothing
    assert _respond(client, bob, "draw", "accept", offer) == "the bout is over; the host starts the next one"
    assert match.bouts.get(number=1).version == version + 1 and match.bouts.count() == 1
    assert _notes(match)[-2:] == ["seat:seat 1 (Ann) offers a draw",
                                  "seat:seat 2 (Bob) accepts the draw offer of seat 1 (Ann)"]
    assert host_seq(match) == seq_before  # the seats' own: the host's forms stay valid
    status = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Bout 1 is drawn" in status and "agreed by the players" in status
    # an agreed draw is an ending the host may take back, like a resignation
    services.reopen_bout(match, version + 1)
    assert _fresh_bout(match).finished is None


def test_a_declined_takeback_can_be_granted_by_the_host(client: Client, make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    assert _post(client, ann, request="takeback") == "you have no move in bout 1 to take back"
    play(match, 1, "place C3")
    assert _post(client, ann, request="takeback") == ""
    offer = _offer_id(client, bob, "takeback")  # the opponent answers a takeback too
    assert _respond(client, bob, "takeback", "decline", offer) == ""
    assert _respond(client, bob, "takeback", "decline", offer) == \
        "that takeback request is no longer open: it was answered, or a move ended it"
    assert _text(_offers(client, ann)) == "Bob declined your takeback request; the host may still grant it."
    assert _text(_offers(client, bob)) == "You declined the takeback request of Ann; the host may still grant it."
    assert _post(client, ann, request="takeback") == "Bob declined your takeback request: ask again after the next move"
    assert "Grant it anyway" in client.get(f"/h/{match.host_token}/").content.decode()
    assert _host(client, match, 1, "takeback", "decline") == \
        "Bob has declined the takeback request of seat 1 (Ann) already: you may only grant it"
    assert _host(client, match, 1, "takeback", "accept") == "takeback accepted: 1 turn(s) taken back"
    assert [t.text for t in _fresh_bout(match).active_moves()] == []
    assert _notes(match)[-4:] == [
        "seat:seat 1 (Ann) asks to take back their last move",
        "seat:seat 2 (Bob) declines the takeback request of seat 1 (Ann)",
        "host:granted the takeback request of seat 1 (Ann), which seat 2 (Bob) declined",
        "host:undo 1 (seat 1: place C3)",
    ]
    assert _offers(client, ann) == "" and _offers(client, bob) == ""


def test_the_opponent_accepts_a_takeback_as_its_own_undo(client: Client, make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    play(match, 1, "place C3")
    play(match, 2, "place D4")
    seq_before = host_seq(match)
    assert _post(client, ann, request="takeback") == ""  # on her turn: her move and Bob's reply go back
    assert _respond(client, bob, "takeback", "accept", _offer_id(client, bob, "takeback")) == ""
    assert [t.text for t in _fresh_bout(match).active_moves()] == []
    assert _notes(match)[-1] == ("seat:seat 2 (Bob) accepts the takeback request of seat 1 (Ann): "
                                 "2 turn(s) taken back")
    assert host_seq(match) == seq_before


def test_an_offer_ends_when_the_offerer_moves_or_after_one_turn(client: Client, make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    assert _post(client, ann, request="draw") == ""  # on her own turn
    offer = _offer_id(client, bob, "draw")
    play(match, 1, "place C3")
    assert _offers(client, bob) == "" and _offers(client, ann) == ""
    assert _notes(match)[-1] == "seat:seat 1 (Ann) no longer offers a draw: they moved"
    assert _respond(client, bob, "draw", "accept", offer) == \
        "that draw offer is no longer open: it was answered, or a move ended it"
    assert _fresh_bout(match).finished is None
    # offered on the opponent's turn, it lasts until the opponent moves
    assert _post(client, ann, request="takeback") == ""
    play(match, 2, "place D4")
    assert _notes(match)[-1] == "seat:seat 1 (Ann) no longer asks for a takeback: seat 2 (Bob) moved"
    assert _host(client, match, 1, "takeback", "accept") == \
        "that request is no longer open (it was answered, or the bout ended)"
    assert [t.text for t in _fresh_bout(match).active_moves()] == ["place C3", "place D4"]


def test_an_offer_and_its_answer_leave_the_board_and_the_clocks_alone(client: Client, make_match: Any,
                                                                      time_machine: Any) -> None:
    time_machine.move_to(dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC), tick=False)
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 0, "lag_compensation": False})
    ann, bob = match.seat(1), match.seat(2)
    version, deadline = match.current_bout.version, match.current_bout.deadline
    time_machine.shift(10)
    assert _post(client, ann, request="draw") == ""
    time_machine.shift(10)
    assert _respond(client, bob, "draw", "decline", _offer_id(client, bob, "draw")) == ""
    bout = _fresh_bout(match)
    assert (bout.version, bout.deadline) == (version, deadline)  # Ann's clock ran on, the board did not change
    time_machine.shift(10)
    entry = services.submit(match, 1, "place C3", version)  # the page drawn before the offer still plays
    assert entry.time_used == pytest.approx(30.0)
    assert _notes(match)[-1] == "seat:seat 1 (Ann) no longer offers a draw: they moved"


@pytest.fixture
def announced() -> Any:
    """The events published by what runs in the block, once its transaction committed."""
    seen: list[tuple[int, Any]] = []

    def record(match_id: int, moved: Any) -> None:
        seen.append((match_id, moved))

    events.subscribe(record)
    yield seen
    events.unsubscribe(record)


def test_each_answer_is_one_change_announced_on_commit(make_match: Any, play: Any, announced: Any,
                                                       django_capture_on_commit_callbacks: Any) -> None:
    match = make_match("lance-assembly")
    play(match, 1, "place C3")
    requests.ask(match, 1, "takeback")
    offer = requests.pending(_fresh(match))[0]["id"]
    announced.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert requests.respond(match, 2, "takeback", True, offer) == "takeback accepted: 1 turn(s) taken back"
        assert announced == []  # not before the commit
    assert announced == [(match.pk, None)]  # once, for the answer and the undo it ran
    rows = match.turns.count()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.NotAllowed, match="no longer open"):
        requests.respond(match, 2, "takeback", True, offer)  # a doubled Accept
    assert announced == [(match.pk, None)] and match.turns.count() == rows
    # a move that ends an offer is announced as a change (its event would carry the move's row alone)
    requests.ask(match, 1, "draw")
    announced.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play(match, 1, "place C3")
    assert announced == [(match.pk, None)]


def test_a_sealed_round_its_deadline_closes_ends_the_offer(make_match: Any, time_machine: Any) -> None:
    time_machine.move_to(dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC), tick=False)
    match = make_match("bidding-ttt", clock={"round_seconds": 60})
    requests.ask(match, 1, "draw")  # neither seat bids this round
    time_machine.shift(61)
    assert sweeper.sweep_clocks() == 1
    assert requests.pending(_fresh(match)) == []
    assert _notes(match)[-1] == "seat:seat 1 (Ann) no longer offers a draw: the round closed"


def test_the_host_overrules_an_open_offer_either_way(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    assert _post(client, ann, request="draw") == ""
    offer = _offer_id(client, bob, "draw")
    assert _host(client, match, 1, "draw", "decline") == "draw offer declined"
    assert _respond(client, bob, "draw", "accept", offer) == \
        "that draw offer is no longer open: it was answered, or a move ended it"
    assert _post(client, bob, request="draw") == ""
    assert _host(client, match, 2, "draw", "accept") == "draw accepted: the bout is drawn"
    assert match.bouts.get(number=1).reason == "draw"
    assert _notes(match)[-3:] == ["seat:seat 2 (Bob) offers a draw", "host:accepted the draw offer of seat 2 (Bob)",
                                  "host:declared bout 1 a draw"]


def test_a_seat_cannot_answer_when_the_host_does(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", answers="host")
    ann, bob = match.seat(1), match.seat(2)
    assert _post(client, ann, request="draw") == ""
    assert _offers(client, bob) == ""  # no box: the note in the status says the host decides
    assert _respond(client, bob, "draw", "accept", "1") == \
        "the host answers draw offers and takeback requests in this match"
    assert _post(client, bob, request="answer", kind="draw", answer="maybe", offer="1") == \
        "answer the offer on your page with Accept or Decline"
    assert requests.pending(_fresh(match))[0]["seat"] == 1


def test_a_match_older_than_the_option_keeps_the_host_answering(client: Client, make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly")
    Match.objects.filter(pk=match.pk).update(format={k: v for k, v in match.format.items() if k != "answers"})
    ann, bob = match.seat(1), match.seat(2)
    assert _post(client, ann, request="draw") == ""
    assert _respond(client, bob, "draw", "accept", "1") == \
        "the host answers draw offers and takeback requests in this match"
    play(_fresh(match), 1, "place C3")  # and its requests wait for the host past a move
    assert requests.pending(_fresh(match))[0]["kind"] == "draw"


# -- offers that mean nothing -------------------------------------------------------------------


def test_the_hosts_game_has_no_draw_offer_or_takeback_for_seats(client: Client, make_match: Any) -> None:
    match = make_match("custom", options={"seats": 2})
    ann = match.seat(1)
    page = client.get(f"/p/{ann.token}/").content.decode()
    assert 'id="offer-draw"' not in page and 'id="ask-takeback"' not in page and 'id="resign-bout"' in page
    before = (_fresh(match).format, match.turns.count(), match.current_bout.version)
    assert _post(client, ann, request="draw") == \
        "Host's game has no draw offers for seats: the host decides how its bouts end"
    assert _post(client, ann, request="takeback") == \
        "Host's game has no takeback requests for seats: the host decides how its bouts end"
    assert _respond(client, ann, "draw", "accept", "1") == \
        "the host answers draw offers and takeback requests in this match"
    assert _host(client, match, 1, "draw", "accept") == \
        "that request is no longer open (it was answered, or the bout ended)"
    # the platform has no notation for offers: typed in the move box, it is the game's to read (no round is open)
    reply = client.post(f"/p/{ann.token}/move/", {"text": "offer a draw", "version": match.current_bout.version})
    found = re.search(r'<div id="move-error"[^>]*>(.*?)</div>', reply.content.decode(), re.S)
    assert found and _text(found.group(1)) == "there is no open round to answer"
    assert (_fresh(match).format, match.turns.count(), _fresh_bout(match).version) == before


# -- on the wire ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_each_audience_gets_only_its_own_offer_controls_on_the_wire(make_match: Any, settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    match = await database_sync_to_async(make_match)("lance-assembly")
    seats = await database_sync_to_async(lambda: {s.number: s.token for s in match.seats.all()})()
    tokens = {"ann": seats[1], "bob": seats[2], "watch": match.watch_token, "host": match.host_token}
    comms = {}
    for who, token in tokens.items():
        comms[who] = Communicator(application, f"/ws/m/{token}/", headers=[(b"origin", b"http://testserver")])
        assert (await comms[who].connect())[0]

    async def update(who: str, needle: str) -> str:
        for _ in range(20):
            text = await comms[who].receive_from(timeout=5)
            if needle in text:
                return text
        raise AssertionError(f"{who} never received {needle!r}")

    for who in comms:  # the first full update, on connect
        await update(who, 'id="live-meta"')
    await database_sync_to_async(requests.ask)(match, 1, "draw")
    bob = await update("bob", "offers a draw")
    ann = await update("ann", "offers a draw")  # her own note in the log
    watch = await update("watch", "offers a draw")
    host = await update("host", 'id="host-requests"')
    assert 'id="offer-accept-draw"' in bob and 'id="offer-decline-draw"' in bob
    assert "offer-accept" not in ann and "waiting for Bob&#x27;s answer" in ann
    assert 'id="offers"' not in watch and "offer-accept" not in watch
    assert "offer-accept" not in host and "Ann offers a draw: Bob answers, or you overrule" in host
    for text in (bob, ann, watch, host):  # no audience's page carries a secret link
        assert all(token not in text for token in (seats[1], seats[2]))
    # Ann moves: the offer ends on every page
    version = await database_sync_to_async(lambda: match.current_bout.version)()
    await database_sync_to_async(services.submit)(match, 1, "place C3", version)
    bob = await update("bob", "no longer offers a draw")
    assert re.search(r'<section id="offers"[^>]* hidden>\s*</section>', bob) and "offer-accept" not in bob
    for comm in comms.values():
        await comm.disconnect()
