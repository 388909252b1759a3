"""Acceptance tests for YINSH (blitz), alone and on the Two Connect board.

Written from shared/DESIGN.md, RULINGS.md section 3 and shared/rules/yinsh.md
only, driving the game through the public interface (get_game("yinsh") /
get_game("two-connect"): new, parse, apply, format, legal_actions, to_act,
result, view, dump, load).  Every position is reached by real moves from a
fresh game; every move count below is derived by hand in the comment above it.

Geometry used in the derivations (yinsh.md): columns A-K, valid numbers
A 2-5, B 1-7, C 1-8, D 1-9, E 1-10, F 2-10, G 2-11, H 3-11, I 4-11, J 5-11,
K 7-10.  Lines: same letter (number +-1), same number (letter +-1), and
letter and number together (+1,+1 / -1,-1).  (+1,-1) is not a line.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

from games.core import HOST, SPECTATOR, Game, IllegalAction, NotationError, RuleError
from games.registry import get_game
from tests.games import playing

YINSH = get_game("yinsh")
play = functools.partial(playing.play, YINSH)
TC = get_game("two-connect")
LETTERS = "ABCDEFGHIJK"


# -- helpers -------------------------------------------------------------------


def formula_points() -> set[str]:
    """The 85 points from yinsh.md's formula (independent of the table)."""
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


def ring_moves_from(state: Any, seat: int, src: str) -> list[str]:
    return sorted(m for m in moves_of(state, seat) if m.startswith(f"{src}-"))


def public(state: Any, game: Game[Any, Any] = YINSH) -> dict[str, Any]:
    shown: dict[str, Any] = game.view(state, SPECTATOR)["public"]
    return shown


# -- geometry: the 85 placement points -------------------------------------------


def test_formula_and_table_agree_on_85_points() -> None:
    table = {"A": (2, 5), "B": (1, 7), "C": (1, 8), "D": (1, 9), "E": (1, 10), "F": (2, 10),
             "G": (2, 11), "H": (3, 11), "I": (4, 11), "J": (5, 11), "K": (7, 10)}
    from_table = {f"{c}{n}" for c, (lo, hi) in table.items() for n in range(lo, hi + 1)}
    assert from_table == POINTS
    assert len(POINTS) == 85


def test_fresh_board_offers_exactly_the_85_ring_placements() -> None:
    state = YINSH.new()
    assert YINSH.to_act(state) == frozenset({1})
    moves = moves_of(state, 1)
    assert len(moves) == 85
    assert {m.removeprefix("ring ") for m in moves} == POINTS
    assert all(m.startswith("ring ") for m in moves)
    # seat 2 may not act first
    assert list(YINSH.legal_actions(state, 2)) == []


def test_after_one_ring_84_placements_remain_for_the_other_seat() -> None:
    state = play(YINSH.new(), 1, "ring F6")
    assert YINSH.to_act(state) == frozenset({2})
    moves = moves_of(state, 2)
    assert len(moves) == 84 and "ring F6" not in moves


@pytest.mark.parametrize("name", ["A1", "A6", "F1", "F11", "K6", "K11", "L5", "A12", "B0", "B8", "K5", "E11"])
def test_points_off_the_board_are_notation_errors_naming_the_text(name: str) -> None:
    state = YINSH.new()
    with pytest.raises(NotationError) as info:
        YINSH.parse(state, 1, f"ring {name}")
    assert name.lower() in str(info.value).lower()


def test_ring_on_an_occupied_point_is_refused() -> None:
    state = play(YINSH.new(), 1, "ring E5")
    refused(state, 2, "ring E5", r"E5.*(not empty|occupied)")


# -- move-count fixtures ----------------------------------------------------------

# Position P: ring placements, seat 1 first, alternating:
#   seat 1 rings: F6 A2 B1 K10 K7      seat 2 rings: F9 C6 H8 J11 G11
P_PLACEMENTS = ["ring F6", "ring F9", "ring A2", "ring C6", "ring B1", "ring H8",
                "ring K10", "ring J11", "ring K7", "ring G11"]


