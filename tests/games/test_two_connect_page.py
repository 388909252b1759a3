"""games/two_connect/page.py: the view shaping behind the Two Connect, Squava,
Gomoku and Yinsh pages.  The Yinsh lattice is the one yinsh.py describes; the
page's click refusals are the words the rules refuse those moves with; ring
destinations and flips come from the rules; the last turn is lit on its own
boards only; a decided board is announced in the status line and the log."""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from games.core import HOST, SPECTATOR, IllegalAction, RuleError
from games.registry import get_game
from games.two_connect import drawing, page
from games.two_connect.yinsh import (
    COLUMN_RANGES,
    NAMES,
    POINTS,
    YinshMove,
    YinshRules,
    destinations,
    parse_point,
)

GAME = get_game("two-connect")
NAMES_BY_SEAT = {1: "Uli", 2: "Vic"}

#: Ten placements each, then ring moves; turn 15 jumps D2 and E2 (see the browser test).
OPENING = [
    "yinsh ring B2", "yinsh ring D2; gomoku K2", "yinsh ring E2; gomoku D7", "yinsh ring F9; gomoku M5",
    "yinsh ring C5; gomoku B12", "yinsh ring H5; gomoku B4", "yinsh ring G6; gomoku E7",
    "yinsh ring J9; gomoku L11", "yinsh ring I8; gomoku L3", "yinsh ring G10; gomoku C13",
    "yinsh B2-C2; gomoku F7", "yinsh D2-D4; gomoku N1", "yinsh E2-E4; gomoku N10", "yinsh F9-F7; gomoku H12",
    "yinsh C2-F2; gomoku G7", "yinsh H5-H7; gomoku E10", "yinsh G6-G8; gomoku A14", "yinsh J9-J7; gomoku J4",
    "yinsh I8-I6; gomoku J13", "yinsh G10-G9; gomoku A9",
]


def played(game: Any, turns: list[str], options: dict[str, Any] | None = None) -> Any:
    state = game.new(options)
    for text in turns:
        state = game.play(state, next(iter(game.to_act(state))), text)
    return state


def shape(game: Any, state: Any, viewer: int, log: list[dict[str, Any]] | None = None,
          status: str = "Your turn.") -> dict[str, Any]:
    view = game.view(state, viewer)
    ctx = {"viewer": viewer, "names": NAMES_BY_SEAT, "my_turn": viewer in view["to_act"],
           "status": status, "log": log if log is not None else [], "bout_number": 1}
    return page.context(view, ctx)


def board(tc: dict[str, Any], word: str) -> dict[str, Any]:
    return next(b for b in tc["boards"] if b["word"] == word)


def server_says(game: Any, state: Any, seat: int, text: str) -> str:
    """What the server answers a submitted move (the rules' refusal), or "" if legal."""
    try:
        game.play(state, seat, text)
    except RuleError as error:
        return str(error)
    return ""


# -- the Yinsh lattice ---------------------------------------------------------------


def test_yinsh_lattice_has_the_85_points_named_as_yinsh_md_says() -> None:
    layout = drawing.yinsh_layout()
    assert len(layout["points"]) == 85
    for letter, (low, high) in COLUMN_RANGES.items():
        numbers = sorted(int(n[1:]) for n in layout["points"] if n[0] == letter)
        assert numbers == list(range(low, high + 1)), letter
    assert len(set(layout["points"].values())) == 85  # no two points drawn on one spot
    for corner in ("A1", "A6", "F1", "F11", "K6", "K11"):
        assert corner not in layout["points"]


def test_yinsh_neighbours_are_one_step_apart_in_exactly_three_directions() -> None:
    pts = drawing.yinsh_layout()["points"]
    angles = set()
    for name in pts:
        x, y = pts[name]
        for other, (ox, oy) in pts.items():
            if other != name and math.dist((x, y), (ox, oy)) < drawing.HEX * 1.01:
                assert math.dist((x, y), (ox, oy)) == pytest.approx(drawing.HEX, abs=0.2)
                angles.add(round(math.degrees(math.atan2(oy - y, ox - x))) % 180)
    # vertical (same letter) and the two 30-degree slopes: three line directions
    assert angles == {90, 30, 150}


