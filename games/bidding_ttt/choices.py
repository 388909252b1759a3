"""Every legal submission of Bidding 3D Tic-Tac-Toe, for `BiddingTTT.legal_actions`:
sets of tiles (per board, then over boards) and ways to spread chips over them.

Lazy and without dead ends: the action space is huge (every split of 80 chips),
so nothing is enumerated that cannot be completed.  Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

#: per board: (board index, subsets of its free tiles grouped by size)
BoardOptions = list[tuple[int, list[list[tuple[int, ...]]]]]


def all_subsets(tiles: list[int]) -> list[list[tuple[int, ...]]]:
    """Subsets of `tiles` grouped by size: result[k] = all k-subsets."""
    return [list(combinations(tiles, k)) for k in range(len(tiles) + 1)]


def no_line_subsets(tiles: list[int], line_masks: tuple[int, ...]) -> list[list[tuple[int, ...]]]:
    """Subsets holding no three in a line, grouped by size (hereditary, so no gaps)."""
    out: list[list[tuple[int, ...]]] = []
    for k in range(len(tiles) + 1):
        layer = []
        for combo in combinations(tiles, k):
            mask = 0
            for t in combo:
                mask |= 1 << (t % 9)
            if not any(mask & m == m for m in line_masks):
                layer.append(combo)
        if not layer:
            break
        out.append(layer)
    return out


def capacity_ok(boards: BoardOptions, size: int, max_boards: int) -> bool:
    """Can `size` tiles be spread over at most `max_boards` of `boards`?"""
    caps = sorted((len(opts) - 1 for _, opts in boards), reverse=True)
    return sum(caps[:max_boards]) >= size


def tile_sets(boards: BoardOptions, size: int, used: int, max_boards: int) -> Iterator[tuple[int, ...]]:
    """Tile sets of exactly `size` tiles, at most `max_boards` boards, lazily and without dead ends."""
    if size == 0:
        yield ()
        return
    if not boards or used >= max_boards or not capacity_ok(boards, size, max_boards - used):
        return
    _, opts = boards[0]
    rest = boards[1:]
    for k in range(min(size, len(opts) - 1), -1, -1):
        for subset in opts[k]:
            for tail in tile_sets(rest, size - k, used + (k > 0), max_boards):
                yield subset + tail


def allocations(count: int, chips: int) -> Iterator[tuple[int, ...]]:
    """Every way to put >= 1 chip on each of `count` tiles, total <= chips."""
    if count == 0:
        yield ()
        return
    for first in range(1, chips - count + 2):
        for rest in allocations(count - 1, chips - first):
            yield (first, *rest)