def position_p() -> Any:
    return play(YINSH.new(), *P_PLACEMENTS)


def test_position_p_seat_1_has_84_ring_moves() -> None:
    # After 10 placements seat 1 (5 rings) moves a ring.  Only empty points and
    # rings; no markers yet, so every move runs over empty points and stops
    # before the first ring.
    #
    # F6:  F up F5 F4 F3 F2 (4); F down F7 F8, F9 is a ring (2);
    #      row 6 left E6 D6, C6 is a ring (2); right G6 H6 I6 J6 (K6 is no point) (4);
    #      (+1,+1) G7, H8 is a ring (1); (-1,-1) E5 D4 C3 B2 (A1 is no point) (4)   = 17
    # A2:  A3 A4 A5 (3); row 2 B2..G2 (H2 is no point) (6);
    #      (+1,+1) B3 C4 D5 E6 F7 G8 H9 I10, J11 is a ring (8)                     = 17
    # B1:  B2..B7 (6); row 1 C1 D1 E1 (F1 is no point) (3);
    #      (+1,+1) C2 D3 E4 F5 G6 H7 I8 J9, K10 is a ring (8)                       = 17
    # K10: K9 K8, K7 is a ring (2); K11 is no point (0); row 10 J10..E10 (6);
    #      (-1,-1) J9 I8 H7 G6 F5 E4 D3 C2, B1 is a ring (8)                        = 16
    # K7:  K8 K9, K10 is a ring (2); K6 no point (0); row 7 J7..B7 (9);
    #      (-1,-1) J6 I5 H4 G3 F2 E1 (6)                                             = 17
    # total 17 + 17 + 17 + 16 + 17 = 84
    state = position_p()
    assert YINSH.to_act(state) == frozenset({1})
    moves = moves_of(state, 1)
    assert len(moves) == 84
    assert not any(m.startswith("ring") for m in moves)
    assert ring_moves_from(state, 1, "F6") == sorted(
        f"F6-{p}" for p in ["F5", "F4", "F3", "F2", "F7", "F8", "E6", "D6", "G6", "H6", "I6", "J6",
                            "G7", "E5", "D4", "C3", "B2"]
    )
    counts = {src: len(ring_moves_from(state, 1, src)) for src in ["F6", "A2", "B1", "K10", "K7"]}
    assert counts == {"F6": 17, "A2": 17, "B1": 17, "K10": 16, "K7": 17}


def test_position_p_after_f6_f8_seat_2_has_76_moves_with_a_jump() -> None:
    # Seat 1 plays F6-F8: a seat-1 marker on F6, the ring now on F8.
    # Seat 2's rings F9 C6 H8 J11 G11:
    # F9:  up F8 is a ring (0); down F10 (1); row 9 E9 D9 (C9 no point) (2),
    #      G9 H9 I9 J9 K9 (5); (+1,+1) G10 H11 (2); (-1,-1) E8 D7, C6 is a ring (2)  = 12
    # C6:  C5 C4 C3 C2 C1 (5); C7 C8 (2); row 6 left B6 (A6 no point) (1);
    #      right D6 E6, then the marker on F6 is jumped and the ring must stop on
    #      G6 (3); (+1,+1) D7 E8, F9 is a ring (2); (-1,-1) B5 A4 (2)                = 15
    # H8:  H7..H3 (5); H9 H10 H11 (3); row 8 G8, F8 is a ring (1); I8 J8 K8 (3);
    #      (+1,+1) I9 J10 (2); (-1,-1) G7, jump F6, stop on E5 (2)                   = 16
    # J11: J10..J5 (6); row 11 I11 H11, G11 is a ring (2);
    #      (-1,-1) I10 H9 G8 F7 E6 D5 C4 B3, A2 is a ring (8)                        = 16
    # G11: G10..G2 (9); row 11 H11 I11, J11 is a ring (2); F11 no point (0);
    #      (-1,-1) F10 E9 D8 C7 B6 A5 (6)                                            = 17
    # total 12 + 15 + 16 + 16 + 17 = 76
    state = play(position_p(), 1, "F6-F8")
    view = public(state)
    assert view["markers"]["1"] == ["F6"] and view["markers"]["2"] == []
    moves = moves_of(state, 2)
    assert len(moves) == 76
    counts = {src: len(ring_moves_from(state, 2, src)) for src in ["F9", "C6", "H8", "J11", "G11"]}
    assert counts == {"F9": 12, "C6": 15, "H8": 16, "J11": 16, "G11": 17}
    assert ring_moves_from(state, 2, "C6") == sorted(
        f"C6-{p}" for p in ["C5", "C4", "C3", "C2", "C1", "C7", "C8", "B6", "D6", "E6", "G6",
                            "D7", "E8", "B5", "A4"]
    )
    assert "H8-E5" in moves and "H8-D4" not in moves


