"""Computer players in seats (matches/play/bots.py): the host's switch, the worker that moves
for them through services, exactly once per turn however many workers run, within the clock,
and from the seat's own view only.  Iteration budgets only (no time budget), so every bot
decision here is fixed by its seed."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

import pytest
from django.test import Client

from games.bots import STRENGTHS
from matches.core.errors import NotAllowed
from matches.models import Bout, Match, Seat, TurnLog
from matches.play import bots, services
from tests.conftest import POSTGRES
from tests.threads import released_together

pytestmark = pytest.mark.django_db

#: the named strengths with a small iteration budget and no clock
SMALL = {name: replace(knobs, iterations=20, seconds=None, candidates=min(knobs.candidates, 8), playout_depth=10,
                       tactic_checks=min(knobs.tactic_checks, 200))
         for name, knobs in STRENGTHS.items()}


def current(match: Match) -> Bout:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    return bout


def moves(match: Match, seat: int) -> list[str]:
    return list(TurnLog.objects.filter(match=match, kind=TurnLog.MOVE, actor=seat, undone=False)
                .values_list("text", flat=True))


def bot_seat(match: Match, number: int) -> Seat:
    return Seat.objects.get(match=match, number=number)


def test_a_bot_moves_on_its_turn_once_and_only_then(make_match: Any, play: Any) -> None:
    match = make_match("squava", seat_names=["Ann", "Bob"])
    bots.set_bot(match, 2, "normal")
    assert bots.sweep_bots(SMALL) == 0  # seat 1 to move: the bot waits
    play(match, 1, "C3")
    assert bots.sweep_bots(SMALL) == 1
    assert len(moves(match, 2)) == 1
    assert bots.sweep_bots(SMALL) == 0  # its move is made: nothing more until seat 1 moves
    play(match, 1, "A1")
    assert bots.sweep_bots(SMALL) == 1 and len(moves(match, 2)) == 2


def test_a_bot_plays_a_whole_game_against_a_bot(make_match: Any) -> None:
    match = make_match("squava")
    bots.set_bot(match, 1, "easy")
    bots.set_bot(match, 2, "strong")
    for _ in range(30):
        if not bots.sweep_bots(SMALL):
            break
    match.refresh_from_db()
    assert match.status == Match.FINISHED and current(match).finished is not None


def test_the_host_puts_a_bot_in_a_seat_and_takes_it_out(make_match: Any, play: Any) -> None:
    match = make_match("squava", seat_names=["Ann", "Bob"])
    bout_version = current(match).version
    text = bots.set_bot(match, 2, "strong")
    assert text == "seat 2 (Bob) is played by the computer (strong)"
    assert current(match).version == bout_version + 1  # a page drawn before shows a stale board
    assert bot_seat(match, 2).label == "Bob (computer, strong)"
    with pytest.raises(NotAllowed, match="already plays"):
        bots.set_bot(match, 2, "strong")
    with pytest.raises(NotAllowed, match="easy, normal or strong"):
        bots.set_bot(match, 2, "grandmaster")
    assert bots.set_bot(match, 2, "") == "seat 2 (Bob) is played by its person again"
    play(match, 1, "C3")
    assert bots.sweep_bots(SMALL) == 0  # a person again: no bot move
    notes = list(TurnLog.objects.filter(match=match, kind=TurnLog.HOST_NOTE).values_list("text", flat=True))
    assert notes[-2:] == [text, "seat 2 (Bob) is played by its person again"]


def test_a_doubled_claim_never_plays_twice(make_match: Any, play: Any) -> None:
    match = make_match("squava")
    bots.set_bot(match, 2, "normal")
    play(match, 1, "C3")
    seat = bot_seat(match, 2)
    bout = current(match)
    key = f"{bout.pk}:{bout.version}"
    now = dt.datetime.now(dt.UTC)
    assert bots.claim(seat.pk, "normal", key, now)
    assert not bots.claim(seat.pk, "normal", key, now)  # a second worker loses the swap
    assert not bots.play_turn(seat.pk, SMALL)  # ... and so does this one: the turn is claimed
    assert moves(match, 2) == []
    # a claim past its lease (its worker died) is taken again, and the turn is played once
    Seat.objects.filter(pk=seat.pk).update(bot_claimed_at=now - bots.LEASE - dt.timedelta(seconds=1))
    assert bots.play_turn(seat.pk, SMALL)
    assert not bots.play_turn(seat.pk, SMALL)
    assert len(moves(match, 2)) == 1


def test_a_sealed_round_is_one_turn_for_the_bot(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    bots.set_bot(match, 2, "normal")
    seat, bout = bot_seat(match, 2), current(match)
    # a worker claims the bot's round and thinks; meanwhile seat 1 submits (the version moves on)
    assert bots.claim(seat.pk, "normal", f"{bout.pk}:r{bout.round_version}", dt.datetime.now(dt.UTC))
    services.submit(match, 1, "A1 3", bout.version)
    assert bots.sweep_bots(SMALL) == 0  # another worker finds the round claimed
    assert moves(match, 2) == []
    Seat.objects.filter(pk=seat.pk).update(bot_claim="")  # the first worker's claim, released
    assert bots.sweep_bots(SMALL) == 1
    assert len(moves(match, 2)) == 1


def test_the_bot_decides_from_its_own_view_only(make_match: Any) -> None:
    """Two matches that differ only in the human's sealed bid: with one seed the bot chooses the
    same.  (A seat's own seed includes its match, so each match's bot plays a game of its own:
    the seed is fixed here, and the state is the bout's own, rebuilt from its log.)"""
    from games import bots as computer
    from matches.play import engine

    texts = []
    for bid in ("A1 3", "E5 40; C3 7"):
        match = make_match("bidding-ttt")
        services.submit(match, 1, bid, current(match).version)
        state = engine.bout_state(current(match))
        action = computer.choose(match.game, state, 2, SMALL["normal"], seed=7)
        texts.append(match.game.format(action))
    assert texts[0] == texts[1]


def test_the_bot_thinks_within_its_clock(make_match: Any) -> None:
    match = make_match("squava", clock={"per_move": 4, "reserve": 0})
    bout = current(match)
    clock = bout.clocks.get(seat=1)
    assert clock.deadline is not None
    short = bots._within_clock(STRENGTHS["strong"], bout, 1, clock.deadline - dt.timedelta(seconds=3))
    assert short.seconds == pytest.approx(1.5)  # half of the 3 s its clock has left (not 2.5)
    assert short.iterations == STRENGTHS["strong"].iterations
    roomy = make_match("squava", clock={"per_move": 600, "reserve": 0})
    assert bots._within_clock(STRENGTHS["strong"], current(roomy), 1, dt.datetime.now(dt.UTC)) == STRENGTHS["strong"]


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["squava", "bidding-ttt"])
def test_two_workers_at_once_play_one_move(make_match: Any, game: str) -> None:
    match = make_match(game)
    bots.set_bot(match, 2, "normal")
    if game == "squava":
        services.submit(match, 1, "C3", current(match).version)
    played = []
    errors = released_together(*[lambda: played.append(bots.sweep_bots(SMALL))] * 2, timeout=60)
    assert errors == [] and sorted(played) == [0, 1]
    assert len(moves(match, 2)) == 1


