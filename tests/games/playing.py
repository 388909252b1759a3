"""How the games' tests play moves: one `play` for every game, the checked path (the round trip of
a move's canonical text, and `apply` leaving its input as it was, on every move played)."""

from __future__ import annotations

import json
from typing import Any, TypeAlias, TypeVar

from games.core import Game
from games.registry import get_game

S = TypeVar("S")
G = TypeVar("G", bound=Game[Any, Any])

# One move as `play` takes it: a seat then its text (two arguments), a `(seat, text)` pair, or a
# text alone.
Move: TypeAlias = int | str | tuple[int, str]


def play(game: Game[S, Any], state: S, *moves: Move) -> S:
    """`state` after `moves`, in order.  A move is a seat and its text (`play(g, s, 1, "C3")`), a
    `(seat, text)` pair, or a text alone, played by the one seat to act (`mover`)."""
    queue = list(moves)
    while queue:
        move = queue.pop(0)
        if isinstance(move, tuple):
            seat, text = move
        elif isinstance(move, int):
            seat, following = move, queue.pop(0)
            assert isinstance(following, str), (seat, following)
            text = following
        else:
            seat, text = mover(game, state), move
        action = game.parse(state, seat, text)
        assert game.parse(state, seat, game.format(action)) == action, (text, game.format(action))
        before = dumped(game, state)
        after = game.apply(state, seat, action)
        assert dumped(game, state) == before, "apply mutated its input"
        state = after
    return state


def mover(game: Game[S, Any], state: S) -> int:
    """The one seat to act (a turn-based position)."""
    seats = game.to_act(state)
    assert len(seats) == 1, seats
    return next(iter(seats))


def dumped(game: Game[S, Any], state: S) -> str:
    return json.dumps(game.dump(state), sort_keys=True)


def registered(slug: str, kind: type[G]) -> G:
    """The game registered under `slug`, as the class a test uses it as (`get_game` says only
    `Game`; a test reaching into a game's own attributes needs its class)."""
    game = get_game(slug)
    assert isinstance(game, kind), (slug, game)
    return game
