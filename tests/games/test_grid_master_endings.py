"""Grid Master's endings: three in a row after the reposition, the mover's line,
a full board's stalemate, the third repetition.
"""

from __future__ import annotations

import random
from dataclasses import replace

from games.grid_master.rules import (
    _key,
)
from tests.games.test_grid_master import GAME, SQ, STALEMATE_GAME, cells, legal_texts, play, pos, refused

X_WINS_ON_MOVE_5 = (
    "place A3",
    "place A1",
    "place B1; move A3 right 2",
    "place B3; move A1 down 2",
    "place A1; move C3 up 2",
)


# -- rulings: winning -------------------------------------------------------------


def test_win_by_a_row_in_a_full_game() -> None:
    state = play(GAME.new(), *X_WINS_ON_MOVE_5)
    assert cells(state) == ["XXX", "...", "OO."]
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset({1})
    assert result.reason == "line"
    assert "A1, B1, C1" in result.detail
    view = GAME.public_view(state)
    assert view["winning_line"] == ["A1", "B1", "C1"]
    assert view["to_move"] is None
    assert view["last_squares"] == ["A1", "C3", "C1"]
    assert GAME.to_act(state) == frozenset()


def test_tic_tac_toe_cannot_be_won_in_3_moves() -> None:
    # after 4 moves each player has only 2 symbols: the earliest win is move 5
    for seed in range(30):
        rng = random.Random(seed)
        state = GAME.new()
        for _ in range(4):
            action = GAME.random_action(state, state.to_move, rng)
            assert action is not None
            state = GAME.apply(state, state.to_move, action)
            assert GAME.result(state) is None


def test_win_by_a_row() -> None:
    after = play(pos("X.. / .X. / O.O"), "place C1; move B2 up 1")
    assert cells(after) == ["XXX", "...", "O.O"]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")
    assert GAME.public_view(after)["winning_line"] == ["A1", "B1", "C1"]


def test_win_by_a_column_for_o() -> None:
    after = play(pos("O.X / ... / .OX", to_move=2), "place A2; move B3 left 1")
    assert cells(after) == ["O.X", "O..", "O.X"]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({2}), "line")
    assert GAME.public_view(after)["winning_line"] == ["A1", "A2", "A3"]


def test_win_by_the_diagonal() -> None:
    after = play(pos("X.. / X.O / ..X"), "place C1; move A2 right 1")
    assert cells(after) == ["X.X", ".XO", "..X"]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")
    assert GAME.public_view(after)["winning_line"] == ["A1", "B2", "C3"]


def test_win_by_the_anti_diagonal() -> None:
    after = play(pos("X.. / .X. / .OO"), "place C1; move A1 down 2")
    assert cells(after) == ["..X", ".X.", "XOO"]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")
    assert GAME.public_view(after)["winning_line"] == ["C1", "B2", "A3"]


def test_a_turn_without_three_in_a_row_does_not_win() -> None:
    after = play(pos("X.. / .X. / O.O"), "place C1; move B2 down 1")
    assert cells(after) == ["X.X", "...", "OXO"]
    assert GAME.result(after) is None
    assert GAME.to_act(after) == frozenset({2})


def test_ruling_a_line_that_exists_only_between_placement_and_reposition_does_not_count() -> None:
    # O places B2 completing A2-B2-C2, then must reposition A2 or C2 (B2 was just placed)
    state = pos("X.X / O.O / ..X", to_move=2, in_hand=(2, 3))
    assert all(a.move is not None for a in GAME.legal_actions(state, 2) if a.place == SQ["B2"])
    after = play(state, "place B2; move A2 down 1")
    assert cells(after) == ["X.X", ".OO", "O.X"]
    assert GAME.result(after) is None


def test_ruling_a_line_made_by_the_placement_and_kept_through_the_reposition_wins() -> None:
    state = pos("XX. / ... / O.X", in_hand=(2, 3))
    after = play(state, "place C1; move C3 left 1")
    assert cells(after) == ["XXX", "...", "OX."]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")