def test_a_jump_flips_the_markers_but_not_the_dropped_one() -> None:
    state = play(position_p(), 1, "F6-F8")
    state = play(state, 2, "C6-G6")  # seat 2 marker on C6, jumps seat 1's F6 marker
    view = public(state)
    assert sorted(view["markers"]["2"]) == ["C6", "F6"]
    assert view["markers"]["1"] == []
    assert "G6" in view["rings"]["2"] and "C6" not in view["rings"]["2"]


def test_illegal_ring_moves_name_the_rule() -> None:
    state = play(position_p(), 1, "F6-F8")
    # after the jump the ring must stop on the first empty point (G6), not H6
    refused(state, 2, "C6-H6", r"G6", r"first empty", r"stop")
    # a ring never passes over a ring
    refused(state, 2, "F9-F7", r"F8", r"ring")
    # never stops on an occupied point
    refused(state, 2, "F9-F8", r"F8.*(not empty|occupied)", r"occupied")
    # (+1,-1) is not a line
    refused(state, 2, "C6-D5", r"line", r"straight")
    # only your own ring
    refused(state, 2, "F8-F7", r"(your|own).*ring|ring.*(your|own)|no ring")
    # no ring on the source point
    refused(state, 2, "E5-E6", r"E5", r"ring")
    # seat 2 has all five rings: no more placements
    refused(state, 2, "ring E2", r"5 rings|five rings|all.*rings|placed")
    # not seat 1's turn
    refused(state, 1, "F8-F7", r"not your turn")


def test_ring_moves_before_five_rings_are_refused() -> None:
    state = play(YINSH.new(), *["ring F6", "ring F9"])
    refused(state, 1, "F6-F7", r"5 rings|five rings|place", r"rings")


def test_a_ring_cannot_move_beyond_markers_that_reach_the_edge_or_a_ring() -> None:
    # Walk seat 1's B1 ring down column B: B1-B2 leaves a marker on B1.
    # P after "B1-B2" then seat 2 "G11-G10": the B2 ring's column B downward:
    # B3..B7 empty (5); upward: B1 is a marker and behind it the edge: no move.
    state = play(position_p(), *["B1-B2", "G11-G10"])
    dests = ring_moves_from(state, 1, "B2")
    assert "B2-B1" not in dests
    assert [d for d in dests if d in {f"B2-B{n}" for n in range(3, 8)}] == [f"B2-B{n}" for n in range(3, 8)]
    # row 2 from B2: left A2 is a seat-1 ring (0); right C2 D2 E2 F2 G2 (5);
    # (+1,+1) C3 D4 E5 F6?  F6 is seat 1's ring: C3 D4 E5 (3); (-1,-1) A1 no point (0)
    # column: B3..B7 (5); up: marker B1 then the edge (0)   -> 5 + 5 + 3 = 13
    assert len(dests) == 13
    refused(state, 1, "B2-B1", r"B1.*(not empty|occupied)", r"occupied")