def test_yinsh_lines_run_along_the_three_directions_only_and_cover_every_link() -> None:
    layout = drawing.yinsh_layout()
    pts = layout["points"]
    by_dir = Counter(k for *_, k in layout["lines"])
    assert by_dir == {0: 11, 1: 11, 2: 11}  # eleven lines in each direction
    spots = {v: k for k, v in pts.items()}
    for x1, y1, x2, y2, k in layout["lines"]:
        a, b = spots[(x1, y1)], spots[(x2, y2)]
        dc, dn = drawing.LINE_DIRECTIONS[k]
        (ca, na), (cb, nb) = POINTS[NAMES.index(a)], POINTS[NAMES.index(b)]
        steps = max(abs(cb - ca), abs(nb - na))
        assert (cb - ca, nb - na) == (dc * steps, dn * steps), (a, b)
    # the other diagonal (letter +1, number -1) is not a line: no drawn segment joins such points
    for x1, y1, x2, y2, _ in layout["lines"]:
        a, b = spots[(x1, y1)], spots[(x2, y2)]
        (ca, na), (cb, nb) = POINTS[NAMES.index(a)], POINTS[NAMES.index(b)]
        assert (cb - ca) * (nb - na) >= 0


def test_yinsh_labels_are_the_letters_a_to_k_and_numbers_1_to_11() -> None:
    texts = [t for _, _, t in drawing.yinsh_layout()["labels"]]
    assert sorted(texts) == sorted([*"ABCDEFGHIJK", *map(str, range(1, 12))])


def test_grid_layouts_place_gomoku_on_intersections_and_squava_in_squares() -> None:
    gomoku = drawing.grid_layout(14, drawing.GOMOKU_STEP, False)
    assert len(gomoku["points"]) == 196
    (ax, ay), (bx, by), (cx, cy) = gomoku["points"]["A1"], gomoku["points"]["B1"], gomoku["points"]["A2"]
    assert (bx - ax, by - ay, cx - ax, cy - ay) == (drawing.GOMOKU_STEP, 0, 0, drawing.GOMOKU_STEP)
    squava = drawing.grid_layout(5, drawing.SQUAVA_STEP, True)
    assert len(squava["points"]) == 25 and squava["points"]["E5"][0] > squava["points"]["A1"][0]


# -- what each audience gets -----------------------------------------------------------


def test_spectator_and_host_get_three_drawn_boards_and_nothing_to_click() -> None:
    state = played(GAME, OPENING[:3])
    for viewer in (SPECTATOR, HOST):
        out = shape(GAME, state, viewer)
        tc = out["tc"]
        assert [b["word"] for b in tc["boards"]] == ["squava", "yinsh", "gomoku"]
        assert not tc["acting"] and tc["me"] == 0 and tc["yinsh_moves"] == {}
        assert all(not p["no"] for b in tc["boards"] for p in b["points"])
        assert len(board(tc, "yinsh")["points"]) == 85 and len(board(tc, "gomoku")["points"]) == 196


def test_every_point_refusal_is_the_servers_own_sentence() -> None:
    state = played(GAME, OPENING[:5])  # seat 2 to move, still placing rings
    tc = shape(GAME, state, 2)["tc"]
    refused = 0
    for b in tc["boards"]:
        for p in b["points"]:
            text = f"{b['word']} ring {p['coord']}" if b["word"] == "yinsh" else f"{b['word']} {p['coord']}"
            other = "gomoku A1" if b["word"] != "gomoku" else "squava A1"
            said = server_says(GAME, state, 2, f"{text}; {other}")
            assert p["no"] == said, (b["word"], p["coord"])
            refused += bool(p["no"])
    assert refused == 5 + 4  # the placed rings, and the gomoku stones


def clicked(b: dict[str, Any]) -> dict[str, str]:
    """What two_connect.js says for a click on each point of a drawn board (its `refusal`): the
    point's own data-no when it has one (even empty), else the board's data-taken-no for an
    occupied point, "{at}" standing for the point."""
    out = {}
    for tag in re.findall(r"<g [^>]*data-coord=[^>]*>", "".join(b["svg_points"])):
        found = re.search(r' data-coord="([^"]+)"', tag)
        assert found is not None, tag
        coord = found.group(1)
        own = re.search(r' data-no="([^"]*)"', tag)
        if b.get("phase") == "move":  # yinsh(): a ring move, else the point's data-no or the lone click's
            out[coord] = (html.unescape(own.group(1)) if own else "") or b["lone_no"]
        elif own is not None:
            out[coord] = html.unescape(own.group(1))
        else:
            out[coord] = b["taken_no"].replace("{at}", coord) if " data-v=" in tag and b["taken_no"] else ""
    return out


