"""The Bidding page's view shaping (games/bidding_ttt/page.py) and the view facts
it reads: tile naming, the 3x3 of 3x3 layout, control shading (one side, both),
the line that gave control, per-tile restrictions for the seat, the round reveal
per audience, the own-bids and host tables, the result sentence and the status.
Every audience is shaped from its own `view()` only, so the tests also check
what each audience's shaped context does NOT hold."""

from __future__ import annotations

import json
import random
import re
from types import SimpleNamespace
from typing import Any

import pytest

from games.bidding_ttt import page
from games.bidding_ttt.rules import BiddingState, BiddingTTT, Resolve, check_bids, tile_index
from games.core import HOST, SPECTATOR, IllegalAction

game = BiddingTTT()
NAMES = {1: "Ann", 2: "Bob"}
AUDIENCES = (1, 2, SPECTATOR, HOST)


def shaped(state: BiddingState, viewer: int, *, my_turn: bool | None = None, status: str = "running") -> dict[str, Any]:
    view = game.view(state, viewer)
    if my_turn is None:
        my_turn = viewer >= 1 and viewer in view["to_act"]
    result = view["result"]
    match = SimpleNamespace(status="finished" if result and status == "running" else status,
                            winners=result["winners"] if result else [])
    ctx = {"viewer": viewer, "names": NAMES, "my_turn": my_turn, "match": match, "bout_number": 1}
    return page.context(view, ctx)


def both(state: BiddingState, red: str, blue: str) -> BiddingState:
    return game.play(game.play(state, 1, red), 2, blue)


def tiles_of(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for row in out["bt"]["grid"] for board in row for t in board["tiles"]}


def board_of(out: dict[str, Any], letter: str) -> dict[str, Any]:
    return next(b for row in out["bt"]["grid"] for b in row if b["letter"] == letter)


def visible_numbers(out: dict[str, Any]) -> str:
    return json.dumps(out["bt"])


# -- naming and layout ----------------------------------------------------------------


def test_the_nine_boards_are_a_3x3_in_reading_order_with_tiles_named_a1_to_i9() -> None:
    out = shaped(game.new(), SPECTATOR)
    grid = out["bt"]["grid"]
    assert [[b["letter"] for b in row] for row in grid] == [["A", "B", "C"], ["D", "E", "F"], ["G", "H", "I"]]
    centre = grid[1][1]
    assert [t["name"] for t in centre["tiles"]] == [f"E{n}" for n in range(1, 10)]
    assert centre["tiles"][4]["name"] == "E5"  # the centre tile of the centre board
    names = [t["name"] for row in grid for b in row for t in b["tiles"]]
    assert names == [f"{b}{n}" for b in "ABCDEFGHI" for n in range(1, 10)]
    assert page.tile_name("I", 2, 2) == "I9" and page.tile_name("A", 0, 1) == "A2"


def test_owned_tiles_carry_the_owner_and_a_letter_so_colour_is_not_needed() -> None:
    state = both(game.new(), "A1 5", "E5 5")
    for viewer in AUDIENCES:
        tiles = tiles_of(shaped(state, viewer))
        assert (tiles["A1"]["owner"], tiles["A1"]["mark"]) == (1, "R")
        assert (tiles["E5"]["owner"], tiles["E5"]["mark"]) == (2, "B")
        assert tiles["B1"]["owner"] == 0 and tiles["B1"]["mark"] == ""
    assert tiles_of(shaped(state, 1))["A1"]["label"] == "A1, yours"
    assert tiles_of(shaped(state, 2))["A1"]["label"] == "A1, Red's"
    assert tiles_of(shaped(state, SPECTATOR))["E5"]["label"] == "E5, Blue's"


# -- control shading and the line that gave control --------------------------------------


def test_d_and_f_are_shaded_from_the_start() -> None:
    out = shaped(game.new(), SPECTATOR)
    assert board_of(out, "D")["cls"] == "ctl-1" and board_of(out, "F")["cls"] == "ctl-2"
    assert board_of(out, "D")["caption"] == "Red's base" and board_of(out, "F")["caption"] == "Blue's base"
    assert board_of(out, "D")["label"] == "board D, controlled by Red from the start"
    assert all(board_of(out, x)["cls"] == "" for x in "ABCEGHI")
    assert board_of(shaped(game.new(), 1), "D")["caption"] == "your base"


