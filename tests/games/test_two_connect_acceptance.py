"""Acceptance tests for Two Connect and its boards played alone (Squava, Gomoku).

Written from shared/DESIGN.md, RULINGS.md section 3 and the card
seeds/two-connect.txt only, driving the games through the public interface:
get_game(slug).new/parse/apply/format/legal_actions/to_act/result/view/dump/load.
Every position is reached by real turns from a fresh game, in the notation
of DESIGN.md ("squava C3; gomoku H7", "yinsh ring E5", "yinsh E5-E8").

Squava patterns.  The 5x5 colouring below has no 3 in a row of either colour
along any row, column or diagonal (checked by hand, and by the test
`test_the_squava_draw_pattern_has_no_three`):

    row 1: X X O O X
    row 2: O O X X O
    row 3: X X O O X
    row 4: O O X X O
    row 5: X X O O X

so any stones placed on X squares by one player and on O squares (list OS) by the other
never end the Squava board, and all 25 give a full, drawn board.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from games.core import HOST, SPECTATOR, Game, IllegalAction, NotationError, RuleError
from games.registry import get_game
from tests.games import playing

TC = get_game("two-connect")
play = functools.partial(playing.play, TC)
SQUAVA = get_game("squava")
GOMOKU = get_game("gomoku")

X = ["A1", "B1", "E1", "C2", "D2", "A3", "B3", "E3", "C4", "D4", "A5", "B5", "E5"]  # 13
OS = ["C1", "D1", "A2", "B2", "E2", "C3", "D3", "A4", "B4", "E4", "C5", "D5"]  # 12
PATTERN = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOOX"]


# -- helpers -------------------------------------------------------------------


def dumped(game: Game[Any, Any], state: Any) -> str:
    return json.dumps(game.dump(state), sort_keys=True)


def refused(state: Any, seat: int, text: str, *fragments: str, game: Game[Any, Any] = TC) -> str:
    """IllegalAction naming the problem (one of `fragments`); the state is unchanged."""
    before = dumped(game, state)
    with pytest.raises(IllegalAction) as info:
        game.apply(state, seat, game.parse(state, seat, text))
    message = str(info.value)
    assert any(re.search(f, message, re.IGNORECASE) for f in fragments), message
    assert dumped(game, state) == before
    return message


def run(state: Any, turns: Sequence[tuple[int, str]], game: Game[Any, Any] = TC) -> Any:
    """Play (seat, text) pairs, checking the seat is the one to act."""
    for seat, text in turns:
        assert game.to_act(state) == frozenset({seat}), (seat, text)
        assert game.result(state) is None
        state = playing.play(game, state, seat, text)
    return state


def board_view(state: Any, word: str) -> dict[str, Any]:
    return next(b for b in TC.view(state, SPECTATOR)["public"]["boards"] if b["board"] == word)


def alternate(first_moves: Sequence[str], second_moves: Sequence[str]) -> list[tuple[int, str]]:
    """Interleave two seats' moves, seat 1 first."""
    out: list[tuple[int, str]] = []
    for i, move in enumerate(first_moves):
        out.append((1, move))
        if i < len(second_moves):
            out.append((2, second_moves[i]))
    return out


# -- squava alone ---------------------------------------------------------------


def test_the_squava_draw_pattern_has_no_three() -> None:
    cells = {f"{'ABCDE'[c]}{r + 1}": PATTERN[r][c] for r in range(5) for c in range(5)}
    assert sorted(n for n, v in cells.items() if v == "X") == sorted(X)
    assert sorted(n for n, v in cells.items() if v == "O") == sorted(OS)
    for r in range(5):
        for c in range(5):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                line = [(r + i * dr, c + i * dc) for i in range(3)]
                if all(0 <= a < 5 and 0 <= b < 5 for a, b in line):
                    assert len({PATTERN[a][b] for a, b in line}) == 2


def test_squava_seat_1_first_alternating_and_option() -> None:
    state = SQUAVA.new()
    assert SQUAVA.to_act(state) == frozenset({1})
    refused(state, 2, "C3", r"not your turn", game=SQUAVA)
    state = playing.play(SQUAVA, state, 1, "C3")
    assert SQUAVA.to_act(state) == frozenset({2})
    state = SQUAVA.new(json.loads('{"starting_seat": 2}'))
    assert SQUAVA.to_act(state) == frozenset({2})


