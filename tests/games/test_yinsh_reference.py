"""YINSH against an independent reference: the 85 points from the formula in yinsh.py's docstring, and
random games whose every listed move, marker flip and row agree with a move generator written from
those rules alone; the starting-seat option; the Yinsh board's notation inside Two Connect.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

from games.core import SPECTATOR, Game, IllegalAction, RuleError
from games.registry import get_game
from tests.games import playing

YINSH = get_game("yinsh")
play = functools.partial(playing.play, YINSH)
TC = get_game("two-connect")
LETTERS = "ABCDEFGHIJK"


def formula_points() -> set[str]:
    """The 85 points from the formula (yinsh.py's docstring; independent of the table)."""
    out = set()
    for x_index, letter in enumerate(LETTERS):
        for number in range(1, 12):
            x, y = x_index - 5, number - 6
            if max(abs(x), abs(y), abs(x - y)) <= 5:
                out.add(f"{letter}{number}")
    return out - {"A1", "A6", "F1", "F11", "K6", "K11"}


POINTS = formula_points()


def refused(state: Any, seat: int, text: str, *fragments: str, game: Game[Any, Any] = YINSH) -> str:
    """The move is refused with IllegalAction naming the problem; nothing changes."""
    before = json.dumps(game.dump(state), sort_keys=True)
    with pytest.raises(IllegalAction) as info:
        game.apply(state, seat, game.parse(state, seat, text))
    message = str(info.value)
    assert any(re.search(f, message, re.IGNORECASE) for f in fragments), message
    assert json.dumps(game.dump(state), sort_keys=True) == before
    return message


def moves_of(state: Any, seat: int, game: Game[Any, Any] = YINSH) -> list[str]:
    return sorted(game.format(a) for a in game.legal_actions(state, seat))


def public(state: Any, game: Game[Any, Any] = YINSH) -> dict[str, Any]:
    shown: dict[str, Any] = game.view(state, SPECTATOR)["public"]
    return shown


LINE_STEPS = ((0, 1), (1, 0), (1, 1), (0, -1), (-1, 0), (-1, -1))


def _split(name: str) -> tuple[int, int]:
    return LETTERS.index(name[0]), int(name[1:])


def _name(col: int, number: int) -> str:
    return f"{LETTERS[col]}{number}"


def reference_ring_moves(view: Mapping[str, Any], seat: int) -> set[str]:
    """Every ring move of `seat` from a public view, by yinsh.py's rules."""
    rings = {p: int(s) for s, ps in view["rings"].items() for p in ps}
    markers = {p: int(s) for s, ps in view["markers"].items() for p in ps}
    out: set[str] = set()
    for src in view["rings"][str(seat)]:
        c, n = _split(src)
        for dc, dn in LINE_STEPS:
            jumped = False
            cc, nn = c + dc, n + dn
            while 0 <= cc < 11 and _name(cc, nn) in POINTS:
                here = _name(cc, nn)
                if here in rings:
                    break
                if here in markers:
                    jumped = True
                else:
                    out.add(f"{src}-{here}")
                    if jumped:
                        break
                cc, nn = cc + dc, nn + dn
    return out


def reference_after(view: Mapping[str, Any], seat: int, move: str) -> tuple[dict[str, int], set[int]]:
    """(markers by point after `move`, set of seats with a row of 5) by yinsh.py's rules."""
    src, dst = move.split("-")
    markers = {p: int(s) for s, ps in view["markers"].items() for p in ps}
    (c, n), (c2, n2) = _split(src), _split(dst)
    steps = max(abs(c2 - c), abs(n2 - n))
    dc, dn = (c2 - c) // steps, (n2 - n) // steps
    for i in range(1, steps):
        p = _name(c + i * dc, n + i * dn)
        if p in markers:
            markers[p] = 3 - markers[p]
    markers[src] = seat
    rows: set[int] = set()
    for p, owner in markers.items():
        pc, pn = _split(p)
        for dc, dn in LINE_STEPS[:3]:
            if 0 <= pc + 4 * dc < 11 and all(
                markers.get(_name(pc + i * dc, pn + i * dn)) == owner for i in range(5)
            ):
                rows.add(owner)
    return markers, rows


# -- geometry: the 85 placement points -------------------------------------------


def test_formula_and_table_agree_on_85_points() -> None:
    table = {"A": (2, 5), "B": (1, 7), "C": (1, 8), "D": (1, 9), "E": (1, 10), "F": (2, 10),
             "G": (2, 11), "H": (3, 11), "I": (4, 11), "J": (5, 11), "K": (7, 10)}
    from_table = {f"{c}{n}" for c, (lo, hi) in table.items() for n in range(lo, hi + 1)}
    assert from_table == POINTS
    assert len(POINTS) == 85


# -- an independent reference move generator, from the rules alone --------------------


@pytest.mark.parametrize("seed", range(6))
def test_random_games_agree_with_the_reference_generator(seed: int) -> None:
    import random

    rng = random.Random(seed)
    state = YINSH.new()
    for _ in range(200):
        if YINSH.result(state) is not None:
            break
        (seat,) = YINSH.to_act(state)
        view = public(state)
        moves = set(moves_of(state, seat))
        if len(view["rings"][str(seat)]) < 5:
            empty = POINTS - {p for ps in view["rings"].values() for p in ps} \
                - {p for ps in view["markers"].values() for p in ps}
            assert moves == {f"ring {p}" for p in empty}
            state = play(state, seat, rng.choice(sorted(moves)))
            continue
        assert moves == reference_ring_moves(view, seat)
        move = rng.choice(sorted(moves))
        markers, rows = reference_after(view, seat, move)
        state = play(state, seat, move)
        after = public(state)
        got = {p: int(s) for s, ps in after["markers"].items() for p in ps}
        assert got == markers
        result = YINSH.result(state)
        if rows:
            expected = {seat} if seat in rows else rows
            assert result is not None and result.winners == frozenset(expected)
        else:
            assert result is None or result.winners == frozenset()


# -- interface -------------------------------------------------------------------------


def test_seat_1_first_and_the_starting_seat_option_also_from_json() -> None:
    assert YINSH.to_act(YINSH.new()) == frozenset({1})
    assert YINSH.to_act(YINSH.new({"starting_seat": 1})) == frozenset({1})
    opts = json.loads('{"starting_seat": 2}')
    state = YINSH.new(opts)
    assert YINSH.to_act(state) == frozenset({2})
    refused(state, 1, "ring E5", r"not your turn")
    with pytest.raises(RuleError):
        YINSH.new({"no_such_option": 1})


# -- the Yinsh board inside Two Connect ---------------------------------------------------


def test_two_connect_yinsh_notation_and_placement_count() -> None:
    state = TC.new()
    actions = [TC.format(a) for a in TC.legal_actions(state, 1)]
    yinsh_moves = [a for a in actions if a.startswith("yinsh")]
    assert len(yinsh_moves) == 85
    assert all(re.fullmatch(r"yinsh ring [A-K]\d{1,2}", a) for a in yinsh_moves)
    action = TC.parse(state, 1, "yinsh ring E5")
    assert TC.format(action) == "yinsh ring E5"
    state = TC.apply(state, 1, action)
    board = next(b for b in public(state, TC)["boards"] if b["board"] == "yinsh")
    assert board["rings"]["1"] == ["E5"]
