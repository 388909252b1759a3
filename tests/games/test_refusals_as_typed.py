"""Refusals quote the player's words as they typed them (issue 56).

Every game reads its notation case-insensitively (kept: "PLACE c3" is "place C3"), but a
refusal quotes the text as the player typed it: "got 'Z99'" to someone who typed "Z99", never
the parser's lower-cased 'z99'.  `Game` does it once for every game's `parse`, so these tests
go over the registry.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from games.core import HOST, Game, NotationError
from games.core.notation import quote_as_typed
from games.registry import get_game, slugs

#: bad moves in mixed case: a word no game knows, and a square off every board
BAD = ("Frob Zq9", "Place Z99", "XyZ")
QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"")


def _mover(game: Game[Any, Any], state: Any) -> int:
    """Who may type now: the host in the host's game (its seats answer only open rounds)."""
    if game.host_moves:
        return HOST
    return min(game.to_act(state))


def _quotes(message: str) -> list[str]:
    return [a or b for a, b in QUOTED.findall(message)]


@pytest.mark.parametrize("slug", slugs())
@pytest.mark.parametrize("typed", BAD)
def test_refusal_quotes_the_move_as_typed(slug: str, typed: str) -> None:
    game = get_game(slug)
    state = game.new()
    with pytest.raises(NotationError) as refused:
        game.parse(state, _mover(game, state), typed)
    message = str(refused.value)
    quotes = _quotes(message)
    # the refusal names what it could not read, in the player's own letters...
    assert any(q in typed for q in quotes), message
    # ...and never in other letters (what it quotes of the move, it quotes verbatim)
    for q in quotes:
        assert not (q.lower() in typed.lower() and q not in typed), message


def _swapcase_outside_quotes(text: str) -> str:
    """Every letter's case swapped, except in quoted text (a Host's game prompt keeps its case)."""
    return '"'.join(part if n % 2 else part.swapcase() for n, part in enumerate(text.split('"')))


@pytest.mark.parametrize("slug", slugs())
def test_moves_still_parse_whatever_their_case(slug: str) -> None:
    game = get_game(slug)
    rng = random.Random(56)
    state = game.new()
    checked = 0
    for _ in range(12):
        if game.result(state) is not None:
            break
        seat = _mover(game, state)
        action = game.random_action(state, seat, rng)
        if action is None:
            break
        text = game.format(action)
        assert game.parse(state, seat, _swapcase_outside_quotes(text)) == action, text
        state = game.apply(state, seat, action)
        checked += 1
    assert checked


def test_quotes_keep_examples_and_follow_spaces_and_dashes() -> None:
    typed = "slide b2\u2013B3   Up"
    message = "expected a turn like 'place B2', got 'b2-b3 up'"
    assert quote_as_typed(message, typed) == "expected a turn like 'place B2', got 'b2\u2013B3 Up'"
    # a quote that is only part of a typed word is not the player's word
    assert quote_as_typed("got 'z9'", "Z99") == "got 'z9'"


def test_yinsh_is_spelt_yinsh_in_its_refusals() -> None:
    for slug in ("yinsh", "two-connect"):
        game = get_game(slug)
        state = game.new()
        for typed in ("yinsh Z99", "yinsh ring", "Z99"):
            try:
                game.parse(state, 1, typed)
            except NotationError as refused:
                assert "YINSH" not in str(refused)
    assert get_game("yinsh").name == "Yinsh"
