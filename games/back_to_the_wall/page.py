"""Back to the Wall page: shapes one audience's `game.view()` for the board and controls templates.

Pure (no Django): `matches/render.py` calls `context(view, ctx)` for every
audience with that audience's view, so this module can only show what the
view already holds for the viewer.  It computes, from the rules modules:

- the squares of each board (territory, walls, corners, pieces as tokens,
  an aria-label naming all of it) and a legend of who sits where;
- the order builder's data: where a wall would certainly be dropped and why,
  which squares count as adjacent on Once and Twice, each piece's path
  preview for every choice of three directions on the board as it stands,
  which garnet toggles are open;
- the pending orders (the seat's own, or every seat's for the host);
- the resolution traces in a compact form for the replay script, with the
  engine's reasons as text;
- the final standings, with the tie-break that decided each place.

The header shows points (6/4/2/1 per board) instead of bouts won: during the
match they are provisional, from the squares held now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core import HOST, NotationError, RuleError
from games.core.howto import HowToPlay
from games.core.pages import OptionField, Page

from .board import (
    BOARD_NAMES,
    BOARD_TITLES,
    CORNERS,
    DIRECTIONS,
    MAX_SIZE,
    MIN_SIZE,
    SEATS,
    Board,
    BoardOrders,
    Orders,
    Piece,
    all_corners,
    cut_corners,
    parse_action,
)
from .howto import HOW_TO_PLAY
from .resolve import fallback, ray
from .results import ARROWS, banner, header, points, replay_rounds, standings

CORNER_WORDS: dict[str, str] = {
    "tl": "top left",
    "tr": "top right",
    "br": "bottom right",
    "bl": "bottom left",
}
PHASE_WORDS = ("first", "second", "third")


def context(view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    public: dict[str, Any] = view["public"]
    viewer = int(ctx.get("viewer", 0))
    names = {int(k): str(v) for k, v in (ctx.get("names") or {}).items()}
    for seat in SEATS:
        names.setdefault(seat, f"Seat {seat}")
    match = ctx.get("match")
    running = getattr(match, "status", "running") == "running" and not public["finished"]
    # a replay step (matches' replay pages) is a position, never live: no builder, no "waiting…"
    replay_step = bool(ctx.get("replay"))
    running = running and not view.get("result") and not replay_step
    is_host = viewer == HOST
    builder_seats: list[int] = []
    if running and is_host:
        builder_seats = list(SEATS)
    elif running and viewer in SEATS and ctx.get("my_turn"):
        builder_seats = [viewer]
    boards = [_engine_board(i, b) for i, b in enumerate(public["boards"])]
    secrets = _secrets(view, viewer)
    pending = {seat: _orders(secrets[seat].get("submission")) for seat in secrets}
    out_boards = []
    for board, bview in zip(boards, public["boards"], strict=True):
        out_boards.append(_board(board, bview, names, builder_seats, pending, secrets))
    final = public.get("final")
    replay, frames = replay_rounds(public, names)
    caches: list[dict[tuple[int, str], tuple[int, ...]]] = [
        {},
        {},
        {},
    ]  # rays per board, shared by its pieces
    previews = {
        str(seat): {
            b.name: {
                str(p.number): ",".join(preview(b, p, caches[b.index]).values()) for p in b.pieces_of(seat)
            }
            for b in boards
        }
        for seat in builder_seats
    }
    bttw: dict[str, Any] = {
        "round": public["round"],
        "rounds": public["rounds"],
        "replay_step": replay_step,
        "step_label": (f"Before round 1 of {public['rounds']}" if int(public["round"]) <= 1
                       else f"After round {int(public['round']) - 1} of {public['rounds']}"),
        "finished": public["finished"],
        "boards": out_boards,
        "submitted": [
            {"seat": s, "name": names[s], "done": bool(public["submitted"].get(str(s)))} for s in SEATS
        ],
        "builder": bool(builder_seats),
        "builder_seats": [{"seat": s, "name": names[s]} for s in builder_seats],
        "round_key": f"{ctx.get('bout_number', 0)}-{public['round']}",
        "mine": _mine(pending, viewer, is_host, names) if running else [],
        "replay": replay,
        "standings": None if not final else standings(final, names),
        "points": points(public, final),
        "is_host": is_host,
        "arrows": list(ARROWS.items()),
        # what the click script reads (rendered with json_script)
        "script": {
            "roundKey": f"{ctx.get('bout_number', 0)}-{public['round']}",
            "host": is_host,
            "names": {str(s): names[s] for s in SEATS},
            "initial": {str(s): _initial(pending.get(s)) for s in builder_seats},
            "garnets": {str(s): _garnet_info(secrets.get(s, {})) for s in builder_seats},
            "previews": previews,
            "replay": frames,
        },
    }
    out: dict[str, Any] = {
        "bttw": bttw,
        # before the first round resolves nobody has earned anything: not the four-way tie of the start
        "seats": header(ctx.get("seats") or [], bttw["points"] if final or int(public["round"]) > 1 else {},
                        final is not None),
    }
    if final and isinstance(ctx.get("banner"), dict):
        out["banner"] = banner(ctx["banner"], bttw["standings"])
    return out


# -- boards ----------------------------------------------------------------------------
def _engine_board(index: int, bview: Mapping[str, Any]) -> Board:
    """The rules' Board back from its public view (walls, owners, pieces)."""
    size = int(bview["size"])
    walls = frozenset(_index(w, size) for w in bview["walls"])
    owners = tuple(int(v) for row in bview["owners"] for v in row)
    pieces = tuple(
        sorted(Piece(int(p["seat"]), int(p["number"]), _index(p["square"], size)) for p in bview["pieces"])
    )
    return Board(index, size, walls, owners, pieces)


