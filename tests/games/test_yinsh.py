"""YINSH blitz, alone and as the rules of the Two Connect board.

The rules: yinsh.py's docstring.  Every move-count fixture below is
derived by hand from those rules; the derivation is in the comment above it.

Random games against a reference move generator written from those rules alone: test_yinsh_reference.py.
"""

from __future__ import annotations

import functools

import pytest

from games.core import SPECTATOR, IllegalAction, NotationError
from games.registry import get_game
from games.two_connect.board import SoloState
from games.two_connect.yinsh import NAMES, RAYS, YinshBoard, YinshMove, YinshRules, parse_point
from tests.games import playing

GAME = get_game("yinsh")
play = functools.partial(playing.play, GAME)
RULES = YinshRules()


# five rings of seat 1 / seat 2 kept out of the way of the fixtures below
FAR1 = "K7 K8 K9 K10"
FAR2 = "J11 I11 H11 G11 E10"


def p(name: str) -> int:
    return parse_point(name)


def destinations_from(board: YinshBoard, player: int, src: str) -> set[str]:
    return {NAMES[m.to] for m in RULES.legal_moves(board, player) if m.frm == p(src)}


def cell(board: YinshBoard, name: str) -> int:
    return board.cells[p(name)]


def blocked_board() -> YinshBoard:
    # E5 ring of seat 1; E8 ring of seat 2; markers on E3 E4; F6 own ring
    return RULES.from_points(
        rings1="E5 F6 K8 K9 K10",
        rings2="E8 J11 I11 H11 G11",
        markers1="E3",
        markers2="E4",
    )


def stuck_seat_one() -> YinshBoard:
    # Seat 1's rings A2 A3 A4 B2 B3 are boxed in:
    #  A2: A3, B2, B3 are rings (A1 is not a point, nothing left of A).
    #  A3: A4, A2, B3 rings; B4 a ring of seat 2.
    #  A4: A5 a marker with the edge behind it (A6 is not a point); A3, B4, B5 rings.
    #  B2: B3, C2, A2, C3 rings; B1 a marker with the edge behind it; A1 not a point.
    #  B3: B4, B2, C3, A3, C4, A2 all rings.
    return RULES.from_points(rings1="A2 A3 A4 B2 B3", rings2="B4 B5 C2 C3 C4", markers1="A5 B1")


# -- geometry ------------------------------------------------------------------


def test_the_85_placement_points_column_by_column() -> None:
    # the table of yinsh.py's docstring: the valid numbers of each column
    expected = {
        "A": set(range(2, 6)), "B": set(range(1, 8)), "C": set(range(1, 9)), "D": set(range(1, 10)),
        "E": set(range(1, 11)), "F": set(range(2, 11)), "G": set(range(2, 12)), "H": set(range(3, 12)),
        "I": set(range(4, 12)), "J": set(range(5, 12)), "K": set(range(7, 11)),
    }
    moves = list(GAME.legal_actions(GAME.new(), 1))
    assert len(moves) == 85
    found: dict[str, set[int]] = {letter: set() for letter in expected}
    for move in moves:
        assert move.frm is None  # placement phase: only ring placements
        name = NAMES[move.to]
        found[name[0]].add(int(name[1:]))
    assert found == expected
    assert sum(len(v) for v in expected.values()) == 85


@pytest.mark.parametrize("corner", ["A1", "A6", "F1", "F11", "K6", "K11"])
def test_the_six_corners_are_not_points(corner: str) -> None:
    with pytest.raises(NotationError, match="expected a Yinsh point"):
        parse_point(corner)


@pytest.mark.parametrize("text", ["L5", "A7", "B0", "K12", "E11"])
def test_points_off_the_board_are_notation_errors(text: str) -> None:
    with pytest.raises(NotationError, match="expected a Yinsh point"):
        GAME.parse(GAME.new(), 1, f"ring {text}")


# -- placement -----------------------------------------------------------------


