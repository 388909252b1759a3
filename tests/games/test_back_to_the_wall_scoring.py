"""Back to the Wall: board scores, 6/4/2/1 places, garnets earned, final ranking."""

from __future__ import annotations

from dataclasses import replace

import pytest

from games.back_to_the_wall.board import Board, make_board
from games.back_to_the_wall.resolve import final_ranking, place_points, ranking_key, sole_first
from games.back_to_the_wall.rules import BackToTheWall, make_state
from games.back_to_the_wall.state import BackToTheWallState

game = BackToTheWall()


def counted(name: str, size: int, counts: dict[int, int]) -> Board:
    """A board where seat s owns counts[s] squares (row-major), no walls, no pieces."""
    cells: list[str] = []
    for seat, n in counts.items():
        cells.extend([str(seat)] * n)
    cells.extend(["."] * (size * size - len(cells)))
    return make_board(name, ["".join(cells[r * size : (r + 1) * size]) for r in range(size)])


def finished(
    once: dict[int, int],
    twice: dict[int, int],
    thrice: dict[int, int],
    bonus: dict[int, dict[str, int]] | None = None,
    spends: dict[int, dict[str, int]] | None = None,
) -> BackToTheWallState:
    boards = [counted("once", 6, once), counted("twice", 7, twice), counted("thrice", 8, thrice)]
    return replace(make_state(boards, round=3, bonus=bonus, spends=spends), finished=True)


# -- places ------------------------------------------------------------------------
def test_places_give_6_4_2_1() -> None:
    assert place_points({1: 9, 2: 7, 3: 5, 4: 3}) == {1: 6, 2: 4, 3: 2, 4: 1}
    assert place_points({1: 3, 2: 5, 3: 7, 4: 9}) == {4: 6, 3: 4, 2: 2, 1: 1}


def test_two_tied_for_first_get_5_each() -> None:
    assert place_points({1: 9, 2: 9, 3: 5, 4: 3}) == {1: 5, 2: 5, 3: 2, 4: 1}


def test_two_tied_for_second_get_3_each() -> None:
    assert place_points({1: 9, 2: 7, 3: 7, 4: 3}) == {1: 6, 2: 3, 3: 3, 4: 1}


def test_two_tied_for_third_get_1_5_each() -> None:
    assert place_points({1: 9, 2: 7, 3: 3, 4: 3}) == {1: 6, 2: 4, 3: 1.5, 4: 1.5}


def test_three_tied_for_first_get_4_each() -> None:
    assert place_points({1: 9, 2: 9, 3: 9, 4: 3}) == {1: 4, 2: 4, 3: 4, 4: 1}


def test_three_tied_for_second_and_four_tied() -> None:
    assert place_points({1: 9, 2: 3, 3: 3, 4: 3}) == {1: 6, 2: 7 / 3, 3: 7 / 3, 4: 7 / 3}
    assert place_points({1: 0, 2: 0, 3: 0, 4: 0}) == {s: 3.25 for s in (1, 2, 3, 4)}


def test_only_a_sole_first_place_earns_a_garnet() -> None:
    assert sole_first({1: 9, 2: 7, 3: 5, 4: 3}) == 1
    assert sole_first({1: 9, 2: 9, 3: 5, 4: 3}) is None


# -- whole-match scoring ------------------------------------------------------------
def test_board_score_is_captured_squares_plus_the_garnet_bonus() -> None:
    state = finished(
        {1: 5, 2: 6, 3: 1, 4: 1},
        {1: 4, 2: 3, 3: 2, 4: 1},
        {1: 4, 2: 3, 3: 2, 4: 1},
        bonus={1: {"once": 2}},
        spends={1: {"once": 2}},
    )
    assert game.board_scores(state)[0] == {1: 7, 2: 6, 3: 1, 4: 1}
    final = game.public_view(state)["final"]
    assert final["boards"][0]["points"] == {"1": 6, "2": 4, "3": 1.5, "4": 1.5}
    assert final["boards"][0]["captured"]["1"] == 5 and final["boards"][0]["garnet_bonus"]["1"] == 2
    assert final["garnets_earned"]["1"] == 3
    assert final["garnet_spends"] == {"1": {"once": 2}, "2": {}, "3": {}, "4": {}}


def test_garnets_earned_count_sole_first_places_per_board() -> None:
    state = finished({1: 5, 2: 5, 3: 1, 4: 1}, {1: 9, 2: 3, 3: 2, 4: 1}, {1: 1, 2: 3, 3: 9, 4: 1})
    assert game.public_view(state)["final"]["garnets_earned"] == {"1": 1, "2": 0, "3": 1, "4": 0}
    result = game.result(state)
    assert result is not None
    assert "Garnets earned: seat 1: 1, seat 3: 1" in result.detail


def test_most_points_wins_the_token_of_life_and_fewest_is_the_elimination_candidate() -> None:
    state = finished({1: 9, 2: 7, 3: 5, 4: 3}, {1: 9, 2: 7, 3: 5, 4: 3}, {1: 3, 2: 9, 3: 7, 4: 5})
    result = game.result(state)
    assert result is not None and result.scores is not None
    assert result.winners == frozenset({2}) and result.reason == "points"
    assert all(isinstance(v, float) for v in result.scores.values())
    view = game.public_view(state)["final"]
    assert view["ranking"] == [[2], [1], [3], [4]]
    assert view["token_of_life"] == [2] and view["elimination_candidate"] == [4]
    assert "Token of Life: seat 2" in result.detail and "Elimination Candidate: seat 4" in result.detail