def _index(name: str, size: int) -> int:
    return (int(name[1:]) - 1) * size + (ord(name[0]) - 65)


def _board(
    board: Board,
    bview: Mapping[str, Any],
    names: Mapping[int, str],
    builder_seats: Sequence[int],
    pending: Mapping[int, Orders | None],
    secrets: Mapping[int, Mapping[str, Any]],
) -> dict[str, Any]:
    size = board.size
    corner_of = {board.corner(s): s for s in SEATS}
    pieces_at: dict[int, list[Piece]] = {}
    for p in board.pieces:
        pieces_at.setdefault(p.square, []).append(p)
    builder = bool(builder_seats)
    why = wall_reasons(board) if builder else {}
    near = neighbours(board) if builder else {}
    rows = []
    for r in range(size):
        row = []
        for c in range(size):
            i = r * size + c
            coord = board.square(i)
            owner = board.owners[i]
            wall = i in board.walls
            here = pieces_at.get(i, [])
            row.append(
                {
                    "coord": coord,
                    "owner": owner,  # a wall raised on a captured square still counts for its owner
                    "wall": wall,
                    "corner": corner_of.get(i, 0),
                    "pieces": [{"seat": p.seat, "number": p.number} for p in here],
                    "label": square_label(coord, owner, wall, corner_of.get(i, 0), here, names),
                    "why": why.get(i, ""),
                    "near": " ".join(board.square(x) for x in near.get(i, ())),
                }
            )
        rows.append(row)
    legend: list[dict[str, Any]] = []
    for seat in SEATS:
        where = CORNERS[board.index][seat]
        legend.append(
            {
                "seat": seat,
                "name": names[seat],
                "corner": board.square(board.corner(seat)),
                "where": CORNER_WORDS[where],
                "captured": int(bview["captured"][str(seat)]),
            }
        )
    legend.sort(key=lambda item: ("tl", "tr", "bl", "br").index(CORNERS[board.index][item["seat"]]))
    pieces = []
    for seat in builder_seats:
        for p in board.pieces_of(seat):
            pieces.append({"seat": seat, "number": p.number, "square": board.square(p.square)})
    orders = []
    for seat, sub in pending.items():
        if sub is not None:
            orders.append({"seat": seat, "name": names[seat], "text": describe(sub.boards[board.index])})
    spent = {seat: board.name in (secrets[seat].get("garnet_spends") or {}) for seat in secrets}
    return {
        "name": board.name,
        "title": board.title,
        "size": size,
        "cols": [chr(65 + c) for c in range(size)],
        "rows": rows,
        "wall_limit": board.wall_limit,
        "adjacency": ("orthogonal or diagonal", "orthogonal", "")[board.index],
        "index": board.index,
        "legend": legend,
        "pieces": pieces,
        "orders": orders,
        "spent": {str(s): v for s, v in spent.items()},
    }


