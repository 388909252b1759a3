"""The season awards of a ranking (games/core/facts.ranked_awards) and of the Host's game's
endings (games/custom/season.py): top places the Tokens of Life, bottom places the candidates, a
place straddling a cut tied for the host, what an ending names kept (issue 52)."""

from __future__ import annotations

import pytest

from games.core.facts import AwardCounts, ranked_awards
from games.custom.season import ending_awards
from games.registry import get_game


@pytest.mark.parametrize(("ranking", "counts", "expected"), [
    ([[2], [3], [1], [4]], (1, 1), ((2,), (), (4,), ())),
    ([[1, 3], [2, 4]], (1, 1), ((), (1, 3), (), (2, 4))),
    ([[1, 2, 3, 4]], (1, 1), ((), (1, 2, 3, 4), (), (1, 2, 3, 4))),  # all equal: both the host's
    ([[2], [1, 3], [4]], (2, 0), ((2,), (1, 3), (), ())),
    ([[2], [3], [1], [4]], (2, 2), ((2, 3), (), (1, 4), ())),
    ([[1], [2]], (2, 1), ((1, 2), (), (), ())),  # a token holder is never a candidate
    ([[1], [2], [3, 4]], (1, 1), ((1,), (), (), (3, 4))),
    ([[1], [2], [3, 4]], (1, 2), ((1,), (), (3, 4), ())),
])
def test_top_and_bottom_places_by_the_counts(ranking: list[list[int]], counts: tuple[int, int],
                                              expected: tuple[tuple[int, ...], ...]) -> None:
    got = ranked_awards(ranking, AwardCounts(*counts))
    assert (got["tokens"], got["tied_tokens"], got["candidates"], got["tied_candidates"]) == expected


def test_an_ending_keeps_what_it_names_and_ranks_the_rest() -> None:
    named = ending_awards("ranking", [[2], [3], [1], [4]], [3], [1], AwardCounts())
    assert (named.tokens, named.candidates, named.tied_tokens, named.tied_candidates) == ((3,), (1,), (), ())
    token_only = ending_awards("ranking", [[2], [3], [1], [4]], [4], [], AwardCounts())
    assert (token_only.tokens, token_only.candidates) == ((4,), (1,))
    assert ending_awards("winner", [[2]], [], [], AwardCounts()).tokens == ()
    assert ending_awards("ranking", [[1], [2]], [], [], AwardCounts(0, 0)).candidates == ()


def test_the_host_games_hook_reads_its_ending_with_the_counts() -> None:
    game = get_game("custom")
    state = game.play(game.new({"seats": 3}), 0, "end ranking 3, 1, 2")
    awards = game.season_awards(state, (3,), AwardCounts(1, 1))
    assert (awards.tokens, awards.candidates) == ((3,), (2,))
    assert game.season_awards(state, (3,), AwardCounts(0, 0)).tokens == ()
