"""Pages and posts through Django's test client, by role (host, players,
spectator, outsider): what each audience sees and what it may do."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from matches.models import Match
from tests.hostform import seq

pytestmark = pytest.mark.django_db


def _version(match: Any) -> int:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    result: int = bout.version
    return result


def _html(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


# -- creating a match ---------------------------------------------------------------


def test_home_lists_every_game_and_create_redirects_to_host_page(client: Client) -> None:
    html = _html(client, "/")
    assert 'value="lance-assembly"' in html and 'value="grid-master"' in html
    response = client.post(
        "/",
        {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob", "bouts": "3", "starting_seat": "2",
         "per_move": "60", "reserve": "300", "refill": "on", "round_seconds": "",
         "opt-lance-assembly-variant": "lance-assembly"},
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert response["Location"] == f"/h/{match.host_token}/"
    assert [s.name for s in match.seats.order_by("number")] == ["Ann", "Bob"]
    assert match.format["bouts"] == 3 and match.format["starting_seat"] == 2
    assert match.format["clock"]["per_move"] == 60
    host = _html(client, response["Location"])
    for seat in match.seats.all():
        assert f"/p/{seat.token}/" in host
    assert f"/w/{match.watch_token}/" in host and f"/h/{match.host_token}/" in host
    assert "Start match" in host


def test_create_four_seat_game_and_no_clock(client: Client) -> None:
    from games.registry import get_game

    four = next((s for s in ("back-to-the-wall",) if _available(s)), None)
    if four is None:
        pytest.skip("no four-seat game registered yet")
    data = {"game": four, "bouts": "1", "per_move": "", "reserve": "", "round_seconds": ""}
    data.update({f"seat{n}": f"P{n}" for n in range(1, 5)})
    response = client.post("/", data)
    assert response.status_code == 302, response.content.decode()[:400]
    match = Match.objects.get()
    assert match.seats.count() == get_game(four).seats == 4
    assert match.format["clock"] is None


def _available(slug: str) -> bool:
    from games.registry import get_game

    try:
        get_game(slug)
    except Exception:
        return False
    return True


def test_create_refuses_nonsense_with_a_message(client: Client) -> None:
    response = client.post("/", {"game": "lance-assembly", "bouts": "0"})
    assert response.status_code == 400
    assert "between 1 and 99" in response.content.decode()
    assert client.post("/", {"game": "chess"}).status_code == 400
    assert not Match.objects.exists()


# -- each audience's page -------------------------------------------------------------


def test_player_page_shows_board_clocks_and_move_entry(client: Client, roles: Any) -> None:
    html = _html(client, f"/p/{roles.player1.token}/")
    assert 'id="board"' in html and 'data-coord="A1"' in html and 'data-coord="F6"' in html
    assert 'id="clocks"' in html and "data-deadline=" in html
    assert 'id="move-form"' in html and 'id="move-text"' in html
    assert "Your turn." in html
    assert f'ws-connect="/ws/m/{roles.player1.token}/"' in html
    assert 'id="neutral-toggle"' in html  # Lance click-to-move controls
    html2 = _html(client, f"/p/{roles.player2.token}/")
    assert "Ann to move." in html2


def test_spectator_page_has_no_move_entry(client: Client, roles: Any) -> None:
    html = _html(client, f"/w/{roles.spectator}/")
    assert 'id="board"' in html and 'id="move-form"' not in html
    assert "host-panel" not in html


def test_host_page_has_moderation_and_presence(client: Client, roles: Any) -> None:
    html = _html(client, f"/h/{roles.host}/")
    assert 'id="host-panel"' in html and 'id="presence"' in html
    for action in ("undo", "pause", "clock", "stalemate", "award", "forfeit", "garnets", "end", "orders"):
        assert f'value="{action}"' in html, action


@pytest.mark.parametrize("prefix", ["/p/", "/w/", "/h/", "/f/"])
def test_unknown_token_is_404(client: Client, roles: Any, prefix: str) -> None:
    assert client.get(f"{prefix}{roles.outsider}/").status_code == 404


def test_token_never_leaks_to_another_audience(client: Client, roles: Any, play: Any) -> None:
    play(roles.match, 1, "place C3")
    p1, p2 = roles.player1.token, roles.player2.token
    pages = {
        "p1": _html(client, f"/p/{p1}/") + _html(client, f"/f/{p1}/"),
        "p2": _html(client, f"/p/{p2}/") + _html(client, f"/f/{p2}/"),
        "watch": _html(client, f"/w/{roles.spectator}/") + _html(client, f"/f/{roles.spectator}/"),
    }
    assert p2 not in pages["p1"] and roles.host not in pages["p1"]
    assert p1 not in pages["p2"] and roles.host not in pages["p2"]
    assert p1 not in pages["watch"] and p2 not in pages["watch"] and roles.host not in pages["watch"]
    # the watch link is public: a player page does not need it either
    assert roles.spectator not in pages["p1"]


# -- moves ---------------------------------------------------------------------------------


def test_post_move_with_version_updates_the_board(client: Client, roles: Any) -> None:
    match = roles.match
    response = client.post(f"/p/{roles.player1.token}/move/", {"text": "place C3", "version": _version(match)})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="move-error"' in html and re.search(r'id="move-error"[^>]*hidden', html)
    assert re.search(r'data-coord="C3" data-value="R"', html)
    assert "cell p1 last" in html  # the last move is highlighted
    assert match.turns.filter(kind="move").count() == 1


def test_stale_version_is_refused_with_a_message(client: Client, roles: Any, play: Any) -> None:
    stale = _version(roles.match)
    play(roles.match, 1, "place C3")
    html = client.post(f"/p/{roles.player2.token}/move/", {"text": "place D4", "version": stale}).content.decode()
    assert "the board changed" in html.lower() or "version" in html.lower()
    assert roles.match.turns.filter(kind="move").count() == 1


def test_a_move_sent_again_after_it_went_through_is_applied_once_and_answered_as_done(
        client: Client, roles: Any, play: Any) -> None:
    """The page retries a move whose answer was lost (its web process restarted: static/js/retry.js)
    with the version it first sent: applied once, and no "the board changed" for a move that was
    made.  A different move with that version is still refused, as is another seat's."""
    url = f"/p/{roles.player1.token}/move/"
    sent = _version(roles.match)
    first = client.post(url, {"text": "place C3", "version": sent}).content.decode()
    assert re.search(r'id="move-error"[^>]*hidden', first)
    again = client.post(url, {"text": "Place C3 ", "version": sent}).content.decode()
    assert re.search(r'id="move-error"[^>]*hidden', again), again[:500]
    assert 'data-coord="C3" data-value="R"' in again
    assert roles.match.turns.filter(kind="move").count() == 1
    other = client.post(url, {"text": "place D4", "version": sent}).content.decode()
    assert "the board changed" in other.lower()
    seat2 = client.post(f"/p/{roles.player2.token}/move/", {"text": "place C3", "version": sent}).content.decode()
    assert "the board changed" in seat2.lower()
    assert roles.match.turns.filter(kind="move").count() == 1