@pytest.mark.parametrize(("slug", "turns", "seat"), [
    ("two-connect", OPENING[:5], 2),  # Vic places rings, Gomoku stones are down
    ("two-connect", OPENING[:12], 1),  # Uli moves rings: the placement refusal is the board's lone_no
    ("squava", ["C3", "D4", "A1"], 2),
    ("gomoku", ["H7", "H8"], 1),
    ("yinsh", ["ring E5", "ring F6", "ring C3"], 2),
])
def test_every_click_on_a_drawn_point_says_the_servers_sentence(slug: str, turns: list[str], seat: int) -> None:
    """The sentence the click script finds in the markup (a point's data-no or its board's
    data-taken-no) is the page's refusal for that point, and that is the server's."""
    game = get_game(slug)
    state = played(game, turns)
    assert seat in game.to_act(state)
    tc = shape(game, state, seat)["tc"]
    for b in tc["boards"]:
        said = clicked(b)
        for p in b["points"]:
            if b.get("phase") == "move":
                # an own ring without moves says why, a lone click elsewhere (a ring placement) the rules'
                # refusal of placing a ring there; own rings with moves are picked, not refused
                if p["coord"] in tc["yinsh_moves"]:
                    continue
                placement = server_says(game, state, seat, f"yinsh ring {p['coord']}; gomoku A1")
                assert said[p["coord"]] == (p["no"] or placement), p["coord"]
                continue
            assert said[p["coord"]] == p["no"], (b["word"], p["coord"])
            if slug == "two-connect":
                text = f"{b['word']} ring {p['coord']}" if b["word"] == "yinsh" else f"{b['word']} {p['coord']}"
                other = "gomoku A1" if b["word"] != "gomoku" else "squava A1"
                assert p["no"] == server_says(game, state, seat, f"{text}; {other}"), (b["word"], p["coord"])
            else:
                text = f"ring {p['coord']}" if slug == "yinsh" else p["coord"]
                assert p["no"] == server_says(game, state, seat, text), p["coord"]


@pytest.mark.parametrize(("slug", "turns"), [("two-connect", OPENING[:5]), ("two-connect", OPENING[:12]),
                                             ("gomoku", ["H7", "H8"]), ("yinsh", ["ring E5", "ring F6"])])
def test_a_seats_board_markup_is_the_same_whether_or_not_it_is_its_turn(slug: str, turns: list[str]) -> None:
    """Everything but #tc-turn and the live parts: the boards' refusals, the occupied-point sentence,
    the Yinsh lone click and the points drawn are the same for a seat on its turn and off it, so a
    live update of a move swaps a few parts, not the whole board (tests/matches/live/test_live.py)."""
    game = get_game(slug)
    state = played(game, turns)
    seat = next(iter(game.to_act(state)))
    on = shape(game, state, seat)["tc"]
    view = game.view(state, seat)
    off = page.context(view, {"viewer": seat, "names": NAMES_BY_SEAT, "my_turn": False, "status": "",
                              "log": [], "bout_number": 1})["tc"]
    assert on["acting"] and not off["acting"]
    for a, b in zip(on["boards"], off["boards"], strict=True):
        for key in ("refusal", "taken_no", "lone_no", "phase", "svg"):
            assert a.get(key) == b.get(key), (a["word"], key)


def test_the_waiting_seat_is_told_it_is_not_their_turn() -> None:
    state = played(GAME, OPENING[:2])
    tc = shape(GAME, state, 2)["tc"]
    assert tc["refusal"] == server_says(GAME, state, 2, "squava A1") == "it is not your turn"
    assert not tc["acting"] and tc["need"] == 0