def test_a_board_won_by_one_side_is_shaded_in_its_colour_and_its_line_outlined() -> None:
    state = both(game.new(), "A1 1; A2 1; A5 1", "B1 1")
    state = both(state, "A3 1", "pass")
    out = shaped(state, SPECTATOR)
    board = board_of(out, "A")
    assert board["control"] == [1] and board["cls"] == "ctl-1" and board["caption"] == "Red's"
    assert [t["name"] for t in board["tiles"] if t["line"]] == ["A1", "A2", "A3"]
    assert not tiles_of(out)["A5"]["line"]
    assert game.view(state, SPECTATOR)["public"]["control_lines"] == {"A": {"1": [["A1", "A2", "A3"]]}}


def test_a_board_both_control_is_striped_and_both_lines_are_outlined() -> None:
    state = both(game.new(), "A1 1; A2 1", "A4 1; A5 1")
    state = both(state, "A3 1", "A6 1")
    out = shaped(state, 2)
    board = board_of(out, "A")
    assert board["control"] == [1, 2] and board["cls"] == "ctl-both" and board["caption"] == "both"
    assert board["label"] == "board A, controlled by Red and you"
    assert {t["name"] for t in board["tiles"] if t["line"]} == {"A1", "A2", "A3", "A4", "A5", "A6"}
    assert page.shading([1, 2]) == "ctl-both" and page.shading([2]) == "ctl-2" and page.shading([]) == ""


def test_tiles_won_in_the_last_round_are_marked_fresh_and_only_those() -> None:
    state = both(game.new(), "A1 2", "B1 2")
    state = both(state, "C1 2", "pass")
    tiles = tiles_of(shaped(state, SPECTATOR))
    assert [n for n, t in tiles.items() if t["fresh"]] == ["C1"]


# -- what the seat may bid on ------------------------------------------------------------


def test_a_seat_sees_why_a_tile_is_not_allowed_owned_or_on_a_controlled_board() -> None:
    state = both(game.new(), "A1 1; A2 1", "A5 1; B1 4")
    state = game.play(state, 2, "C1 1")  # Blue's bid is in; Red still bids
    tiles = tiles_of(shaped(state, 1))
    assert tiles["A1"]["blocked"] == "owned by you"
    assert tiles["B1"]["blocked"] == "owned by Blue"
    assert tiles["D5"]["blocked"] == "on a controlled board"
    assert tiles["D5"]["label"] == "D5, empty, not allowed: on a controlled board"
    assert tiles["E5"]["blocked"] == "" and tiles["E5"]["label"] == "E5, empty"
    # every tile the page blocks is refused by the rules, and every other one is accepted
    for name, tile in tiles.items():
        refused = _refused(state, 1, [(name, 1)])
        assert bool(tile["blocked"]) == refused, name


def test_nothing_is_clickable_for_spectators_the_host_or_a_seat_that_cannot_act() -> None:
    state = game.new()
    for viewer, my_turn in ((SPECTATOR, False), (HOST, False), (1, False)):
        out = shaped(state, viewer, my_turn=my_turn)
        assert out["bt"]["can_bid"] is False
        assert all(not t["blocked"] and not t["pairs"] for t in tiles_of(out).values())


def test_a_seat_without_chips_is_told_so_on_every_free_tile() -> None:
    state = both(game.new({"chips": 3}), "A1 3", "pass")
    tiles = tiles_of(shaped(state, 1))
    assert tiles["E5"]["blocked"] == "you have no chips left"


def test_round_1_pairs_say_which_two_tiles_would_complete_a_line() -> None:
    tiles = tiles_of(shaped(game.new(), 1))
    assert set(tiles["E5"]["pairs"].split(",")) == {"E4 E6", "E2 E8", "E1 E9", "E3 E7"}
    assert set(tiles["A1"]["pairs"].split(",")) == {"A2 A3", "A4 A7", "A5 A9"}
    state = both(game.new(), "E1 2", "pass")
    state = game.play(state, 2, "pass")
    # round 2: no pairs, at most 2 boards
    out = shaped(state, 1)
    assert out["bt"]["max_boards"] == 2 and not any(t["pairs"] for t in tiles_of(out).values())


def _builder_refuses(tiles: dict[str, dict[str, Any]], draft: list[str], name: str, max_boards: int) -> bool:
    """What bidding.js decides from the page's data (blocked, pairs, max boards)."""
    tile = tiles[name]
    if tile["blocked"]:
        return True
    for pair in filter(None, tile["pairs"].split(",")):
        a, b = pair.split()
        if a in draft and b in draft:
            return True
    boards = {t[0] for t in draft}
    return name[0] not in boards and len(boards) >= max_boards