def test_ruling_an_opponent_line_at_the_end_of_the_movers_turn_does_not_win() -> None:
    # X has A1-B1-C1 (made on a placement-only turn); O plays a turn without a line
    state = pos("XXX / O.O / X..", to_move=2)
    after = play(state, "place B2; move C2 down 1")
    assert cells(after) == ["XXX", "OO.", "X.O"]
    assert GAME.result(after) is None
    assert GAME.to_act(after) == frozenset({1})
    # ... X then wins with that line on its own turn, by repositioning another symbol
    final = play(after, "place C2; move A3 right 1")
    result = GAME.result(final)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")
    assert GAME.public_view(final)["winning_line"] == ["A1", "B1", "C1"]


def test_ruling_when_both_have_a_line_the_mover_wins() -> None:
    state = pos("XXX / OO. / ..O", to_move=2)
    after = play(state, "place B3; move C3 up 1")
    assert cells(after) == ["XXX", "OOO", ".O."]
    result = GAME.result(after)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({2}), "line")
    assert GAME.public_view(after)["winning_line"] == ["A2", "B2", "C2"]


def test_two_lines_at_once_are_both_shown() -> None:
    state = pos("XX. / ..X / X.O", in_hand=(1, 4))
    after = play(state, "place B2; move C2 up 1")
    assert cells(after) == ["XXX", ".X.", "X.O"]
    assert GAME.public_view(after)["winning_line"] == ["A1", "B1", "C1", "B2", "A3"]


def test_no_action_after_the_game_is_over() -> None:
    state = play(GAME.new(), *X_WINS_ON_MOVE_5)
    refused(state, "place B2; move A1 down 1", "the bout is over", seat=2)
    refused(state, "place B2; move A1 down 1", "the bout is over", seat=1)
    assert list(GAME.legal_actions(state, 2)) == []


# -- rulings: draws -----------------------------------------------------------------


def test_draw_when_the_board_fills_in_a_full_game() -> None:
    state = play(GAME.new(), *STALEMATE_GAME[:-1])
    assert legal_texts(state) == {"place A2"}  # the last empty square; nothing can move after
    state = play(state, STALEMATE_GAME[-1])
    assert cells(state) == ["XOX", "XOO", "OXX"]
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "stalemate"
    assert "O has no legal action" in result.detail


def test_draw_by_the_third_repetition_of_a_position() -> None:
    shuffle = ("move A1 right 1", "move C3 left 1", "move B1 left 1", "move B3 right 1")
    state = pos("X.. / ... / ..O", in_hand=(0, 0), turns=(3, 3))
    state = play(state, *shuffle)  # the start position again: second time
    assert GAME.result(state) is None
    state = play(state, *shuffle[:3])
    assert GAME.result(state) is None
    state = play(state, shuffle[3])  # third time
    result = GAME.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset(), "repetition")
    assert GAME.to_act(state) == frozenset()


def test_repetition_counts_only_the_same_player_to_move() -> None:
    board = pos("X.. / ... / ..O", in_hand=(0, 0), turns=(3, 3))
    assert _key(board) != _key(replace(board, to_move=2))
    assert _key(board) != _key(replace(board, in_hand=(1, 0)))
    assert _key(board) != _key(replace(board, turns=(1, 3), first=(0, -1)))


def test_a_placement_starts_the_repetition_count_afresh() -> None:
    # with 3 symbols each, playouts can only repeat once hands are empty: placements change
    # the number of symbols on the board for good
    state = play(GAME.new({"symbols": 3}), "place A1", "place C3")
    assert state.history == (_key(state),)


def test_random_games_end_quickly_with_every_outcome() -> None:
    reasons = set()
    for symbols in (3, 4, 5):
        for seed in range(120):
            rng = random.Random(seed)
            state = GAME.new({"symbols": symbols})
            for _ in range(400):
                if GAME.result(state) is not None:
                    break
                action = GAME.random_action(state, state.to_move, rng)
                assert action is not None
                state = GAME.apply(state, state.to_move, action)
            result = GAME.result(state)
            assert result is not None
            reasons.add((len(result.winners), result.reason))
    assert reasons >= {(1, "line"), (0, "stalemate"), (0, "repetition")}