def test_ring_destinations_and_flips_come_from_the_rules() -> None:
    state = played(GAME, OPENING[:14])  # seat 1 to move: rings on C2, E4, C5, G6, I8
    tc = shape(GAME, state, 1)["tc"]
    moves = tc["yinsh_moves"]
    yinsh = state.boards[1]
    assert set(moves) == {NAMES[i] for i in YinshRules().ring_points(yinsh, 1)}
    for ring, info in moves.items():
        assert set(info["to"]) == {NAMES[i] for i in destinations(yinsh.cells, NAMES.index(ring))}
    assert moves["C2"]["to"]["F2"] == ["D2", "E2"]  # the jump over Vic's and Uli's markers
    # each destination is legal, each refusal is the server's sentence for that ring move
    for dest in moves["C2"]["to"]:
        assert server_says(GAME, state, 1, f"yinsh C2-{dest}; gomoku G7") == ""
    for target, said in moves["C2"]["no"].items():
        assert said == server_says(GAME, state, 1, f"yinsh C2-{target}; gomoku G7")
    off = moves["C2"]["off"].replace("{to}", "E7")
    assert off == server_says(GAME, state, 1, "yinsh C2-E7; gomoku G7")
    yb = board(tc, "yinsh")
    assert yb["phase"] == "move"
    assert yb["lone_no"] == server_says(GAME, state, 1, "yinsh ring A2; gomoku G7")


def test_turn_shape_refusals_are_the_rules_words() -> None:
    first = GAME.new()
    tc = shape(GAME, first, 1)["tc"]
    assert tc["need"] == 1
    assert tc["one_move_rule"] == server_says(GAME, first, 1, "squava A1; gomoku A1")
    assert tc["too_many"] == server_says(GAME, first, 1, "squava A1; yinsh ring E5; gomoku A1")


def test_last_turn_is_lit_on_its_own_boards_only() -> None:
    state = played(GAME, ["squava C3", "yinsh ring E5; gomoku H7"])
    for viewer in (1, 2, SPECTATOR):
        tc = shape(GAME, state, viewer)["tc"]
        assert [p["coord"] for p in board(tc, "squava")["points"] if p["last"]] == []
        assert [p["coord"] for p in board(tc, "yinsh")["points"] if p["last"]] == ["E5"]
        assert [p["coord"] for p in board(tc, "gomoku")["points"] if p["last"]] == ["H7"]


def test_bank_closed_board_says_until_when_and_refuses_in_the_servers_words() -> None:
    state = played(GAME, OPENING)  # Uli has 10 Yinsh moves, 9 Gomoku, 0 Squava
    tc = shape(GAME, state, 1)["tc"]
    yinsh = board(tc, "yinsh")
    assert not yinsh["open_to_me"] and yinsh["tab_text"] == "closed"
    assert yinsh["refusal"] == server_says(GAME, state, 1, "yinsh E4-E5; gomoku H7")
    uli = next(m for m in yinsh["meters"] if m["seat"] == 1)
    assert uli["count"] == 10 and uli["closed"] == "closed to you until you have played 10 on Squava and Gomoku"
    # the other player reads the same fact about Uli
    vic_view = board(shape(GAME, state, 2)["tc"], "yinsh")
    assert next(m for m in vic_view["meters"] if m["seat"] == 1)["closed"].startswith("closed to Uli until Uli has")


def test_won_board_is_outlined_announced_and_noted_in_the_log() -> None:
    state = played(GAME, [*OPENING, "squava A2; gomoku H7"])
    log = [
        {"kind": "move", "bout": 1, "text": "yinsh I8-I6; gomoku J13", "undone": False, "corrected": False},
        {"kind": "move", "bout": 1, "text": "squava A2; gomoku H7", "undone": False, "corrected": False},
    ]
    out = shape(GAME, state, SPECTATOR, log=log, status="Vic to move.")
    gomoku = board(out["tc"], "gomoku")
    assert gomoku["result_text"] == "won by Uli" and gomoku["status"] == "won"
    assert sorted(p["coord"] for p in gomoku["points"] if p["win"]) == ["D7", "E7", "F7", "G7", "H7"]
    assert gomoku["win_line"] is not None
    assert out["status"] == "Gomoku won by Uli. Vic to move."
    assert [e.get("note") for e in out["log"]] == [None, "Gomoku won by Uli"]
    assert out["tc"]["header"]["won"][0]["count"] == 1
    # a live update appends only the new rows: they are noted alike
    view = GAME.view(state, SPECTATOR)
    rows = page.log_notes(view, log[1:], {"names": NAMES_BY_SEAT, "bout_number": 1})
    assert rows[0]["note"] == "Gomoku won by Uli" and "note" not in log[1]
    # the next turn no longer announces it in the status line, the log keeps the note
    later = played(GAME, [*OPENING, "squava A2; gomoku H7", "squava E5"])
    out = shape(GAME, later, SPECTATOR, log=log, status="Uli to move.")
    assert "status" not in out  # the generic status line stays as it is
    assert out["log"][1]["note"] == "Gomoku won by Uli"


