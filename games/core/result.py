"""The outcome of one bout, as data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Result:
    """How a bout ended.

    `winners` is empty for a draw or a stalemate; `reason` is a short word
    (`lance`, `line`, `three`, `full`, `stalemate`, `repetition`, ...);
    `scores` holds per-seat points for games that score (else None);
    `detail` is an optional sentence for people.
    """

    winners: frozenset[int]
    reason: str
    scores: Mapping[int, float] | None = None
    detail: str = field(default="", compare=False)

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def to_json(self) -> dict[str, Any]:
        return {
            "winners": sorted(self.winners),
            "reason": self.reason,
            "scores": None if self.scores is None else {str(k): v for k, v in sorted(self.scores.items())},
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        scores = data.get("scores")
        return cls(
            winners=frozenset(int(s) for s in data["winners"]),
            reason=str(data["reason"]),
            scores=None if scores is None else {int(k): v for k, v in scores.items()},
            detail=str(data.get("detail", "")),
        )