def square_label(
    coord: str, owner: int, wall: bool, corner: int, here: Sequence[Piece], names: Mapping[int, str]
) -> str:
    """'C3, Ann's territory, Bob's piece 1': everything a square shows, in words."""
    parts = [coord]
    if wall:
        parts.append("wall")
    if owner:
        parts.append(f"{names[owner]}'s territory")
    elif not wall:
        parts.append("owned by no one")
    if corner:
        parts.append(f"{names[corner]}'s corner")
    parts.extend(f"{names[p.seat]}'s piece {p.number}" for p in here)
    return ", ".join(parts)


# -- the order builder -----------------------------------------------------------------------
def wall_reasons(board: Board) -> dict[int, str]:
    """Squares where a wall submitted now is certainly dropped, with why ("it is a corner").

    Corners, walls, squares with a piece, squares adjacent (on Once and
    Twice) to a standing wall, and squares that alone would cut a corner off.
    Walls other players submit this round are unknown, so a square left out
    here may still be dropped at resolution.
    """
    size = board.size
    corners = set(all_corners(size))
    occupied = {p.square for p in board.pieces}
    out: dict[int, str] = {}
    near = neighbours(board)
    for i in range(size * size):
        if i in board.walls:
            out[i] = "it is a wall already"
        elif i in corners:
            out[i] = "it is a corner"
        elif i in occupied:
            out[i] = "a piece stands there"
        else:
            touching = [board.square(w) for w in near.get(i, ()) if w in board.walls]
            if touching:
                how = "it touches" if board.index == 0 else "it is orthogonally next to"
                out[i] = f"{how} the wall at {' and '.join(touching)}"
            else:
                cut = cut_corners(size, set(board.walls) | {i})
                if cut:
                    out[i] = f"it would cut the corner {' and '.join(board.square(c) for c in cut)} off"
    return out


def neighbours(board: Board) -> dict[int, tuple[int, ...]]:
    """Squares two walls may not share with a square (Once: the 8 around, Twice: the 4; Thrice: none)."""
    if board.index == 2:
        return {}
    size = board.size
    steps = [(0, -1), (1, 0), (0, 1), (-1, 0)]
    if board.index == 0:
        steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    out: dict[int, tuple[int, ...]] = {}
    for i in range(size * size):
        r, c = divmod(i, size)
        found = []
        for dc, dr in steps:
            if 0 <= c + dc < size and 0 <= r + dr < size:
                found.append((r + dr) * size + c + dc)
        out[i] = tuple(sorted(found))
    return out


def preview(
    board: Board, piece: Piece, cache: dict[tuple[int, str], tuple[int, ...]] | None = None
) -> dict[str, str]:
    """Every choice of up to three directions -> where `piece` goes, moving alone on the board as it stands.

    Keys are the first letters of the directions chosen so far ("u", "ur",
    "urd", in the order up, right, down, left, depth first); each value is
    the first letter of the direction the piece actually takes ("x" when it
    cannot move) and the square it stops on ("rF1").  A blocked direction takes the fallback the rules pick from the
    owners at that point (the piece's own captures included; no walls from
    this round, no other piece), so the script only draws straight lines.
    """
    out: dict[str, str] = {}
    corner = board.corner(piece.seat)
    rays = {} if cache is None else cache  # (square, direction) -> path: one board's walls never change here

    def cached(square: int, direction: str) -> tuple[int, ...]:
        key = (square, direction)
        if key not in rays:
            rays[key] = ray(square, direction, board.size, board.walls)
        return rays[key]

    def walk(square: int, owners: list[int], prefix: str) -> None:
        for direction in DIRECTIONS:
            path = cached(square, direction)
            taken: str | None = direction
            if not path:
                alt = fallback(square, direction, corner, board.size, board.walls, owners, cached)
                taken, path = alt.taken, alt.path
            key = prefix + direction[0]
            end = path[-1] if path else square
            out[key] = (taken[0] if taken else "x") + board.square(end)
            if len(key) < 3:
                after = list(owners)
                for sq in path:
                    after[sq] = piece.seat
                walk(end, after, key)

    walk(piece.square, list(board.owners), "")
    return out


def _secrets(view: Mapping[str, Any], viewer: int) -> dict[int, dict[str, Any]]:
    """Hidden facts this viewer may see: its own (a seat), everyone's (the host)."""
    if viewer == HOST:
        return {int(k): dict(v) for k, v in (view.get("hidden") or {}).items()}
    if viewer in SEATS and isinstance(view.get("private"), dict):
        return {viewer: dict(view["private"])}
    return {}


