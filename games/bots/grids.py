"""Alpha-beta for the stone boards (Gomoku, Squava), where Monte Carlo search is weak.

Reads only the public view (`cells`: rows of 0/1/2; `win_length`) and plays square
indices (row * size + column), the boards' own actions.  Negamax with alpha-beta
and iterative deepening over candidate moves near the stones, ordered by a
threat score; positions cut short are valued by the runs each side can still
complete (windows of `win_length` holding one colour only).  Squava's twist:
exactly three in a row loses, so a move that makes three is never a candidate
unless nothing else is left, and the evaluation counts the safe squares each
side still has (running out of them loses).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .search import Strength

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
WIN = 1_000_000
#: value of a square that would give the other side an open four (per square, up to three)
FORK = 1500
#: value of a window holding k stones of one colour and nothing else, by k (index) for length 5 / 4
WINDOW_VALUE = {5: (0, 1, 12, 150, 2500, WIN), 4: (0, 1, 8, 60, WIN)}


@dataclass(frozen=True)
class Depths:
    """How deep each strength searches (plies) and how many moves it looks at per node."""

    depth: int
    width: int
    noise: float  # share of the best score an easy bot may give away at random
    #: moves within this much of the best are equal: the seed chooses among them (variety)
    margin: int = 6
    #: weight of the other side's lines in the evaluation: a beginner watches its own lines and
    #: sees the other's only when they are one stone from done
    defence: float = 1.0


#: strong deepens as far as its clock allows (to `depth`); without a clock its node budget ends it
DEPTHS = {"easy": Depths(1, 8, 0.1, defence=0.3), "normal": Depths(2, 8, 0.0), "strong": Depths(12, 10, 0.0)}
#: Squava's 5x5: every square is a candidate, searched wider and deeper in the same time
SMALL_DEPTHS = {"easy": Depths(1, 8, 0.1, defence=0.3), "normal": Depths(4, 8, 0.0),
                "strong": Depths(12, 16, 0.0)}


class Board:
    """A grid position for the search: flat cells, mutated by play/undo."""

    def __init__(self, rows: Sequence[Sequence[int]], win_length: int, three_loses: bool) -> None:
        self.n = len(rows)
        self.cells = [int(v) for row in rows for v in row]
        self.k = win_length
        self.three_loses = three_loses
        n = self.n
        self.windows: list[tuple[int, ...]] = []
        self.rays: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = [[] for _ in range(n * n)]
        for i in range(n * n):
            r, c = divmod(i, n)
            for dr, dc in DIRECTIONS:
                cells = tuple((r + dr * s) * n + c + dc * s for s in range(self.k))
                er, ec = r + dr * (self.k - 1), c + dc * (self.k - 1)
                if 0 <= er < n and 0 <= ec < n:
                    self.windows.append(cells)
                sides = []
                for sign in (1, -1):
                    ray = []
                    rr, cc = r + dr * sign, c + dc * sign
                    while 0 <= rr < n and 0 <= cc < n:
                        ray.append(rr * n + cc)
                        rr += dr * sign
                        cc += dc * sign
                    sides.append(tuple(ray))
                self.rays[i].append((sides[0], sides[1]))
        self.window_value = WINDOW_VALUE.get(self.k, WINDOW_VALUE[5])
        #: per seat, the weight of its windows (`Depths.defence` for the searching seat's opponent)
        self.weights = (1.0, 1.0)
        #: whether the evaluation sees squares that would make an open four (not a beginner's eye)
        self.forks = True

    def watch(self, seat: int, defence: float) -> None:
        """The searching seat weighs the other's lines by `defence`."""
        self.weights = (1.0, defence) if seat == 1 else (defence, 1.0)
        self.forks = defence >= 1.0

    def line(self, index: int, who: int) -> int:
        """The longest run of `who` through `index` if `who` stood there."""
        cells = self.cells
        best = 0
        for ahead, behind in self.rays[index]:
            length = 1
            for j in ahead:
                if cells[j] != who:
                    break
                length += 1
            for j in behind:
                if cells[j] != who:
                    break
                length += 1
            best = max(best, length)
        return best

    def outcome_of(self, index: int, who: int) -> int:
        """+1 when `who` playing `index` wins at once, -1 when it loses at once (Squava's three), else 0."""
        run = self.line(index, who)
        if run >= self.k:
            return 1
        if self.three_loses and run == 3:
            return -1
        return 0

    def empties(self) -> list[int]:
        return [i for i, v in enumerate(self.cells) if v == 0]

    def candidates(self, who: int) -> list[int]:
        """Empty squares near stones (all of them on a small board), best threats first; on Squava
        the squares that make three go last."""
        cells, n = self.cells, self.n
        if n <= 6:
            near = self.empties()
        else:
            stones = [i for i, v in enumerate(cells) if v]
            if not stones:
                return [(n // 2) * n + n // 2]
            found: set[int] = set()
            for i in stones:
                r, c = divmod(i, n)
                for dr in (-2, -1, 0, 1, 2):
                    for dc in (-2, -1, 0, 1, 2):
                        rr, cc = r + dr, c + dc
                        if 0 <= rr < n and 0 <= cc < n and cells[rr * n + cc] == 0:
                            found.add(rr * n + cc)
            near = sorted(found)
        other = 3 - who
        scored = []
        for i in near:
            mine, theirs = self.line(i, who), self.line(i, other)
            score = self.threat(mine) * 11 // 10 + self.threat(theirs)
            if self.three_loses and mine == 3:
                score = -WIN  # suicide: last
            scored.append((-score, i))
        scored.sort()
        return [i for _, i in scored]

    def threat(self, run: int) -> int:
        if run >= self.k:
            return WIN
        if self.three_loses and run == 3:
            return 0
        return self.window_value[min(run, self.k - 1)] * 4

    def evaluate(self, who: int) -> int:
        """Windows each side can still fill, and on Squava the safe squares each side has left.
        `who` is to move: a square that completes its line wins now; two such squares of the
        other side cannot both be blocked."""
        cells, values, k = self.cells, self.window_value, self.k
        total = 0.0
        w1, w2 = self.weights
        finish: tuple[set[int], set[int]] = (set(), set())
        # per side, square -> the squares that would finish a line once it is played there
        # (windows two stones short); Squava's three rule makes those windows no threat
        makers: tuple[dict[int, set[int]], dict[int, set[int]]] = ({}, {})
        watch_makers = self.forks and not self.three_loses and k >= 5
        for window in self.windows:
            a = b = 0
            for j in window:
                v = cells[j]
                if v == 1:
                    a += 1
                elif v == 2:
                    b += 1
            if a and not b:
                total += values[a] * w1
                if a == k - 1:
                    finish[0].update(j for j in window if not cells[j])
                elif a == k - 2 and watch_makers:
                    _pairs(window, cells, makers[0])
            elif b and not a:
                total -= values[b] * w2
                if b == k - 1:
                    finish[1].update(j for j in window if not cells[j])
                elif b == k - 2 and watch_makers:
                    _pairs(window, cells, makers[1])
        mine, theirs = finish[who - 1], finish[2 - who]
        if mine:
            return WIN // 2
        if len(theirs) >= 2:
            return -WIN // 2
        if watch_makers:
            # a square that leaves two finishing squares (an open four) wins unless the other side
            # has a four to answer with: the side to move plays it; the other side's such squares
            # must be blocked, and two of them far apart cannot both be
            forks = [sum(1 for ends in side.values() if len(ends) >= 2) for side in makers]
            if not theirs and forks[who - 1]:
                return WIN // 4
            if forks[2 - who]:
                total -= (FORK if who == 1 else -FORK) * min(forks[2 - who], 3) * (w2 if who == 1 else w1)
        if self.three_loses:
            empties = self.empties()
            safe1 = sum(1 for i in empties if self.line(i, 1) != 3)
            safe2 = sum(1 for i in empties if self.line(i, 2) != 3)
            total += 15 * (safe1 * w1 - safe2 * w2)
        return round(total if who == 1 else -total)


def _pairs(window: tuple[int, ...], cells: list[int], makers: dict[int, set[int]]) -> None:
    """A window two stones short: playing either empty square leaves the other to finish it."""
    empty = [j for j in window if not cells[j]]
    if len(empty) == 2:
        makers.setdefault(empty[0], set()).add(empty[1])
        makers.setdefault(empty[1], set()).add(empty[0])


def board_value(view: dict[str, Any], seat: int, to_move: int, three_loses: bool) -> int:
    """The static value of a stone board for `seat` with `to_move` to move (positive: good for
    `seat`; WIN // 2 and more: a win that cannot be stopped), from its public view."""
    public = view.get("public", view)
    board = Board(public["cells"], int(public["win_length"]), three_loses)
    value = board.evaluate(to_move)
    return value if to_move == seat else -value


class _OutOfBudget(Exception):
    pass


class Search:
    def __init__(self, board: Board, depths: Depths, nodes: int, deadline: float | None) -> None:
        self.board = board
        self.depths = depths
        self.nodes = nodes
        self.deadline = deadline

    def tick(self) -> None:
        self.nodes -= 1
        if self.nodes < 0 or (self.deadline is not None and self.nodes % 64 == 0
                              and time.perf_counter() > self.deadline):
            raise _OutOfBudget

    def negamax(self, who: int, depth: int, alpha: int, beta: int) -> int:
        self.tick()
        board = self.board
        if depth == 0:
            return board.evaluate(who)
        moves = board.candidates(who)[: self.depths.width]
        if not moves:
            return 0  # a full board: drawn
        best = -WIN * 2
        for move in moves:
            result = board.outcome_of(move, who)
            if result:
                value = (WIN + depth) * result
            else:
                board.cells[move] = who
                try:
                    value = -self.negamax(3 - who, depth - 1, -beta, -alpha)
                finally:
                    board.cells[move] = 0
            if value > best:
                best = value
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return best

    def root(self, who: int, depth: int, moves: list[int], margin: int = 0) -> list[tuple[int, int]]:
        """(value, move) for every root move at `depth`, best first: exact for the moves within
        `margin` of the best, an upper bound for the others."""
        board = self.board
        scored = []
        alpha = -WIN * 2
        for move in moves:
            result = board.outcome_of(move, who)
            if result:
                value = (WIN + depth) * result
            else:
                board.cells[move] = who
                try:
                    value = -self.negamax(3 - who, depth - 1, -WIN * 2, -(alpha - margin) + 1)
                finally:
                    board.cells[move] = 0
            scored.append((value, move))
            alpha = max(alpha, value)
        scored.sort(key=lambda t: -t[0])
        return scored


def choose_stone(view: dict[str, Any], seat: int, legal: list[int], knobs: Strength, rng: random.Random,
                 three_loses: bool) -> int:
    """The square `seat` plays: alpha-beta from the public view, within the strength's budget."""
    public = view.get("public", view)
    board = Board(public["cells"], int(public["win_length"]), three_loses)
    table = SMALL_DEPTHS if board.n <= 6 else DEPTHS
    depths = table.get(knobs.name, table["normal"])
    board.watch(seat, depths.defence)
    allowed = set(legal)
    moves = [m for m in board.candidates(seat) if m in allowed] or list(legal)
    # win now; else stop the opponent's win now (any strength sees one move ahead)
    for move in moves:
        if board.outcome_of(move, seat) == 1:
            return move
    blocks = [m for m in moves if board.outcome_of(m, 3 - seat) == 1]
    if blocks:
        safe = [m for m in blocks if board.outcome_of(m, seat) == 0]
        return (safe or blocks)[0]
    moves = moves[: depths.width * 2]
    deadline = None if knobs.seconds is None else time.perf_counter() + knobs.seconds * 0.8
    search = Search(board, depths, knobs.iterations * 40 if deadline is None else 10**9, deadline)
    best = moves[0]
    # even depths only past the first: a search that ends on its own move is over-hopeful
    for depth in [1, *range(2, depths.depth + 1, 2)]:
        try:
            scored = search.root(seat, depth, moves, depths.margin)
        except _OutOfBudget:
            break
        best = scored[0][1]
        top = scored[0][0]
        # among moves of nearly equal value the seed chooses, so one opening gives many games;
        # an easy bot also gives away a share of the best score, as a beginner's eye would
        margin = depths.margin + (abs(top) * depths.noise if abs(top) < WIN // 2 else 0)
        close = [m for v, m in scored if v >= top - margin and v > -WIN]
        if close:
            best = rng.choice(close)
        moves = [m for _, m in scored]  # the next depth tries the best first
        if scored[0][0] >= WIN:
            break
    return best
