"""Back to the Wall: the state of one match (three boards, the sealed orders of
the round being played, garnet spends and bonuses, every resolved round's log).

Pure Python, no Django.  The rules that change it are rules.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .board import SEATS, Board, BoardLog, Orders

Boards = tuple[Board, Board, Board]
Triple = tuple[int, int, int]


@dataclass(frozen=True)
class BackToTheWallState:
    boards: Boards
    round: int  # the round being played (the last one once finished)
    submissions: tuple[Orders | None, Orders | None, Orders | None, Orders | None]
    spends: tuple[Triple, Triple, Triple, Triple]  # per seat, per board: round of the garnet spend (0 none)
    bonus: tuple[Triple, Triple, Triple, Triple]  # per seat, per board: garnet bonus earned
    logs: tuple[tuple[BoardLog, ...], ...] = ()  # every resolved round's log, per board
    finished: bool = False
    #: garnets each seat held at the start (None: not counted)
    garnets: tuple[int, int, int, int] | None = None

    def submission(self, seat: int) -> Orders | None:
        return self.submissions[seat - 1]

    @property
    def last_log(self) -> tuple[BoardLog, ...]:
        """The last resolved round, per board (empty before the first resolution)."""
        return self.logs[-1] if self.logs else ()

    def garnets_left(self, seat: int) -> int | None:
        """Garnets `seat` may still spend in this match (None when the match does not count them)."""
        if self.garnets is None:
            return None
        return self.garnets[seat - 1] - sum(1 for r in self.spends[seat - 1] if r)


NO_SUBMISSIONS: tuple[None, None, None, None] = (None, None, None, None)
ZEROS: tuple[Triple, Triple, Triple, Triple] = ((0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0))


def make_state(
    boards: Sequence[Board],
    round: int = 1,
    spends: Mapping[int, Mapping[str, int]] | None = None,
    bonus: Mapping[int, Mapping[str, int]] | None = None,
) -> BackToTheWallState:
    """Test-friendly constructor: boards from `board.make_board`, optional garnet history."""

    def triples(data: Mapping[int, Mapping[str, int]] | None) -> tuple[Triple, Triple, Triple, Triple]:
        rows = []
        for seat in SEATS:
            mine = (data or {}).get(seat, {})
            rows.append((mine.get("once", 0), mine.get("twice", 0), mine.get("thrice", 0)))
        return (rows[0], rows[1], rows[2], rows[3])

    return BackToTheWallState(
        boards=(boards[0], boards[1], boards[2]),
        round=round,
        submissions=NO_SUBMISSIONS,
        spends=triples(spends),
        bonus=triples(bonus),
    )