def _orders(text: Any) -> Orders | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        action = parse_action(text)
    except NotationError:
        return None
    return action if isinstance(action, Orders) else None


def describe(orders: BoardOrders) -> str:
    """One board's orders in words with arrows: 'walls C3 D4 · piece 1 → ↓ ← · garnet'."""
    parts = []
    if orders.walls:
        walls = " ".join(f"{chr(65 + c)}{r + 1}" for c, r in orders.walls)
        parts.append(f"wall{'s' if len(orders.walls) > 1 else ''} {walls}")
    for number, dirs in orders.moves:
        parts.append(f"piece {number} " + " ".join(ARROWS[d] for d in dirs))
    if orders.garnet:
        parts.append("garnet")
    return " · ".join(parts) or "nothing"


def _initial(orders: Orders | None) -> dict[str, Any]:
    """A submission as the builder's starting state (so resubmitting starts from it)."""
    state: dict[str, Any] = {}
    for name, mine in zip(BOARD_NAMES, orders.boards if orders else (), strict=False):
        state[name] = {
            "walls": [f"{chr(65 + c)}{r + 1}" for c, r in mine.walls],
            "moves": {str(n): list(d) for n, d in mine.moves},
            "garnet": mine.garnet,
        }
    return state


def _garnet_info(secret: Mapping[str, Any]) -> dict[str, Any]:
    spends = secret.get("garnet_spends") or {}
    left = secret.get("garnets_to_spend")
    return {"left": left, "spent": sorted(spends)}


def _mine(
    pending: Mapping[int, Orders | None], viewer: int, is_host: bool, names: Mapping[int, str]
) -> list[dict[str, Any]]:
    """Pending orders as rows per seat (the host sees all four; a seat its own)."""
    seats = list(SEATS) if is_host else [viewer] if viewer in SEATS else []
    rows = []
    for seat in seats:
        sub = pending.get(seat)
        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "boards": None
                if sub is None
                else [
                    {"title": n.capitalize(), "text": describe(b)}
                    for n, b in zip(BOARD_NAMES, sub.boards, strict=True)
                ],
            }
        )
    return rows


class BackToTheWallPage(Page):
    """Back to the Wall page hooks (games.registry.get_page)."""

    description = "Four players, three boards, three sealed rounds of walls and moves; most points wins."
    option_fields = {
        "garnets": OptionField("per_seat", "garnets each may spend; all empty = not counted (the host keeps the books)"),
        "boards": OptionField("boards", "Click a square of a board to add or remove a pre-placed wall. Corners (numbered by seat) cannot hold a wall, and no wall may cut a corner off from every other corner."),
    }

    def how_to_play(self) -> HowToPlay:
        return HOW_TO_PLAY

    def boards(self, value: Any) -> list[dict[str, Any]]:
        return [{"name": name, "title": BOARD_TITLES[name], "size": spec.get("size"),
                 "walls": ", ".join(spec.get("walls", [])), "sizes": list(range(MIN_SIZE, MAX_SIZE + 1))}
                for name, spec in (value or {}).items()]

    def check_board(self, game: Any, board: str, size: int | None, walls: list[str] | None) -> dict[str, Any]:
        if board not in BOARD_NAMES:
            raise ValueError("there is no such board")
        index = BOARD_NAMES.index(board)
        spec: dict[str, Any] = {"size": size, **({} if walls is None else {"walls": walls})}
        try:
            built = game.new({"boards": {board: spec}}).boards[index]
        except RuleError as exc:
            try:
                bare = game.new({"boards": {board: {"size": size, "walls": []}}}).boards[index]
            except RuleError:  # the size itself is wrong: no board to draw
                return {"ok": False, "error": str(exc), "size": None, "walls": [], "corners": {}}
            return {"ok": False, "error": str(exc), "size": bare.size, "walls": walls or [], "corners": _corners(bare)}
        return {"ok": True, "error": "", "size": built.size, "corners": _corners(built),
                "walls": sorted((built.square(w) for w in built.walls), key=lambda sq: (int(sq[1:]), sq[0]))}

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return context(view, ctx)


def _corners(board: Board) -> dict[str, int]:
    return {board.square(board.corner(seat)): seat for seat in SEATS}
