"""A game is one folder plus one registry line (issue 38): a toy game, plain
tic-tac-toe kept under tests/games/toy/ (rules, page hooks, templates), is
registered through the registry alone and the platform offers it, plays it and
says how it ended in the game's own words.  Nothing in matches/ knows it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from games.core import Game
from games.registry import get_game, get_page, registered, slugs
from matches.core import formats
from matches.models import Match
from matches.play import services
from tests.games.toy.page import TicTacToePage
from tests.games.toy.rules import TicTacToe

TOY = Path(__file__).resolve().parents[1] / "games" / "toy"


@pytest.fixture
def toy(settings: Any) -> Iterator[Game[Any, Any]]:
    """Tic-tac-toe registered for one test; its templates found where the toy keeps them."""
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], TOY / "templates"]}]
    with registered(TicTacToe(), TicTacToePage(), app="toy_ttt") as game:
        yield game


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_the_toy_is_only_there_while_registered(toy: TicTacToe) -> None:
    assert "tic-tac-toe" in slugs() and get_game("tic-tac-toe") is toy
    assert isinstance(get_page("tic-tac-toe"), TicTacToePage)
    assert formats.default_format("tic-tac-toe")["bouts"] == 1  # the Game's default format: one bout, no clock


def test_registering_a_taken_slug_is_refused() -> None:
    again = type("Again", (TicTacToe,), {"slug": "grid-master"})()
    with pytest.raises(ValueError, match="already registered under 'grid-master'"), registered(again, app="toy_ttt"):
        pass
    assert "tic-tac-toe" not in slugs()


def test_a_game_from_the_registry_alone_is_offered_played_and_ends_in_its_own_words(
        toy: TicTacToe, client: Client, db: None) -> None:
    home = client.get("/").content.decode()
    assert '<option value="tic-tac-toe"' in home
    assert f'data-description="{TicTacToePage.description}"' in home
    wrong = client.post("/", {"game": "tic-tac-toe", "seat1": "Xena", "seat2": "Otto", "bouts": "0"})
    assert wrong.status_code == 400
    described = re.search(r'<p class="hint muted" id="game-description">([^<]*)</p>', wrong.content.decode())
    assert described and described.group(1) == TicTacToePage.description

    created = client.post("/", {"game": "tic-tac-toe", "seat1": "Xena", "seat2": "Otto"})
    assert created.status_code == 302
    match = Match.objects.get(game_slug="tic-tac-toe")
    services.start_match(match, starting_seat=1)
    for seat, square in [(1, "A1"), (2, "A2"), (1, "B1"), (2, "B2"), (1, "C1")]:
        bout = match.bouts.order_by("-number").first()
        assert bout is not None
        services.submit(match, seat, square, bout.version)
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [1]

    host = client.get(created["Location"])
    watch = client.get(f"/w/{match.watch_token}/")
    player = client.get(f"/p/{match.seats.get(number=2).token}/")
    for page in (host, watch, player):
        assert page.status_code == 200
        text = _text(page.content.decode())
        assert "wins the match — a straight line of three marks" in text, text[:2000]
        assert 'data-board="tic-tac-toe" data-coord="C1">X<' in page.content.decode()
    assert 'placeholder="type a move, e.g. B2"' in player.content.decode()  # the page's example move


def _to_act(match: Match) -> set[int]:
    bout = match.bouts.order_by("-number").first()
    assert bout is not None
    return set(match.game.to_act(match.game.load(bout.state)))


def test_the_host_s_starting_seat_and_the_alternating_starter_reach_a_game_that_takes_one(
        toy: TicTacToe, db: None) -> None:
    match = services.create_match("tic-tac-toe", seat_names=["Xena", "Otto"], bouts=3, clock=False)
    services.start_match(match, starting_seat=2)
    assert _to_act(match) == {2}
    for seat, square in [(2, "A1"), (1, "A2"), (2, "B1"), (1, "B2"), (2, "C1")]:
        bout = match.bouts.order_by("-number").first()
        assert bout is not None
        services.submit(match, seat, square, bout.version)
    services.start_next_bout(match)
    assert _to_act(match) == {1}  # the starter alternates: Xena opens bout 2


def test_a_game_that_does_not_say_how_its_first_mover_is_given_starts_no_bout(settings: Any, db: None) -> None:
    """Not guessed from its options (it has `starting_seat`): the game must say (Game.takes_starting_seat)."""
    unsaid = type("Unsaid", (TicTacToe,), {"slug": "unsaid-toe", "takes_starting_seat": None})()
    with registered(unsaid, TicTacToePage(), app="toy_ttt"):
        match = services.create_match("unsaid-toe", seat_names=["Xena", "Otto"], clock=False)
        with pytest.raises(TypeError, match=r"unsaid-toe does not say how its first mover is given"):
            services.start_match(match, starting_seat=2)
        match.refresh_from_db()
        assert match.status == Match.SETUP and not match.bouts.exists()
