"""The Host's game in a season (issue 52): the Tokens of Life and Elimination Candidates of an
ending, as `CustomGame.season_awards` gives them and the host console previews them.

Ruling: an ending names its Tokens of Life and Elimination Candidates
  (`end ranking ... token S candidate S`) or its ranking gives them.  A ranking
  that names no token gives the top place(s) the season's count of Tokens of
  Life (1 by default); one that names no candidate makes the bottom place(s) its
  count of candidates.  What the ending names is kept whatever the counts, each
  of the two apart: `token 3` alone keeps seat 3's token, and the bottom of the
  ranking is still the candidate (passing over seat 3: a seat given a
  Token of Life is never a candidate).
Ruling: "top" and "bottom" are places, not seats: a place that straddles a cut
  (two seats equal for first with one token to give) gets nothing and is flagged
  to the host, who settles it, as Back to the Wall's ties for first or last are.
Ruling: `end winner` and `end draw` rank nobody last: they give only what they
  name.  An elimination match is asked for no awards (counts 0 and 0: its loser
  is out), so only what its ending names counts.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.core.facts import AwardCounts, SeasonAwards, ranked_awards

__all__ = ["ending_awards"]


def ending_awards(how: str, ranking: Sequence[Sequence[int]], token: Sequence[int], candidate: Sequence[int],
                  counts: AwardCounts) -> SeasonAwards:
    """The season awards of an ending (the rulings above)."""
    named_tokens, named_candidates = tuple(sorted(token)), tuple(sorted(candidate))
    ranked = ranked_awards(ranking if how == "ranking" else (), counts, tokens=named_tokens or None)
    return SeasonAwards(
        tokens=named_tokens or ranked["tokens"],
        token_reason="named by the host" if named_tokens else "first place in the main match",
        candidates=named_candidates or ranked["candidates"],
        candidate_text=("the host of {match} names {player} an Elimination Candidate" if named_candidates
                        else "{player} placed last in {match} and is an Elimination Candidate"),
        tied_tokens=() if named_tokens else ranked["tied_tokens"],
        tied_candidates=() if named_candidates else ranked["tied_candidates"],
    )
