"""Two Connect: first to two boards, a drawn board and the most recently won
board, the draw; the notation of a turn; legal and random actions, views and storage.
"""

from __future__ import annotations

import random

import pytest

from games.core import HOST, SPECTATOR, IllegalAction, NotationError
from games.two_connect.board import GridBoard
from games.two_connect.gomoku import GomokuRules
from games.two_connect.rules import TwoConnectAction
from games.two_connect.squava import SquavaRules
from games.two_connect.yinsh import YinshBoard, YinshMove, YinshRules, parse_point
from tests.games.test_two_connect import GAME, make, play, stuck, won, won_yinsh

SQ, YI, GO = 0, 1, 2
SQUAVA, YINSH, GOMOKU = SquavaRules(), YinshRules(), GomokuRules()










def yinsh_row_for(seat: int) -> YinshBoard:
    """Yinsh where `seat` makes a row with E5-E6."""
    rings, others, markers = "E5 K7 K8 K9 K10", "J11 I11 H11 G11 E10", "A5 B5 C5 D5"
    if seat == 2:
        return YINSH.from_points(rings1=others, rings2=rings, markers2=markers)
    return YINSH.from_points(rings1=rings, rings2=others, markers1=markers)


# -- match result --------------------------------------------------------------


def test_first_to_win_two_boards_wins_the_match() -> None:
    gomoku = GOMOKU.initial()
    for name in ("A1", "B1", "C1", "D1"):
        gomoku = GOMOKU.play(gomoku, 2, GOMOKU.parse_move(name))
    state = make(squava=won(SQUAVA, 2), gomoku=gomoku, finished=(SQ,), to_move=2)
    state = play(state, 2, "gomoku E1")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "two-boards"
    assert result.scores == {1: 0, 2: 2}
    assert GAME.to_act(state) == frozenset()
    with pytest.raises(IllegalAction, match="over"):
        play(state, 1, "yinsh ring E5")
    assert list(GAME.legal_actions(state, 1)) == []


def test_one_drawn_board_equal_boards_most_recently_won_board_wins() -> None:
    # Squava won by 2, Gomoku drawn, then seat 1 wins Yinsh: 1-1, seat 1 won most recently
    state = make(squava=won(SQUAVA, 2), gomoku=won(GOMOKU, 0), yinsh=yinsh_row_for(1), finished=(SQ, GO))
    state = play(state, 1, "yinsh E5-E6")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "most-recent"
    assert result.scores == {1: 1, 2: 1}
    assert GAME.public_view(state)["most_recent_win"] == {"board": "yinsh", "seat": 1}


