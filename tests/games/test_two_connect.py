"""Two Connect: the shape of a turn, won boards, the turn bank, a Yinsh board
its player cannot move on.  The match's result, notation, views and storage:
test_two_connect_results.py; random matches against an independent model of the turns and the
bank: test_two_connect_model.py; each board alone: test_squava.py, test_gomoku.py, test_yinsh.py.
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace
from typing import Any

import pytest

from games.core import IllegalAction
from games.two_connect.board import GridBoard, GridRules
from games.two_connect.gomoku import GomokuRules
from games.two_connect.rules import TwoConnect, TwoConnectAction, TwoConnectState
from games.two_connect.squava import SquavaRules
from games.two_connect.yinsh import YinshBoard, YinshRules
from tests.games import playing

GAME = playing.registered("two-connect", TwoConnect)
play = functools.partial(playing.play, GAME)
SQ, YI, GO = 0, 1, 2
SQUAVA, YINSH, GOMOKU = SquavaRules(), YinshRules(), GomokuRules()
ZERO = ((0, 0, 0), (0, 0, 0))


def make(
    squava: GridBoard | None = None,
    yinsh: YinshBoard | None = None,
    gomoku: GridBoard | None = None,
    to_move: int = 1,
    turns: int = 4,
    bank: tuple[tuple[int, ...], ...] = ZERO,
    finished: tuple[int, ...] = (),
) -> TwoConnectState:
    return TwoConnectState(
        boards=(squava or SQUAVA.initial(), yinsh or YINSH.initial(), gomoku or GOMOKU.initial()),
        to_move=to_move,
        turns=turns,
        bank=bank,
        finished=finished,
    )


def won(rules: GridRules, seat: int) -> GridBoard:
    """A finished grid board (synthetic: the position itself does not matter here)."""
    board = rules.initial()
    return replace(board, winner=seat, reason="line" if seat else "full")


def won_yinsh(seat: int) -> YinshBoard:
    return replace(YINSH.initial(), winner=seat, reason="row" if seat else "markers")


def stuck(seat: int) -> YinshBoard:
    """Yinsh where `seat`'s five rings are boxed in (see test_yinsh.stuck_seat_one)."""
    a, b = "A2 A3 A4 B2 B3", "B4 B5 C2 C3 C4"
    rings1, rings2 = (a, b) if seat == 1 else (b, a)
    markers1, markers2 = ("A5 B1", "") if seat == 1 else ("", "A5 B1")
    return YINSH.from_points(rings1=rings1, rings2=rings2, markers1=markers1, markers2=markers2)


# -- turn shape ----------------------------------------------------------------


def test_first_turn_of_the_match_is_one_move_on_one_board() -> None:
    state = GAME.new()
    assert GAME.to_act(state) == {1}
    with pytest.raises(IllegalAction, match="first turn of the match is one move on one board"):
        play(state, 1, "squava C3; gomoku H7")
    state = play(state, 1, "gomoku H7")
    assert GAME.to_act(state) == {2}
    assert GAME.public_view(state)["moves_this_turn"] == 2


def test_first_turn_rule_applies_to_the_starting_seat_option() -> None:
    state = GAME.new({"starting_seat": 2})
    assert GAME.to_act(state) == {2}
    with pytest.raises(IllegalAction, match="first turn"):
        play(state, 2, "squava C3; gomoku H7")
    state = play(state, 2, "yinsh ring E5")
    assert GAME.to_act(state) == {1}


def test_later_turns_are_one_move_on_each_of_two_different_boards() -> None:
    state = play(GAME.new(), 1, "squava C3")
    with pytest.raises(IllegalAction, match="one move on each of two different boards"):
        play(state, 2, "gomoku H7")
    with pytest.raises(IllegalAction, match="both moves are on the Squava board"):
        play(state, 2, "squava A1; squava E5")
    state = play(state, 2, "squava A1; gomoku H7")
    assert state.boards[SQ].cells[0] == 2
    assert state.boards[GO].cells[GOMOKU.parse_move("H7")] == 2
    assert GAME.to_act(state) == {1}


def test_any_two_of_the_three_boards_may_be_chosen() -> None:
    state = play(GAME.new(), 1, "squava C3")
    for text in ("squava A1; yinsh ring E5", "yinsh ring E5; gomoku A1", "gomoku A1; squava A1"):
        play(state, 2, text)  # all legal


def test_players_alternate_turns() -> None:
    state = play(GAME.new(), 1, "squava C3")
    with pytest.raises(IllegalAction, match="not your turn"):
        play(state, 1, "squava A1; gomoku H7")


