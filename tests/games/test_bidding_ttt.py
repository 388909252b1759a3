"""Bidding 3D Tic-Tac-Toe: the card's setup, its notation, what may be bid on in each round and how a
round resolves.  Winning and its tie-breaks: test_bidding_ttt_winning.py;
hidden information, legal actions and storage: test_bidding_ttt_hidden.py.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bidding_ttt.rules import (
    TILE_NAMES,
    BiddingState,
    BiddingTTT,
    Resolve,
    Submit,
    tile_index,
)
from games.core import HOST, SPECTATOR, IllegalAction, NotationError
from games.registry import get_game

game = BiddingTTT()


def bids(text: str) -> Submit:
    """'A1 3; E5 2' -> Submit, through the parser."""
    action = game.parse(game.new(), 1, text)
    assert isinstance(action, Submit)
    return action


def play_round(state: BiddingState, red: str | None, blue: str | None) -> BiddingState:
    """Both seats submit (None: that seat does not submit; the host resolves)."""
    if red is not None:
        state = game.play(state, 1, red)
    if blue is not None:
        state = game.play(state, 2, blue)
    if red is None or blue is None:
        state = game.apply(state, HOST, Resolve())
    return state


def owner(state: BiddingState, tile: str) -> int:
    return state.owner[tile_index(tile)]


def controllers(state: BiddingState, board: str) -> set[int]:
    return {s for s in (1, 2) if state.control["ABCDEFGHI".index(board)] & s}


# -- identity, setup ---------------------------------------------------------


def test_registered_under_its_slug() -> None:
    registered = get_game("bidding-ttt")
    assert registered.slug == "bidding-ttt"
    assert registered.name == "Bidding 3D Tic-Tac-Toe"
    assert registered.seats == 2
    assert registered.sealed is True


def test_each_player_begins_with_80_chips() -> None:
    state = game.new()
    assert state.chips == (80, 80)
    assert game.hidden(state, 1)["chips"] == 80
    assert game.hidden(state, 2)["chips"] == 80


def test_starting_chips_is_an_option() -> None:
    state = game.new({"chips": 30})
    assert state.chips == (30, 30)
    assert game.public_view(state)["starting_chips"] == 30
    with pytest.raises(IllegalAction, match="chips must be a whole number"):
        game.new({"chips": -1})


def test_unknown_option_is_refused() -> None:
    with pytest.raises(IllegalAction, match="no option 'coins'"):
        game.new({"coins": 3})


def test_red_starts_controlling_board_d_and_blue_board_f() -> None:
    state = game.new()
    public = game.public_view(state)
    assert public["colours"] == {"1": "red", "2": "blue"}
    assert public["starting_boards"] == {"1": "D", "2": "F"}
    assert controllers(state, "D") == {1}
    assert controllers(state, "F") == {2}
    assert public["controlled"] == {"1": ["D"], "2": ["F"]}
    assert public["boards_controlled"] == {"1": 1, "2": 1}


def test_a_starting_board_is_controlled_but_no_tile_on_it_is_owned() -> None:
    state = game.new()
    assert all(owner(state, f"{b}{n}") == 0 for b in "DF" for n in range(1, 10))
    assert game.public_view(state)["tiles_owned"] == {"1": 0, "2": 0}


def test_nine_boards_in_reading_order_with_tiles_in_reading_order() -> None:
    public = game.public_view(game.new())
    assert public["layout"] == [["A", "B", "C"], ["D", "E", "F"], ["G", "H", "I"]]
    assert sorted(public["tiles"]) == list("ABCDEFGHI")
    assert TILE_NAMES[0] == "A1" and TILE_NAMES[4] == "A5" and TILE_NAMES[40] == "E5"
    assert TILE_NAMES[80] == "I9"


def test_there_are_three_rounds_and_both_seats_act_in_each() -> None:
    state = game.new()
    assert state.round == 1
    assert game.to_act(state) == {1, 2}
    assert game.pending(state) == {1, 2}
    state = play_round(state, "pass", "pass")
    assert state.round == 2
    state = play_round(state, "pass", "pass")
    assert state.round == 3
    state = play_round(state, "pass", "pass")
    assert game.result(state) is not None
    assert game.to_act(state) == frozenset()
    assert game.pending(state) == frozenset()


# -- notation ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("E5 - 2 chips", "E5 2"),
        ("A1 3; E5 2", "A1 3; E5 2"),
        ("e5 2 chips, a1 3", "A1 3; E5 2"),
        ("bid 2 on E5", "E5 2"),
        ("E5: 2", "E5 2"),
        ("E5 2 and A1 3", "A1 3; E5 2"),
        ("  e5   2  ", "E5 2"),
        ("I bid 3 chips on tile A1, and 2 chips on E5.", "A1 3; E5 2"),
        ("bid two chips on e5", "E5 2"),
        ("I'll bid 2 on e5", "E5 2"),
        ("E5 x2", "E5 2"),
        ("2 chips on E5 and A1 for 3", "A1 3; E5 2"),
        ("pass", "pass"),
        ("I pass.", "pass"),
        ("no bids", "pass"),
        ("PASS", "pass"),
    ],
)
def test_natural_phrasings_parse_to_the_canonical_form(text: str, expected: str) -> None:
    assert game.format(game.parse(game.new(), 1, text)) == expected


def test_the_order_of_bids_does_not_matter_actions_are_sorted_by_tile() -> None:
    assert bids("E5 2; A1 3") == bids("A1 3; E5 2")
    assert bids("E5 2; A1 3").bids == ((tile_index("A1"), 3), (tile_index("E5"), 2))
    assert Submit(((40, 2), (0, 3))) == Submit(((0, 3), (40, 2)))


def test_resolve_parses_for_anyone_but_only_the_host_may_apply_it() -> None:
    state = game.new()
    assert game.parse(state, HOST, "resolve") == Resolve()
    assert game.parse(state, HOST, "close the round") == Resolve()
    assert game.format(Resolve()) == "resolve"
    action = game.parse(state, 1, "resolve")
    with pytest.raises(IllegalAction, match="only the host may close a round"):
        game.apply(state, 1, action)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "got nothing"),
        ("J3 2", "expected a tile from A1 to I9.*'J3'"),
        ("A0 2", "expected a tile from A1 to I9.*'A0'"),
        ("A10 2", "expected a tile from A1 to I9.*'A10'"),
        ("A1", "expected a number of chips for A1"),
        ("A1 E5 2 3", "two tiles in a row"),
        ("3 4", "two numbers in a row"),
        ("hello", "could not read 'hello'"),
        ("A1 1234567", "expected a number of chips"),
        ("chips", "expected bids like 'A1 3; E5 2'"),
    ],
)
def test_bad_text_is_a_notation_error_saying_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        game.parse(game.new(), 1, text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 999_999)), max_size=12))
def test_fuzz_format_then_parse_round_trips(pairs: list[tuple[int, int]]) -> None:
    action = Submit(tuple(pairs))
    assert game.parse(game.new(), 2, game.format(action)) == action


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 80), st.integers(1, 99)), min_size=1, max_size=6, unique_by=lambda p: p[0]),
    st.sampled_from(["{t} {c}", "{t} - {c} chips", "bid {c} on {t}", "{t}: {c}", "{c} chips on tile {t}"]),
    st.sampled_from(["; ", ", ", " and ", ", and "]),
)
def test_fuzz_natural_phrasings_round_trip(pairs: list[tuple[int, int]], template: str, joiner: str) -> None:
    text = joiner.join(template.format(t=TILE_NAMES[t].lower(), c=c) for t, c in pairs)
    assert game.parse(game.new(), 1, text) == Submit(tuple(pairs))


# -- what may be bid on --------------------------------------------------------


def test_a_bid_may_cover_as_many_tiles_as_you_want() -> None:
    state = game.play(game.new(), 1, "A1 1; B2 1; C3 1; E1 1; E9 1; G5 1; H4 1; I7 1")
    assert state.bids[0] is not None
    assert len(state.bids[0]) == 8


def test_no_one_may_bid_on_a_starting_board() -> None:
    state = game.new()
    with pytest.raises(IllegalAction, match="board D is controlled: no one may bid on it"):
        game.play(state, 1, "D5 3")
    with pytest.raises(IllegalAction, match="board F is controlled: no one may bid on it"):
        game.play(state, 1, "F1 3")
    with pytest.raises(IllegalAction, match="board D is controlled: no one may bid on it"):
        game.play(state, 2, "D5 3")


def test_no_one_may_bid_on_a_controlled_board_again() -> None:
    state = game.position(red="A1 A2 A3", round=2)
    assert controllers(state, "A") == {1}
    for seat in (1, 2):
        with pytest.raises(IllegalAction, match="board A is controlled: no one may bid on it"):
            game.play(state, seat, "A9 1")


def test_an_owned_tile_may_not_be_bid_on() -> None:
    state = game.position(red="A1", blue="B5", round=2)
    with pytest.raises(IllegalAction, match="A1 is already owned by Red"):
        game.play(state, 2, "A1 4")
    with pytest.raises(IllegalAction, match="B5 is already owned by Blue"):
        game.play(state, 2, "B5 4")


def test_bids_may_not_total_more_than_your_chips() -> None:
    with pytest.raises(IllegalAction, match="you bid 90 chips but have only 80"):
        game.play(game.new(), 1, "A1 45; B1 45")
    state = game.position(chips=(10, 80))
    with pytest.raises(IllegalAction, match="you bid 11 chips but have only 10"):
        game.play(state, 1, "A1 11")
    game.play(state, 1, "A1 10")  # exactly all your chips is fine


def test_a_bid_must_be_at_least_one_chip() -> None:
    with pytest.raises(IllegalAction, match=r"at least 1 chip \(A1: 0\)"):
        game.play(game.new(), 1, "A1 0")


def test_one_bid_per_tile() -> None:
    with pytest.raises(IllegalAction, match="you bid on A1 twice"):
        game.play(game.new(), 1, "A1 2; A1 3")


def test_an_empty_submission_is_allowed() -> None:
    state = game.play(game.new(), 1, "pass")
    assert state.bids[0] == ()
    assert game.pending(state) == {2}


# -- round restrictions ------------------------------------------------------


@pytest.mark.parametrize(
    "text, line",
    [
        ("A1 1; A2 1; A3 1", "A1, A2, A3"),  # row
        ("B2 1; B5 1; B8 1", "B2, B5, B8"),  # column
        ("E1 1; E5 1; E9 1", "E1, E5, E9"),  # diagonal
        ("I3 1; I5 1; I7 1", "I3, I5, I7"),  # anti-diagonal
        ("C4 1; C5 1; C6 1; C1 1", "C4, C5, C6"),
    ],
)
def test_round_1_bids_may_not_hold_three_in_a_line_on_a_board(text: str, line: str) -> None:
    board = line[0]
    with pytest.raises(IllegalAction, match=f"round 1: your bids on board {board} contain three in a line \\({line}\\)"):
        game.play(game.new(), 1, text)


def test_round_1_allows_tiles_not_in_a_line_and_lines_across_boards() -> None:
    state = game.new()
    game.play(state, 1, "A1 1; A2 1; A4 1; A6 1; A8 1; A9 1")  # six tiles, no line on A
    game.play(state, 1, "A3 1; B1 1; B4 1")  # "in a line" across boards is not on one board


def test_round_1_therefore_captures_no_board() -> None:
    state = play_round(game.new(), "A1 5; A2 5; A4 5; A6 5", "B1 5; B5 5; B3 5")
    assert game.public_view(state)["controlled"] == {"1": ["D"], "2": ["F"]}


def test_round_2_bids_may_lie_on_at_most_two_boards() -> None:
    state = game.position(round=2)
    with pytest.raises(IllegalAction, match=r"round 2: your bids cover 3 boards \(A, B, C\); at most 2"):
        game.play(state, 1, "A1 1; B1 1; C1 1")
    game.play(state, 1, "A1 1; A2 1; A3 1; B1 1; B5 1; B9 1")  # lines are fine now


def test_round_3_allows_bids_anywhere() -> None:
    state = game.position(round=3)
    game.play(state, 1, "A1 1; A2 1; A3 1; B1 1; C1 1; E1 1; G1 1; H1 1; I1 1")


# -- resolution --------------------------------------------------------------


def test_the_highest_bidder_owns_the_tile_and_everyone_pays() -> None:
    state = play_round(game.new(), "A1 5; B1 2", "A1 3; C1 4")
    assert owner(state, "A1") == 1
    assert owner(state, "B1") == 1  # unopposed
    assert owner(state, "C1") == 2
    assert state.chips == (73, 73)  # losers pay too


def test_equal_bids_leave_the_tile_unowned_and_both_pay() -> None:
    state = play_round(game.new(), "E5 7", "E5 7")
    assert owner(state, "E5") == 0
    assert state.chips == (73, 73)
    assert game.public_view(state)["won_last_round"] == {"1": [], "2": []}


def test_owned_tiles_are_public_after_resolution() -> None:
    state = play_round(game.new(), "A1 5", "B5 3")
    public = game.public_view(state)
    assert public["tiles"]["A"][0] == [1, 0, 0]
    assert public["tiles"]["B"][1] == [0, 2, 0]
    assert public["tiles_owned"] == {"1": 1, "2": 1}
    assert public["won_last_round"] == {"1": ["A1"], "2": ["B5"]}


def test_three_owned_tiles_in_a_line_control_the_board() -> None:
    state = game.position(red="A1 A5", round=2)
    state = play_round(state, "A9 2", "pass")
    assert controllers(state, "A") == {1}
    assert game.public_view(state)["control"]["A"] == [1]


def test_both_players_can_control_the_same_board_after_the_same_round() -> None:
    state = game.position(red="B1 B2", blue="B7 B8", round=2)
    state = play_round(state, "B3 4", "B9 4")
    assert controllers(state, "B") == {1, 2}
    assert game.public_view(state)["boards_controlled"] == {"1": 2, "2": 2}


def test_resubmitting_within_a_round_replaces_the_previous_submission() -> None:
    state = game.play(game.new(), 1, "A1 10")
    state = game.play(state, 1, "B1 2")
    assert state.bids[0] == bids("B1 2").bids
    assert game.to_act(state) == {1, 2}
    assert game.pending(state) == {2}
    state = game.play(state, 2, "pass")
    assert owner(state, "A1") == 0 and owner(state, "B1") == 1
    assert state.chips == (78, 80)


def test_the_host_resolves_a_round_with_a_missing_submission_as_no_bids() -> None:
    state = game.play(game.new(), 1, "A1 10")
    state = game.apply(state, HOST, game.parse(state, HOST, "resolve"))
    assert state.round == 2
    assert owner(state, "A1") == 1
    assert state.chips == (70, 80)
    assert game.hidden(state, 2)["history"] == [{"round": 1, "bids": [], "spent": 0}]


def test_the_host_may_resolve_with_no_submission_at_all() -> None:
    state = game.apply(game.new(), HOST, Resolve())
    assert state.round == 2 and state.chips == (80, 80)


def test_the_host_does_not_bid() -> None:
    with pytest.raises(IllegalAction, match="the host does not bid"):
        game.play(game.new(), HOST, "A1 3")


def test_other_audiences_may_not_act() -> None:
    with pytest.raises(IllegalAction, match="it is not your turn"):
        game.play(game.new(), SPECTATOR, "A1 3")
    with pytest.raises(IllegalAction, match="it is not your turn"):
        game.play(game.new(), 3, "A1 3")


def test_nothing_may_be_played_after_the_end() -> None:
    state = play_round(game.position(round=3), "pass", "pass")
    assert game.result(state) is not None
    with pytest.raises(IllegalAction, match="the bout is over"):
        game.play(state, 1, "A1 1")
    with pytest.raises(IllegalAction, match="the bout is over"):
        game.apply(state, HOST, Resolve())
    assert list(game.legal_actions(state, 1)) == []
    assert game.random_action(state, 1, random.Random(1)) is None


def test_a_rejected_submission_changes_nothing() -> None:
    state = game.play(game.new(), 1, "A1 3")
    before = game.dump(state)
    with pytest.raises(IllegalAction):
        game.play(state, 1, "D1 3")
    assert game.dump(state) == before
    assert state.bids[0] == bids("A1 3").bids