def test_illegal_move_error_is_shown_in_plain_words(client: Client, roles: Any, play: Any) -> None:
    play(roles.match, 1, "place C3")
    html = client.post(
        f"/p/{roles.player2.token}/move/", {"text": "place C3", "version": _version(roles.match)}
    ).content.decode()
    error = re.search(r'<div id="move-error"[^>]*>(.*?)</div>', html, re.S)
    assert error and "C3" in error.group(1) and "hidden" not in error.group(0)
    html = client.post(
        f"/p/{roles.player2.token}/move/", {"text": "fly to the moon", "version": _version(roles.match)}
    ).content.decode()
    assert re.search(r'<div id="move-error"[^>]*role="alert"[^>]*>\s*\S', html)


def test_out_of_turn_move_is_refused(client: Client, roles: Any) -> None:
    html = client.post(
        f"/p/{roles.player2.token}/move/", {"text": "place C3", "version": _version(roles.match)}
    ).content.decode()
    assert "not your turn" in html
    assert not roles.match.turns.filter(kind="move").exists()


def test_spectator_cannot_act(client: Client, roles: Any) -> None:
    version = _version(roles.match)
    assert client.post(f"/p/{roles.spectator}/move/", {"text": "place C3", "version": version}).status_code == 404
    assert client.post(f"/h/{roles.spectator}/act/", {"action": "undo", "version": version}).status_code == 404
    assert client.post(f"/w/{roles.spectator}/", {"text": "place C3"}).status_code == 405


