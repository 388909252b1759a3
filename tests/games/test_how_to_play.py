"""How to play text (issue 41 item 2) is the game's own and its diagrams are played by its rules:
every diagram of every registered game builds through `parse` and `apply`, every notation example
of a game's page parses where its position allows, and a diagram the rules refuse fails loudly."""

from __future__ import annotations

import pytest

from games.core import HOST, IllegalAction, NotationError
from games.core.howto import Diagram, HowToPlay, play, positions, seat_names
from games.registry import get_game, get_page, slugs
from tests.games.toy.page import TicTacToePage
from tests.games.toy.rules import TicTacToe


def _how(slug: str) -> HowToPlay:
    how = get_page(slug).how_to_play()
    assert how is not None
    return how


@pytest.mark.parametrize("slug", slugs())
def test_every_diagram_is_a_position_the_rules_reach(slug: str) -> None:
    game, how = get_game(slug), _how(slug)
    for diagram in how.diagrams():
        drawn = positions(game, diagram)
        assert [label for label, _ in drawn] == (["Before", "After"] if diagram.play else [""])
        if diagram.play:
            assert game.dump(drawn[0][1]) != game.dump(drawn[1][1]), diagram.caption


@pytest.mark.parametrize("slug", slugs())
def test_the_text_says_the_goal_a_turn_and_the_notation(slug: str) -> None:
    how = _how(slug)
    assert how.goal.strip() and how.turn.strip() and how.notation
    assert all(e.text.strip() and e.meaning.strip() for e in how.notation)
    assert all(s.title.strip() for s in how.sections)


def test_the_issue_s_diagrams_end_where_their_captions_say() -> None:
    lance = get_game("lance-assembly")
    slide = _how("lance-assembly").diagrams()[0]
    after = positions(lance, slide)[1][1]
    made = lance.result(after)
    assert made is not None and made.winners == {1}  # the slide makes the lance
    squava = get_game("squava")
    loss = positions(squava, _how("squava").diagrams()[0])[1][1]
    lost = squava.result(loss)
    assert lost is not None
    assert lost.reason == "three" and lost.winners == {2}
    bidding = get_game("bidding-ttt")
    resolved = bidding.view(positions(bidding, _how("bidding-ttt").diagrams()[0])[1][1], -1)["public"]
    assert resolved["tiles"]["A"][0] == [0, 2, 0]  # A1 tied: nobody's; A2 Blue's
    assert resolved["tiles"]["B"][1] == [0, 1, 0] and resolved["tiles"]["E"][1] == [0, 2, 0]  # B5 Red's, E5 Blue's
    wall = get_game("back-to-the-wall")
    trace = wall.view(positions(wall, _how("back-to-the-wall").diagrams()[0])[1][1], -1)["public"]["last_round"]
    outcomes = {b["name"]: [(w["square"], w["outcome"]) for w in b["walls"]] for b in trace["boards"]}
    assert outcomes["once"] == [("C4", "adjacent"), ("C5", "adjacent")]
    assert outcomes["twice"] == [("B5", "placed"), ("F3", "placed")]


def test_a_diagram_the_rules_refuse_raises_their_error() -> None:
    toy = TicTacToe()
    with pytest.raises(IllegalAction, match="A1 is not empty"):
        positions(toy, Diagram("two marks on one square", setup=((1, "A1"), (2, "A1"))))
    with pytest.raises(NotationError):
        play(toy, toy.new(), ((1, "Z9"),))


def test_seat_names_default_to_player_n_and_follow_the_options() -> None:
    assert seat_names(TicTacToe(), Diagram("x", names=("X",))) == {1: "X", 2: "Player 2"}
    custom = get_game("custom")
    assert list(seat_names(custom, Diagram("x", options={"seats": 5}))) == [1, 2, 3, 4, 5]


def test_the_host_s_moves_are_played_as_the_host() -> None:
    diagram = _how("custom").diagrams()[0]
    assert any(seat == HOST for seat, _ in diagram.setup + diagram.play)
    assert TicTacToePage().how_to_play().diagrams()  # the toy, added by tests/games/toy/, has its own