# -- the pages --------------------------------------------------------------------------


def _form(html: str, action: str) -> dict[str, str]:
    for form in re.findall(r"<form[^>]*>(.*?)</form>", html, re.S):
        if f'name="action" value="{action}"' in form:
            return dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form))
    raise AssertionError(f"no {action} form on the dashboard")


def test_the_host_console_puts_a_bot_in_a_seat(client: Client, make_match: Any, play: Any) -> None:
    match = make_match("squava", seat_names=["Ann", "Bob"])
    data = _form(client.get(f"/h/{match.host_token}/").content.decode(), "bot")
    flash = client.post(f"/h/{match.host_token}/act/", {**data, "seat": "2", "strength": "easy"}).content.decode()
    assert "seat 2 (Bob) is played by the computer (easy)" in flash
    assert bot_seat(match, 2).bot == "easy"
    bad = client.post(f"/h/{match.host_token}/act/", {**_form(client.get(f"/h/{match.host_token}/").content.decode(),
                                                              "bot"), "seat": "2", "strength": "wizard"})
    assert "easy, normal or strong" in bad.content.decode() and bot_seat(match, 2).bot == "easy"
    seat_page = client.get(f"/p/{bot_seat(match, 1).token}/").content.decode()
    assert "Bob (computer, easy)" in seat_page
    assert "Bob (computer, easy)" in client.get(f"/p/{bot_seat(match, 2).token}/").content.decode()
    play(match, 1, "C3")
    assert bots.sweep_bots(SMALL) == 1


def test_practice_starts_a_match_against_the_computer(client: Client) -> None:
    home = client.get("/").content.decode()
    assert 'id="practice-form"' in home and 'value="gomoku"' in home
    response = client.post("/practice/", {"game": "back-to-the-wall", "strength": "strong", "seat": "3"})
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/p/{bot_seat(match, 3).token}/"
    assert match.status == Match.RUNNING and match.format["bouts"] == 1
    assert [(s.name, s.bot) for s in match.seats.order_by("number")] == [
        ("Opponent 1", "strong"), ("Opponent 2", "strong"), ("You", ""), ("Opponent 4", "strong")]
    page = client.get(response["Location"]).content.decode()
    assert "Opponent 1 (computer, strong)" in page


