"""What the match pages say, through Django's test client: the split clock
and the configured clock before the start, Two Connect's bank to the minute
for players and exact for the host, the end banner with its reason in words,
and the label of a replayed stalemate."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from matches.play import services

pytestmark = pytest.mark.django_db


def _clock_texts(html: str) -> list[str]:
    found = re.findall(r'<span class="clock-time[^"]*"[^>]*>(.*?)</span>\s*</div>', html, re.S)
    # what is shown (the words for screen readers are visually hidden)
    return [re.sub(r"<[^>]+>", "", re.sub(r'<span class="visually-hidden">[^<]*</span>', "", t)).strip() for t in found]


def test_configured_clock_shows_before_the_start_then_move_and_reserve_apart(client: Client) -> None:
    match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"])
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert "no clock" not in host
    assert _clock_texts(host) == ["1:00 + 5:00", "1:00 + 5:00"]
    services.start_match(match)
    ann = client.get(f"/p/{match.seat(1).token}/").content.decode()
    assert re.search(r'data-move-end="[^"]+"', ann)  # the page counts the move down, then the reserve
    assert _clock_texts(ann)[1] == "1:00 + 5:00"


def test_two_connect_bank_to_the_minute_for_players_exact_for_the_host(client: Client) -> None:
    match = services.create_match("two-connect", seat_names=["Ann", "Bob"], clock={"bank": 1000.5})
    services.start_match(match)
    player = client.get(f"/p/{match.seat(2).token}/").content.decode()
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert _clock_texts(player) == ["16 min", "16 min"]
    assert _clock_texts(host)[1] == "16:41"


def test_end_banner_names_winner_reason_score_and_what_next(client: Client) -> None:
    match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"], bouts=3)
    services.start_match(match)
    services.award_bout(match, 2)
    bob = client.get(f"/p/{match.seat(2).token}/").content.decode()
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "You win bout 1 — host awarded" in bob
    assert "Bob wins bout 1 — host awarded" in watch and "Score: Ann 0, Bob 1" in watch
    assert "Waiting for the host: bout 2 comes next." in watch
    services.start_next_bout(match)
    services.forfeit(match, 1, scope="match")
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Bob wins the match — forfeit" in watch and "The match is over." in watch


def test_replayed_stalemate_is_labelled(client: Client) -> None:
    match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"], bouts=3)
    services.start_match(match)
    bout = match.current_bout
    assert bout is not None
    services.declare_result(match, "stalemate", bout.version)
    html = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Bout 1 is a stalemate" in html and "replays it with the same starting player" in html
    services.start_next_bout(match)
    html = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Bout 2 · replay of a stalemate" in html and "best of 3" not in html


def test_cells_are_buttons_with_spoken_labels(client: Client) -> None:
    match = services.create_match("lance-assembly", seat_names=["Ann", "Bob"])
    services.start_match(match)
    assert match.current_bout is not None
    services.submit(match, 1, "place C3", match.current_bout.version)
    ann = client.get(f"/p/{match.seat(1).token}/").content.decode()
    bob = client.get(f"/p/{match.seat(2).token}/").content.decode()
    assert re.search(r'<button type="button"[^>]*data-coord="C3"[^>]*aria-label="C3, your red tile, last move"', ann)
    assert 'aria-label="C3, red tile, last move"' in bob and 'aria-label="D4, empty"' in bob


def test_favicon_is_served(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get("/").content.decode()


def test_every_two_connect_board_reason_reads_as_words() -> None:
    """Each standalone board's Result reasons (its `reasons` table) are said in words on the banner,
    not as the rules' short code ("row")."""
    from games.registry import get_game
    from games.two_connect.board import BoardGame
    from matches.core import outcome

    for slug in ("squava", "gomoku", "yinsh"):
        game = get_game(slug)
        assert isinstance(game, BoardGame)  # the standalone boards, each with its `reasons`
        for reason in game.reasons:
            words = outcome.why(slug, reason)
            assert words and words != reason, (slug, reason, words)