def _refused(state: BiddingState, seat: int, bids: list[tuple[str, int]]) -> bool:
    try:
        check_bids(state, seat, tuple(sorted((tile_index(t), c) for t, c in bids)))
    except IllegalAction:
        return True
    return False


@pytest.mark.parametrize("round_no", [1, 2, 3])
def test_the_builder_data_agrees_with_the_rules_on_random_drafts(round_no: int) -> None:
    rng = random.Random(round_no)
    state = game.new({"chips": 500})
    for _ in range(round_no - 1):
        red, blue = game.random_action(state, 1, rng), game.random_action(state, 2, rng)
        assert red is not None and blue is not None
        state = both(state, game.format(red), game.format(blue))
    out = shaped(state, 1)
    tiles = tiles_of(out)
    for _ in range(300):
        draft: list[str] = []
        for _ in range(rng.randint(0, 8)):
            name = rng.choice(list(tiles))
            if name not in draft and not _builder_refuses(tiles, draft, name, out["bt"]["max_boards"]):
                draft.append(name)
        assert not _refused(state, 1, [(t, 1) for t in draft])
        name = rng.choice([t for t in tiles if t not in draft])
        refused = _refused(state, 1, [(t, 1) for t in [*draft, name]])
        assert _builder_refuses(tiles, draft, name, out["bt"]["max_boards"]) == refused, (draft, name)


# -- the round reveal per audience ---------------------------------------------------------


def _round_one() -> BiddingState:
    """Red 37 on A1 (Blue 5): Red wins; Blue alone on B2; both 4 on C3: a tie."""
    return both(game.new({"chips": 200}), "A1 37; C3 4", "A1 5; B2 3; C3 4")


def test_everyone_sees_which_tiles_each_side_won_and_nothing_about_the_tie() -> None:
    state = _round_one()
    for viewer in AUDIENCES:
        reveal = shaped(state, viewer)["bt"]["reveal"]
        assert [r["round"] for r in reveal] == [1] and reveal[0]["latest"]
        sides = {s["seat"]: s for s in reveal[0]["sides"]}
        assert sides[1]["won"] == ["A1"] and sides[2]["won"] == ["B2"]
    spectator = shaped(state, SPECTATOR)["bt"]
    texts = [s["text"] for s in spectator["reveal"][0]["sides"]]
    assert texts == ["Ann (Red) won A1.", "Bob (Blue) won B2."]
    assert spectator["reveal"][0]["mine"] == []
    assert "tied" not in json.dumps(spectator) and "C3" not in json.dumps(spectator["reveal"])


def test_a_seat_sees_how_its_own_bids_fared_and_no_one_else_sees_its_amounts() -> None:
    state = _round_one()
    red = shaped(state, 1)["bt"]
    blue = shaped(state, 2)["bt"]
    assert red["reveal"][0]["mine"] == [
        {"tile": "A1", "chips": 37, "outcome": "won"}, {"tile": "C3", "chips": 4, "outcome": "tied"}]
    assert blue["reveal"][0]["mine"] == [
        {"tile": "A1", "chips": 5, "outcome": "lost"}, {"tile": "B2", "chips": 3, "outcome": "won"},
        {"tile": "C3", "chips": 4, "outcome": "tied"}]
    assert red["reveal"][0]["sides"][0]["text"] == "You won A1."
    # Red's 37 and what Red has left (159) never reach Blue or spectators
    for viewer in (2, SPECTATOR):
        text = visible_numbers(shaped(state, viewer))
        assert not re.search(r"\b(37|159)\b", text), viewer
    assert re.search(r"\b37\b", visible_numbers(shaped(state, 1)))
    assert red["mine"]["chips"] == 159 and blue["mine"]["chips"] == 188


def test_a_round_that_gives_control_says_so() -> None:
    state = both(game.new(), "A1 1; A2 1", "pass")
    state = both(state, "A3 1", "pass")
    reveal = shaped(state, SPECTATOR)["bt"]["reveal"]
    assert reveal[0]["round"] == 2 and reveal[1]["round"] == 1 and not reveal[1]["latest"]
    assert reveal[0]["sides"][0]["controlled"] == ["A"]
    assert reveal[0]["sides"][0]["text"] == "Ann (Red) won A3 and now controls board A."
    assert shaped(state, 1)["bt"]["reveal"][0]["sides"][0]["text"] == "You won A3 and now control board A."
    assert reveal[0]["sides"][1]["text"] == "Bob (Blue) won no tile."
    assert reveal[1]["sides"][0]["controlled"] == []