def test_fewer_than_five_rings_means_placing_a_ring_on_an_empty_point() -> None:
    state = play(GAME.new(), 1, "ring E5")
    assert cell(state.board, "E5") == 1
    state = play(state, 2, "ring F6")
    # 85 points minus the two rings
    assert len(list(GAME.legal_actions(state, 1))) == 83
    with pytest.raises(IllegalAction, match="E5 is not empty"):
        play(state, 1, "ring E5")


def test_a_ring_cannot_move_before_all_five_are_placed() -> None:
    state = play(GAME.new(), 1, "ring E5")
    state = play(state, 2, "ring K7")
    with pytest.raises(IllegalAction, match="must place all 5 rings"):
        play(state, 1, "E5-E8")


def test_a_sixth_ring_cannot_be_placed() -> None:
    board = RULES.from_points(rings1="E5 " + FAR1, rings2=FAR2)
    with pytest.raises(IllegalAction, match="already placed all 5 rings"):
        RULES.play(board, 1, YinshMove(None, p("C3")))


def test_after_placing_five_rings_a_turn_is_a_ring_move() -> None:
    board = RULES.from_points(rings1="F6 " + FAR1, rings2=FAR2)
    assert all(m.frm is not None for m in RULES.legal_moves(board, 1))


# -- ring moves: hand-derived fixtures -------------------------------------------


def test_lone_ring_in_the_centre_has_24_moves() -> None:
    # F6 on an empty board.  Column F (valid 2-10): F2 F3 F4 F5 and F7 F8 F9 F10.
    # Number 6: columns with 6 in range are B..J (A stops at 5, K starts at 7):
    # B6 C6 D6 E6 and G6 H6 I6 J6.  Letter and number together: E5 D4 C3 B2
    # (A1 is a corner, not a point) and G7 H8 I9 J10 (K11 is a corner).
    # The other diagonal (G5, E7, ...) is not a line.  4 * 6 = 24.
    board = RULES.from_points(rings1="F6 A2 A3 A4 A5", rings2=FAR2)
    assert destinations_from(board, 1, "F6") == {
        "F2", "F3", "F4", "F5", "F7", "F8", "F9", "F10",
        "B6", "C6", "D6", "E6", "G6", "H6", "I6", "J6",
        "E5", "D4", "C3", "B2", "G7", "H8", "I9", "J10",
    }


def test_ring_moves_with_jumps_and_blocked_lines() -> None:
    # Ring of seat 1 on E5.
    # - number down (E4, E3, ...): E4 and E3 are markers (both colours), E2 is empty:
    #   the ring jumps the group and must stop on E2 (not E1)          -> E2
    # - number up: E6, E7 empty, E8 a ring (never passed)            -> E6 E7
    # - letter down (D5, C5, B5, A5): D5 empty, then markers C5 B5 A5 and the edge:
    #   no empty point behind the group, so no landing after it      -> D5
    # - letter up: F5 a marker, G5 empty: jump and stop               -> G5
    # - both up: F6 is a ring of its own                              -> nothing
    # - both down: D4, C3 empty, B2 a marker, then A1 is not a point   -> D4 C3
    board = RULES.from_points(
        rings1="E5 F6 K8 K9 K10",
        rings2="E8 J11 I11 H11 G11",
        markers1="E3 C5 A5",
        markers2="E4 B5 F5 B2",
    )
    assert destinations_from(board, 1, "E5") == {"E2", "E6", "E7", "D5", "G5", "D4", "C3"}


def test_ring_on_the_edge_with_jumps() -> None:
    # Ring of seat 1 on K7 (column K holds 7-10).
    # - number up: K8 empty, K9 a ring                                  -> K8
    # - number down: K6 is a corner, not a point                       -> nothing
    # - letter up / both up: no column after K                         -> nothing
    # - letter down along number 7: J7, I7 markers, H7 empty: stop     -> H7
    # - both down: J6, I5 empty, H4 a marker, G3 empty: stop on G3      -> J6 I5 G3
    board = RULES.from_points(
        rings1="K7 K9 A2 A3 A4",
        rings2=FAR2,
        markers1="J7 H4",
        markers2="I7",
    )
    assert destinations_from(board, 1, "K7") == {"K8", "H7", "J6", "I5", "G3"}


