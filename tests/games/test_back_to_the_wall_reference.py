"""Back to the Wall against its rules (howto.py) read on their own: walls of earlier rounds count as
existing walls, and random rounds resolve exactly as a reference model of the rules (walls,
movement and fallbacks, captures, places) written from the rules alone says.

Default boards: Once 6x6 walls B3 E4 (corners 1 A1, 2 F1, 3 F6, 4 A6);
Twice 7x7 walls D3 D5 (1 A1, 3 G1, 2 G7, 4 A7); Thrice 8x8 walls C6 F3
(1 A1, 2 H1, 4 H8, 3 A8).
"""

from __future__ import annotations

import functools
import random
from typing import TYPE_CHECKING, Any

from games.core import HOST, SPECTATOR, Game
from games.registry import get_game
from tests.games import playing

if TYPE_CHECKING:  # for the annotations only: the tests drive the game through its Game interface
    from games.back_to_the_wall.board import Action
    from games.back_to_the_wall.state import BackToTheWallState


G: Game[BackToTheWallState, Action] = get_game("back-to-the-wall")
play = functools.partial(playing.play, G)
SEATS = (1, 2, 3, 4)
BOARDS = ("once", "twice", "thrice")


def resolve(state: BackToTheWallState) -> BackToTheWallState:
    return G.apply(state, HOST, G.parse(state, HOST, "resolve"))


def orders(rnd: int, **boards: list[str]) -> str:
    """A complete submission for round `rnd`: per board a list of clauses (without the
    board name); a board left out gets "piece n down up down" for each of its pieces."""
    parts: list[str] = []
    for name in BOARDS:
        clauses = boards.get(name)
        if clauses is None:
            clauses = [f"piece {n} down up down" for n in range(1, rnd + 1)]
        parts.extend(f"{name} {c}" for c in clauses)
    return "; ".join(parts)


def board_view(state: BackToTheWallState, name: str) -> dict[str, Any]:
    view: dict[str, Any] = G.view(state, SPECTATOR)["public"]["boards"][BOARDS.index(name)]
    return view


def walls(state: BackToTheWallState, name: str) -> list[str]:
    return sorted(board_view(state, name)["walls"])


def pieces(state: BackToTheWallState, name: str, seat: int) -> dict[int, str]:
    return {p["number"]: p["square"] for p in board_view(state, name)["pieces"] if p["seat"] == seat}


Square = tuple[int, int]  # (column, row), from 0
Submitted = dict[str, Any]  # one seat's orders on one board: "walls" [Square], "moves" {number: [direction]}
_CORNERS = (
    {1: "tl", 2: "tr", 3: "br", 4: "bl"},
    {1: "tl", 3: "tr", 2: "br", 4: "bl"},
    {1: "tl", 2: "tr", 4: "br", 3: "bl"},
)
_STEP = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
_PERPENDICULAR = {
    "up": ("left", "right"),
    "down": ("left", "right"),
    "left": ("up", "down"),
    "right": ("up", "down"),
}
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _xy(name: str) -> Square:
    return (ord(name[0]) - 65, int(name[1:]) - 1)


def _name(c: int, r: int) -> str:
    return f"{chr(65 + c)}{r + 1}"


def _corner(board: int, n: int, seat: int) -> Square:
    where = _CORNERS[board][seat]
    return (0 if where in ("tl", "bl") else n - 1, 0 if where in ("tl", "tr") else n - 1)


def _corners_ok(n: int, wall_set: set[Square]) -> bool:
    corners = [(0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1)]
    for start in corners:
        seen, stack = {start}, [start]
        while stack:
            c, r = stack.pop()
            for dc, dr in _STEP.values():
                nxt = (c + dc, r + dr)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and nxt not in wall_set and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        if not any(other in seen for other in corners if other != start):
            return False
    return True


def _ray(p: Square, d: str, n: int, wall_set: set[Square]) -> list[Square]:
    out: list[Square] = []
    c, r = p
    while True:
        c, r = c + _STEP[d][0], r + _STEP[d][1]
        if not (0 <= c < n and 0 <= r < n) or (c, r) in wall_set:
            return out
        out.append((c, r))


