"""The host's console (issue 41, item 4) through Django's test client and a host socket.

1. Once a bout is over the dashboard offers only what applies to a finished bout (start the
   next one, reopen it, undo a move of a bout won on the board, clocks' pause, garnets, end the
   match); a page drawn before the ending that still posts a forfeit, stalemate, draw, award,
   time or orders is refused with a sentence that says why, and nothing changes.
2. The host's game: one Send carries the console's whole pending list (a `text` field an action),
   applied in order, all or none, and a doubled Send is applied once.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from config.asgi import application
from matches.models import Match, TurnLog
from matches.play import services
from tests.hostform import seq
from tests.wsclient import Communicator

#: the ids of the dashboard's controls that act on a bout in play
IN_PLAY = ("host-forfeit-bout", "host-forfeit-match", "host-stalemate", "host-draw", "host-award", "host-clock",
           "host-orders")
#: what a finished bout (of a match still running) offers, ended by the host: no Undo (reopen takes it back)
BETWEEN = ("host-next-bout", "host-reopen", "host-pause", "host-end", "host-garnets", "host-bot")


def _ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def _act(client: Client, match: Any, **data: Any) -> str:
    response = client.post(f"/h/{match.host_token}/act/", {"host_seq": seq(match.host_token), **data})
    assert response.status_code == 200
    return response.content.decode()


def _flash(html: str) -> str:
    found = re.search(r'<div id="host-flash" class="flash( error)?"[^>]*>(.*?)(?:<div|</div>)', html, re.S)
    assert found, html[:400]
    return ("error: " if found.group(1) else "") + found.group(2).replace("&#x27;", "'").replace("&quot;", '"')


def _version(match: Any) -> int:
    match.refresh_from_db()
    return int(match.current_bout.version)


@pytest.mark.django_db
def test_a_finished_bout_offers_only_what_applies_to_it(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    page = client.get(f"/h/{match.host_token}/").content.decode()
    assert set(IN_PLAY) <= _ids(page) and "host-undo" in _ids(page)
    assert "host-next-bout" not in _ids(page)
    assert "Bob forfeited the bout" in _flash(_act(client, match, action="forfeit", seat=2, scope="bout"))
    page = client.get(f"/h/{match.host_token}/").content.decode()
    ids = _ids(page)
    assert not set(IN_PLAY) & ids, set(IN_PLAY) & ids
    assert set(BETWEEN) <= ids and "host-undo" not in ids
    assert "Bob forfeits bout" not in page and "ends in a draw" not in page  # no confirmation left for them
    # the next bout brings them back
    assert "next bout started" in _flash(_act(client, match, action="next_bout"))
    ids = _ids(client.get(f"/h/{match.host_token}/").content.decode())
    assert set(IN_PLAY) <= ids and "host-next-bout" not in ids


@pytest.mark.django_db
def test_a_bout_won_on_the_board_still_offers_undo(client: Client, make_match: Any, play: Any) -> None:
    from tests.matches.play.test_services import lance_bout

    match = make_match("lance-assembly", bouts=3)
    lance_bout(play, match, winner=1, starter=1)
    ids = _ids(client.get(f"/h/{match.host_token}/").content.decode())
    assert "host-undo" in ids and "host-next-bout" in ids and not set(IN_PLAY) & ids
    assert "undid 1 turn(s)" in _flash(_act(client, match, action="undo", count=1, version=_version(match)))
    ids = _ids(client.get(f"/h/{match.host_token}/").content.decode())
    assert set(IN_PLAY) <= ids and "host-next-bout" not in ids


#: each action a page drawn before the ending may still post, and the refusal's words
REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"action": "forfeit", "seat": 1, "scope": "bout"},
     "bout 1 is already over: no seat can forfeit it now (to change how it ended, reopen it first)"),
    ({"action": "forfeit", "seat": 1, "scope": "match"},
     "bout 1 is already over: a seat forfeits the match during a bout; between bouts, End match names the winners"),
    ({"action": "stalemate", "version": None},
     "bout 1 is already over: it cannot be declared a stalemate now (to change how it ended, reopen it first)"),
    ({"action": "draw", "version": None},
     "bout 1 is already over: it cannot be declared a draw now (to change how it ended, reopen it first)"),
    ({"action": "award", "seat": 1},
     "bout 1 is already over: it cannot be awarded now (to change how it ended, reopen it first)"),
    ({"action": "clock", "seat": 1, "seconds": 30},
     "bout 1 is already over: its clocks have stopped, so no time can be added or removed"),
    ({"action": "orders", "seat": 1, "text": "place C3", "version": None},
     "bout 1 is already over: no orders can be entered in it; start the next bout first"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("data", "words"), REFUSED, ids=[f"{d['action']}-{d.get('scope', '')}" for d, _ in REFUSED])
def test_the_server_refuses_what_a_finished_bout_does_not_take_and_says_why(
        client: Client, make_match: Any, data: dict[str, Any], words: str) -> None:
    match = make_match("lance-assembly", bouts=3)
    _act(client, match, action="forfeit", seat=2, scope="bout")
    posted = {k: (_version(match) if v is None else v) for k, v in data.items()}
    before = (list(TurnLog.objects.filter(match=match).values_list("id", "undone")), _version(match))
    assert _flash(_act(client, match, **posted)) == "error: " + words
    match.refresh_from_db()
    assert (list(TurnLog.objects.filter(match=match).values_list("id", "undone")), _version(match)) == before
    assert match.status == Match.RUNNING and match.current_bout.winners == [1]


@pytest.mark.django_db
def test_a_finished_match_refuses_a_forfeit_with_the_same_words(make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=1)
    services.forfeit(match, 2, "bout")
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    with pytest.raises(services.NotAllowed, match=r"^bout 1 is already over: no seat can forfeit it now"):
        services.forfeit(match, 1, "bout")


# -- the host's game: the pending list, sent at once ----------------------------------------------


def _custom(make_match: Any) -> Any:
    match = make_match("custom", options={"seats": 3}, seat_names=["Ann", "Bob", "Cy"])
    services.host_play(match, ['round "Pick" number 1-10'], _version(match))
    for seat, number in ((1, 4), (2, 9), (3, 6)):
        services.submit(match, seat, f"round 1 answer {number}", _version(match))
    return match


def _send(client: Client, match: Any, texts: list[str], **extra: Any) -> str:
    data = {"action": "play", "text": texts, "version": _version(match), **extra}
    return _act(client, match, **data)


def _moves(match: Any) -> list[str]:
    return list(TurnLog.objects.filter(match=match, kind=TurnLog.MOVE, actor=0, undone=False)
                .order_by("sequence").values_list("text", flat=True))


@pytest.mark.django_db
def test_one_send_applies_the_whole_list_in_order(client: Client, make_match: Any) -> None:
    match = _custom(make_match)
    html = _send(client, match, ["reveal round 1", 'give 2 2 "closest"', 'announce "Round 2 next"', ""])
    assert _flash(html) == 'done: reveal round 1; give 2 2 "closest"; announce "Round 2 next"'
    assert _moves(match)[-3:] == ["reveal round 1", 'give 2 2 "closest"', 'announce "Round 2 next"']
    bout = Match.objects.get(pk=match.pk).current_bout
    assert bout is not None
    state = match.game.load(bout.state)
    view = match.game.view(state, 3)["public"]
    assert view["points"]["2"] == 2 and view["rounds"][0]["revealed"]
    # the host's page, redrawn by the answer, shows both
    assert "Round 2 next" in html and "closest" in html


@pytest.mark.django_db
def test_a_list_with_an_illegal_action_is_refused_whole_and_names_it(client: Client, make_match: Any) -> None:
    match = _custom(make_match)
    before = (_moves(match), _version(match))
    html = _send(client, match, ["reveal round 1", "give 7 1 \"x\"", 'announce "never"'])
    flash = _flash(html)
    assert flash.startswith('error: action 2 of 3 (give 7 1 "x") is refused, so none was done: '), flash
    assert (_moves(match), _version(match)) == before


@pytest.mark.django_db
def test_actions_after_the_end_of_the_bout_are_refused_whole(client: Client, make_match: Any) -> None:
    match = _custom(make_match)
    before = _moves(match)
    flash = _flash(_send(client, match, ["end winner 2", "reveal round 1"]))
    assert flash == "error: action 2 of 2 (reveal round 1) comes after the bout ended: none was done"
    bout = Match.objects.get(pk=match.pk).current_bout
    assert bout is not None
    assert _moves(match) == before and bout.finished is None


@pytest.mark.django_db
def test_a_doubled_send_is_applied_once(client: Client, make_match: Any) -> None:
    match = _custom(make_match)
    form = {"action": "play", "text": ["reveal round 1", 'give 1 1 "first"'], "version": _version(match),
            "host_seq": seq(match.host_token)}
    first = client.post(f"/h/{match.host_token}/act/", form).content.decode()
    again = client.post(f"/h/{match.host_token}/act/", form).content.decode()
    assert _flash(first).startswith("done: ")
    assert _flash(again).startswith("error: already done")
    assert _moves(match).count('give 1 1 "first"') == 1 and _moves(match).count("reveal round 1") == 1
    # the same form with the page's new host_seq but the old version: stale, still not applied twice
    form["host_seq"] = seq(match.host_token)
    assert _flash(client.post(f"/h/{match.host_token}/act/", form).content.decode()).startswith("error: ")
    assert _moves(match).count('give 1 1 "first"') == 1


@pytest.mark.django_db
def test_the_host_play_box_goes_with_the_bout(client: Client, make_match: Any) -> None:
    match = _custom(make_match)
    page = client.get(f"/h/{match.host_token}/").content.decode()
    assert re.search(r'<section class="card move-card host-move" id="move-card">', page)
    assert 'data-bout-in-play="1"' in page and 'id="hg-queue"' in page
    _send(client, match, ["end winner 2"])
    page = client.get(f"/h/{match.host_token}/").content.decode()
    assert re.search(r'<section class="card move-card host-move" id="move-card" hidden>', page)
    assert 'data-bout-in-play="0"' in page
    flash = _flash(_send(client, match, ['announce "late"']))
    assert flash == "error: bout 1 is already over: no more host actions can be played in it; start the next bout first"


# -- the live update switches the console -----------------------------------------------------------


@pytest.fixture
def own_cache(settings: Any) -> None:
    """Presence counters in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


