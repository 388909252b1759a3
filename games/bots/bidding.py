"""Bidding 3D Tic-Tac-Toe: submissions planned from the lines of boards, for the sealed bandit.

Reads the seat's view only (the public boards, its own chips).  The plan:

- Lines of boards: the 8 lines of the 3x3 layout that the seat can still
  complete (no board in them controlled by the other seat alone, every board
  still winnable).  A line's cost is the tiles still to win on its boards; the
  cheapest lines are the targets (a starting board counts as controlled).
- Tiles: on a target board, a tile is worth the open lines of tiles it lies on
  (lines holding no tile of the other seat), more when it completes one.
  Round 1 may not bid three in a line on a board: the plan takes the best tiles
  that make no line (centre and two corners leave three lines one tile short).
  Round 2 may bid on two boards: the two boards the best line still needs, every
  tile that completes a line on them.  Round 3: everything the line needs.
- Chips over three rounds: about a quarter in round 1, most of what is left in
  round 2 (two boards won there complete a line through the starting board), all
  in round 3; spread by tile worth.

Several plans (best lines, more and less chips) plus a few random submissions
are the candidates the sealed bandit then judges by resolving rounds.
"""

from __future__ import annotations

import random
from typing import Any

from games.core import Game

from .search import Strength

LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
LETTERS = "ABCDEFGHI"
#: share of the chips in hand a plan spends, by round
SHARE = {1: 0.3, 2: 0.75, 3: 1.0}


class _Boards:
    """The public boards from `seat`'s side: owners per tile and who controls each board."""

    def __init__(self, public: dict[str, Any], seat: int) -> None:
        self.seat = seat
        self.owner = [[int(v) for row in public["tiles"][letter] for v in row] for letter in LETTERS]
        self.control = [set(int(s) for s in public["control"][letter]) for letter in LETTERS]

    def mine(self, board: int) -> bool:
        return self.seat in self.control[board]

    def open(self, board: int) -> bool:
        """Nobody controls it yet: tiles may be bid on."""
        return not self.control[board]

    def tile_lines(self, board: int) -> list[tuple[int, ...]]:
        """The board's lines of tiles the seat can still complete: the tiles still to win on each."""
        other = 3 - self.seat
        cells = self.owner[board]
        out = []
        for line in LINES:
            if any(cells[c] == other for c in line):
                continue
            out.append(tuple(c for c in line if cells[c] != self.seat))
        return out

    def board_cost(self, board: int) -> int | None:
        """Tiles still to win to control `board` (0: controlled; None: out of reach)."""
        if self.mine(board):
            return 0
        if not self.open(board):
            return None
        needs = [len(t) for t in self.tile_lines(board)]
        return min(needs) if needs else None

    def board_lines(self) -> list[tuple[int, tuple[int, ...]]]:
        """(cost, boards still needed) of every line of boards the seat can still complete, cheapest first."""
        out = []
        for line in LINES:
            costs = [self.board_cost(b) for b in line]
            if any(c is None for c in costs):
                continue
            out.append((sum(c or 0 for c in costs), tuple(b for b in line if not self.mine(b))))
        out.sort()
        return out

    def tile_worth(self, board: int) -> dict[int, float]:
        """Per free tile of `board`: the open lines through it, more for lines nearly complete."""
        worth: dict[int, float] = {}
        for needed in self.tile_lines(board):
            weight = {1: 6.0, 2: 2.0, 3: 1.0}[len(needed)]
            for c in needed:
                worth[c] = worth.get(c, 0.0) + weight
        return {c: w for c, w in worth.items() if self.owner[board][c] == 0}


def _no_line(cells: set[int]) -> bool:
    return not any(all(c in cells for c in line) for line in LINES)


def _round_one_tiles(boards: _Boards, board: int, count: int) -> list[int]:
    """The best tiles of `board` that hold no line of three among themselves or with owned tiles."""
    worth = boards.tile_worth(board)
    owned = {c for c in range(9) if boards.owner[board][c] == boards.seat}
    chosen: list[int] = []
    for c in sorted(worth, key=lambda t: (-worth[t], t)):
        if len(chosen) == count:
            break
        if _no_line(owned | set(chosen) | {c}):
            chosen.append(c)
    return chosen