# -- blitz: rows ----------------------------------------------------------------------

# Row positions: placements seat 1 first, alternating:
#   seat 1 rings E6 E5 B5 F5 K10; seat 2 rings C6 D6 F6 G6 J11.
ROW_PLACEMENTS = ["ring E6", "ring C6", "ring E5", "ring D6", "ring B5", "ring F6",
                  "ring F5", "ring G6", "ring K10", "ring J11"]
# Seat 1 leaves markers on E6 (E6-F7), B5, C5, D5 (walking B5-C5-D5-D4);
# seat 2 leaves markers on C6 D6 F6 G6.  Row 6 then reads C6 D6 (2) E6 (1) F6 G6 (2).
ROW_MOVES = ["E6-F7", "C6-C7", "B5-C5", "D6-D7", "C5-D5", "F6-G7", "D5-D4", "G6-H7"]


def test_rows_for_both_players_win_for_the_mover() -> None:
    # Seat 1 also leaves a marker on F5 (F5-F4), so row 5 reads B5 C5 D5 (1),
    # E5 seat 1's ring, F5 (1).  Then E5-E7 drops a seat-1 marker on E5 (row 5:
    # B5..F5 all seat 1) and jumps E6, which flips to seat 2 (row 6: C6..G6 all
    # seat 2).  Both players have a row: the mover, seat 1, wins the board.
    state = play(YINSH.new(), *ROW_PLACEMENTS + ROW_MOVES + ["F5-F4", "J11-J10"])
    assert YINSH.result(state) is None
    assert YINSH.to_act(state) == frozenset({1})
    state = play(state, 1, "E5-E7")
    result = YINSH.result(state)
    assert result is not None and result.winners == frozenset({1}) and result.reason == "row"
    assert YINSH.to_act(state) == frozenset()
    refused(state, 2, "J10-J9", r"over|finished|ended")


def test_a_row_only_for_the_opponent_wins_for_the_opponent() -> None:
    # As above, but seat 1 plays K10-K9 instead of F5-F4: F5 keeps its ring,
    # so E5-E7 makes a row only for seat 2 (C6..G6 after the flip).
    state = play(YINSH.new(), *ROW_PLACEMENTS + ROW_MOVES + ["K10-K9", "J11-J10"])
    state = play(state, 1, "E5-E7")
    result = YINSH.result(state)
    assert result is not None and result.winners == frozenset({2}) and result.reason == "row"


def test_jumping_too_far_in_the_row_position_is_refused() -> None:
    state = play(YINSH.new(), *ROW_PLACEMENTS + ROW_MOVES + ["K10-K9", "J11-J10"])
    refused(state, 1, "E5-E8", r"E7", r"first empty", r"stop")


def test_the_first_row_by_walking_a_ring_wins() -> None:
    # P, then seat 1 walks its B1 ring down column B leaving markers B1..B5;
    # seat 2 moves other rings without lining up markers.
    moves = ["B1-B2", "G11-G10", "B2-B3", "J11-J10", "B3-B4", "F9-F10", "B4-B5", "H8-H9"]
    state = play(position_p(), *moves)
    assert YINSH.result(state) is None
    state = play(state, 1, "B5-B6")
    result = YINSH.result(state)
    assert result is not None and result.winners == frozenset({1}) and result.reason == "row"


def test_the_markers_run_out_and_the_board_is_drawn() -> None:
    # 51 markers are shared; the dump carries the supply.  Lower it to 1 in a
    # dumped position P (JSON round trip), then one ring move uses the last one.
    state = position_p()
    data = json.loads(json.dumps(YINSH.dump(state)))
    board = data.get("board", data)
    assert board["markers_left"] == 51
    board["markers_left"] = 1
    state = YINSH.load(data)
    assert public(state)["markers_left"] == 1
    state = play(state, 1, "F6-F7")
    result = YINSH.result(state)
    assert result is not None and result.winners == frozenset()
    assert YINSH.to_act(state) == frozenset()


