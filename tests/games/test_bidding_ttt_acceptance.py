"""Bidding 3D Tic-Tac-Toe: independent acceptance tests.

Written from shared/DESIGN.md, RULINGS.md section 4 and the card only, and driven
exclusively through the Game interface (`get_game("bidding-ttt")` and
new/parse/apply/format/legal_actions/to_act/result/view/dump/load).

Boards A-I in reading order (A B C / D E F / G H I); Red (seat 1) starts
controlling D, Blue (seat 2) F; 80 chips each; three sealed rounds.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from games.core import HOST, SPECTATOR, Game, IllegalAction, NotationError, RuleError
from games.registry import get_game
from tests.games import playing

if TYPE_CHECKING:  # for the annotations only: the tests drive the game through its Game interface
    from games.bidding_ttt.rules import BiddingAction, BiddingState

G: Game[BiddingState, BiddingAction] = get_game("bidding-ttt")
play = functools.partial(playing.play, G)


# -- helpers ------------------------------------------------------------------------------
def both(state: BiddingState, red: str, blue: str) -> BiddingState:
    """Both seats submit: the round resolves."""
    state = play(state, 1, red)
    assert G.result(state) is None
    after: BiddingState = play(state, 2, blue)
    return after


def resolve(state: BiddingState) -> BiddingState:
    return G.apply(state, HOST, G.parse(state, HOST, "resolve"))


def public(state: BiddingState) -> dict[str, Any]:
    view: dict[str, Any] = G.view(state, SPECTATOR)["public"]
    return view


def owner(state: BiddingState, tile: str) -> int:
    board, cell = tile[0].upper(), int(tile[1]) - 1
    seat: int = public(state)["tiles"][board][cell // 3][cell % 3]
    return seat


def control(state: BiddingState, board: str) -> list[int]:
    return sorted(public(state)["control"][board])


def chips(state: BiddingState, seat: int) -> int:
    left: int = G.view(state, seat)["private"]["chips"]
    return left


def dump(state: BiddingState) -> str:
    return json.dumps(G.dump(state), sort_keys=True)


def refused(
    state: BiddingState, seat: int, text: str, *words: str, kind: type[Exception] = IllegalAction
) -> str:
    before = dump(state)
    with pytest.raises(kind) as info:
        play(state, seat, text)
    message = str(info.value).lower()
    for word in words:
        assert word.lower() in message, (word, message)
    assert dump(state) == before  # a rejected action changes nothing
    return message


def red_line_after_round_2(
    red_chips: int = 1, blue_r1: str = "pass", blue_r2: str = "pass", options: Mapping[str, Any] | None = None
) -> BiddingState:
    """Red wins A1 A2 G1 G2 then A3 G3: boards A, D, G (a column) after round 2."""
    c = red_chips
    state = G.new(options)
    state = both(state, f"A1 {c}; A2 {c}; G1 {c}; G2 {c}", blue_r1)
    return both(state, f"A3 {c}; G3 {c}", blue_r2)


def both_lines_after_round_2(
    red_chips: int = 1, blue_chips: int = 1, options: Mapping[str, Any] | None = None
) -> BiddingState:
    """Red: A, D, G (column); Blue: C, F, I (column); both after round 2, 6 tiles each."""
    r, b = red_chips, blue_chips
    state = G.new(options)
    state = both(state, f"A1 {r}; A2 {r}; G1 {r}; G2 {r}", f"C1 {b}; C2 {b}; I1 {b}; I2 {b}")
    return both(state, f"A3 {r}; G3 {r}", f"C3 {b}; I3 {b}")


def shared_board_draw(options: Mapping[str, Any] | None = None) -> BiddingState:
    """Both win a row of board A in round 2; round 3 passes: 2 boards, 3 tiles, 77 chips each."""
    state = G.new(options)
    state = both(state, "A1 1; A2 1", "A4 1; A5 1")
    state = both(state, "A3 1", "A6 1")
    assert control(state, "A") == [1, 2]
    return both(state, "pass", "pass")


# -- identity and start ---------------------------------------------------------------------
def test_identity_and_starting_position() -> None:
    state = G.new()
    assert (G.slug, G.seats) == ("bidding-ttt", 2)
    assert G.to_act(state) == frozenset({1, 2})
    assert G.result(state) is None
    assert control(state, "D") == [1]
    assert control(state, "F") == [2]
    for board in "ABCEGHI":
        assert control(state, board) == []
    for board in "ABCDEFGHI":
        for digit in "123456789":
            assert owner(state, board + digit) == 0
    assert chips(state, 1) == 80 and chips(state, 2) == 80
    assert public(state)["round"] == 1


# -- notation --------------------------------------------------------------------------------
def test_canonical_notation_round_trips() -> None:
    state = G.new()
    action = G.parse(state, 1, "A1 3; E5 2")
    assert G.format(action) == "A1 3; E5 2"
    assert G.parse(state, 1, G.format(action)) == action


def test_natural_phrasings() -> None:
    state = G.new()
    assert G.parse(state, 1, "E5 - 2 chips") == G.parse(state, 1, "E5 2")
    assert G.format(G.parse(state, 1, "E5 - 2 chips")) == "E5 2"
    assert G.parse(state, 1, "  a1   3 ;  e5 2 ") == G.parse(state, 1, "A1 3; E5 2")
    assert G.parse(state, 1, "A1 - 3 chips, E5 - 2 chips") == G.parse(state, 1, "A1 3; E5 2")


def test_pass_is_an_empty_sealed_bid_and_resolve_is_the_hosts() -> None:
    state = G.new()
    assert G.format(G.parse(state, 1, "pass")) == "pass"
    assert G.format(G.parse(state, HOST, "resolve")) == "resolve"
    state = play(state, 1, "pass")
    assert G.result(state) is None
    state = play(state, 2, "PASS")
    assert public(state)["round"] == 2
    assert chips(state, 1) == 80


@pytest.mark.parametrize(
    ("text", "word"),
    [("J1 3", "J1"), ("A0 3", "A0"), ("A10 3", "A10"), ("E5", "chip"), ("hello", "hello"), ("", "")],
)
def test_bad_notation_is_a_notation_error_naming_the_problem(text: str, word: str) -> None:
    with pytest.raises(NotationError) as info:
        G.parse(G.new(), 1, text)
    assert word.lower() in str(info.value).lower()


# -- bids: what is allowed ------------------------------------------------------------------------
def test_chips_at_least_one_and_total_at_most_remaining() -> None:
    state = G.new()
    with pytest.raises(RuleError):
        play(state, 1, "E5 0")
    assert dump(state) == dump(G.new())
    refused(state, 1, "E5 81", "81", "80")
    refused(state, 1, "E5 41; A1 40", "81")
    state = play(state, 1, "E5 40; A1 40")  # exactly everything
    state = play(state, 2, "pass")
    assert chips(state, 1) == 0
    refused(state, 1, "E4 1", "1", "0")
    play(state, 1, "pass")


def test_chips_carry_over_between_rounds() -> None:
    state = G.new()
    state = both(state, "E5 70", "pass")
    assert chips(state, 1) == 10
    refused(state, 1, "E4 11", "11", "10")
    play(state, 1, "E4 10")


def test_no_bids_on_the_starting_boards() -> None:
    state = G.new()
    refused(state, 1, "D5 1", "board d", "control")
    refused(state, 2, "D5 1", "board d", "control")
    refused(state, 1, "F5 1", "board f", "control")
    refused(state, 2, "F1 1", "board f", "control")


def test_no_bids_on_owned_tiles() -> None:
    state = both(G.new(), "E5 3", "pass")
    assert owner(state, "E5") == 1
    refused(state, 2, "E5 9", "E5")
    refused(state, 1, "E5 1", "E5")


def test_round_1_no_three_in_a_line_on_any_board() -> None:
    state = G.new()
    refused(state, 1, "A1 1; A2 1; A3 1", "line")
    refused(state, 1, "B1 1; B4 1; B7 1", "line")
    refused(state, 2, "C3 1; C5 1; C7 1", "line")
    refused(state, 2, "E1 1; E5 1; E9 1; A1 1", "line")
    play(state, 1, "A1 1; A2 1; A4 1")  # not a line
    play(state, 1, "A1 1; A2 1; B3 1; C3 1")  # lines need one board
    play(state, 1, "A1 1; A2 1; B1 1; B2 1; C1 1; E1 1; G1 1; H1 1; I1 1")  # any number of boards


def test_round_2_at_most_two_boards() -> None:
    state = both(G.new(), "pass", "pass")
    assert public(state)["round"] == 2
    refused(state, 1, "A1 1; B1 1; C1 1", "2")
    refused(state, 2, "A1 1; E1 1; I9 1", "2")
    play(state, 1, "A1 1; A2 1; A3 1; B1 1")  # a line is fine now, two boards


def test_round_3_no_restriction() -> None:
    state = both(both(G.new(), "pass", "pass"), "pass", "pass")
    assert public(state)["round"] == 3
    play(state, 1, "A1 1; A2 1; A3 1; B1 1; C1 1; E1 1; G5 1")


# -- resolution ------------------------------------------------------------------------------------
def test_higher_bid_wins_equal_bids_leave_the_tile_unowned_every_bid_is_paid() -> None:
    state = G.new()
    state = both(state, "E5 10; A1 4; B2 2", "E5 3; A1 4; B2 5")
    assert owner(state, "E5") == 1
    assert owner(state, "A1") == 0
    assert owner(state, "B2") == 2
    assert chips(state, 1) == 80 - 16
    assert chips(state, 2) == 80 - 12
    assert public(state)["round"] == 2
    # the tied tile is still open to bids
    play(state, 2, "A1 1")


def test_resubmitting_replaces_the_sealed_bid() -> None:
    state = G.new()
    state = play(state, 1, "A1 5")
    state = play(state, 1, "A2 7")
    state = play(state, 2, "pass")
    assert owner(state, "A1") == 0
    assert owner(state, "A2") == 1
    assert chips(state, 1) == 73


def test_the_round_waits_for_both_seats() -> None:
    state = play(G.new(), 1, "A1 5")
    assert public(state)["round"] == 1
    assert owner(state, "A1") == 0
    assert G.to_act(state) == frozenset({1, 2})


def test_host_closes_the_round_a_missing_seat_bids_nothing() -> None:
    state = play(G.new(), 1, "A1 5")
    state = resolve(state)
    assert public(state)["round"] == 2
    assert owner(state, "A1") == 1
    assert chips(state, 2) == 80
    state = resolve(state)  # nobody submitted
    assert public(state)["round"] == 3


def test_only_the_host_resolves_and_the_host_does_not_bid() -> None:
    state = G.new()
    refused(state, 1, "resolve", "host")
    with pytest.raises(IllegalAction):
        play(state, HOST, "A1 3")
    for seat in (3, SPECTATOR):
        refused(state, seat, "A1 3", "turn")


def test_three_in_a_line_controls_the_board_and_closes_it() -> None:
    state = both(G.new(), "B1 1; B5 1", "pass")
    state = both(state, "B9 1", "pass")
    assert control(state, "B") == [1]
    refused(state, 1, "B2 1", "board b", "control")
    refused(state, 2, "B2 1", "board b", "control")


def test_both_players_can_control_one_board() -> None:
    state = G.new()
    state = both(state, "A1 1; A2 1", "A4 1; A5 1")
    state = both(state, "A3 1", "A6 1")
    assert control(state, "A") == [1, 2]
    refused(state, 1, "A7 1", "board a", "control")
    refused(state, 2, "A9 1", "board a", "control")


# -- winning and tie-breaks ------------------------------------------------------------------------------
def test_one_line_of_boards_wins_after_the_round() -> None:
    state = red_line_after_round_2()
    result = G.result(state)
    assert result is not None
    assert result.winners == frozenset({1})
    assert result.reason == "line"
    assert G.to_act(state) == frozenset()
    assert control(state, "A") == [1] and control(state, "G") == [1]
    refused(state, 1, "B1 1", "over")
    refused(state, 2, "pass", "over")
    with pytest.raises(IllegalAction):
        resolve(state)


def test_blue_line_wins_too() -> None:
    state = G.new()
    state = both(state, "pass", "C1 1; C2 1; I1 1; I2 1")
    state = both(state, "pass", "C3 1; I3 1")
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({2}), "line")


def test_a_single_line_wins_even_with_fewer_tiles() -> None:
    many = "B1 1; B2 1; B4 1; B5 1; H1 1; H2 1; H4 1; H5 1; E1 1; E2 1; E4 1; E5 1"
    state = red_line_after_round_2(blue_r1=many)
    tiles = [owner(state, b + d) for b in "ABCDEFGHI" for d in "123456789"]
    assert tiles.count(2) == 12 and tiles.count(1) == 6
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "line")


def test_no_line_after_round_3_more_boards_wins() -> None:
    state = G.new()
    state = both(state, "A1 1; A2 1", "pass")
    state = both(state, "A3 1", "pass")
    assert G.result(state) is None
    state = both(state, "pass", "H1 1; H2 1; H4 1; H5 1")  # Blue owns more tiles, fewer boards
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "boards")


def test_no_line_after_round_3_equal_boards_more_tiles_wins() -> None:
    state = G.new()
    state = both(state, "A1 1; A2 1; B1 1", "C1 1; C2 1")
    state = both(state, "A3 1", "C3 1")
    assert G.result(state) is None
    state = both(state, "pass", "pass")
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "tiles")


def test_both_lines_more_boards_wins() -> None:
    state = G.new()
    state = both(state, "A1 1; A2 1; G1 1; G2 1; E1 1; E2 1", "C1 1; C2 1; I1 1; I2 1")
    state = both(state, "A3 1; E3 1", "C3 1")
    assert G.result(state) is None  # Red: A D E, Blue: C F -- no line yet
    state = both(state, "G3 1", "I3 1")  # Red: A D G line (4 boards), Blue: C F I line (3)
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "boards")


def test_both_lines_equal_boards_and_tiles_more_chips_wins_without_revealing_them() -> None:
    state = both_lines_after_round_2(red_chips=1, blue_chips=2)
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({1}), "chips")
    other = both_lines_after_round_2(red_chips=1, blue_chips=3)
    other_result = G.result(other)
    assert other_result is not None
    assert other_result.winners == frozenset({1})
    # the figures (74 against 68 or 62) are not shown: spectators cannot tell the two apart
    assert G.view(state, SPECTATOR) == G.view(other, SPECTATOR)
    assert G.view(state, 1) == G.view(other, 1)
    text = json.dumps(G.view(state, SPECTATOR))
    assert "68" not in text and "74" not in text


def test_then_garnets_then_a_draw() -> None:
    state = both_lines_after_round_2(options={"garnets": {1: 3, 2: 5}})
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({2}), "garnets")
    # as it arrives from JSON: string keys
    state = both_lines_after_round_2(options=json.loads(json.dumps({"garnets": {"1": 6, "2": 5}})))
    result = G.result(state)
    assert result is not None
    assert result.winners == frozenset({1})
    state = both_lines_after_round_2(options={"garnets": {1: 4, 2: 4}})
    result = G.result(state)
    assert result is not None
    assert result.winners == frozenset()
    assert result.reason


def test_a_shared_board_counts_for_both_and_all_equal_is_a_draw() -> None:
    state = shared_board_draw()
    result = G.result(state)
    assert result is not None
    assert result.winners == frozenset()
    state = shared_board_draw({"garnets": {2: 1}})
    result = G.result(state)
    assert result is not None
    assert (result.winners, result.reason) == (frozenset({2}), "garnets")


def test_the_match_ends_after_round_3() -> None:
    state = G.new()
    for _ in range(3):
        assert G.result(state) is None
        state = both(state, "pass", "pass")
    assert G.result(state) is not None
    assert G.to_act(state) == frozenset()


# -- hidden information --------------------------------------------------------------------------------
def test_a_sealed_bid_is_invisible_to_the_opponent_and_spectators() -> None:
    state = G.new()
    a = play(state, 1, "E5 30; A1 7")
    b = play(state, 1, "B2 1")
    for viewer in (2, SPECTATOR):
        assert G.view(a, viewer) == G.view(b, viewer)
        assert "E5" not in json.dumps(G.view(a, viewer))
    assert G.view(a, 1) != G.view(b, 1)
    assert "E5" in json.dumps(G.view(a, 1))
    assert "E5" in json.dumps(G.view(a, HOST))
    assert G.view(a, HOST) != G.view(b, HOST)


def test_chips_and_bids_stay_hidden_after_resolution() -> None:
    x = both(G.new(), "A1 30; B2 5", "A1 1")
    y = both(G.new(), "A1 2; B5 9", "A1 1")  # B2 and B5: Red wins an uncontested tile in both
    y_b2 = both(G.new(), "A1 2; B2 9", "A1 1")
    assert owner(x, "A1") == 1 and owner(x, "B2") == 1
    assert G.view(x, 2) == G.view(y_b2, 2)
    assert G.view(x, SPECTATOR) == G.view(y_b2, SPECTATOR)
    assert G.view(x, 2) != G.view(y, 2)  # different tiles owned: public, as it should be
    assert G.view(x, 1) != G.view(y_b2, 1)
    assert G.view(x, HOST) != G.view(y_b2, HOST)
    assert chips(x, 1) == 45 and chips(y_b2, 1) == 69


def test_a_tie_looks_like_no_bid_at_all_to_spectators() -> None:
    tied = both(G.new(), "A1 3", "A1 3")
    nothing = both(G.new(), "E5 3", "E5 3")
    assert owner(tied, "A1") == 0
    assert G.view(tied, SPECTATOR) == G.view(nothing, SPECTATOR)


def test_bids_and_chips_stay_hidden_at_the_end() -> None:
    cheap = red_line_after_round_2(red_chips=1)
    dear = red_line_after_round_2(red_chips=9)
    assert G.result(cheap) == G.result(dear)
    for viewer in (2, SPECTATOR):
        assert G.view(cheap, viewer) == G.view(dear, viewer)
    assert G.view(cheap, HOST) != G.view(dear, HOST)
    assert G.view(cheap, 1) != G.view(dear, 1)


def test_the_host_sees_both_players_chips() -> None:
    state = both(G.new(), "A1 30", "A1 12")
    hidden = json.dumps(G.view(state, HOST))
    assert "50" in hidden and "68" in hidden


# -- the interface -------------------------------------------------------------------------------------
def test_apply_never_mutates_and_dump_load_round_trips() -> None:
    state = G.new({"garnets": {1: 2}})
    for red, blue in (("A1 3; E5 2", "E5 4"), ("A2 5", "pass"), ("A3 1", "I9 70")):
        for seat, text in ((1, red), (2, blue)):
            before = dump(state)
            after = play(state, seat, text)
            assert dump(state) == before
            again = G.load(json.loads(json.dumps(G.dump(after))))
            assert dump(again) == dump(after)
            for viewer in (1, 2, SPECTATOR, HOST):
                assert G.view(again, viewer) == G.view(after, viewer)
            state = after
    assert G.result(state) is not None
    assert G.result(G.load(json.loads(dump(state)))) == G.result(state)


def test_listed_actions_are_accepted_and_round_trip() -> None:
    state = both(G.new(), "A1 1; A2 1", "C1 1")
    for seat in (1, 2, HOST):
        for count, action in enumerate(G.legal_actions(state, seat)):
            G.apply(state, seat, action)
            assert G.parse(state, seat, G.format(action)) == action
            if count > 200:
                break


def test_unknown_options_are_refused() -> None:
    with pytest.raises(RuleError):
        G.new({"colour": "green"})