def _completing_tiles(boards: _Boards, board: int, lines: int) -> list[int]:
    """The tiles still to win on the `lines` cheapest lines of tiles of `board`."""
    tile_lines = sorted(boards.tile_lines(board), key=len)
    chosen: list[int] = []
    for needed in tile_lines[:lines]:
        for c in needed:
            if c not in chosen:
                chosen.append(c)
    return chosen


def plan(public: dict[str, Any], seat: int, chips: int, line_rank: int, share: float,
         wide: bool) -> list[tuple[str, int]] | None:
    """A submission as (tile name, chips) pairs: the `line_rank`-th cheapest line of boards, `share`
    of the chips in hand, `wide` to bid on more tiles (more lines of tiles per board)."""
    rnd = int(public["round"])
    boards = _Boards(public, seat)
    lines = boards.board_lines()
    if not lines or chips <= 0:
        return None
    _, needed = lines[min(line_rank, len(lines) - 1)]
    targets = [b for b in needed if boards.open(b)]
    if rnd == 2:
        targets = targets[:2]
    if not targets:
        return None
    tiles: list[tuple[int, int]] = []  # (board, cell)
    for b in targets:
        if rnd == 1:
            cells = _round_one_tiles(boards, b, 4 if wide else 3)
        else:
            cells = _completing_tiles(boards, b, 3 if wide else 2 if rnd == 2 else 1)
        tiles += [(b, c) for c in cells]
    if rnd == 3 and wide:
        # the tie-breaks: boards, then tiles; one more board's cheapest line
        extra = [b for b in range(9) if boards.open(b) and b not in targets]
        extra.sort(key=lambda b: boards.board_cost(b) or 9)
        for b in extra[:1]:
            tiles += [(b, c) for c in _completing_tiles(boards, b, 1)]
    if not tiles:
        return None
    spend = max(len(tiles), min(chips, round(chips * share)))
    spend = min(spend, chips)
    tiles = tiles[:spend]  # one chip per tile at least
    worth = [1.0 + boards.tile_worth(b).get(c, 0.0) for b, c in tiles]
    total = sum(worth)
    amounts = [max(1, int(spend * w / total)) for w in worth]
    # the chips left over by rounding down go to the most valuable tiles
    left = spend - sum(amounts)
    order = sorted(range(len(tiles)), key=lambda i: -worth[i])
    i = 0
    while left > 0 and order:
        amounts[order[i % len(order)]] += 1
        left -= 1
        i += 1
    while sum(amounts) > chips:
        j = max(range(len(amounts)), key=lambda k: amounts[k])
        amounts[j] -= 1
    return [(f"{LETTERS[b]}{c + 1}", a) for (b, c), a in zip(tiles, amounts, strict=True) if a > 0]


def legal(game: Game[Any, Any], state: Any, seat: int, text: str) -> Any | None:
    """The submission `text` names when the seat may make it now (within its chips), else None."""
    try:
        action = game.parse(state, seat, text)
        game.apply(state, seat, action)
    except ValueError:
        return None
    return action


def propose(game: Game[Any, Any], state: Any, seat: int, rng: random.Random, knobs: Strength,
            extra: list[Any]) -> list[Any]:
    """Planned submissions (best lines of boards, three chip levels, narrow and wide), then `extra`."""
    view = game.view(state, seat)
    public = view["public"]
    chips = int(view["private"]["chips"])
    rnd = int(public["round"])
    out: list[Any] = []
    for line_rank in (0, 1, 2):
        for factor in (1.0, 0.6, 1.4):
            for wide in (False, True):
                bids = plan(public, seat, chips, line_rank, min(1.0, SHARE.get(rnd, 1.0) * factor), wide)
                if not bids:
                    continue
                action = legal(game, state, seat, "; ".join(f"{tile} {amount}" for tile, amount in bids))
                if action is not None and action not in out:
                    out.append(action)
    for action in extra:
        if action not in out:
            out.append(action)
    return out[: max(knobs.candidates, len(out) - len(extra) + 4)]