def test_a_practice_match_never_points_the_player_to_a_host(client: Client, play: Any, make_match: Any) -> None:
    """Nobody holds a practice match's host link: a declined draw offer says so, not that "the host
    may still grant it" (a hosted match's pages still say that: test_offers.py)."""
    from matches.play import requests

    response = client.post("/practice/", {"game": "squava", "strength": "easy", "seat": "1"})
    match = Match.objects.get()
    assert match.format["practice"] is True
    play(match, 1, "C3")
    requests.ask(match, 1, "draw")
    assert bots.sweep_bots(SMALL) == 0  # the computer declines
    page = client.get(response["Location"]).content.decode()
    assert "declined your draw offer." in page and "the host may still grant it" not in page
    # nor does its log name one: the match was started by the server, for the player
    started = re.search(r'<span class="who">([^<]*)</span>\s*<span class="text">started the match', page)
    assert started and started.group(1) == ""
    hosted = client.get(f"/p/{make_match('squava').seat(1).token}/").content.decode()
    assert re.search(r'<span class="who">host</span>\s*<span class="text">started the match', hosted)


def test_a_practice_match_offers_the_player_no_chat_nobody_would_read(client: Client, make_match: Any) -> None:
    """No host, the computer in the other seat: the player's page has no chat (it showed rooms
    nobody reads, "Host (private)" first), and a line posted anyway is refused and kept nowhere.
    Spectators the player sent the link keep their own room; a hosted match keeps every room."""
    from matches.models import ChatMessage

    response = client.post("/practice/", {"game": "squava", "strength": "easy", "seat": "1"})
    match = Match.objects.get()
    page = client.get(response["Location"]).content.decode()
    assert 'id="chat"' not in page and "Host (private)" not in page
    refused = client.post(f"{response['Location']}chat/", {"room": "seat-1", "text": "hello?"},
                          headers={"HX-Request": "true"}).content.decode()
    assert "You cannot write in that room." in refused and not ChatMessage.objects.exists()
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert 'id="chat-tab-spectators"' in watch and 'id="chat-tab-announce"' not in watch
    hosted = client.get(f"/p/{make_match('squava').seat(1).token}/").content.decode()
    assert all(f'id="chat-tab-{room}"' in hosted for room in ("seat-1", "announce", "table"))


def test_a_finished_practice_match_offers_to_play_again_on_the_other_side(client: Client, make_match: Any) -> None:
    """The end of a practice match offers "Play again": the same game against the same computer,
    the player on the other side.  Posted by htmx (a live update's form has no CSRF token; the
    page's header has), the browser is sent to the new seat; without JavaScript, redirected."""
    from matches.play import requests

    first = client.post("/practice/", {"game": "squava", "strength": "normal", "seat": "1"})["Location"]
    match = Match.objects.get()
    assert "practice-again" not in client.get(first).content.decode()  # not while it is played
    requests.resign(match, 1, "match")
    page = client.get(first).content.decode()
    form = re.search(r'<form [^>]*id="practice-again".*?</form>', page, re.S)
    assert form and 'hx-post="/practice/"' in form.group(0) and "you move second" in form.group(0)
    assert 'name="key"' in form.group(0)  # a doubled click makes one match (test_create_form_key.py)
    posted = dict(re.findall(r'<input type="hidden" name="(game|strength|seat)" value="([^"]*)"', form.group(0)))
    assert posted == {"game": "squava", "strength": "normal", "seat": "2"}
    reply = client.post("/practice/", posted, headers={"HX-Request": "true"})
    new = Match.objects.exclude(pk=match.pk).get()
    you = new.seats.get(number=2)
    assert reply.status_code == 200 and reply["HX-Redirect"] == f"/p/{you.token}/"
    assert new.format["practice"] and new.status == "running" and (you.name, you.bot) == ("You", "")
    assert new.seats.get(number=1).bot == "normal"
    assert client.post("/practice/", posted)["Location"] == f"/p/{Match.objects.latest('pk').seats.get(number=2).token}/"
    # a refusal comes back to the form's own error line; nothing is created
    count = Match.objects.count()
    refused = client.post("/practice/", {**posted, "seat": "3"}, headers={"HX-Request": "true"}).content.decode()
    assert 'id="practice-again-error"' in refused and "Squava has seats 1 to 2" in refused
    assert Match.objects.count() == count
    # neither the spectators nor a hosted match's players are offered it
    assert "practice-again" not in client.get(f"/w/{match.watch_token}/").content.decode()
    hosted = make_match("squava")
    requests.resign(hosted, 1, "match")
    assert "practice-again" not in client.get(f"/p/{hosted.seat(1).token}/").content.decode()