def _reference_round(
    board: int, bv: dict[str, Any], subs: dict[int, list[Submitted]]
) -> tuple[set[Square], dict[Square, int], dict[tuple[int, int], Square]]:
    """The walls, owners and piece squares (by seat and number) after one round of `board`."""
    n = bv["size"]
    wall_set = {_xy(w) for w in bv["walls"]}
    own = {(c, r): bv["owners"][r][c] for r in range(n) for c in range(n)}
    pos = {(p["seat"], p["number"]): _xy(p["square"]) for p in bv["pieces"]}
    corners = {_corner(board, n, s) for s in SEATS}
    submitted = [(s, w) for s in SEATS if s in subs for w in subs[s][board]["walls"]]
    cand = []
    for _s, w in submitted:
        if w not in corners and w not in wall_set and w not in pos.values() and w not in cand:
            cand.append(w)
    if board < 2:

        def adjacent(a: Square, b: Square) -> bool:
            dc, dr = abs(a[0] - b[0]), abs(a[1] - b[1])
            return max(dc, dr) == 1 if board == 0 else dc + dr == 1

        others = wall_set | set(cand)
        bad = {w for w in cand if any(o != w and adjacent(w, o) for o in others)}
        cand = [w for w in cand if w not in bad]
    decided = set()
    for _s, w in submitted:
        if w in cand and w not in decided:
            decided.add(w)
            if _corners_ok(n, wall_set | {w}):
                wall_set.add(w)
    for phase in range(3):
        paths: list[tuple[int, list[Square]]] = []
        for (s, k), p in list(pos.items()):
            if s not in subs:
                continue
            d = subs[s][board]["moves"][k][phase]
            path = _ray(p, d, n, wall_set)
            if not path:
                cc = _corner(board, n, s)
                best: tuple[tuple[int, int, int], list[Square]] | None = None
                for i, alt in enumerate((*_PERPENDICULAR[d], _OPPOSITE[d])):
                    alt_path = _ray(p, alt, n, wall_set)
                    if not alt_path:
                        continue
                    free = sum(1 for x in alt_path if own[x] == 0)
                    toward = _STEP[alt][0] * (cc[0] - p[0]) + _STEP[alt][1] * (cc[1] - p[1]) > 0
                    key = (-free, 0 if i < 2 else 1, 0 if toward else 1)
                    if best is None or key < best[0]:
                        best = (key, alt_path)
                path = best[1] if best else []
            if path:
                pos[(s, k)] = path[-1]
                paths.append((s, path))
        for tick in range(max((len(p) for _s, p in paths), default=0)):
            entered: dict[Square, set[int]] = {}
            for s, run in paths:
                if tick < len(run):
                    entered.setdefault(run[tick], set()).add(s)
            for x, who in entered.items():
                if len(who) == 1:
                    own[x] = next(iter(who))
    return wall_set, own, pos


# -- hidden information ------------------------------------------------------------------------


def test_walls_of_earlier_rounds_count_as_existing_walls() -> None:
    state = G.new()
    # round 1: Twice E4 (diagonal to D3/D5 only) placed; Once B4 (orthogonal to B3) dropped
    state = play(state, 1, orders(1, twice=["wall E4", "piece 1 right left right"]))
    state = play(state, 2, orders(1, once=["wall B4", "piece 1 left right left"]))
    state = resolve(state)
    assert walls(state, "twice") == ["D3", "D5", "E4"]
    assert walls(state, "once") == ["B3", "E4"]
    # round 2: E5 is orthogonal to last round's E4 -> dropped; B2 placed
    state = play(state, 2, orders(2, twice=["wall E5", "piece 1 up down up", "piece 2 up down up"]))
    state = play(state, 3, orders(2, twice=["wall B2", "piece 1 down up down", "piece 2 down up down"]))
    state = resolve(state)
    assert walls(state, "twice") == ["B2", "D3", "D5", "E4"]


# -- a reference model of one round, written from the rules, against random play -----------------


def test_random_rounds_match_a_reference_model_of_the_ruling() -> None:
    rng = random.Random(2026)
    directions = list(_STEP)
    for _ in range(40):
        options = {"boards": {b: {"size": rng.randint(4, 9)} for b in BOARDS}}
        state = G.new(options)
        for rnd in (1, 2, 3):
            before = G.view(state, SPECTATOR)["public"]
            subs = {}
            for seat in SEATS:
                if rng.random() < 0.2:
                    continue  # a missing submission
                per, parts = [], []
                for b, bv in enumerate(before["boards"]):
                    n = bv["size"]
                    ws = list(
                        dict.fromkeys(
                            (rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, b + 1))
                        )
                    )
                    mv = {
                        p["number"]: [rng.choice(directions) for _ in range(3)]
                        for p in bv["pieces"]
                        if p["seat"] == seat
                    }
                    per.append({"walls": ws, "moves": mv})
                    parts += [f"{BOARDS[b]} wall {_name(*w)}" for w in ws]
                    parts += [f"{BOARDS[b]} piece {k} {' '.join(v)}" for k, v in mv.items()]
                subs[seat] = per
                state = play(state, seat, "; ".join(parts))
            if len(subs) < 4:
                state = resolve(state)
            after = G.view(state, SPECTATOR)["public"]
            for b, bv in enumerate(before["boards"]):
                wall_set, own, pos = _reference_round(b, bv, subs)
                n = bv["size"]
                if rnd < 3:  # spawns for the next round
                    for s in SEATS:
                        own[_corner(b, n, s)] = s
                        pos[(s, rnd + 1)] = _corner(b, n, s)
                av = after["boards"][b]
                assert {_xy(w) for w in av["walls"]} == wall_set
                assert {(c, r): av["owners"][r][c] for r in range(n) for c in range(n)} == own
                assert {(p["seat"], p["number"]): _xy(p["square"]) for p in av["pieces"]} == pos