@pytest.mark.parametrize("text", ["squava C3", "C3", "c3", "  Squava   c3 ", "squava c3.", "I place a stone on C3"])
def test_squava_notation_with_or_without_the_board_word(text: str) -> None:
    state = SQUAVA.new()
    action = SQUAVA.parse(state, 1, text)
    assert SQUAVA.format(action) == "C3"
    assert action == SQUAVA.parse(state, 1, "squava C3")


@pytest.mark.parametrize("text", ["", "F1", "A6", "Z9", "gomoku C3", "yinsh ring E5", "C3 D4", "squava"])
def test_squava_bad_notation(text: str) -> None:
    with pytest.raises(NotationError) as info:
        SQUAVA.parse(SQUAVA.new(), 1, text)
    assert str(info.value)


def test_squava_bad_square_message_names_it() -> None:
    with pytest.raises(NotationError) as info:
        SQUAVA.parse(SQUAVA.new(), 1, "F1")
    assert "f1" in str(info.value).lower()


def test_squava_occupied_square_is_refused() -> None:
    state = playing.play(SQUAVA, SQUAVA.new(), 1, "C3")
    refused(state, 2, "C3", r"C3.*(not empty|occupied)", game=SQUAVA)


def test_squava_three_in_a_row_loses() -> None:
    state = run(SQUAVA.new(), [(1, "A1"), (2, "E5"), (1, "B1"), (2, "E3")], SQUAVA)
    state = playing.play(SQUAVA, state, 1, "C1")
    result = SQUAVA.result(state)
    assert result is not None
    assert result.winners == frozenset({2}) and result.reason == "three"
    assert SQUAVA.to_act(state) == frozenset()
    refused(state, 2, "D4", r"over|finished|ended", game=SQUAVA)


def test_squava_diagonal_three_loses_for_seat_2() -> None:
    state = run(SQUAVA.new(), [(1, "E1"), (2, "A1"), (1, "E3"), (2, "B2"), (1, "A5")], SQUAVA)
    state = playing.play(SQUAVA, state, 2, "C3")
    result = SQUAVA.result(state)
    assert result is not None
    assert result.winners == frozenset({1}) and result.reason == "three"


def test_squava_anti_diagonal_three_loses() -> None:
    state = run(SQUAVA.new(), [(1, "E1"), (2, "A1"), (1, "D2")], SQUAVA)
    state = run(state, [(2, "A5")], SQUAVA)
    state = playing.play(SQUAVA, state, 1, "C3")
    outcome = SQUAVA.result(state)
    assert outcome is not None
    assert outcome.winners == frozenset({2})


def test_squava_gap_is_not_three() -> None:
    state = run(SQUAVA.new(), [(1, "A1"), (2, "E5"), (1, "B1"), (2, "E3"), (1, "D1")], SQUAVA)
    assert SQUAVA.result(state) is None


def test_squava_four_wins_even_when_the_same_stone_makes_three() -> None:
    # seat 1: A1 B1 D1 in row 1, C2 C3 in column C; C1 makes A1-D1 (4) and C1-C3 (3)
    moves = [(1, "A1"), (2, "A3"), (1, "B1"), (2, "E5"), (1, "D1"), (2, "A5"), (1, "C2"), (2, "E3"), (1, "C3")]
    state = run(SQUAVA.new(), moves, SQUAVA)
    assert SQUAVA.result(state) is None
    state = playing.play(SQUAVA, state, 2, "B5")
    state = playing.play(SQUAVA, state, 1, "C1")
    result = SQUAVA.result(state)
    assert result is not None
    assert result.winners == frozenset({1}) and result.reason == "line"


def test_squava_five_in_a_row_counts_as_four() -> None:
    moves = [(1, "A1"), (2, "A3"), (1, "B1"), (2, "E5"), (1, "D1"), (2, "A5"), (1, "E1"), (2, "E3")]
    state = run(SQUAVA.new(), moves, SQUAVA)
    state = playing.play(SQUAVA, state, 1, "C1")
    result = SQUAVA.result(state)
    assert result is not None
    assert result.winners == frozenset({1}) and result.reason == "line"


