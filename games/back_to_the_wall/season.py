"""Back to the Wall in a season: what a bout does to the garnet
ledger and what the match gives, as the Game hooks matches/seasons asks.

- A finished bout credits +1 garnet per board where a seat was sole first and
  debits 1 per board where it spent one (spends are debited when the bout
  ends, the moment the rules let them be revealed).
- While a bout runs, a seat's orders may not spend more garnets than its
  season balance less what it has committed and not yet paid: `garnet_cost`
  and `garnets_spent` are what the platform counts.
- The match's top place earns a Token of Life and its bottom place is the
  Elimination Candidate (as many as the season's counts ask: `facts.ranked_awards`);
  a place that straddles a cut (seats equal on every tie-break) is flagged to the
  host to settle.

Pure: no Django.  `BackToTheWall` (rules.py) inherits these hooks.
"""

from __future__ import annotations

from games.core import HOST, SPECTATOR, Game
from games.core.facts import DEFAULT_COUNTS, AwardCounts, GarnetChange, SeasonAwards, ranked_awards

from .board import BOARD_NAMES, BOARD_TITLES, SEATS, Action
from .resolve import sole_first
from .state import BackToTheWallState


class SeasonLedger(Game[BackToTheWallState, Action]):
    """The season hooks of Back to the Wall."""

    spends_garnets = True

    def bout_garnets(self, state: BackToTheWallState) -> list[GarnetChange]:
        final = self.view(state, SPECTATOR)["public"].get("final") if self.result(state) is not None else None
        firsts: dict[int, list[str]] = {}
        for name, board in zip(BOARD_NAMES, (final or {}).get("boards", []), strict=False):
            first = sole_first({int(s): v for s, v in board["scores"].items()})
            if first is not None:
                firsts.setdefault(first, []).append(BOARD_TITLES[name])
        out: list[GarnetChange] = []
        for seat in SEATS:
            won = firsts.get(seat, [])
            spent = [BOARD_TITLES[name] for name, rnd in zip(BOARD_NAMES, state.spends[seat - 1], strict=True) if rnd]
            if won:
                out.append(GarnetChange(seat, len(won), f"sole first on {' and '.join(won)}"))
            if spent:
                out.append(GarnetChange(seat, -len(spent), f"spent on {' and '.join(spent)}"))
        return out

    def garnet_cost(self, action: Action) -> int:
        return sum(1 for board in getattr(action, "boards", ()) if getattr(board, "garnet", False))

    def garnets_spent(self, state: BackToTheWallState, seat: int, *, pending: bool) -> int:
        spent = sum(1 for rnd in state.spends[seat - 1] if rnd)
        submission = state.submission(seat) if pending else None
        return spent + (0 if submission is None else self.garnet_cost(submission))

    def season_awards(self, state: BackToTheWallState | None, winners: tuple[int, ...],
                      counts: AwardCounts = DEFAULT_COUNTS) -> SeasonAwards:
        text = "{player} finished last in {match} and is an Elimination Candidate"
        if state is None:  # a host's ruling: the winners it names earn the Token of Life, nobody is ranked last
            return SeasonAwards(tokens=winners if counts.tokens else (), token_reason="won the main match")
        # by the final ranking: seats that share first (or last) on every tie-break
        # are the host's to settle (rules.py's ruling on ties), flagged as tied
        ranking = (self.view(state, HOST)["public"].get("final") or {}).get("ranking") or []
        ranked = ranked_awards(ranking, counts)
        return SeasonAwards(tokens=ranked["tokens"], token_reason="won the main match",
                            candidates=ranked["candidates"], candidate_text=text,
                            tied_tokens=ranked["tied_tokens"], tied_candidates=ranked["tied_candidates"])