def test_the_public_reveal_is_the_same_whatever_the_amounts() -> None:
    a = both(game.new({"chips": 200}), "A1 37", "A1 5; B2 3")
    b = both(game.new({"chips": 200}), "A1 9", "A1 1; B2 99")
    for viewer in (SPECTATOR,):
        assert shaped(a, viewer) == shaped(b, viewer)
    assert shaped(a, 2)["bt"]["reveal"][0]["sides"] == shaped(b, 2)["bt"]["reveal"][0]["sides"]


# -- own bids, the host's table, the generic dumps -----------------------------------------


def test_the_seat_has_a_clean_table_of_its_own_bids_and_chips() -> None:
    state = game.play(_round_one(), 1, "E5 11; A5 2")
    mine = shaped(state, 1)["bt"]["mine"]
    assert (mine["chips"], mine["start"], mine["submitted"], mine["sealed"]) == (159, 200, True, "A5 2; E5 11")
    assert [r["round"] for r in mine["rows"]] == [1, 2]
    assert mine["rows"][0]["spent"] == 41 and not mine["rows"][0]["open"]
    assert mine["rows"][1] == {"round": 2, "spent": 13, "open": True, "submitted": True, "bids": [
        {"tile": "A5", "chips": 2, "outcome": ""}, {"tile": "E5", "chips": 11, "outcome": ""}]}
    out = shaped(state, 1)
    assert out["private_rows"] == [] and "hidden_rows" not in out
    assert "mine" not in shaped(state, 2)["bt"] or shaped(state, 2)["bt"]["mine"]["sealed"] == ""
    assert "mine" not in shaped(state, SPECTATOR)["bt"] and "host" not in shaped(state, SPECTATOR)["bt"]


def test_the_host_sees_both_bids_side_by_side_every_round_and_both_chips() -> None:
    state = game.play(_round_one(), 2, "pass")
    host = shaped(state, HOST)
    table = host["bt"]["host"]
    assert host["hidden_rows"] == []
    assert [(s["who"], s["chips"]) for s in table["seats"]] == [("Ann (Red)", 159), ("Bob (Blue)", 188)]
    first = table["rows"][0]
    assert first["round"] == 1 and [c["spent"] for c in first["cells"]] == [41, 12]
    assert first["cells"][0]["bids"][0] == {"tile": "A1", "chips": 37, "outcome": "won"}
    assert first["cells"][1]["bids"][0] == {"tile": "A1", "chips": 5, "outcome": "lost"}
    now = table["rows"][1]
    assert now["open"] and now["cells"][0]["waiting"] and now["cells"][1]["pass"] and now["cells"][1]["text"] == "pass"
    assert "host" not in shaped(state, 1)["bt"]


# -- result and status -----------------------------------------------------------------


def test_a_line_of_boards_names_the_boards_and_the_kind_of_line() -> None:
    state = both(game.new(), "A1 1; A2 1; G1 1; G2 1", "pass")
    state = both(state, "A3 1; G3 1", "pass")
    for viewer, text, status in ((SPECTATOR, "Ann (Red) wins: controls A, D, G (a column).", "Ann (Red) wins."),
                                 (1, "You win: you control A, D, G (a column).", "You win.")):
        out = shaped(state, viewer)
        assert out["bt"]["result"] == text
        assert out["status"] == "Match over: " + status
        assert [b["letter"] for row in out["bt"]["grid"] for b in row if b["win"]] == ["A", "D", "G"]


def test_a_tie_break_names_itself_and_shows_public_figures() -> None:
    # both lines after round 3: Red A D G (and E: 4 boards), Blue C F I
    state = both(game.new(), "A1 1; A2 1; G1 1; G2 1; E1 1; E2 1", "C1 1; C2 1; I1 1; I2 1")
    state = both(state, "A3 1; E3 1", "C3 1")
    state = both(state, "G3 1", "I3 1")
    text = shaped(state, SPECTATOR)["bt"]["result"]
    assert text == "Both control three boards in a line. Ann (Red) wins on boards controlled, 4 to 3."
    assert not any(b["win"] for row in shaped(state, SPECTATOR)["bt"]["grid"] for b in row)


def test_the_chips_tie_break_never_shows_the_amounts() -> None:
    state = both(game.new(), "A1 1; A2 1; G1 1; G2 1", "C1 2; C2 2; I1 2; I2 2")
    state = both(state, "A3 1; G3 1", "C3 2; I3 2")
    text = shaped(state, SPECTATOR)["bt"]["result"]
    assert text == ("Both control three boards in a line; equal on boards controlled and tiles owned. "
                    "Ann (Red) wins on chips left (the amounts stay secret).")
    assert not re.search(r"\b(74|68)\b", visible_numbers(shaped(state, SPECTATOR)))