def test_within_one_board_players_need_not_alternate() -> None:
    state = play(GAME.new(), 1, "squava C3")
    state = play(state, 2, "yinsh ring E5; gomoku H7")
    state = play(state, 1, "squava A1; gomoku A1")  # seat 1 on Squava twice in a row
    assert state.boards[SQ].cells[0] == 1 and state.boards[SQ].cells[12] == 1


def test_moves_are_applied_in_the_order_given() -> None:
    state = play(GAME.new(), 1, "squava C3")
    state = play(state, 2, "gomoku H7; squava A1")
    assert GAME.public_view(state)["last"] == "gomoku H7; squava A1"
    assert GAME.format(GAME.parse(state, 1, "gomoku h7 and squava a1")) == "gomoku H7; squava A1"


def test_an_illegal_second_move_rejects_the_whole_turn_and_names_the_board() -> None:
    state = play(GAME.new(), 1, "squava C3")
    with pytest.raises(IllegalAction, match="Squava: C3 is not empty"):
        play(state, 2, "gomoku H7; squava C3")
    assert state.boards[GO].cells == GOMOKU.initial().cells  # nothing changed


def test_once_a_board_is_finished_every_turn_is_one_move() -> None:
    state = make(squava=won(SQUAVA, 1), finished=(SQ,))
    with pytest.raises(IllegalAction, match="a board is finished, so every turn is one move"):
        play(state, 1, "yinsh ring E5; gomoku H7")
    with pytest.raises(IllegalAction, match="the Squava board is finished"):
        play(state, 1, "squava C3")
    state = play(state, 1, "gomoku H7")
    assert GAME.to_act(state) == {2}


def test_a_drawn_board_also_makes_turns_one_move() -> None:
    state = make(gomoku=won(GOMOKU, 0), finished=(GO,))
    assert GAME.moves_required(state, 1) == 1
    with pytest.raises(IllegalAction, match="the Gomoku board is finished"):
        play(state, 1, "gomoku H7")


def test_first_move_winning_its_board_still_plays_the_second() -> None:
    squava = SQUAVA.from_rows("xx.x. ..... o.o.. ..... .....")
    state = make(squava=squava, bank=((3, 0, 4), (2, 2, 2)))
    state = play(state, 1, "squava C1; gomoku H7")
    assert state.boards[SQ].winner == 1
    assert state.boards[GO].cells[GOMOKU.parse_move("H7")] == 1
    # the finished board reset every count; the second move then counted 1 on Gomoku
    assert state.bank == ((0, 0, 1), (0, 0, 0))
    assert GAME.result(state) is None
    assert GAME.moves_required(state, 2) == 1


def test_a_turn_can_win_two_boards_and_the_match() -> None:
    squava = SQUAVA.from_rows("xx.x. ..... o.o.. ..... .....")
    gomoku = GOMOKU.initial()
    for name in ("A1", "B1", "C1", "D1"):
        gomoku = GOMOKU.play(gomoku, 1, GOMOKU.parse_move(name))
    state = play(make(squava=squava, gomoku=gomoku), 1, "squava C1; gomoku E1")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "two-boards"
    assert result.scores == {1: 2, 2: 0}


def test_second_move_still_played_when_the_first_loses_a_board_by_three() -> None:
    squava = SQUAVA.from_rows("xx... ..... o.o.. ..... .....")
    gomoku = GOMOKU.initial()
    for name in ("A1", "B1", "C1", "D1"):
        gomoku = GOMOKU.play(gomoku, 1, GOMOKU.parse_move(name))
    state = play(make(squava=squava, gomoku=gomoku), 1, "squava C1; gomoku E1")
    assert state.boards[SQ].winner == 2 and state.boards[SQ].reason == "three"
    assert state.boards[GO].winner == 1
    assert GAME.result(state) is None  # one board each, Yinsh still open
    assert state.finished == (SQ, GO)


# -- once a board is won it cannot be played -----------------------------------


def test_a_won_board_can_no_longer_be_played_on() -> None:
    state = make(yinsh=won_yinsh(2), finished=(YI,))
    with pytest.raises(IllegalAction, match="the Yinsh board is finished"):
        play(state, 1, "yinsh ring E5")
    assert {a.moves[0][0] for a in GAME.legal_actions(state, 1)} == {SQ, GO}


# -- turn bank -----------------------------------------------------------------