def test_most_recently_won_board_ignores_a_later_draw() -> None:
    # Squava won by 1, Yinsh won by 2, then Gomoku is drawn last: seat 2 won most recently
    rows = [[1 + ((c // 2 + r) % 2) for c in range(14)] for r in range(14)]
    cells = [v for row in rows for v in row]
    cells[2] = 0  # C1, a seat-2 point
    gomoku = GridBoard(cells=tuple(cells))
    state = make(squava=won(SQUAVA, 1), yinsh=won_yinsh(2), gomoku=gomoku, finished=(SQ, YI), to_move=2)
    state = play(state, 2, "gomoku C1")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "most-recent"
    assert GAME.public_view(state)["finished_order"] == ["squava", "yinsh", "gomoku"]


def test_more_boards_won_wins_when_every_board_is_finished() -> None:
    state = make(squava=won(SQUAVA, 0), gomoku=won(GOMOKU, 2), yinsh=YINSH.from_points(
        rings1="C3 K7 K8 K9 K10", rings2="J11 I11 H11 G11 E10", markers_left=1), finished=(GO, SQ))
    state = play(state, 1, "yinsh C3-C6")  # the last marker: Yinsh drawn
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {2}
    assert result.reason == "more-boards"
    assert result.scores == {1: 0, 2: 1}


def test_no_board_won_is_a_draw() -> None:
    state = make(squava=won(SQUAVA, 0), gomoku=won(GOMOKU, 0), yinsh=YINSH.from_points(
        rings1="C3 K7 K8 K9 K10", rings2="J11 I11 H11 G11 E10", markers_left=1), finished=(GO, SQ))
    state = play(state, 1, "yinsh C3-C6")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "no-board-won"
    assert result.scores == {1: 0, 2: 0}


def test_one_board_each_and_one_open_board_plays_on() -> None:
    state = make(squava=won(SQUAVA, 1), gomoku=won(GOMOKU, 2), finished=(SQ, GO))
    state = play(state, 1, "yinsh ring E5")
    assert GAME.result(state) is None


def test_one_won_one_drawn_and_one_open_board_plays_on() -> None:
    # seat 2 still needs Yinsh: winning it makes 1-1 with the most recent win
    state = make(squava=won(SQUAVA, 1), gomoku=won(GOMOKU, 0), finished=(SQ, GO))
    state = play(state, 1, "yinsh ring E5")
    assert GAME.result(state) is None
    assert GAME.to_act(state) == {2}


# -- notation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("squava C3; gomoku H7", "squava C3; gomoku H7"),
        ("squava c3 and gomoku h7", "squava C3; gomoku H7"),
        ("Squava C3, Gomoku H7.", "squava C3; gomoku H7"),
        ("I play on squava c3, then on gomoku h7", "squava C3; gomoku H7"),
        ("yinsh ring e5", "yinsh ring E5"),
        ("yinsh e5-e8", "yinsh E5-E8"),
        ("yinsh e5 to e8 and squava a1", "yinsh E5-E8; squava A1"),
        ("place a ring on yinsh e5", "yinsh ring E5"),
        ("gomoku n14", "gomoku N14"),
    ],
)
def test_notation_natural_phrasings(text: str, canonical: str) -> None:
    action = GAME.parse(GAME.new(), 1, text)
    assert GAME.format(action) == canonical
    assert GAME.parse(GAME.new(), 1, canonical) == action


def test_yinsh_move_notation_maps_to_points() -> None:
    action = GAME.parse(GAME.new(), 1, "yinsh E5-E8")
    assert action.moves == ((YI, YinshMove(parse_point("E5"), parse_point("E8"))),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("C3", "each move starts with its board"),
        ("c3 squava d4", "expected one Squava square"),
        ("squava", "expected a Squava move after 'squava'"),
        ("squava F6", "expected a Squava square from A1 to E5"),
        ("gomoku O1", "expected a Gomoku square from A1 to N14"),
        ("yinsh ring A1", "expected a Yinsh point"),
        ("squava a1; gomoku b2; yinsh ring e5", "at most two moves"),
        ("", "got nothing"),
        ("chess e4", "each move starts with its board"),
    ],
)
def test_bad_notation_says_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        GAME.parse(GAME.new(), 1, text)


# -- legal actions, random actions, views, storage ----------------------------


def test_legal_actions_are_lazy_and_cover_ordered_pairs() -> None:
    state = play(GAME.new(), 1, "squava C3")
    actions = GAME.legal_actions(state, 2)
    first = next(actions)
    assert len(first.moves) == 2
    # 24 Squava x 85 Yinsh x 196 Gomoku boards' moves, pairs in both orders
    count = sum(1 for _ in GAME.legal_actions(state, 2))
    assert count == 2 * (24 * 85 + 24 * 196 + 85 * 196)
    assert list(GAME.legal_actions(state, 1)) == []  # not seat 1's turn


def test_random_action_is_legal() -> None:
    rng = random.Random(7)
    state = GAME.new()
    for _ in range(30):
        seat = next(iter(GAME.to_act(state)))
        action = GAME.random_action(state, seat, rng)
        assert action is not None
        assert len(action.moves) == GAME.moves_required(state, seat)
        state = GAME.apply(state, seat, action)
        if GAME.result(state):
            break


def test_public_view_has_every_board_the_bank_and_the_score() -> None:
    state = play(GAME.new(), 1, "squava C3")
    state = play(state, 2, "yinsh ring E5; gomoku H7")
    view = GAME.view(state, SPECTATOR)
    public = view["public"]
    assert [b["board"] for b in public["boards"]] == ["squava", "yinsh", "gomoku"]
    squava, yinsh, gomoku = public["boards"]
    assert squava["cells"][2][2] == 1 and squava["status"] == "open" and squava["last"] == "C3"
    assert yinsh["rings"]["2"] == ["E5"] and yinsh["markers_left"] == 51
    assert yinsh["rings_in_hand"] == {"1": 5, "2": 4}
    assert gomoku["last_squares"] == ["H7"]
    assert squava["bank"] == {"1": 1, "2": 0} and squava["open_to"] == [1, 2]
    assert public["bank"] == {"1": {"squava": 1, "yinsh": 0, "gomoku": 0}, "2": {"squava": 0, "yinsh": 1, "gomoku": 1}}
    assert public["open_boards"] == {"1": ["squava", "yinsh", "gomoku"], "2": ["squava", "yinsh", "gomoku"]}
    assert public["boards_won"] == {"1": 0, "2": 0}
    assert public["most_recent_win"] is None
    assert public["to_move"] == 1 and public["turn"] == 3 and public["moves_this_turn"] == 2
    assert public["last"] == "yinsh ring E5; gomoku H7" and public["last_seat"] == 2
    assert GAME.view(state, HOST)["public"] == public == GAME.view(state, 1)["public"]


def test_view_shows_won_boards_and_closed_boards() -> None:
    state = make(squava=won(SQUAVA, 2), finished=(SQ,), bank=((0, 10, 3), (0, 0, 0)))
    public = GAME.public_view(state)
    assert public["boards"][SQ]["status"] == "won" and public["boards"][SQ]["winner"] == 2
    assert public["boards_won"] == {"1": 0, "2": 1}
    assert public["most_recent_win"] == {"board": "squava", "seat": 2}
    assert public["open_boards"]["1"] == ["gomoku"]
    assert public["boards"][YI]["open_to"] == [2]


def test_dump_load_round_trip() -> None:
    state = make(squava=won(SQUAVA, 2), yinsh=stuck(1), finished=(SQ,), bank=((0, 7, 3), (0, 2, 9)))
    state = play(state, 1, "gomoku H7")
    assert GAME.load(GAME.dump(state)) == state
    with pytest.raises(ValueError, match="version"):
        GAME.load({"v": 99})


def test_hand_built_actions_naming_no_board_or_no_point_are_refused() -> None:
    state = GAME.new()
    with pytest.raises(IllegalAction, match="only three boards"):
        GAME.apply(state, 1, TwoConnectAction(((5, 0),)))
    with pytest.raises(IllegalAction, match="not a Yinsh move"):
        GAME.apply(state, 1, TwoConnectAction(((YI, YinshMove(None, 999)),)))
    with pytest.raises(IllegalAction, match="not a Squava square"):
        GAME.apply(state, 1, TwoConnectAction(((SQ, 25),)))
    with pytest.raises(IllegalAction, match="at least one move"):
        GAME.apply(state, 1, TwoConnectAction(()))


def test_the_host_and_spectators_cannot_move() -> None:
    state = GAME.new()
    for viewer in (HOST, SPECTATOR):
        with pytest.raises(IllegalAction, match="not your turn"):
            play(state, viewer, "squava C3")


def test_yinsh_is_spelled_one_way_in_refusals_and_rules() -> None:
    """Issue 56: "YINSH" in refusals, "Yinsh" elsewhere; now "Yinsh" everywhere a player reads."""
    from games.core.errors import NotationError
    from games.two_connect.howto import YINSH as HOWTO
    from games.two_connect.yinsh import parse_point

    with pytest.raises(NotationError) as refused:
        parse_point("Z99")
    assert "Yinsh point" in str(refused.value) and "YINSH" not in str(refused.value)
    assert "'Z99'" in str(refused.value)  # echoed as typed
    assert "YINSH" not in repr(HOWTO)