def test_player_names_are_escaped_in_the_drawn_points() -> None:
    state = played(GAME, OPENING[:3])
    view = GAME.view(state, 2)
    ctx = {"viewer": 2, "names": {1: '<b onmouseover="x">Uli', 2: "Vic & co"}, "my_turn": True, "status": ""}
    tc = page.context(view, ctx)["tc"]
    svg = "".join(board(tc, "yinsh")["svg_points"])
    assert "<b " not in svg and "&lt;b onmouseover=&quot;x&quot;&gt;Uli&#x27;s ring" in svg
    assert 'aria-label="E2, &lt;b' in svg


def test_an_automatic_pass_is_said() -> None:
    state = GAME.new()
    passed = replace(state, passed=2, to_move=1, turns=3)
    assert shape(GAME, passed, 1)["tc"]["passed"] == "Vic could not play on any board, so the turn passed."
    assert shape(GAME, passed, 2)["tc"]["passed"].startswith("You could not play")
    assert shape(GAME, state, 1)["tc"]["passed"] == ""


def test_a_board_left_open_when_the_match_ends_says_unfinished() -> None:
    state = played(GAME, [*OPENING, "squava A2; gomoku H7", "squava E5", "squava B2", "yinsh D4-D6",
                          "squava D2", "squava E4", "squava C2"])
    assert GAME.result(state) is not None
    tc = shape(GAME, state, 2)["tc"]
    assert [b["tab_text"] for b in tc["boards"]] == ["won by Uli", "unfinished", "won by Uli"]
    assert tc["refusal"] == "it is not your turn" and not tc["acting"]


def test_marks_tell_the_seats_apart_without_colour() -> None:
    assert page._marks({1: "Uli", 2: "Vic"}) == {1: "U", 2: "V"}
    assert page._marks({1: "Ann", 2: "Al"}) == {1: "1", 2: "2"}


# -- the standalone boards ---------------------------------------------------------------


@pytest.mark.parametrize("slug", ["squava", "gomoku", "yinsh"])
def test_standalone_boards_use_the_same_shaping_with_unprefixed_refusals(slug: str) -> None:
    game = get_game(slug)
    first = "ring E5" if slug == "yinsh" else "C3"
    state = played(game, [first])
    tc = shape(game, state, 2)["tc"]
    assert tc["solo"] and tc["need"] == 1 and tc["header"] is None and len(tc["boards"]) == 1
    b = tc["boards"][0]
    assert b["word"] == slug and b["open_to_me"]
    spot = "E5" if slug == "yinsh" else "C3"
    point = next(p for p in b["points"] if p["coord"] == spot)
    assert point["last"] and point["no"] == server_says(game, state, 2, first)
    assert point["no"] == f"{spot} is not empty"
    assert shape(game, state, 1)["tc"]["refusal"] == "it is not your turn"


def test_squava_losing_three_is_outlined_as_the_deciding_row() -> None:
    game = get_game("squava")
    state = played(game, ["A1", "E5", "B1", "E4", "C1"])  # seat 1 makes three: loses
    b = shape(game, state, SPECTATOR)["tc"]["boards"][0]
    assert b["result_text"] == "won by Vic" and b["reason"] == "three"
    assert sorted(p["coord"] for p in b["points"] if p["win"]) == ["A1", "B1", "C1"]


def test_yinsh_row_is_the_deciding_row() -> None:
    rules = YinshRules()
    # a ring on C7 moved to C8 leaves its marker on C7: C3-C7 is a row of five
    before = rules.from_points(rings1="C7 B1 D1 E1 F2", rings2="H3 I4 J5 K7 K8", markers1="C3 C4 C5 C6")
    done = rules.play(before, 1, YinshMove(parse_point("C7"), parse_point("C8")))
    assert rules.public(done)["win_squares"] == ["C3", "C4", "C5", "C6", "C7"]
    assert rules.public(before)["win_squares"] == []
    with pytest.raises(IllegalAction):
        rules.play(done, 2, YinshMove(parse_point("H3"), parse_point("H4")))