def test_host_actions_require_the_host_token(client: Client, roles: Any, play: Any) -> None:
    play(roles.match, 1, "place C3")
    version = _version(roles.match)
    for token in (roles.player1.token, roles.player2.token, roles.outsider):
        response = client.post(f"/h/{token}/act/", {"action": "undo", "count": 1, "version": version})
        assert response.status_code == 404
    assert roles.match.turns.filter(kind="move", undone=False).count() == 1
    response = client.post(f"/h/{roles.host}/act/", {"host_seq": seq(roles.host), "action": "undo", "count": 1, "version": version})
    assert response.status_code == 200 and "undid 1" in response.content.decode()
    assert roles.match.turns.filter(kind="move", undone=False).count() == 0


def test_csrf_is_enforced_on_every_post(roles: Any) -> None:
    strict = Client(enforce_csrf_checks=True)
    version = _version(roles.match)
    assert strict.post(f"/p/{roles.player1.token}/move/", {"text": "place C3", "version": version}).status_code == 403
    assert strict.post(f"/h/{roles.host}/act/", {"action": "pause"}).status_code == 403
    assert strict.post("/", {"game": "lance-assembly"}).status_code == 403
    # with the token from the page (sent by htmx as a header) it goes through
    page = strict.get(f"/p/{roles.player1.token}/").content.decode()
    hit = re.search(r'"X-CSRFToken": "([^"]+)"', page)
    assert hit is not None
    token = hit.group(1)
    response = strict.post(f"/p/{roles.player1.token}/move/", {"text": "place C3", "version": version},
                           HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200 and roles.match.turns.filter(kind="move").count() == 1


# -- host moderation through the dashboard --------------------------------------------------


def _act(client: Client, roles: Any, **data: Any) -> str:
    response = client.post(f"/h/{roles.host}/act/", {**data, "host_seq": seq(roles.host)})
    assert response.status_code == 200
    return response.content.decode()


def test_host_start_with_starting_seat_choice(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", start=False)
    html = _act(client, type("R", (), {"host": match.host_token})(), action="start", starting_seat=2)
    assert "match started" in html
    match.refresh_from_db()
    assert match.status == "running" and match.current_bout.starting_seat == 2


def test_host_moderation_actions(client: Client, roles: Any, play: Any) -> None:
    match = roles.match
    play(match, 1, "place C3")
    assert "clocks paused" in _act(client, roles, action="pause")
    match.refresh_from_db()
    assert match.paused
    assert "clocks running" in _act(client, roles, action="resume")
    assert "+30" in _act(client, roles, action="clock", seat=2, seconds=30)
    html = _act(client, roles, action="correct", sequence=match.turns.get(kind="move").sequence,
                text="place D4", version=_version(match))
    assert "corrected" in html
    assert match.turns.get(kind="move", corrected=False, undone=False).text == "place D4"
    html = _act(client, roles, action="orders", seat=2, text="place A1", version=_version(match))
    assert "entered for seat 2" in html, html[:300]
    assert "stalemate declared" in _act(client, roles, action="stalemate", version=_version(match))
    assert "next bout started" in _act(client, roles, action="next_bout")
    assert "bout awarded" in _act(client, roles, action="award", seat=1)
    assert "next bout started" in _act(client, roles, action="next_bout")
    html = _act(client, roles, action="garnets", seat=1, amount=2, reason="style")
    assert "garnets" in html
    assert "match ended" in _act(client, roles, action="end", winners=["1"])
    match.refresh_from_db()
    assert match.status == "finished"


def test_host_action_errors_are_shown(client: Client, roles: Any) -> None:
    html = _act(client, roles, action="undo", count=1, version=999)
    assert 'class="flash error"' in html
    assert "unknown host action" in _act(client, roles, action="explode")
    assert "whole number" in _act(client, roles, action="clock", seat="x", seconds=5)


def test_host_page_shows_hidden_information_of_sealed_games(client: Client, make_match: Any) -> None:
    if not _available("bidding-ttt"):
        pytest.skip("bidding-ttt not registered yet")
    match = make_match("bidding-ttt")
    from matches.play import services

    services.submit(match, 1, "A1 3", match.current_bout.version)
    host = _html(client, f"/h/{match.host_token}/")
    # the Bidding page shows the host both sides' bids and chips in its own table (not the generic dump)
    assert "Bids and chips" in host and "A1" in host
    seats = {s.number: s.token for s in match.seats.all()}
    mine = _html(client, f"/p/{seats[1]}/")
    assert "Only you see this" in mine and "A1" in mine
    other = _html(client, f"/p/{seats[2]}/")
    watch = _html(client, f"/w/{match.watch_token}/")
    for html in (other, watch):
        assert "A1 3" not in html and '<span class="text">bid</span>' in html


def test_fragments_url_serves_the_audience_fragments(client: Client, roles: Any) -> None:
    html = _html(client, reverse("fragments", args=[roles.player1.token]))
    assert 'id="live-meta" hx-swap-oob="true"' in html
    for fragment in ("status", "score", "board", "clocks", "log"):  # merged into the page's (static/js/live.js)
        assert f'id="{fragment}" hx-swap-oob="morph"' in html
    assert "host-panel" not in html
    assert 'id="host-panel" hx-swap-oob="morph"' in _html(client, reverse("fragments", args=[roles.host]))


def test_staff_login_opens_any_host_dashboard(client: Client, roles: Any, django_user_model: Any) -> None:
    url = reverse("staff_host", args=[roles.match.id])
    assert client.get(url)["Location"].startswith("/admin/login/")
    user = django_user_model.objects.create_user("mod", password="pw-123-long", is_staff=False)
    client.force_login(user)
    assert client.get(url)["Location"].startswith("/admin/login/")
    user.is_staff = True
    user.save()
    # being staff is not enough: the dashboard shows sealed bids (issue 6)
    assert client.get(url).status_code == 403
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="moderate_match"))
    user = django_user_model.objects.get(pk=user.pk)  # fresh permission cache
    client.force_login(user)
    assert client.get(url)["Location"] == f"/h/{roles.host}/"