def test_ten_moves_on_a_board_close_it_to_that_player() -> None:
    state = make(bank=((10, 3, 5), (0, 0, 0)))
    with pytest.raises(IllegalAction, match="turn bank closes the Squava board to you"):
        play(state, 1, "squava C3; gomoku H7")
    assert GAME.open_boards(state, 1) == [YI, GO]
    assert GAME.open_boards(state, 2) == [SQ, YI, GO]  # the bank is per player
    state = play(state, 1, "yinsh ring E5; gomoku H7")
    assert state.bank == ((10, 4, 6), (0, 0, 0))


def test_the_bank_counts_each_players_own_moves_per_board() -> None:
    state = play(GAME.new(), 1, "squava C3")
    state = play(state, 2, "squava A1; gomoku H7")
    state = play(state, 1, "yinsh ring E5; gomoku A1")
    assert state.bank == ((1, 1, 1), (1, 0, 1))


def test_a_move_reaching_ten_closes_the_board_from_the_next_turn() -> None:
    state = make(bank=((9, 0, 0), (0, 0, 0)))
    state = play(state, 1, "squava C3; gomoku H7")
    assert state.bank[0] == (10, 0, 1)
    state = play(state, 2, "squava A1; gomoku A1")
    with pytest.raises(IllegalAction, match="closes the Squava board"):
        play(state, 1, "squava E1; gomoku B1")


def test_ten_on_two_boards_leaves_only_the_third_and_a_one_move_turn() -> None:
    state = make(bank=((10, 10, 4), (0, 0, 0)))
    assert GAME.open_boards(state, 1) == [GO]
    assert GAME.moves_required(state, 1) == 1
    with pytest.raises(IllegalAction, match="turn bank closes the Yinsh board to you"):
        play(state, 1, "yinsh ring E5; gomoku H7")
    # a lone move where two are needed elsewhere is refused with the reason
    state2 = make(bank=((10, 3, 4), (0, 0, 0)))
    with pytest.raises(IllegalAction, match="one move on each of two different boards"):
        play(state2, 1, "gomoku H7")
    state = play(state, 1, "gomoku H7")
    assert state.bank[0] == (10, 10, 5)


def test_only_one_open_board_message() -> None:
    state = make(bank=((10, 10, 4), (0, 0, 0)))
    action = TwoConnectAction(((GO, 0), (SQ, 0)))
    with pytest.raises(IllegalAction, match="closes the Squava board"):
        GAME.apply(state, 1, action)


def test_reaching_ten_on_every_unfinished_board_reopens_them_all() -> None:
    state = make(bank=((10, 10, 9), (4, 4, 4)))
    state = play(state, 1, "gomoku H7")
    assert state.bank == ((0, 0, 0), (4, 4, 4))
    assert GAME.open_boards(state, 1) == [SQ, YI, GO]


def test_two_moves_reaching_ten_together_reopen_the_boards() -> None:
    state = make(bank=((10, 9, 9), (0, 0, 0)))
    state = play(state, 1, "yinsh ring E5; gomoku H7")
    assert state.bank[0] == (0, 0, 0)


def test_bank_with_a_finished_board_only_counts_unfinished_boards() -> None:
    # Squava is finished: the bank is between Yinsh and Gomoku only
    state = make(squava=won(SQUAVA, 2), finished=(SQ,), bank=((0, 10, 5), (0, 0, 0)))
    assert GAME.open_boards(state, 1) == [GO]
    state = make(squava=won(SQUAVA, 2), finished=(SQ,), bank=((0, 10, 9), (0, 0, 0)))
    state = play(state, 1, "gomoku H7")
    assert state.bank[0] == (0, 0, 0)


def test_with_one_unfinished_board_ten_moves_never_close_it() -> None:
    state = make(squava=won(SQUAVA, 2), yinsh=won_yinsh(1), finished=(SQ, YI), bank=((0, 0, 9), (0, 0, 0)))
    state = play(state, 1, "gomoku H7")
    assert state.bank[0] == (0, 0, 0)
    assert GAME.open_boards(state, 1) == [GO]


def test_finishing_a_board_resets_both_players_counts() -> None:
    squava = SQUAVA.from_rows("xx.x. ..... o.o.. ..... .....")
    state = make(squava=squava, bank=((5, 7, 3), (2, 9, 9)), finished=())
    state = play(state, 1, "squava C1; yinsh ring E5")
    assert state.bank == ((0, 1, 0), (0, 0, 0))


def test_a_drawn_board_also_resets_the_bank() -> None:
    rows = "xxoox ooxxo xxoox ooxxo xxoo."
    state = make(squava=SQUAVA.from_rows(rows), bank=((5, 7, 3), (2, 9, 9)))
    state = play(state, 1, "squava E5; gomoku H7")
    assert state.boards[SQ].winner == 0
    assert state.bank == ((0, 0, 1), (0, 0, 0))