def test_the_garnets_tie_break_shows_both_garnets() -> None:
    state = both(game.new({"garnets": {1: 3, 2: 5}}), "A1 1; A2 1; G1 1; G2 1", "C1 1; C2 1; I1 1; I2 1")
    state = both(state, "A3 1; G3 1", "C3 1; I3 1")
    assert shaped(state, 1)["bt"]["result"] == (
        "Both control three boards in a line; equal on boards controlled, tiles owned and chips left. "
        "Bob (Blue) wins on garnets, 5 to 3.")


def test_no_line_after_round_3_and_a_draw_say_so() -> None:
    state = game.new()
    for _ in range(3):
        state = both(state, "pass", "pass")
    assert shaped(state, SPECTATOR)["bt"]["result"] == (
        "No line of boards after round 3; equal boards, tiles, chips and garnets: a draw for the host to settle.")


def test_the_status_says_whose_bid_is_in_and_never_what_it_is() -> None:
    state = game.new({"chips": 200})
    assert shaped(state, 1)["status"] == "Round 1 of 3: place your sealed bid."
    state = game.play(state, 1, "A1 37")
    assert shaped(state, 1)["status"] == "Round 1 of 3: your bid is in. Waiting for Bob (Blue)."
    assert shaped(state, 2)["status"] == "Round 1 of 3: place your sealed bid. Ann (Red)'s bid is in."
    assert shaped(state, SPECTATOR)["status"] == "Round 1 of 3: Ann (Red)'s bid is in; waiting for Bob (Blue)."
    for viewer in (2, SPECTATOR):
        assert "37" not in json.dumps(shaped(state, viewer)["bt"])
    state = game.apply(state, HOST, Resolve())
    assert shaped(state, SPECTATOR)["status"] == "Round 2 of 3: waiting for sealed bids from Ann (Red) and Bob (Blue)."
    # a match the host paused or has not started keeps the platform's own status line
    assert "status" not in shaped(state, 1, status="setup")


def test_the_end_banner_names_the_line_or_the_tie_break_in_words() -> None:
    state = both(game.new(), "A1 1; A2 1; G1 1; G2 1", "pass")
    state = both(state, "A3 1; G3 1", "pass")
    view = game.view(state, 2)
    banner = {"kind": "match", "headline": "Ann wins the match", "why": "line", "detail": "", "score": "", "next": ""}
    match = SimpleNamespace(status="finished", winners=[1])
    out = page.context(view, {"viewer": 2, "names": NAMES, "my_turn": False, "match": match, "banner": banner})
    assert out["banner"]["why"] == "three boards in a line"
    assert out["banner"]["detail"] == "Ann (Red) wins: controls A, D, G (a column)."
    assert out["banner"]["headline"] == "Ann wins the match"
    # a best-of-3 match decided by bouts keeps its reason and gets this bout's story
    bouts = SimpleNamespace(status="finished", winners=[1], result_reason="bouts")
    won = dict(banner, why="won 2 bouts of a best of 3")
    out = page.context(view, {"viewer": 2, "names": NAMES, "my_turn": False, "match": bouts, "banner": won,
                              "bout_number": 2})
    assert out["banner"]["why"] == "won 2 bouts of a best of 3"
    assert out["banner"]["detail"] == "Bout 2: Ann (Red) wins: controls A, D, G (a column)."
    # the host ended the match otherwise (awarded it to Blue): the platform's banner stands
    awarded = SimpleNamespace(status="finished", winners=[2])
    out = page.context(view, {"viewer": 2, "names": NAMES, "my_turn": False, "match": awarded, "banner": banner})
    assert "banner" not in out and "status" not in out


def test_tiles_carry_a_plain_label_for_pages_where_no_one_bids() -> None:
    tiles = tiles_of(shaped(game.new(), 1))
    assert tiles["D5"]["label"] == "D5, empty, not allowed: on a controlled board"
    assert tiles["D5"]["plain"] == "D5, empty"


def test_a_paused_match_says_so_instead_of_asking_for_bids() -> None:
    view = game.view(game.new(), 1)
    match = SimpleNamespace(status="running", winners=[], paused=True)
    out = page.context(view, {"viewer": 1, "names": NAMES, "my_turn": True, "match": match})
    assert out["status"] == "Round 1 of 3: paused by the host; bids wait until play resumes."
