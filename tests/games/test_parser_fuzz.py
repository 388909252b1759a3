"""One parser fuzz over every registered game: whatever a player (or the host) types, `parse`
either raises NotationError or returns an action whose canonical text parses back to it and that
`apply` takes or refuses with IllegalAction; never any other exception.

The text is arbitrary, or a salad of the game's own words (those of its canonical moves in the
positions fuzzed, and words people put around them), which reaches deeper into a parser."""

from __future__ import annotations

import contextlib
import random
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import HOST, IllegalAction, NotationError
from games.registry import get_game, slugs

#: words people write around moves in any game (natural phrasings, typos of separators)
AROUND = ["and", ",", ";", ":", "-", "->", ".", "&", "to", "on", "the", "i", "then", "by", "from", "pass", "resolve",
          "up", "down", "left", "right", "u", "d", "l", "r", "0", "1", "2", "3", "7", "two", "a1", "z9", "#2", "x",
          "tile", "tiles", "chips", "spaces", "squares", "move", "sideways"]


@cache
def positions(slug: str) -> tuple[tuple[Any, tuple[int, ...]], ...]:
    """A few positions of a seeded random playout (the first one, a few moves in, later), each with
    who may type an action there: the seats to act, and the host where the host plays too."""
    game = get_game(slug)
    rng = random.Random(7)
    state = game.new()
    found = []
    for step in range(40):
        acting = sorted(game.pending(state)) or sorted(game.to_act(state))
        host = (HOST,) if game.host_moves or game.sealed else ()
        if step in (0, 3, 12, 39) and (acting or host):
            found.append((state, (*acting, *host)))
        if game.result(state) is not None:
            break
        seat = HOST if game.host_moves and (not acting or rng.random() < 0.3) else rng.choice(acting)
        action = game.random_action(state, seat, rng)
        if action is None:
            break
        state = game.apply(state, seat, action)
    return tuple(found)


@cache
def vocabulary(slug: str) -> list[str]:
    """The words of the game's canonical moves in the fuzzed positions, and `AROUND`."""
    game = get_game(slug)
    rng = random.Random(11)
    words = set(AROUND)
    for state, seats in positions(slug):
        for seat in seats:
            for _ in range(30):
                action = game.random_action(state, seat, rng)
                if action is not None:
                    words.update(w.lower() for w in re.findall(r"[A-Za-z0-9#]+|[^\sA-Za-z0-9#]", game.format(action)))
    return sorted(words)


def parses_or_says_why(slug: str, position: int, seat: int, text: str) -> None:
    game = get_game(slug)
    state, seats = positions(slug)[position % len(positions(slug))]
    seat = seats[seat % len(seats)]
    try:
        action = game.parse(state, seat, text)
    except NotationError:
        return
    assert game.parse(state, seat, game.format(action)) == action, (text, game.format(action))
    with contextlib.suppress(IllegalAction):
        game.apply(state, seat, action)


@pytest.mark.parametrize("slug", slugs())
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60), position=st.integers(0, 3), seat=st.integers(0, 15))
def test_any_text_parses_or_raises_a_notation_error(slug: str, text: str, position: int, seat: int) -> None:
    parses_or_says_why(slug, position, seat, text)


@pytest.mark.parametrize("slug", slugs())
@settings(max_examples=400, deadline=None)
@given(data=st.data(), position=st.integers(0, 3), seat=st.integers(0, 15))
def test_any_salad_of_the_games_words_parses_or_raises_a_notation_error(slug: str, data: st.DataObject,
                                                                       position: int, seat: int) -> None:
    words = data.draw(st.lists(st.sampled_from(vocabulary(slug)), max_size=14))
    parses_or_says_why(slug, position, seat, " ".join(words))


@pytest.mark.parametrize("slug", slugs())
def test_the_fuzz_reaches_positions_past_the_start_and_the_games_own_words(slug: str) -> None:
    assert len(positions(slug)) >= 2
    assert len(vocabulary(slug)) > len(AROUND)