def test_bank_sequence_through_real_turns() -> None:
    # Both players play Gomoku + Yinsh every turn (isolated Gomoku stones, no lines).
    rng = random.Random(3)
    squares = {
        1: iter(f"{c}{r}" for r in (1, 3, 5) for c in "ACEGIKM"),
        2: iter(f"{c}{r}" for r in (8, 10, 12) for c in "ACEGIKM"),
    }

    def turn(state: TwoConnectState, seat: int, yinsh: bool = True) -> TwoConnectState:
        moves: list[tuple[int, Any]] = [(GO, GOMOKU.parse_move(next(squares[seat])))]
        if yinsh:
            moves.append((YI, YINSH.random_move(state.boards[YI], seat, rng)))
        return GAME.apply(state, seat, TwoConnectAction(tuple(moves)))

    state = turn(GAME.new(), 1, yinsh=False)  # first turn: one move
    for _ in range(9):
        state = turn(state, 2)
        state = turn(state, 1)
    assert state.finished == ()
    # seat 1: 10 on Gomoku, 9 on Yinsh: Gomoku is closed until Squava and Yinsh reach 10
    assert state.bank[0] == (0, 9, 10)
    assert GAME.open_boards(state, 1) == [SQ, YI]
    state = turn(state, 2)
    with pytest.raises(IllegalAction, match="closes the Gomoku board to you"):
        turn(state, 1)
    ring_move = YINSH.random_move(state.boards[YI], 1, rng)
    state = GAME.apply(state, 1, TwoConnectAction(((SQ, 0), (YI, ring_move))))
    # now Yinsh is at 10 too: only Squava is open, a one-move turn (the same for seat 2)
    assert state.bank == ((1, 10, 10), (0, 10, 10))
    assert GAME.open_boards(state, 1) == [SQ]
    with pytest.raises(IllegalAction, match="closes the Gomoku board"):
        turn(state, 2)
    state = play(state, 2, "squava E5")
    assert GAME.moves_required(state, 1) == 1
    assert GAME.public_view(state)["moves_this_turn"] == 1


# -- no-move Yinsh -------------------------------------------------------------


def test_a_yinsh_board_where_the_player_cannot_move_cannot_be_chosen() -> None:
    state = make(yinsh=stuck(1))
    assert GAME.open_boards(state, 1) == [SQ, GO]
    with pytest.raises(IllegalAction, match="cannot move any ring on the Yinsh board"):
        play(state, 1, "yinsh A4-A5; gomoku H7")
    state = play(state, 1, "squava C3; gomoku H7")
    assert GAME.to_act(state) == {2}


def test_blocked_yinsh_plus_a_finished_board_leaves_one_board_and_one_move() -> None:
    state = make(yinsh=stuck(1), squava=won(SQUAVA, 2), finished=(SQ,))
    assert GAME.open_boards(state, 1) == [GO]
    assert GAME.moves_required(state, 1) == 1


def test_blocked_yinsh_and_the_bank_leave_one_open_board_and_one_move() -> None:
    state = make(yinsh=stuck(1), bank=((10, 0, 3), (0, 0, 0)))
    assert GAME.open_boards(state, 1) == [GO]
    assert GAME.moves_required(state, 1) == 1
    with pytest.raises(IllegalAction, match="closes the Squava board"):
        play(state, 1, "gomoku H7; squava C3")
    state = play(state, 1, "gomoku H7")
    assert GAME.to_act(state) == {2}


def test_player_who_can_play_nowhere_passes_and_the_opponent_plays_again() -> None:
    # seat 2: Squava and Gomoku closed by the bank (Yinsh is still under 10), Yinsh blocked
    state = make(yinsh=stuck(2), to_move=1, bank=((0, 0, 0), (10, 3, 10)))
    assert GAME.open_boards(state, 2) == []
    after = play(state, 1, "squava C3; gomoku H7")
    assert GAME.to_act(after) == {1}
    assert after.passed == 2
    assert GAME.public_view(after)["passed"] == 2
    assert GAME.result(after) is None


def test_player_blocked_on_the_last_open_board_passes() -> None:
    state = make(
        squava=won(SQUAVA, 1), gomoku=won(GOMOKU, 2), yinsh=stuck(2), finished=(SQ, GO), to_move=1,
    )
    # seat 1 plays C4-C5? no: seat 1's rings are B4 B5 C2 C3 C4 here; C2-D2 keeps seat 2 boxed in
    after = play(state, 1, "yinsh C2-D2")
    assert GAME.to_act(after) == {1}
    assert after.passed == 2