def test_lone_ring_on_the_edge_counts_eighteen() -> None:
    # K7 alone: K8 K9 K10 (3); along number 7 the letters J..B (A stops at 5): 9;
    # both down: J6 I5 H4 G3 F2 E1 (D0 is not a point): 6.  3 + 9 + 6 = 18.
    board = RULES.from_points(rings1="K7 A2 A3 A4 A5", rings2=FAR2)
    assert len(destinations_from(board, 1, "K7")) == 18


def test_total_ring_moves_of_a_position() -> None:
    # Seat 1 rings A2 A3 A4 A5 F6 (seat 2 on J11 I11 H11 G11 E10).
    # A2: A3 is a ring; B2 C2 D2 E2 F2 G2 along number 2 (H2 is not a point): 6;
    #     both up: B3 C4 D5 E6 then F7 ... J11? J11 is a ring of seat 2: B3 C4 D5 E6 F7 G8 H9 I10 = 8.
    # A3: A4 and A2 rings; number 3: B3 C3 D3 E3 F3 G3 H3 = 7; both up B4 C5 D6 E7 F8 G9 H10
    #     (I11 is a ring) = 7.
    # A4: number 4: B4 ... I4 = 8; both up: B5 C6 D7 E8 F9 G10 (H11 ring) = 6.
    # A5: number 5: B5 ... J5 = 9; both up: B6 C7 D8 E9 F10 (G11 ring) = 5.
    # F6: 24 as in the lone-ring fixture.
    # total = 14 + 14 + 14 + 14 + 24 = 80
    board = RULES.from_points(rings1="A2 A3 A4 A5 F6", rings2=FAR2)
    assert len(list(RULES.legal_moves(board, 1))) == 80


# -- ring move errors ------------------------------------------------------------


