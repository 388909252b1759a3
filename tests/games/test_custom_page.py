"""The Host's game page hooks (games/custom/page.py) on plain views: what each
audience's board is fed, and that every click the page offers composes
notation the rules accept."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from games.core import HOST, SPECTATOR
from games.custom.notation import Answer, End, Reveal
from games.custom.page import CustomPage
from games.custom.rules import CustomGame, CustomState
from tests.games import playing

game = CustomGame()
play = functools.partial(playing.play, game)
page = CustomPage()
NAMES = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"}


def shaped(state: CustomState, viewer: int) -> dict[str, Any]:
    view = game.view(state, viewer)
    my_turn = viewer >= 1 and viewer in view["to_act"]
    return page.context(view, {"viewer": viewer, "names": NAMES, "my_turn": my_turn})


def test_before_the_reveal_others_see_who_answered_and_never_what() -> None:
    state = play(game.new({"seats": 4}), (HOST, 'round "Pick" number 1000-9999 seats 1,2,3'), (1, "4817"))
    for viewer in (SPECTATOR, 2, 4):
        hg = shaped(state, viewer)["hg"]
        assert "4817" not in repr(hg)
        assert [q["answered"] for q in hg["open"]["required"]] == [True, False, False]
    assert shaped(state, 2)["status"] == "Round 1 is open: your answer, please."
    assert shaped(state, 4)["status"] == \
        "Round 1 is open. Waiting for Bob, Cy."
    assert shaped(state, 4)["hg"]["open"]["control"] is None  # not asked
    mine = shaped(state, 1)
    assert mine["hg"]["open"]["mine"] == "4817" and mine["private_rows"] == []
    host = shaped(state, HOST)["hg"]["host"]
    assert [(r["name"], r["status"], r["answer"]) for r in host["rows"]] == [
        ("Ann", "answered", "4817"), ("Bob", "waiting", ""), ("Cy", "waiting", ""), ("Di", "not asked", "")]


def test_after_the_reveal_everyone_sees_the_answers_by_name() -> None:
    state = play(game.new({"seats": 3}), (HOST, 'round "Who?" seat'), (1, "2,3"), (2, "1"), (3, "1"))
    before = shaped(state, HOST)["hg"]["rounds"][0]
    assert before["reveal_all"] == "reveal round 1"
    assert game.parse(state, HOST, before["answers"][1]["reveal"]) == Reveal(1, 2)
    state = play(state, (HOST, before["reveal_all"]))
    shown = shaped(state, SPECTATOR)["hg"]["rounds"][0]["revealed"]
    assert [(a["name"], a["answer"]) for a in shown] == [("Ann", "Bob, Cy"), ("Bob", "Ann"), ("Cy", "Ann")]


@pytest.mark.parametrize(("definition", "key"), [
    ("number 1-10", "options"), ('choice "Red", "Green", "Blue"', "options"), ("square 2x3", "grid"),
])
def test_every_answer_button_composes_an_answer_the_rules_accept(definition: str, key: str) -> None:
    state = play(game.new({"seats": 2}), (HOST, f'round "Q" {definition}'))
    control = shaped(state, 1)["hg"]["open"]["control"]
    buttons = control[key] if key == "options" else [cell for row in control[key] for cell in row]
    assert buttons
    for button in buttons:
        action = game.parse(state, 1, button["notation"])
        assert isinstance(action, Answer) and game.format(action) == button["notation"]
        game.apply(state, 1, action)


@pytest.mark.parametrize(("definition", "free"), [("number 1-1000", "number"), ("text", "text")])
def test_a_long_range_or_free_text_gets_a_field_and_a_prefix(definition: str, free: str) -> None:
    state = play(game.new({"seats": 2}), (HOST, f'round "Q" {definition}'))
    control = shaped(state, 2)["hg"]["open"]["control"]
    assert control["free"] == free and control["prefix"] == "round 1 answer "
    typed = control["prefix"] + ("512" if free == "number" else '"a word"')
    game.apply(state, 2, game.parse(state, 2, typed))


def test_the_seat_picker_and_the_console_endings_are_valid_notation() -> None:
    state = play(game.new({"seats": 4}), (HOST, 'round "Who?" seat'), (HOST, "resolve"),
                 (HOST, 'give 3 2 "x"'), (HOST, 'give 1 2 "y"'), (HOST, 'give 2 1 "z"'))
    host = shaped(state, HOST)["hg"]["host"]
    assert host["ranking"] == "end ranking 1=3, 2, 4"
    assert game.parse(state, HOST, host["ranking"]) == End("ranking", ((1, 3), (2,), (4,)))
    assert host["ranking_words"] == "Ann = Cy, then Bob, then Di"
    for row in host["rows"]:
        game.apply(state, HOST, game.parse(state, HOST, row["winner"]))
        game.apply(state, HOST, game.parse(state, HOST, row["eliminate"]))
    ended = play(state, (HOST, host["ranking"]))
    assert shaped(ended, 2)["hg"]["ending"] == "Ranking: 1. Ann = Cy; 2. Bob; 3. Di."
    open_seat = play(game.new({"seats": 3}), (HOST, 'round "Who?" seat'))
    picks = shaped(open_seat, 3)["hg"]["open"]["control"]["seats"]
    assert [(p["coord"], p["label"]) for p in picks] == [("S1", "Ann"), ("S2", "Bob"), ("S3", "Cy")]