def test_equal_totals_go_to_the_higher_best_single_board() -> None:
    # seat 1: 4, 4, 1.5 = 9.5; seat 2: 6, 2, 1.5 = 9.5 -> seat 2 ranks higher (card: 4,4,1 < 6,2,1)
    state = finished({1: 8, 2: 10, 3: 6, 4: 4}, {3: 10, 1: 8, 2: 6, 4: 4}, {3: 10, 4: 8, 1: 5, 2: 5})
    result = game.result(state)
    assert result is not None
    assert result.scores == {1: 9.5, 2: 9.5, 3: 14.0, 4: 6.0}
    assert final_ranking({1: [4, 4, 1.5], 2: [6, 2, 1.5]}) == [[2], [1]]
    assert game.public_view(state)["final"]["ranking"] == [[3], [2], [1], [4]]
    assert result.winners == frozenset({3})


def test_then_more_points_on_thrice() -> None:
    state = finished({1: 10, 2: 8, 3: 6, 4: 4}, {2: 10, 3: 8, 1: 6, 4: 4}, {3: 10, 1: 8, 2: 6, 4: 4})
    result = game.result(state)
    assert result is not None
    assert result.scores == {1: 12.0, 2: 12.0, 3: 12.0, 4: 3.0}
    assert game.public_view(state)["final"]["ranking"] == [[3], [1], [2], [4]]
    assert result.winners == frozenset({3})


def test_then_more_points_on_twice() -> None:
    state = finished({3: 10, 1: 8, 2: 6, 4: 4}, {3: 10, 2: 8, 1: 6, 4: 4}, {1: 9, 2: 9, 3: 5, 4: 4})
    result = game.result(state)
    assert result is not None and result.scores is not None
    assert result.scores[1] == result.scores[2] == 11.0
    assert game.public_view(state)["final"]["ranking"] == [[3], [2], [1], [4]]


def test_the_tie_break_order_is_total_best_board_thrice_twice_once() -> None:
    assert ranking_key([1, 2, 3]) == (6, 3, 3, 2, 1)
    assert final_ranking({1: [1, 4, 6], 2: [2, 4, 5]}) == [[1], [2]]  # total 11 each, best 6 > 5
    assert final_ranking({1: [6, 1, 2], 2: [4, 2, 3]}) == [[1], [2]]  # best single board 6
    assert final_ranking({1: [5, 1, 3], 2: [4, 2, 3]}) == [[1], [2]]  # best 5 vs 4


def test_a_tie_for_first_on_every_tie_break_is_the_hosts_to_settle() -> None:
    # issue 41: seats equal on every tie-break for first share the win (`winners`) but not the
    # Token of Life: the host settles it, as Bidding's tie
    state = finished({1: 9, 2: 9, 3: 5, 4: 3}, {1: 9, 2: 9, 3: 5, 4: 3}, {1: 9, 2: 9, 3: 5, 4: 3})
    result = game.result(state)
    assert result is not None
    assert result.winners == frozenset({1, 2}) and result.reason == "tie"
    assert result.scores == {1: 15.0, 2: 15.0, 3: 6.0, 4: 3.0}
    final = game.public_view(state)["final"]
    assert final["token_of_life"] == [] and final["tied_first"] == [1, 2]
    assert final["elimination_candidate"] == [4] and final["tied_last"] == []
    assert final["garnets_earned"] == {"1": 0, "2": 0, "3": 0, "4": 0}
    assert "Token of Life: seat 1 and seat 2 tied: the host decides." in result.detail
    assert "Elimination Candidate: seat 4." in result.detail
    assert game.reason_words["tie"] == "tied for first on every tie-break: the host settles the Token of Life"


def test_a_tie_for_last_on_every_tie_break_is_the_hosts_to_settle() -> None:
    state = finished({1: 9, 2: 7, 3: 5, 4: 5}, {1: 9, 2: 7, 3: 5, 4: 5}, {1: 9, 2: 7, 3: 5, 4: 5})
    result = game.result(state)
    assert result is not None
    assert result.winners == frozenset({1}) and result.reason == "points"
    final = game.public_view(state)["final"]
    assert final["ranking"] == [[1], [2], [3, 4]]
    assert final["token_of_life"] == [1] and final["tied_first"] == []
    assert final["elimination_candidate"] == [] and final["tied_last"] == [3, 4]
    assert "Elimination Candidate: seat 3 and seat 4 tied: the host decides." in result.detail


def test_everyone_tied_is_neither_first_nor_last_but_the_hosts_to_settle() -> None:
    # today's defect: a four-way tie made every player both Token of Life winner and Elimination Candidate
    state = finished({}, {}, {})
    result = game.result(state)
    assert result is not None
    assert result.winners == frozenset({1, 2, 3, 4}) and result.reason == "tie"
    assert result.scores == {s: 9.75 for s in (1, 2, 3, 4)}
    final = game.public_view(state)["final"]
    assert final["token_of_life"] == [] and final["elimination_candidate"] == []
    assert final["tied_first"] == final["tied_last"] == [1, 2, 3, 4]
    awards = game.season_awards(state, tuple(sorted(result.winners)))
    assert awards.tokens == () and awards.candidates == ()


def test_no_result_while_the_match_is_running() -> None:
    assert game.result(game.new()) is None


@pytest.mark.parametrize("bonus", [0, 1, 3])
def test_garnet_bonus_can_change_places(bonus: int) -> None:
    state = finished(
        {1: 5, 2: 5, 3: 1, 4: 1},
        {1: 4, 2: 3, 3: 2, 4: 1},
        {2: 5, 1: 3, 3: 2, 4: 1},
        bonus={2: {"thrice": bonus}},
        spends={2: {"thrice": 1}},
    )
    points = game.public_view(state)["final"]["boards"][2]["points"]
    assert points["2"] == 6 and points["1"] == 4