def _host_page(match: Any) -> str:
    return Client().get(f"/h/{match.host_token}/").content.decode()


@pytest.mark.django_db(transaction=True)
async def test_the_host_socket_gets_the_finished_bouts_console(make_match: Any, own_cache: None) -> None:
    match = await database_sync_to_async(make_match)("lance-assembly", bouts=3)
    comm = Communicator(application, f"/ws/m/{match.host_token}/", headers=[(b"origin", b"http://testserver")])
    connected, _ = await comm.connect()
    assert connected
    while 'id="live-meta"' not in await comm.receive_from(timeout=5):
        pass  # the state on connect (a presence box may come first)
    assert 'data-bout-in-play="1"' in await database_sync_to_async(_host_page)(match)
    panel = ""
    await database_sync_to_async(services.forfeit)(match, 2, "bout")
    for _ in range(20):  # presence boxes may come first
        text = await comm.receive_from(timeout=5)
        if 'id="host-panel"' in text and 'id="host-next-bout"' in text:
            panel = text
            break
    assert panel, "no update brought the finished bout's console"
    ids = _ids(panel)
    assert not set(IN_PLAY) & ids and {"host-next-bout", "host-reopen"} <= ids
    assert 'data-bout-in-play="0"' in panel
    await comm.disconnect()
