"""How to play (issue 41 item 2): a page per registered game at /rules/<slug>/, its text from the
game's own page hooks and its diagrams drawn by the game's own board template from positions the
rules built; linked from the home page's game choice and from every match page."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from games.core.howto import Diagram, positions, seat_names
from games.registry import get_game, get_page, registered, slugs
from matches.play import services
from matches.web.rules_views import draw

#: the diagrams the issue asks for, by the words of their captions
REQUIRED = {
    "lance-assembly": "slides the four tiles",
    "yinsh": "moves the ring along the E line",
    "back-to-the-wall": "C4 and C5 are both dropped",
    "bidding-ttt": "Blue's 4 beats Red's",
    "grid-master": "must reposition its first symbol",
    "squava": "red loses the board",
}


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


#: ids and references to them: a rules page suffixes them (one page, several drawings of one template)
_IDS = re.compile(r'\b(?:id|for|aria-labelledby|aria-describedby|aria-controls)="[^"]*"')


def _drawings(slug: str, diagram: Diagram) -> list[str]:
    """What the game's own board template (`<app>/board.html`) draws of each position the rules make
    of `diagram`, ids left out: nothing here knows any game's markup."""
    game = get_game(slug)
    drawn = [_IDS.sub("", draw(slug, state, diagram.viewer, seat_names(game, diagram)))
             for _, state in positions(game, diagram)]
    assert all(d.strip() for d in drawn), f"{slug}'s board template drew nothing"
    return drawn


def _in_order(html: str, drawings: list[str]) -> bool:
    """Each of `drawings`, in order, in `html` (its ids left out)."""
    html, at = _IDS.sub("", html), 0
    for drawing in drawings:
        at = html.find(drawing, at)
        if at < 0:
            return False
        at += len(drawing)
    return True


@pytest.mark.parametrize("slug", slugs())
def test_every_game_has_a_rules_page_with_its_goal_notation_and_diagrams(client: Client, slug: str) -> None:
    response = client.get(f"/rules/{slug}/")
    assert response.status_code == 200
    html = response.content.decode()
    game, how = get_game(slug), get_page(slug).how_to_play()
    assert how is not None
    text = _text(html)
    assert f"How to play {game.name}" in text
    assert 'id="goal"' in html and how.goal in text
    assert 'id="turn"' in html and how.turn in text
    assert 'id="notation"' in html
    for variant in game.variants.values():  # Sliding Tic-Tac-Toe is Lance Assembly's variant
        assert variant.name in text and variant.description in text
    for example in how.notation:
        assert example.text in text and example.meaning in text
    drawings = [drawing for d in how.diagrams() for drawing in _drawings(slug, d)]
    assert html.count('class="rules-drawing"') == len(drawings)
    assert _in_order(html, drawings)  # each one the game's own board of the position the rules built
    for diagram in how.diagrams():
        assert diagram.caption in text
        for _, move in diagram.play:
            assert move in text  # the moves between "Before" and "After"
    # a drawing, not a match: no move box, no form to post a move from
    assert 'id="move-text"' not in html and "<form" not in html
    # every id once, although one template drew several boards
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


@pytest.mark.parametrize(("slug", "words"), sorted(REQUIRED.items()))
def test_the_issue_s_diagrams_are_drawn_before_and_after(client: Client, slug: str, words: str) -> None:
    html = client.get(f"/rules/{slug}/").content.decode()
    figure = next(f for f in re.findall(r'<figure class="rules-diagram".*?</figure>\s*(?=<figure class="rules|</section>)',
                                        html, re.S) if words in _text(f))
    assert ">Before<" in figure and ">After<" in figure
    how = get_page(slug).how_to_play()
    assert how is not None
    diagram = next(d for d in how.diagrams() if words in d.caption)
    before, after = _drawings(slug, diagram)
    assert before != after and figure.count('class="rules-drawing"') == 2 and _in_order(figure, [before, after])


def test_a_diagram_draws_the_position_the_rules_made(client: Client) -> None:
    """Lance Assembly's slide: before it the top row holds A1-D1 red; after it B1-F1 is a lance."""
    html = client.get("/rules/lance-assembly/").content.decode()
    before, after = re.findall(r'<div class="rules-drawing">.*?</div></div>', html, re.S)[:2]
    assert re.findall(r'class="cell p1[^"]*" data-coord="([A-F]1)"', before) == ["A1", "B1", "C1", "D1"]
    assert re.findall(r'class="cell p1[^"]*" data-coord="([A-F]1)"', after) == ["B1", "C1", "D1", "E1", "F1"]
    assert "winning line" in after and "winning line" not in before


def test_an_unknown_game_has_no_rules_page(client: Client) -> None:
    assert client.get("/rules/chess/").status_code == 404


def test_the_rules_index_lists_every_game(client: Client) -> None:
    html = client.get("/rules/").content.decode()
    for slug in slugs():
        assert f'href="/rules/{slug}/"' in html
        assert get_game(slug).name in _text(html)


def test_the_home_page_links_the_chosen_game_s_rules_and_every_option_carries_its_own(client: Client) -> None:
    html = client.get("/").content.decode()
    assert re.search(r'<a id="game-rules" href="/rules/[a-z-]+/">How to play ', html)
    for slug in slugs():
        assert f'data-rules="/rules/{slug}/"' in html
    assert 'href="/rules/"' in html


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["lance-assembly", "back-to-the-wall", "custom"])
def test_every_match_page_links_its_game_s_rules(client: Client, make_match: Any, slug: str) -> None:
    match = make_match(slug)
    services.award_bout(match, 1)  # a finished bout: every audience may open its replay
    link = f'href="/rules/{slug}/"'
    pages = [f"/p/{match.seats.get(number=1).token}/", f"/w/{match.watch_token}/", f"/h/{match.host_token}/"]
    pages += [f"{url}bouts/1/" for url in pages]  # each audience's replay of the bout
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert link in response.content.decode(), url


def test_a_game_added_at_run_time_gets_its_rules_page_from_its_own_hooks(client: Client, settings: Any) -> None:
    """The toy tic-tac-toe (tests/games/toy/), registered through the registry alone: its text and
    its board template's drawing, with nothing in matches/ knowing it."""
    from tests.games.toy.page import TicTacToePage
    from tests.games.toy.rules import TicTacToe
    from tests.matches.test_new_game import TOY

    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], TOY / "templates"]}]
    with registered(TicTacToe(), TicTacToePage(), app="toy_ttt"):
        html = client.get("/rules/tic-tac-toe/").content.decode()
        assert 'href="/rules/tic-tac-toe/"' in client.get("/rules/").content.decode()
    assert "Three of your marks in a row." in _text(html)
    assert html.count('class="toy-board"') == 2  # before and after X completes the top row
    assert client.get("/rules/tic-tac-toe/").status_code == 404  # gone with its registration