@pytest.mark.parametrize(
    ("frm", "to", "message"),
    [
        ("E5", "E9", "cannot pass over the ring on E8"),
        ("E5", "E1", "must stop on the first empty point, E2"),
        ("E5", "E4", "E4 is not empty"),
        ("E5", "E8", "E8 is not empty"),
        ("E5", "F4", "E5 and F4 are not on one line"),  # the other diagonal is not a line
        ("E5", "G6", "not on one line"),
        ("E5", "G7", "cannot pass over the ring on F6"),
        ("D5", "D6", "no ring of yours on D5"),
        ("E8", "E9", "no ring of yours on E8"),
        ("E5", "E5", "must move to another point"),
    ],
)
def test_illegal_ring_moves_name_the_rule(frm: str, to: str, message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        RULES.play(blocked_board(), 1, YinshMove(p(frm), p(to)))


# -- markers and flips -----------------------------------------------------------


def test_the_ring_leaves_a_marker_and_jumped_markers_flip() -> None:
    # C3 ring moves up column C over C4 (seat 1), C5 (seat 2), C6 (seat 1) to C7
    board = RULES.from_points(
        rings1="C3 " + FAR1, rings2=FAR2, markers1="C4 C6", markers2="C5",
    )
    after = RULES.play(board, 1, YinshMove(p("C3"), p("C7")))
    assert cell(after, "C3") == 3  # the marker left behind is seat 1's, not flipped
    assert [cell(after, n) for n in ("C4", "C5", "C6")] == [4, 3, 4]
    assert cell(after, "C7") == 1
    assert after.markers_left == 51 - 4
    assert after.winner is None


def test_a_move_without_a_jump_flips_nothing() -> None:
    board = RULES.from_points(rings1="C3 " + FAR1, rings2=FAR2, markers2="D4")
    after = RULES.play(board, 1, YinshMove(p("C3"), p("C6")))
    assert cell(after, "D4") == 4
    assert cell(after, "C3") == 3


# -- rows ------------------------------------------------------------------------


def test_five_markers_in_a_row_win_the_board_for_the_mover() -> None:
    # A5 B5 C5 D5 are seat 1's markers; the ring on E5 leaves the fifth
    board = RULES.from_points(rings1="E5 " + FAR1, rings2=FAR2, markers1="A5 B5 C5 D5")
    after = RULES.play(board, 1, YinshMove(p("E5"), p("E6")))
    assert after.winner == 1
    assert after.reason == "row"


def test_a_row_made_only_for_the_opponent_wins_for_the_opponent() -> None:
    # column G: G2 G3 G5 G6 are seat 2's, G4 is seat 1's; the ring F4 jumps G4 to H4,
    # G4 flips and completes seat 2's row G2-G6
    board = RULES.from_points(
        rings1="F4 " + FAR1, rings2="A2 A3 A4 A5 B1", markers1="G4", markers2="G2 G3 G5 G6",
    )
    after = RULES.play(board, 1, YinshMove(p("F4"), p("H4")))
    assert after.winner == 2
    assert after.reason == "row"


def test_rows_for_both_players_win_for_the_mover() -> None:
    # as above, and the marker left on F4 completes seat 1's column F4-F8
    board = RULES.from_points(
        rings1="F4 " + FAR1, rings2="A2 A3 A4 A5 B1",
        markers1="G4 F5 F6 F7 F8", markers2="G2 G3 G5 G6",
    )
    after = RULES.play(board, 1, YinshMove(p("F4"), p("H4")))
    assert after.winner == 1
    assert after.reason == "row"


def test_rings_do_not_count_in_a_row() -> None:
    board = RULES.from_points(rings1="E5 D5 " + "K8 K9 K10", rings2=FAR2, markers1="A5 B5 C5")
    after = RULES.play(board, 1, YinshMove(p("E5"), p("E6")))
    assert after.winner is None


def test_rows_along_the_non_line_diagonal_do_not_count() -> None:
    # D8 E7 F6 G5 H4 (letter +1, number -1) are not on a line: the ring H4 leaves the fifth
    board = RULES.from_points(rings1="H4 " + FAR1, rings2=FAR2, markers1="G5 F6 E7 D8")
    after = RULES.play(board, 1, YinshMove(p("H4"), p("H5")))
    assert after.winner is None


def test_standalone_game_reports_the_row() -> None:
    board = RULES.from_points(rings1="E5 " + FAR1, rings2=FAR2, markers1="A5 B5 C5 D5")
    state = play(SoloState(board=board, to_move=1), 1, "E5-E6")
    result = GAME.result(state)
    assert result is not None
    assert result.winners == {1}
    assert result.reason == "row"
    assert GAME.to_act(state) == frozenset()


# -- marker supply -----------------------------------------------------------------


def test_when_the_last_marker_is_used_without_a_row_the_board_is_drawn() -> None:
    board = RULES.from_points(rings1="C3 " + FAR1, rings2=FAR2, markers_left=1)
    after = RULES.play(board, 1, YinshMove(p("C3"), p("C6")))
    assert after.markers_left == 0
    assert after.winner == 0
    assert after.reason == "markers"
    state = SoloState(board=board, to_move=1)
    result = GAME.result(play(state, 1, "C3-C6"))
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason == "markers"


def test_a_row_made_with_the_last_marker_still_wins() -> None:
    board = RULES.from_points(rings1="E5 " + FAR1, rings2=FAR2, markers1="A5 B5 C5 D5", markers_left=1)
    after = RULES.play(board, 1, YinshMove(p("E5"), p("E6")))
    assert after.winner == 1
    assert after.reason == "row"


# -- no-move boards ------------------------------------------------------------------


def test_a_player_whose_rings_are_all_blocked_cannot_move() -> None:
    board = stuck_seat_one()
    assert list(RULES.legal_moves(board, 1)) == []
    assert not RULES.can_move(board, 1)
    assert RULES.can_move(board, 2)
    assert board.winner is None


def test_standalone_player_without_a_ring_move_passes_automatically() -> None:
    state = SoloState(board=stuck_seat_one(), to_move=2)
    # C2-D2 leaves a marker on C2, behind which D2 is now a ring: seat 1 is still boxed in
    state = play(state, 2, "C2-D2")
    assert GAME.to_act(state) == {2}
    assert GAME.result(state) is None
    # C4-C5 leaves a marker on C4 and frees B3 (jump C4, land D5): seat 1 moves again
    state = play(state, 2, "C4-C5")
    assert GAME.to_act(state) == {1}
    assert "B3-D5" in {GAME.format(a) for a in GAME.legal_actions(state, 1)}


def test_board_where_neither_player_can_move_is_drawn() -> None:
    # synthetic: seat 1 boxed in as above; seat 2 places its fifth ring on C4, and every
    # line out of seat 2's rings B4 B5 C2 C3 C4 is filled with markers up to the edge or a
    # ring (more markers than a real game could hold, so the supply is set by hand)
    rings2 = "B4 B5 C2 C3"
    rings = {p(n) for n in ["A2", "A3", "A4", "B2", "B3", "B4", "B5", "C2", "C3", "C4"]}
    fill = []
    for start in (p(n) for n in ["B4", "B5", "C2", "C3", "C4"]):
        for ray in RAYS[start]:
            for q in ray:
                if q in rings:
                    break
                fill.append(NAMES[q])
    markers = sorted(set(fill) - {"A5", "B1"})
    board = RULES.from_points(
        rings1="A2 A3 A4 B2 B3", rings2=rings2, markers1="A5 B1 " + " ".join(markers), markers_left=5,
    )
    after = RULES.play(board, 2, YinshMove(None, p("C4")))
    assert after.winner == 0
    assert after.reason == "blocked"


# -- notation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ring E5", (None, "E5")),
        ("yinsh ring e5", (None, "E5")),
        ("place a ring on e5.", (None, "E5")),
        ("E5", (None, "E5")),
        ("E5-E8", ("E5", "E8")),
        ("yinsh e5 - e8", ("E5", "E8")),
        ("move ring from E5 to E8", ("E5", "E8")),
        ("e5 e8", ("E5", "E8")),
        ("E5 to E8", ("E5", "E8")),
        ("yinsh E5\u2013E8", ("E5", "E8")),
        ("  YINSH   ring   e5 ", (None, "E5")),
    ],
)
def test_notation(text: str, expected: tuple[str | None, str]) -> None:
    frm, to = expected
    assert GAME.parse(GAME.new(), 1, text) == YinshMove(None if frm is None else p(frm), p(to))