# -- notation -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["yinsh ring E5", "ring E5", "ring e5", "  YINSH   ring   e5 ", "yinsh ring e5."])
def test_placement_notation_with_or_without_the_board_word(text: str) -> None:
    state = YINSH.new()
    action = YINSH.parse(state, 1, text)
    assert YINSH.format(action) == "ring E5"
    assert action == YINSH.parse(state, 1, "yinsh ring E5")


@pytest.mark.parametrize("text", ["yinsh F6-F8", "F6-F8", "f6-f8", "yinsh f6 - f8", "F6 to F8", "yinsh F6\u2013F8"])
def test_ring_move_notation_with_or_without_the_board_word(text: str) -> None:
    state = position_p()
    action = YINSH.parse(state, 1, text)
    assert YINSH.format(action) == "F6-F8"
    after = YINSH.apply(state, 1, action)
    assert public(after)["markers"]["1"] == ["F6"]


@pytest.mark.parametrize("text", ["", "   ", "yinsh", "ring", "squava C3", "gomoku H7", "E5-E8-E9", "ring Z9", "hello"])
def test_bad_notation_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError) as info:
        YINSH.parse(YINSH.new(), 1, text)
    assert str(info.value)


def test_format_parse_round_trip_over_every_legal_action() -> None:
    for state in (YINSH.new(), position_p(), play(position_p(), 1, "F6-F8")):
        (seat,) = YINSH.to_act(state)
        for action in YINSH.legal_actions(state, seat):
            assert YINSH.parse(state, seat, YINSH.format(action)) == action


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


def test_players_alternate_during_placement_and_movement() -> None:
    state = YINSH.new()
    seen = []
    for text in [*P_PLACEMENTS, "F6-F8", "C6-G6"]:
        (seat,) = YINSH.to_act(state)
        seen.append(seat)
        state = play(state, seat, text)
    assert seen == [1, 2] * 6


def test_views_are_json_and_hide_nothing_between_audiences() -> None:
    state = play(position_p(), 1, "F6-F8")
    views = {v: YINSH.view(state, v) for v in (1, 2, SPECTATOR, HOST)}
    for view in views.values():
        json.dumps(view)
    publics = {json.dumps(v["public"], sort_keys=True) for v in views.values()}
    assert len(publics) == 1


def test_dump_load_round_trip_keeps_play_identical() -> None:
    state = play(position_p(), 1, "F6-F8")
    again = YINSH.load(json.loads(json.dumps(YINSH.dump(state))))
    assert YINSH.dump(again) == YINSH.dump(state)
    assert moves_of(again, 2) == moves_of(state, 2)
    assert YINSH.to_act(again) == YINSH.to_act(state)


def test_apply_does_not_mutate_under_deepcopy_comparison() -> None:
    state = position_p()
    snapshot = copy.deepcopy(YINSH.dump(state))
    YINSH.apply(state, 1, YINSH.parse(state, 1, "F6-F8"))
    assert YINSH.dump(state) == snapshot


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


# -- an independent reference move generator, from yinsh.md alone ----------------------

LINE_STEPS = ((0, 1), (1, 0), (1, 1), (0, -1), (-1, 0), (-1, -1))


def _split(name: str) -> tuple[int, int]:
    return LETTERS.index(name[0]), int(name[1:])


def _name(col: int, number: int) -> str:
    return f"{LETTERS[col]}{number}"


def reference_ring_moves(view: Mapping[str, Any], seat: int) -> set[str]:
    """Every ring move of `seat` from a public view, by the rules of yinsh.md."""
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
    """(markers by point after `move`, set of seats with a row of 5) by yinsh.md."""
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