def test_host_resolves_a_sealed_round_and_enters_orders(client: Client, make_match: Any) -> None:
    if not _available("bidding-ttt"):
        pytest.skip("bidding-ttt not registered yet")
    from matches.play import services

    match = make_match("bidding-ttt")
    roles = type("R", (), {"host": match.host_token})()
    host = _html(client, f"/h/{match.host_token}/")
    assert 'value="resolve"' in host
    html = _act(client, roles, action="orders", seat=2, text="E5 4", version=_version(match))
    assert "entered for seat 2" in html, html[:300]
    # seat 1 never submits: the host closes the round
    assert "round resolved" in _act(client, roles, action="resolve", version=_version(match))
    match.refresh_from_db()
    state = services.bout_state(match.current_bout)
    assert match.game.view(state, 0)["public"]["round"] == 2
    watch = _html(client, f"/w/{match.watch_token}/")
    assert "E5 4" not in watch and '<span class="text">bid</span>' in watch
    # undo and correct notes quote the orders: only the host reads them
    services.submit(match, 1, "B2 5", _version(match))
    assert "undid 1" in _act(client, roles, action="undo", count=1, version=_version(match))
    host = _html(client, f"/h/{match.host_token}/")
    assert "B2 5" in host
    for url in (f"/w/{match.watch_token}/", f"/p/{match.seats.get(number=2).token}/"):
        html = _html(client, url)
        assert "B2 5" not in html and "undo 1" in html


def test_pages_before_the_start_say_so(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", start=False)
    for url in (f"/p/{match.seats.get(number=1).token}/", f"/w/{match.watch_token}/", f"/h/{match.host_token}/"):
        html = _html(client, url)
        assert "Waiting for the host to start the match." in html
        assert "The board appears when the host starts the match." in html


@pytest.mark.parametrize("scope", ["bout", "match"])
def test_host_forfeits_a_seat_for_the_bout_or_the_match(client: Client, roles: Any, scope: str) -> None:
    assert f"forfeited the {scope}" in _act(client, roles, action="forfeit", seat=2, scope=scope)
    match = roles.match
    match.refresh_from_db()
    assert match.current_bout.winners == [1]
    assert (match.status == "finished") == (scope == "match")
    assert "the bout or the match" in _act(client, roles, action="forfeit", seat=1, scope="everything")