@pytest.mark.parametrize("data, message", [
    ({"game": "chess", "strength": "easy", "seat": "1"}, "choose a game to practise"),
    ({"game": "squava", "strength": "godlike", "seat": "1"}, "easy, normal or strong"),
    ({"game": "squava", "strength": "easy", "seat": "3"}, "Squava has seats 1 to 2"),
    ({"game": "squava", "strength": "easy", "seat": "x"}, "choose your seat"),
])
def test_bad_practice_requests_say_why_and_create_nothing(client: Client, data: dict[str, str], message: str) -> None:
    response = client.post("/practice/", data)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Match.objects.exists()


def test_bots_in_two_matches_of_one_game_do_not_replay_one_game(make_match: Any) -> None:
    """A seat's seed is its match's too: before, seats of two matches at the same bout, version
    and seat number drew the same seed, so two practice matches against the computer replayed
    one game move for move."""
    matches = [make_match("squava") for _ in range(4)]
    for match in matches:
        bots.set_bot(match, 1, "normal")
        bots.set_bot(match, 2, "normal")
    for _ in range(6):
        bots.sweep_bots(SMALL)
    games = {tuple(moves(match, 1) + moves(match, 2)) for match in matches}
    assert all(len(moves(match, 1)) >= 3 for match in matches)
    assert len(games) >= 2


def _notes(match: Match) -> list[str]:
    return list(TurnLog.objects.filter(match=match, kind=TurnLog.SEAT_NOTE).order_by("sequence")
                .values_list("text", flat=True))


def test_the_bot_grants_a_takeback_at_once_and_only_once(make_match: Any, play: Any) -> None:
    from matches.play import requests

    match = make_match("squava", seat_names=["Ann", "Bob"])
    bots.set_bot(match, 2, "normal")
    play(match, 1, "C3")
    assert bots.sweep_bots(SMALL) == 1
    requests.ask(match, 1, "takeback")
    assert bots.sweep_bots(SMALL) == 0  # an answer, not a move
    assert moves(match, 1) == [] and moves(match, 2) == []  # Ann's move and the bot's reply
    assert _notes(match)[-1] == "seat 2 (Bob) accepts the takeback request of seat 1 (Ann): 2 turn(s) taken back"
    match.refresh_from_db()
    assert requests.pending(match) == []
    assert bots.sweep_bots(SMALL) == 0  # Ann to move again: nothing more is taken back or played
    assert moves(match, 1) == [] and current(match).finished is None
    play(match, 1, "B2")
    assert bots.sweep_bots(SMALL) == 1 and len(moves(match, 2)) == 1


def test_the_bot_declines_a_draw_and_plays_on(make_match: Any, play: Any) -> None:
    from matches.play import requests

    match = make_match("squava", seat_names=["Ann", "Bob"])
    bots.set_bot(match, 2, "normal")
    play(match, 1, "C3")
    requests.ask(match, 1, "draw")
    assert bots.sweep_bots(SMALL) == 0  # it declines (the answer's own event wakes the next sweep)
    assert _notes(match)[-1] == "seat 2 (Bob) declines the draw offer of seat 1 (Ann)"
    with pytest.raises(NotAllowed, match="declined your draw offer"):
        requests.ask(match, 1, "draw")  # not again before the next move
    assert bots.sweep_bots(SMALL) == 1  # then it moves on its turn
    assert len(moves(match, 2)) == 1 and current(match).finished is None
    assert bots.sweep_bots(SMALL) == 0 and _notes(match)[-1].endswith("no longer offers a draw: seat 2 (Bob) moved")


def test_where_the_host_answers_the_bot_leaves_requests_to_the_host(make_match: Any, play: Any) -> None:
    from matches.play import requests

    match = make_match("squava", seat_names=["Ann", "Bob"], answers="host")
    bots.set_bot(match, 2, "normal")
    play(match, 1, "C3")
    assert bots.sweep_bots(SMALL) == 1
    requests.ask(match, 1, "takeback")
    assert bots.sweep_bots(SMALL) == 0
    match.refresh_from_db()
    assert [r["kind"] for r in requests.pending(match)] == ["takeback"]
    assert moves(match, 1) == ["C3"]