def test_squava_full_board_without_a_result_is_drawn() -> None:
    state = run(SQUAVA.new(), alternate(X, OS), SQUAVA)
    result = SQUAVA.result(state)
    assert result is not None and result.winners == frozenset() and result.reason == "full"
    assert SQUAVA.to_act(state) == frozenset()


# -- gomoku alone -----------------------------------------------------------------


def gomoku_pattern_cells() -> tuple[list[str], list[str]]:
    """A 14x14 colouring with no 5 in a row: X where (column//2 + row) is even.
    Rows read XXOOXXOO..; columns alternate; along either diagonal the colour
    changes at least every second step, so no run is longer than 2."""
    xs: list[str] = []
    os_: list[str] = []
    for r in range(14):
        for c in range(14):
            (xs if ((c // 2) + r) % 2 == 0 else os_).append(f"{'ABCDEFGHIJKLMN'[c]}{r + 1}")
    return xs, os_


def test_gomoku_is_14_by_14_and_seat_1_first() -> None:
    state = GOMOKU.new()
    assert GOMOKU.to_act(state) == frozenset({1})
    assert len(list(GOMOKU.legal_actions(state, 1))) == 196
    playing.play(GOMOKU, state, 1, "N14")
    for bad in ("O1", "A15", "A0"):
        with pytest.raises(NotationError):
            GOMOKU.parse(state, 1, bad)
    assert GOMOKU.parse(state, 1, "gomoku H7") == GOMOKU.parse(state, 1, "h7")
    assert GOMOKU.format(GOMOKU.parse(state, 1, "gomoku h7")) == "H7"


@pytest.mark.parametrize(
    "line",
    [
        ["A1", "B1", "C1", "D1", "E1"],
        ["C2", "C3", "C4", "C5", "C6"],
        ["B2", "C3", "D4", "E5", "F6"],
        ["J1", "I2", "H3", "G4", "F5"],
    ],
)
def test_gomoku_five_in_a_row_wins_and_four_does_not(line: list[str]) -> None:
    others = ["N14", "N12", "N10", "N8"]
    state = run(GOMOKU.new(), alternate(line[:4], others), GOMOKU)
    assert GOMOKU.result(state) is None
    state = playing.play(GOMOKU, state, 1, line[4])
    result = GOMOKU.result(state)
    assert result is not None
    assert result.winners == frozenset({1}) and result.reason == "line"


def test_gomoku_overline_counts() -> None:
    state = run(GOMOKU.new(), alternate(["A1", "B1", "C1", "E1", "F1"], ["N14", "N12", "N10", "N8", "N6"]), GOMOKU)
    assert GOMOKU.result(state) is None
    state = playing.play(GOMOKU, state, 1, "D1")
    outcome = GOMOKU.result(state)
    assert outcome is not None
    assert outcome.winners == frozenset({1})


def test_gomoku_full_board_is_drawn() -> None:
    xs, os_ = gomoku_pattern_cells()
    assert len(xs) == len(os_) == 98
    state = run(GOMOKU.new(), alternate(xs, os_), GOMOKU)
    result = GOMOKU.result(state)
    assert result is not None and result.winners == frozenset() and result.reason == "full"


def test_gomoku_occupied_intersection_refused() -> None:
    state = playing.play(GOMOKU, GOMOKU.new(), 1, "H7")
    refused(state, 2, "gomoku H7", r"H7.*(not empty|occupied)", game=GOMOKU)


# -- two connect: turns -------------------------------------------------------------


def test_two_connect_identity_and_seat_1_first() -> None:
    assert TC.seats == 2
    state = TC.new()
    assert TC.to_act(state) == frozenset({1})
    assert TC.result(state) is None
    refused(state, 2, "squava C3", r"not your turn")
    state = TC.new(json.loads('{"starting_seat": 2}'))
    assert TC.to_act(state) == frozenset({2})
    with pytest.raises(RuleError):
        TC.new({"no_such_option": True})


def test_first_turn_is_one_move_on_one_board() -> None:
    state = TC.new()
    refused(state, 1, "squava C3; gomoku H7", r"first turn", r"one move")
    state = play(state, 1, "squava C3")
    assert TC.to_act(state) == frozenset({2})


def test_first_turn_rule_follows_the_starting_seat() -> None:
    state = TC.new({"starting_seat": 2})
    refused(state, 2, "squava C3; gomoku H7", r"first turn", r"one move")
    state = play(state, 2, "yinsh ring E5")
    refused(state, 1, "squava C3", r"two", r"different boards")
    play(state, 1, "squava C3; gomoku H7")


def test_later_turns_are_one_move_on_each_of_two_different_boards() -> None:
    state = play(TC.new(), 1, "squava C3")
    refused(state, 2, "gomoku H7", r"two")
    refused(state, 2, "squava B2; squava D4", r"different", r"two")
    refused(state, 2, "squava C3; gomoku H7", r"C3.*(not empty|occupied)")
    state = play(state, 2, "gomoku H7; yinsh ring E5")
    state = play(state, 1, "yinsh ring F6; squava A1")
    assert board_view(state, "yinsh")["rings"] == {"1": ["F6"], "2": ["E5"]}


def test_an_illegal_second_move_refuses_the_whole_turn() -> None:
    state = play(TC.new(), 1, "gomoku H7")
    refused(state, 2, "squava C3; gomoku H7", r"H7.*(not empty|occupied)")


def test_turn_notation_canonical_and_natural() -> None:
    state = play(TC.new(), 1, "squava A1")
    canonical = TC.parse(state, 2, "squava C3; gomoku H7")
    assert TC.format(canonical) == "squava C3; gomoku H7"
    for text in ["squava c3; gomoku h7", "Squava C3, gomoku H7", "squava c3 and gomoku h7.",
                 "I play squava C3, then gomoku H7"]:
        assert TC.parse(state, 2, text) == canonical, text
    reverse = TC.parse(state, 2, "gomoku H7; squava C3")
    assert reverse != canonical and TC.format(reverse) == "gomoku H7; squava C3"
    natural = TC.parse(state, 2, "I play on yinsh ring e5, then squava b2.")
    assert TC.format(natural) == "yinsh ring E5; squava B2"
    assert TC.format(TC.parse(state, 2, "yinsh e5-e8")) == "yinsh E5-E8"
    assert TC.parse(state, 2, "Squava: C3, Gomoku: H7") == canonical
    for text in ["yinsh E5 to E8", "yinsh E5 -> E8", "yinsh: e5 \u2013 e8", "move the yinsh ring from E5 to E8"]:
        assert TC.format(TC.parse(state, 2, text)) == "yinsh E5-E8", text


@pytest.mark.parametrize("text", ["", "C3", "chess E4", "squava Z9", "gomoku O1", "yinsh ring A1", "squava", "yinsh"])
def test_two_connect_bad_notation(text: str) -> None:
    state = TC.new()
    with pytest.raises(NotationError) as info:
        TC.parse(state, 1, text)
    assert str(info.value)


def test_three_moves_in_one_turn_are_refused() -> None:
    state = play(TC.new(), 1, "squava A1")
    with pytest.raises(RuleError):
        TC.apply(state, 2, TC.parse(state, 2, "squava C3; gomoku H7; yinsh ring E5"))


def test_format_parse_round_trip_on_the_first_turn() -> None:
    state = TC.new()
    for action in TC.legal_actions(state, 1):
        assert TC.parse(state, 1, TC.format(action)) == action


# -- two connect: a full match, first to two boards ---------------------------------------

FIRST_TO_TWO = [
    (1, "squava A1"),
    (2, "gomoku N14; yinsh ring K7"),
    (1, "squava B1; gomoku A1"),
    (2, "gomoku N12; yinsh ring K8"),
    (1, "squava D1; gomoku B1"),
    (2, "gomoku N10; yinsh ring K9"),
]


def test_first_move_winning_its_board_still_plays_the_second() -> None:
    state = run(TC.new(), FIRST_TO_TWO)
    # squava C1 completes A1-D1 (4 in a row): seat 1 wins Squava; gomoku C1 is still played
    state = play(state, 1, "squava C1; gomoku C1")
    assert TC.result(state) is None
    squava, gomoku = board_view(state, "squava"), board_view(state, "gomoku")
    assert squava["status"] == "won" and squava["winner"] == 1
    assert gomoku["cells"][0][2] == 1  # C1: row 1, column C
    # a board is finished: every turn is now one move on one board
    refused(state, 2, "gomoku L14; yinsh ring K10", r"one move", r"finished")
    refused(state, 2, "squava E5", r"squava.*(finished|won|over)", r"finished")
    state = play(state, 2, "gomoku L14")
    state = play(state, 1, "gomoku D1")
    state = play(state, 2, "gomoku J14")
    assert TC.result(state) is None
    state = play(state, 1, "gomoku E1")  # A1-E1: seat 1 wins Gomoku, its second board
    result = TC.result(state)
    assert result is not None and result.winners == frozenset({1}) and result.reason
    assert TC.to_act(state) == frozenset()
    refused(state, 2, "yinsh ring E5", r"over|finished|ended")


def test_making_three_on_squava_gives_the_opponent_the_board_and_the_second_move_counts() -> None:
    state = run(TC.new(), FIRST_TO_TWO[:4])
    # seat 1: A1 B1 C1 is three in a row: seat 2 wins Squava; gomoku B1 is still played
    state = play(state, 1, "squava C1; gomoku B1")
    squava = board_view(state, "squava")
    assert squava["status"] == "won" and squava["winner"] == 2
    assert board_view(state, "gomoku")["cells"][0][1] == 1
    assert TC.result(state) is None


# -- two connect: the turn bank ---------------------------------------------------------

S1_GOMOKU = ["A1", "C1", "E1", "G1", "I1", "K1", "M1", "A3", "C3", "E3"]
S2_GOMOKU = ["A5", "C5", "E5", "G5", "I5", "K5", "M5", "A7", "C7", "E7"]
# Ring rows of 4 at most: row 1 and column K only have 4 points each.
S1_YINSH = ["ring B1", "ring C1", "ring D1", "ring E1", "ring B7", "B1-B2", "C1-C2", "D1-D2", "E1-E2", "B7-B6"]
S2_YINSH = ["ring K7", "ring K8", "ring K9", "ring K10", "ring J11", "K7-J6", "K8-J7", "K9-J8", "K10-J9", "J11-I10"]


def bank_opening() -> Any:
    """Seat 1: gomoku alone, then 9 turns of gomoku + yinsh (gomoku 10, yinsh 9).
    Seat 2: 10 turns of gomoku + yinsh (gomoku 10, yinsh 10)."""
    turns = [(1, f"gomoku {S1_GOMOKU[0]}")]
    for k in range(10):
        turns.append((2, f"gomoku {S2_GOMOKU[k]}; yinsh {S2_YINSH[k]}"))
        if k < 9:
            turns.append((1, f"gomoku {S1_GOMOKU[k + 1]}; yinsh {S1_YINSH[k]}"))
    return run(TC.new(), turns)


def test_a_board_at_ten_is_closed_until_every_other_unfinished_board_reaches_ten() -> None:
    state = bank_opening()
    assert TC.to_act(state) == frozenset({1})
    # seat 1: gomoku 10 (closed), yinsh 9, squava 0
    refused(state, 1, "gomoku G3; yinsh B7-B6", r"bank", r"10|ten")
    refused(state, 1, "squava A1; gomoku G3", r"bank", r"10|ten")
    state = play(state, 1, "yinsh B7-B6; squava A1")
    # seat 2: gomoku 10 and yinsh 10: only squava is open, a one-move turn
    refused(state, 2, "squava C1; gomoku N1", r"bank", r"10|ten", r"one move", r"only")
    refused(state, 2, "gomoku N1", r"bank", r"10|ten")
    state = play(state, 2, "squava C1")
    # seat 1: gomoku 10, yinsh 10, squava 1: only squava, one move
    refused(state, 1, "squava B1; yinsh C2-C3", r"bank", r"10|ten", r"one move", r"only")
    refused(state, 1, "yinsh C2-C3", r"bank", r"10|ten")
    # both now play nine more single squava moves (X squares / O squares: no result)
    for k in range(1, 10):
        state = play(state, 1, f"squava {X[k]}")
        if k < 9:
            state = play(state, 2, f"squava {OS[k]}")
    # seat 1 reached 10 on every board: their counts return to 0, two moves again
    assert TC.result(state) is None
    state = play(state, 2, f"squava {OS[9]}")
    refused(state, 1, "gomoku G3", r"two")
    state = play(state, 1, "gomoku G3; yinsh C2-C3")
    # seat 2 also reached 10 everywhere: back to two-move turns on any boards
    state = play(state, 2, "gomoku N1; yinsh J6-J5")
    assert TC.result(state) is None


def test_finishing_a_board_resets_both_players_counts() -> None:
    state = bank_opening()
    state = play(state, 1, "yinsh B7-B6; squava A1")
    # seat 2 is shut out of gomoku (10) and yinsh (10); seat 1 of gomoku (10) and
    # yinsh (10).  Both play squava; seat 1 then makes A3 B3 C3 and loses Squava.
    state = play(state, 2, "squava C1")
    state = play(state, 1, "squava B1")
    state = play(state, 2, "squava D1")
    state = play(state, 1, "squava A3")
    state = play(state, 2, "squava A2")
    state = play(state, 1, "squava B3")
    state = play(state, 2, "squava B2")
    refused(state, 1, "gomoku G3", r"bank", r"10|ten")
    state = play(state, 1, "squava C3")  # A3 B3 C3: three, seat 2 wins Squava
    assert board_view(state, "squava")["winner"] == 2
    # every count returned to 0: seat 2 may play gomoku again, seat 1 too (one move a turn)
    state = play(state, 2, "gomoku N1")
    state = play(state, 1, "gomoku G3")
    assert TC.result(state) is None


# -- two connect: drawn boards and the most recently won board ------------------------------

S1_OTHERS = ["yinsh ring K7", "yinsh ring K8", "yinsh ring K9", "yinsh ring K10", "yinsh ring J11",
             "gomoku A1", "gomoku B1", "gomoku C1", "gomoku D1"]
S2_OTHERS = ["yinsh ring B2", "yinsh ring A2", "yinsh ring A3", "yinsh ring A4", "yinsh ring A5",
             "gomoku N14", "gomoku L14", "gomoku J14", "gomoku N12", "gomoku L12"]


def drawn_squava_match() -> Any:
    """Seat 1: Squava on X squares, Seat 2: Squava on O squares (never three).

    Ten turns each fill 20 Squava squares; seat 1 then wins Gomoku (A1-E1),
    which resets the bank, and the last five squares fill Squava: drawn.
    """
    turns = [(1, f"squava {X[0]}")]
    for k in range(10):
        turns.append((2, f"squava {OS[k]}; {S2_OTHERS[k]}"))
        if k < 9:
            turns.append((1, f"squava {X[k + 1]}; {S1_OTHERS[k]}"))
    state = run(TC.new(), turns)
    # seat 1 has 10 on squava (closed: gomoku 4, yinsh 5)
    refused(state, 1, f"squava {X[10]}; gomoku E1", r"bank", r"10|ten")
    state = play(state, 1, "gomoku E1; yinsh K7-J6")  # A1-E1 wins Gomoku; the ring move is still played
    assert board_view(state, "gomoku")["winner"] == 1
    assert board_view(state, "yinsh")["markers"]["1"] == ["K7"]
    assert TC.result(state) is None
    refused(state, 2, f"squava {OS[10]}; yinsh B2-B3", r"one move", r"finished")
    state = run(state, [(2, f"squava {OS[10]}"), (1, f"squava {X[10]}"), (2, f"squava {OS[11]}"),
                        (1, f"squava {X[11]}"), (2, "yinsh B2-B3")])
    state = play(state, 1, f"squava {X[12]}")
    squava = board_view(state, "squava")
    assert squava["status"] == "drawn" and squava["winner"] is None
    assert TC.result(state) is None
    return state


def test_one_board_each_and_a_drawn_board_most_recently_won_board_wins() -> None:
    state = drawn_squava_match()
    # seat 2 walks its B-column ring: markers B2..B6 make a row; seat 1 moves K-column rings
    state = run(state, [(2, "yinsh B3-B4"), (1, "yinsh K8-J7"), (2, "yinsh B4-B5"), (1, "yinsh K9-J8"),
                        (2, "yinsh B5-B6"), (1, "yinsh K10-J9")])
    state = play(state, 2, "yinsh B6-B7")
    assert board_view(state, "yinsh")["winner"] == 2
    result = TC.result(state)
    # Gomoku (seat 1) and Yinsh (seat 2) won, Squava drawn: equal, Yinsh is the most recent
    assert result is not None and result.winners == frozenset({2}) and result.reason
    assert TC.to_act(state) == frozenset()


def test_more_boards_won_wins_when_nothing_is_left_to_win() -> None:
    state = drawn_squava_match()
    # the dump carries the Yinsh marker supply: leave one marker, then use it
    data = json.loads(json.dumps(TC.dump(state)))
    assert data["boards"]["yinsh"]["markers_left"] == 51 - 2
    data["boards"]["yinsh"]["markers_left"] = 1
    state = TC.load(data)
    state = play(state, 2, "yinsh B3-B4")
    assert board_view(state, "yinsh")["status"] == "drawn"
    result = TC.result(state)
    # Gomoku won by seat 1, Squava and Yinsh drawn: seat 1 won more boards
    assert result is not None and result.winners == frozenset({1}) and result.reason


# -- views, dump/load ------------------------------------------------------------------------


def test_views_hide_nothing_and_are_identical_for_every_audience() -> None:
    state = run(TC.new(), FIRST_TO_TWO)
    views = {v: TC.view(state, v) for v in (1, 2, SPECTATOR, HOST)}
    publics = {json.dumps(v["public"], sort_keys=True) for v in views.values()}
    assert len(publics) == 1
    for view in views.values():
        json.dumps(view)


def test_dump_load_round_trip_mid_match() -> None:
    state = run(TC.new(), FIRST_TO_TWO)
    again = TC.load(json.loads(json.dumps(TC.dump(state))))
    assert TC.dump(again) == TC.dump(state)
    assert TC.to_act(again) == TC.to_act(state)
    a = play(state, 1, "squava C1; gomoku C1")
    b = play(again, 1, "squava C1; gomoku C1")
    assert TC.dump(a) == TC.dump(b)


def test_apply_never_mutates_its_input() -> None:
    state = run(TC.new(), FIRST_TO_TWO)
    snapshot = copy.deepcopy(TC.dump(state))
    TC.apply(state, 1, TC.parse(state, 1, "squava C1; gomoku C1"))
    with pytest.raises(IllegalAction):
        TC.apply(state, 1, TC.parse(state, 1, "squava C2; squava C3"))
    assert TC.dump(state) == snapshot


# -- random matches against an independent model of turns and the bank -------------------

WORDS = ("squava", "yinsh", "gomoku")


def model_open(counts: Mapping[str, int], finished: set[str], yinsh_movable: bool) -> list[str]:
    """Boards open to a player by RULINGS section 3, from their counts."""
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


def test_no_board_won_is_a_draw() -> None:
    """Squava drawn (full), Yinsh drawn (markers run out), Gomoku drawn (full)."""
    xs, os_ = gomoku_pattern_cells()  # gomoku stones on pattern squares never make 5
    s1_others = ["yinsh ring K7", "yinsh ring K8", "yinsh ring K9", "yinsh ring K10", "yinsh ring J11",
                 *(f"gomoku {c}" for c in xs[:4])]
    s2_others = ["yinsh ring B2", "yinsh ring A2", "yinsh ring A3", "yinsh ring A4", "yinsh ring A5",
                 "yinsh B2-B3", *(f"gomoku {c}" for c in os_[:4])]
    turns = [(1, f"squava {X[0]}")]
    for k in range(10):
        turns.append((2, f"squava {OS[k]}; {s2_others[k]}"))
        if k < 9:
            turns.append((1, f"squava {X[k + 1]}; {s1_others[k]}"))
    state = run(TC.new(), turns)
    # leave one Yinsh marker in the shared supply (dump/load), and use it
    data = json.loads(json.dumps(TC.dump(state)))
    assert data["boards"]["yinsh"]["markers_left"] == 50
    data["boards"]["yinsh"]["markers_left"] = 1
    state = play(TC.load(data), 1, f"yinsh K7-J6; gomoku {xs[4]}")
    assert board_view(state, "yinsh")["status"] == "drawn"
    state = run(state, [(2, f"squava {OS[10]}"), (1, f"squava {X[10]}"), (2, f"squava {OS[11]}"),
                        (1, f"squava {X[11]}"), (2, f"gomoku {os_[4]}"), (1, f"squava {X[12]}")])
    assert board_view(state, "squava")["status"] == "drawn"
    # only Gomoku is left: never closed by the bank, one move a turn, seat 2 to play
    rest = []
    for a, b in zip(os_[5:], xs[5:], strict=True):
        rest += [(2, f"gomoku {a}"), (1, f"gomoku {b}")]
    state = run(state, rest[:-1])
    state = play(state, 1, rest[-1][1])
    assert board_view(state, "gomoku")["status"] == "drawn"
    result = TC.result(state)
    assert result is not None and result.winners == frozenset() and result.reason
    assert TC.to_act(state) == frozenset()


def test_a_player_who_cannot_move_any_ring_cannot_choose_yinsh() -> None:
    """Seat 1 boxes its own rings in: A2 A3 A4 B2 B3 with its markers on A5, B1
    (and D2), seat 2's rings on B4 B5 C2 C3 C4.  Every line out of each seat-1
    ring meets a ring at once, or markers and then the edge:
      A2: A3 B2 B3 rings.  A3: A4 A2 B3 rings, B4 ring.  A4: A5 marker then no
      point, A3 B4 B5 rings.  B2: B3 C2 A2 C3 rings, B1 marker then no point.
      B3: B4 B2 C3 A3 C4 A2 rings."""
    xs, os_ = gomoku_pattern_cells()
    turns = [
        (1, "yinsh ring A2"),
        (2, f"gomoku {os_[0]}; squava {OS[0]}"),
        (1, f"yinsh ring A3; gomoku {xs[0]}"),
        (2, f"gomoku {os_[1]}; squava {OS[1]}"),
        (1, f"yinsh ring A5; squava {X[0]}"),
        (2, f"yinsh ring B4; gomoku {os_[2]}"),
        (1, f"yinsh ring B1; gomoku {xs[1]}"),
        (2, f"yinsh ring B5; gomoku {os_[3]}"),
        (1, f"yinsh ring D2; squava {X[1]}"),
        (2, f"yinsh ring C3; squava {OS[2]}"),
        (1, f"yinsh B1-B3; gomoku {xs[2]}"),
        (2, f"yinsh ring C4; squava {OS[3]}"),
        (1, f"yinsh A5-A4; squava {X[2]}"),
        (2, f"gomoku {os_[4]}; squava {OS[4]}"),
        (1, f"yinsh D2-B2; gomoku {xs[3]}"),
        (2, f"yinsh ring C2; gomoku {os_[5]}"),
    ]
    state = run(TC.new(), turns)
    view = board_view(state, "yinsh")
    assert sorted(view["rings"]["1"]) == ["A2", "A3", "A4", "B2", "B3"]
    assert sorted(view["markers"]["1"]) == ["A5", "B1", "D2"]
    refused(state, 1, f"yinsh A4-A5; gomoku {xs[4]}", r"cannot move any ring", r"ring")
    refused(state, 1, f"gomoku {xs[4]}; yinsh B3-B4", r"cannot move any ring", r"ring")
    # the other two boards are open: still a two-move turn
    refused(state, 1, f"gomoku {xs[4]}", r"two")
    state = play(state, 1, f"squava {X[3]}; gomoku {xs[4]}")
    # seat 2 can still move on Yinsh
    state = play(state, 2, f"yinsh C4-D4; gomoku {os_[6]}")
    # ... which leaves a marker on C4: B3 can now jump it to D5, so Yinsh is open again
    state = play(state, 1, f"yinsh B3-D5; squava {X[4]}")
    assert TC.result(state) is None
