"""Two Connect against an independent model: random matches where every turn has the number of moves
and the boards the rules allow (the turn bank replayed move by move, a finished board
resetting it), a board the model closes is refused, and a player left nowhere to play passes.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pytest

from games.core import SPECTATOR, IllegalAction
from games.registry import get_game
from tests.games import playing

TC = get_game("two-connect")
play = functools.partial(playing.play, TC)


def board_view(state: Any, word: str) -> dict[str, Any]:
    return next(b for b in TC.view(state, SPECTATOR)["public"]["boards"] if b["board"] == word)


WORDS = ("squava", "yinsh", "gomoku")


def model_open(counts: Mapping[str, int], finished: set[str], yinsh_movable: bool) -> list[str]:
    """Boards open to a player by the turn bank (rules.py), from their counts."""
    unfinished = [w for w in WORDS if w not in finished]
    out: list[str] = []
    for w in unfinished:
        if w == "yinsh" and not yinsh_movable:
            continue
        if counts[w] >= 10 and any(counts[o] < 10 for o in unfinished if o != w):
            continue
        out.append(w)
    return out


def finished_boards(state: Any) -> set[str]:
    return {b["board"] for b in TC.view(state, SPECTATOR)["public"]["boards"] if b["status"] != "open"}


def yinsh_movable(state: Any, seat: int) -> bool:
    """Can `seat` make a move on the Yinsh board (checked on the standalone rules)?"""
    view = board_view(state, "yinsh")
    if len(view["rings"][str(seat)]) < 5:
        return True
    from tests.games.test_yinsh_reference import reference_ring_moves

    return bool(reference_ring_moves(view, seat))


def some_board_move(state: Any, seat: int, word: str) -> str:
    """A move that the board's own rules allow (ignoring the turn bank)."""
    view = board_view(state, word)
    if word == "yinsh":
        if len(view["rings"][str(seat)]) < 5:
            taken = {p for group in ("rings", "markers") for ps in view[group].values() for p in ps}
            from tests.games.test_yinsh_reference import POINTS as YPOINTS

            return f"ring {min(YPOINTS - taken)}"
        from tests.games.test_yinsh_reference import reference_ring_moves

        return min(reference_ring_moves(view, seat), default="E5-E6")
    for r, row in enumerate(view["cells"]):
        for c, value in enumerate(row):
            if value == 0:
                return f"{'ABCDEFGHIJKLMN'[c]}{r + 1}"
    raise AssertionError("full board is finished")


# -- random matches against an independent model of turns and the bank -------------------


@pytest.mark.parametrize("seed", range(3))
def test_random_matches_follow_the_turn_and_bank_rules(seed: int) -> None:
    import random

    rng = random.Random(seed)
    state = TC.new()
    counts = {1: dict.fromkeys(WORDS, 0), 2: dict.fromkeys(WORDS, 0)}
    turns = 0
    closures: list[str] = []
    while TC.result(state) is None and turns < 400:
        (seat,) = TC.to_act(state)
        done = finished_boards(state)
        open_now = model_open(counts[seat], done, yinsh_movable(state, seat))
        need = 1 if (turns == 0 or done or len(open_now) == 1) else 2
        action = TC.random_action(state, seat, rng)
        text = TC.format(action)
        boards = [part.split()[0] for part in text.split("; ")]
        assert len(boards) == need, (text, counts[seat], done)
        assert set(boards) <= set(open_now), (text, counts[seat], done)
        # a board the model closes is refused, even with a move that is legal on the board itself
        for w in set(WORDS) - set(open_now) - done:
            kept = [p for p in text.split("; ") if p.split()[0] != w][: need - 1]
            probe = "; ".join([*kept, f"{w} {some_board_move(state, seat, w)}"])
            with pytest.raises(IllegalAction, match=r"(?i)bank|ring|two|one move"):
                TC.apply(state, seat, TC.parse(state, seat, probe))
            closures.append(w)
        after = play(state, seat, text)
        now_done = finished_boards(after)
        # replay the bank move by move: a move finishing its board resets everything
        finished_so_far = set(done)
        for part in text.split("; "):
            w = part.split()[0]
            if w in now_done - done and w not in finished_so_far:
                finished_so_far.add(w)
                counts = {1: dict.fromkeys(WORDS, 0), 2: dict.fromkeys(WORDS, 0)}
            else:
                counts[seat][w] += 1
                if all(counts[seat][o] >= 10 for o in WORDS if o not in finished_so_far):
                    counts[seat] = dict.fromkeys(WORDS, 0)
        state = after
        turns += 1
        opponent = 3 - seat
        if TC.result(state) is None and opponent not in TC.to_act(state):
            # the opponent's turn passed: they may play nowhere
            assert not model_open(counts[opponent], finished_boards(state), yinsh_movable(state, opponent))
    assert closures, "the playout never met a closed board"
    result = TC.result(state)
    assert result is not None
    won = {s: sum(1 for b in TC.view(state, SPECTATOR)["public"]["boards"] if b["winner"] == s) for s in (1, 2)}
    if max(won.values()) < 2:
        assert finished_boards(state) == set(WORDS) or not any(
            model_open(counts[s], finished_boards(state), yinsh_movable(state, s)) for s in (1, 2)
        )
