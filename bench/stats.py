"""Figures the benchmarks share."""

from __future__ import annotations

import math


def pct(values: list[float], p: float) -> float:
    """The p-th percentile by nearest rank: the smallest value with at least p % of the values at or
    below it (the 19th of 20 at p95).  NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered) - 1e-9) - 1))]