def test_format_is_canonical() -> None:
    assert GAME.format(YinshMove(None, p("E5"))) == "ring E5"
    assert GAME.format(YinshMove(p("E5"), p("E8"))) == "E5-E8"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ring", "which point"),
        ("E5-E8-E9", "expected a ring placement like 'ring E5' or a ring move like 'E5-E8'"),
        ("ring A1", "expected a Yinsh point like E5"),
        ("squava C3", "this is a Yinsh game"),
    ],
)
def test_bad_notation(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        GAME.parse(GAME.new(), 1, text)


# -- views and storage -----------------------------------------------------------------


def test_view_shows_rings_markers_and_supply() -> None:
    board = RULES.from_points(rings1="C3 " + FAR1, rings2=FAR2, markers2="D4")
    state = play(SoloState(board=board, to_move=1), 1, "C3-C6")
    public = GAME.view(state, SPECTATOR)["public"]
    assert public["rings"]["1"] == sorted(["C6", *FAR1.split()], key=NAMES.index)
    assert public["markers"] == {"1": ["C3"], "2": ["D4"]}
    assert public["markers_left"] == 49
    assert public["rings_in_hand"] == {"1": 0, "2": 0}
    assert public["last"] == "C3-C6"
    assert public["last_squares"] == ["C3", "C6"]
    assert public["status"] == "open"
    assert len(public["points"]) == 85
    assert GAME.load(GAME.dump(state)) == state
