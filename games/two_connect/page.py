"""View shaping for the Two Connect pages: the three-board match and the
standalone Squava, Gomoku and Yinsh games share these boards.

`context(view, ctx)` is called by matches/render.py for every audience with
that audience's `game.view()`.  It only reshapes what the view holds (Two
Connect hides nothing, but the rule stands): point coordinates for the SVG
boards, the Yinsh lattice (85 points, the lines in its three directions,
letters A-K and numbers 1-11 as yinsh.py's docstring names them), per-board
status and bank meters, the last turn on its own boards only, the winning
row, and for the seat to act the refusal sentence of every click that the
server would refuse and the legal ring destinations with the markers each
ring move would flip.  Those come from the rules themselves (the board is
rebuilt from the view and the rules are asked), never guessed in the click
script, so a click is explained in the server's own words.

Pure: no Django (the templates read plain dicts and strings).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from games.core import IllegalAction, RuleError
from games.core.howto import HowToPlay
from games.core.pages import Page

from .board import BOARD_WORDS, GridBoard, GridRules
from .drawing import GOMOKU_STEP, HEX, SQUAVA_STEP, grid_layout, number_text, svg_layers, yinsh_layout
from .gomoku import Gomoku
from .howto import GOMOKU, SQUAVA, TWO_CONNECT, YINSH
from .rules import TwoConnect
from .squava import Squava
from .yinsh import NAMES, RAYS, Yinsh, YinshMove, YinshRules, parse_point

_TITLES = {"squava": "Squava", "yinsh": "Yinsh", "gomoku": "Gomoku"}
_REASONS = {
    "line": "in a row",
    "three": "three in a row loses",
    "full": "board full",
    "row": "five markers in a row",
    "markers": "the markers ran out",
    "blocked": "no ring can move",
}


# -- the context ------------------------------------------------------------------


def context(view: Mapping[str, Any], ctx: Mapping[str, Any]) -> dict[str, Any]:
    """Keys for the Two Connect templates (`tc`), the status line with the board just
    decided, and log notes for decided boards.  (The bank is shown to the minute to
    players by matches/render.py's `clock_minutes`.)"""
    public = view["public"]
    slug = str(view.get("game", ""))
    solo = slug != "two-connect"
    viewer = int(ctx.get("viewer", view.get("viewer", 0)))
    names = {int(k): str(v) for k, v in (ctx.get("names") or {}).items()}
    for seat in (1, 2):
        names.setdefault(seat, f"Seat {seat}")
    me = viewer if viewer in (1, 2) else 0
    to_act = [int(s) for s in view.get("to_act", [])]
    acting = me != 0 and me in to_act and bool(ctx.get("my_turn", True))
    shaper = _Shaper(public, solo, me, names, acting)
    boards = [shaper.board(bv) for bv in ([public] if solo else public["boards"])]
    need = 1 if solo else int(public.get("moves_this_turn") or 0)
    tc: dict[str, Any] = {
        "solo": solo,
        "me": me,
        "acting": acting,
        "need": need if acting else 0,
        "boards": boards,
        "active": _default_tab(boards),
        "refusal": "" if acting or not me else _page_refusal(ctx, me, to_act),
        "one_move_rule": "" if solo else str(public.get("one_move_rule") or ""),
        "too_many": "" if solo else _too_many_message(),
        "marks": {str(s): shaper.marks[s] for s in (1, 2)},
        "yinsh_moves": next((b["ring_moves"] for b in boards if b.get("ring_moves")), {}),
        "header": None if solo else _header(public, names, me),
        # (a bout ended by the host, a clock or a resignation keeps its rules' turn: no hint then)
        "hint": "" if ctx.get("over") else _hint(public, solo, me, acting, need, names, to_act),
        "passed": _passed(public, names, me),
    }
    out: dict[str, Any] = {"tc": tc}
    if not solo:
        decided = _decided_last_turn(public, names)
        if decided:
            out["status"] = f"{' '.join(decided)} {ctx.get('status', '')}".strip()
        log = ctx.get("log")
        if isinstance(log, list):
            out["log"] = log_notes(view, log, ctx)
    return out


class _Shaper:
    """Builds one board's template dict for one viewer."""

    def __init__(self, public: Mapping[str, Any], solo: bool, me: int, names: Mapping[int, str],
                 acting: bool) -> None:
        self.public = public
        self.solo = solo
        self.me = me
        self.names = names
        self.acting = acting
        self.marks = _marks(names)
        last = str(public.get("last") or "") if not solo else ""
        # the last turn is highlighted on its own board(s) only
        self.last_boards = {w for w in BOARD_WORDS if any(p.strip().startswith(w + " ") for p in last.split(";"))}
        self.to_move = int(public.get("to_move") or 0)

    def who(self, seat: int) -> str:
        return "you" if seat == self.me else self.names[seat]

    def whose(self, seat: int) -> str:
        return "your" if seat == self.me else f"{self.names[seat]}'s"

    def board(self, bv: Mapping[str, Any]) -> dict[str, Any]:
        word = str(bv["board"])
        out: dict[str, Any] = {"word": word, "title": _TITLES[word]}
        status = str(bv.get("status", "open"))
        winner = int(bv.get("winner") or 0)
        out["status"] = status
        out["winner"] = winner
        out["result_text"] = (
            f"won by {self.names[winner]}" if status == "won" else "drawn" if status == "drawn" else ""
        )
        out["reason"] = str(bv.get("reason") or "")
        out["reason_text"] = _REASONS.get(out["reason"], "")
        open_to = [int(s) for s in bv.get("open_to", [1, 2] if status == "open" else [])]
        if self.solo:
            open_to = [self.to_move] if status == "open" and self.to_move else []
        out["open_to_me"] = self.me in open_to
        # for a seat whether or not it is its turn (the page's "not your turn" comes first): a board
        # attribute that changed with every turn would make a live update swap the whole board
        out["refusal"] = "" if self.solo else str((bv.get("refusal") or {}).get(str(self.me), "")) if self.me else ""
        out["plays_text"] = self._plays_text(status, open_to)
        if out["result_text"] or not self.to_move:  # decided, or left unfinished when the match ended
            out["tab_text"] = out["result_text"] or "unfinished"
        elif self.me:
            out["tab_text"] = "open" if out["open_to_me"] else "closed"
        else:
            out["tab_text"] = "open" if self.to_move in open_to else "closed"
        out["meters"] = [] if self.solo else self._meters(bv)
        # the refusal of a click on an occupied point, "{at}" for the point: the click script derives
        # each occupied point's sentence from it, so points need not carry one that comes and goes with the turn
        taken = _taken_no(word) if self.me else ""
        out["taken_no"] = _prefix(word, self.solo) + taken if taken else ""
        lit = word in self.last_boards if not self.solo else True
        last = set(bv.get("last_squares") or []) if lit else set()
        win = list(bv.get("win_squares") or [])
        prefix = _prefix(word, self.solo)
        if word == "yinsh":
            self._yinsh(out, bv, last, set(win), prefix)
        else:
            self._grid(out, bv, last, set(win), prefix)
        out["win_line"] = self._win_line(out["points"], win)
        out["svg_frame"], out["svg_points"] = svg_layers(out, interactive=self.me != 0)
        return out

    # -- per board -------------------------------------------------------------
    def _plays_text(self, status: str, open_to: Sequence[int]) -> str:
        if status != "open":
            return ""
        if self.to_move == 0:
            return ""
        if self.to_move in open_to:
            return "Your move here" if self.to_move == self.me else f"{self.names[self.to_move]} may play here"
        return f"Closed to {self.who(self.to_move)} this turn"

    def _meters(self, bv: Mapping[str, Any]) -> list[dict[str, Any]]:
        limit = int(self.public.get("bank_limit") or 10)
        bank = bv.get("bank") or {}
        waits = bv.get("bank_waits_for") or {}
        out = []
        for seat in (1, 2):
            count = int(bank.get(str(seat), 0))
            until = [_TITLES[w] for w in waits.get(str(seat), [])]
            closed = ""
            if until:
                closed = (f"closed to {self.who(seat)} until {self.who(seat)} "
                          f"{'have' if seat == self.me else 'has'} played {limit} on {' and '.join(until)}")
            out.append({"seat": seat, "name": self.names[seat], "me": seat == self.me, "count": count,
                        "limit": limit, "closed": closed})
        return out

    def _grid(self, out: dict[str, Any], bv: Mapping[str, Any], last: set[str], win: set[str], prefix: str) -> None:
        word = out["word"]
        rules: GridRules = Squava.rules if word == "squava" else Gomoku.rules
        squares = word == "squava"
        step = SQUAVA_STEP if squares else GOMOKU_STEP
        layout = grid_layout(rules.size, step, squares)
        rows = bv["cells"]
        cells = tuple(int(v) for row in rows for v in row)
        board = GridBoard(cells=cells)
        out.update(kind="square" if squares else "cross", width=number_text(layout["width"]), height=number_text(layout["height"]),
                   stone=number_text(step * (0.34 if squares else 0.43)))
        points = []
        for index in range(rules.size * rules.size):
            name = rules.name(index)
            value = cells[index]
            x, y = layout["points"][name]
            label = f"{name}, " + (f"{self.whose(value)} stone" if value else "empty")
            if name in last:
                label += ", last move"
            if name in win:
                label += ", deciding row"
            no = ""
            if self.acting and value:
                no = prefix + _refusal(rules.play, board, self.me, index)
            said = _said(out["taken_no"], name) if value else ""
            points.append({"coord": name, "x": number_text(x), "y": number_text(y), "xy": (x, y), "v": f"s{value}" if value else "",
                           "seat": value, "mark": self.marks.get(value, ""), "label": label, "no": no,
                           "say_no": no if self.acting and no != said else None,
                           "last": name in last, "win": name in win})
        out["points"] = points
        stones = bv.get("stones") or {}
        out["facts"] = [
            ("stones", f"{self.names[1]} {int(stones.get('1', 0))} · {self.names[2]} {int(stones.get('2', 0))}"),
            ("to win", "four in a row; three (without four) loses" if squares else "five in a row"),
        ]

    def _yinsh(self, out: dict[str, Any], bv: Mapping[str, Any], last: set[str], win: set[str], prefix: str) -> None:
        layout = yinsh_layout()
        rules: YinshRules = Yinsh.rules
        rings = {str(s): list((bv.get("rings") or {}).get(str(s), [])) for s in (1, 2)}
        markers = {str(s): list((bv.get("markers") or {}).get(str(s), [])) for s in (1, 2)}
        board = rules.from_points(" ".join(rings["1"]), " ".join(rings["2"]), " ".join(markers["1"]),
                                  " ".join(markers["2"]), markers_left=int(bv.get("markers_left", 0)))
        placing = self.me in (1, 2) and board.rings[self.me - 1] < 5
        out.update(kind="hex", width=number_text(layout["width"]), height=number_text(layout["height"]),
                   # a ring is wide and hollow, a marker small and solid: one seat's two pieces apart
                   # at a glance (issue 41), as on the real board (a marker fits inside a ring)
                   ring=number_text(HEX * 0.4), marker=number_text(HEX * 0.24))
        out["phase"] = "place" if placing else "move"
        in_hand = {s: int((bv.get("rings_in_hand") or {}).get(str(s), 0)) for s in (1, 2)}
        out["facts"] = ([("rings to place", f"{self.names[1]} {in_hand[1]} · {self.names[2]} {in_hand[2]}")]
                        if any(in_hand.values()) else []) + [("markers left", str(int(bv.get("markers_left", 0))))]
        what = {name: ("r", s) for s in (1, 2) for name in rings[str(s)]}
        what.update({name: ("m", s) for s in (1, 2) for name in markers[str(s)]})
        ring_moves: dict[str, Any] = {}
        if self.acting and out["open_to_me"] and not placing and board.winner is None:
            ring_moves = self._ring_moves(rules, board, prefix)
        out["ring_moves"] = ring_moves
        # in the move phase a lone click on anything but one's own ring would place a ring: one
        # sentence for the whole board (the rules' refusal of that placement)
        out["lone_no"] = ""
        if self.me and not placing and board.winner is None:  # whether or not it is the seat's turn (a frame attribute)
            out["lone_no"] = prefix + _refusal(rules.play, board, self.me, YinshMove(None, parse_point(NAMES[0])))
        points = []
        for name in NAMES:
            x, y = layout["points"][name]
            kind, seat = what.get(name, ("", 0))
            piece = {"r": "ring", "m": "marker"}.get(kind, "")
            label = f"{name}, " + (f"{self.whose(seat)} {piece}" if piece else "empty")
            if name in last:
                label += ", last move"
            if name in win:
                label += ", deciding row"
            no = ""
            mine_to_move = kind == "r" and seat == self.me and not placing
            if self.acting and placing and kind:
                # a lone click is a ring placement: its refusal is the rules' own sentence
                no = prefix + _refusal(rules.play, board, self.me, YinshMove(None, parse_point(name)))
            elif self.acting and mine_to_move and name not in ring_moves:
                no = f"{prefix}the ring on {name} has no point to move to"
            # the click script derives a placement's refusal on an occupied point (data-taken-no); in
            # the move phase a click goes to the ring logic and only an explicit data-no is read
            said = _said(out["taken_no"], name) if placing and kind else ""
            points.append({"coord": name, "x": number_text(x), "y": number_text(y), "xy": (x, y), "v": f"{kind}{seat}" if kind else "",
                           "seat": seat,
                           "piece": piece, "mark": self.marks.get(seat, ""), "label": label, "no": no,
                           "say_no": no if self.acting and no != said else None,
                           "last": name in last, "win": name in win})
        out["points"] = points

    def _ring_moves(self, rules: YinshRules, board: Any, prefix: str) -> dict[str, Any]:
        """{ring: {"to": {dest: [flipped markers]}, "no": {point: refusal}, "off": refusal}} for
        the viewer's rings: destinations from the rules, and the rules' refusal for every other
        point on the ring's lines; "off" is the refusal for points on no line ({to} stands
        for the point)."""
        out: dict[str, Any] = {}
        for src, dests in rules.ring_moves(board, self.me).items():
            on_lines: dict[str, str] = {}
            for ray in RAYS[src]:
                for q in ray:
                    if q in dests:
                        continue
                    on_lines[NAMES[q]] = prefix + _refusal(rules.play, board, self.me, YinshMove(src, q))
            off = prefix + f"{NAMES[src]} and {{to}} are not on one line"
            if not dests:
                continue
            out[NAMES[src]] = {
                "to": {NAMES[d]: [NAMES[f] for f in flips] for d, flips in dests.items()},
                "no": on_lines,
                "off": off,
            }
        return out

    @staticmethod
    def _win_line(points: Sequence[Mapping[str, Any]], win: Sequence[str]) -> list[str] | None:
        """Ends of the deciding row when its points lie on one straight line (for the outline)."""
        where: dict[str, tuple[float, float]] = {p["coord"]: p["xy"] for p in points}
        spots = [where[w] for w in win if w in where]
        if len(spots) < 2:
            return None
        spots.sort()
        (x1, y1), (x2, y2) = spots[0], spots[-1]
        for x, y in spots:
            if abs((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)) > 1.0:
                return None
        return [number_text(x1), number_text(y1), number_text(x2), number_text(y2)]


# -- helpers ----------------------------------------------------------------------


def _refusal(play: Callable[..., Any], *args: Any) -> str:
    """The rules' sentence refusing `play(*args)`, or "" if the move is legal."""
    try:
        play(*args)
    except (IllegalAction, RuleError) as error:
        return str(error)
    return ""


def _prefix(word: str, solo: bool) -> str:
    """What a board's refusals start with in a match of three boards ("Squava: ")."""
    return "" if solo else f"{_TITLES[word]}: "


@cache
def _taken_no(word: str) -> str:
    """The rules' refusal of a stone or ring placed on an occupied point of board `word`, with
    "{at}" for the point ("{at} is not empty"), asked of the rules on a board with one piece."""
    if word == "yinsh":
        yinsh: YinshRules = Yinsh.rules
        at = NAMES[0]
        said = _refusal(yinsh.play, yinsh.from_points(rings1=at), 1, YinshMove(None, parse_point(at)))
    else:
        rules: GridRules = Squava.rules if word == "squava" else Gomoku.rules
        at = rules.name(0)
        cells = (1,) + (0,) * (rules.size * rules.size - 1)
        said = _refusal(rules.play, GridBoard(cells=cells), 1, 0)
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(at)}(?![0-9])")
    return pattern.sub("{at}", said) if pattern.search(said) else ""


def _said(taken_no: str, coord: str) -> str:
    """What the click script says for a click on occupied point `coord` without a data-no of its own
    (two_connect.js `refusal`)."""
    return taken_no.replace("{at}", coord) if taken_no else ""


def _marks(names: Mapping[int, str]) -> dict[int, str]:
    """A letter per seat drawn on its pieces (besides the colour): the initials, or 1 and 2."""
    initials = {s: (names.get(s, "") or "?").strip()[:1].upper() for s in (1, 2)}
    if initials[1] == initials[2] or not all(v.isalpha() for v in initials.values()):
        return {1: "1", 2: "2"}
    return initials


def _default_tab(boards: Sequence[Mapping[str, Any]]) -> str:
    for b in boards:
        if b["open_to_me"]:
            return str(b["word"])
    for b in boards:
        if b["status"] == "open":
            return str(b["word"])
    return str(boards[0]["word"])


def _page_refusal(ctx: Mapping[str, Any], me: int, to_act: Sequence[int]) -> str:
    """Why a seat that may not act now cannot compose a move (the services' words)."""
    match = ctx.get("match")
    status = str(getattr(match, "status", "running"))
    if status == "setup":
        return "the match has not started yet"
    if status == "finished":
        return "the match is over"
    if me not in to_act:
        view_over = ctx.get("view") and (ctx.get("view") or {}).get("result")
        return "the bout is over; the host starts the next one" if view_over else "it is not your turn"
    if getattr(match, "paused", False):
        return "the host has paused the match; wait for the clocks to restart"
    return "it is not your turn"


@cache
def _too_many_message() -> str:
    """The parser's refusal of a third move in one turn (asked of the rules, not copied)."""
    game = TwoConnect()
    try:
        game.parse(game.new(), 1, "squava A1; yinsh ring E5; gomoku A1")
    except RuleError as error:
        return str(error)
    return ""


def _header(public: Mapping[str, Any], names: Mapping[int, str], me: int) -> dict[str, Any]:
    won = public.get("boards_won") or {}
    return {
        "won": [{"seat": s, "name": names[s], "count": int(won.get(str(s), 0)), "me": s == me} for s in (1, 2)],
        "turn": int(public.get("turn") or 0),
    }


def _hint(public: Mapping[str, Any], solo: bool, me: int, acting: bool, need: int,
          names: Mapping[int, str], to_act: Sequence[int]) -> str:
    if acting:
        if solo:
            return "Your turn: click a point to play."
        if need == 2:
            return "Your turn: one move on each of two boards."
        return "Your turn: one move on one board."
    if solo or not to_act:
        return ""
    seat = to_act[0]
    who = "You" if seat == me else names.get(seat, f"Seat {seat}")
    return f"{who} {'play' if seat == me else 'plays'} {'two boards' if need == 2 else 'one board'} this turn."


def _passed(public: Mapping[str, Any], names: Mapping[int, str], me: int) -> str:
    """The rules passed a turn automatically: say whose, and why."""
    seat = int(public.get("passed") or 0)
    if not seat:
        return ""
    who = "You" if seat == me else names.get(seat, f"Seat {seat}")
    return f"{who} could not play on any board, so the turn passed."


def _decided_last_turn(public: Mapping[str, Any], names: Mapping[int, str]) -> list[str]:
    """"Gomoku won by Uli." for each board the last turn finished."""
    last = str(public.get("last") or "")
    played = {p.strip().split(" ", 1)[0] for p in last.split(";") if p.strip()}
    out = []
    for bv in public.get("boards") or []:
        if bv.get("status") in ("won", "drawn") and bv.get("board") in played:
            out.append(_decided_text(bv, names))
    return out


def _decided_text(bv: Mapping[str, Any], names: Mapping[int, str]) -> str:
    title = _TITLES[str(bv["board"])]
    if bv.get("status") == "won":
        return f"{title} won by {names[int(bv['winner'])]}."
    return f"{title} drawn."


def log_notes(view: Mapping[str, Any], log: list[Any], ctx: Mapping[str, Any]) -> list[Any]:
    """Log entries with "Gomoku won by Uli" noted on the turn that decided each board: the
    last active move of this bout that played the board's final move.  Used for the whole
    log here and by matches/render.log_rows for the rows a live update appends."""
    public = view.get("public") or {}
    if view.get("game") != "two-connect" or not isinstance(public, Mapping):
        return log
    names = {int(k): str(v) for k, v in (ctx.get("names") or {}).items()}
    for seat in (1, 2):
        names.setdefault(seat, f"Seat {seat}")
    bout = ctx.get("bout_number") or getattr(ctx.get("bout"), "number", 0)
    notes: dict[int, list[str]] = {}
    for bv in public.get("boards") or []:
        if bv.get("status") not in ("won", "drawn") or not bv.get("last"):
            continue
        part = f"{bv['board']} {bv['last']}"
        for i in range(len(log) - 1, -1, -1):
            e = log[i]
            if (isinstance(e, dict) and e.get("kind") == "move" and e.get("bout") == bout and not e.get("undone")
                    and not e.get("corrected") and part in [p.strip() for p in str(e.get("text", "")).split(";")]):
                notes.setdefault(i, []).append(_decided_text(bv, names).rstrip("."))
                break
    if not notes:
        return log
    return [dict(e, note="; ".join(notes[i])) if i in notes else e for i, e in enumerate(log)]


class TwoConnectPage(Page):
    """Two Connect's page hooks (games.registry.get_page); Squava's, Gomoku's and Yinsh's below."""

    description = "Squava, Yinsh (blitz) and Gomoku at once, two moves a turn; first to win two boards."
    example_move = "squava C3; gomoku H7"

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return context(view, ctx)

    def log_notes(self, view: dict[str, Any], entries: list[dict[str, Any]],
                  ctx: dict[str, Any]) -> list[dict[str, Any]]:
        return log_notes(view, entries, ctx)

    def how_to_play(self) -> HowToPlay:
        return TWO_CONNECT


class SquavaPage(TwoConnectPage):
    description = "Squava alone: 5x5, four in a row wins, three in a row loses."
    example_move = "C3"

    def how_to_play(self) -> HowToPlay:
        return SQUAVA


class GomokuPage(TwoConnectPage):
    description = "Gomoku alone: 14x14, five in a row wins."
    example_move = "C3"

    def how_to_play(self) -> HowToPlay:
        return GOMOKU


class YinshPage(TwoConnectPage):
    description = "Yinsh blitz alone: rings and markers on the hex board, the first row of five wins."
    example_move = "ring E5 or E5-E8"

    def how_to_play(self) -> HowToPlay:
        return YINSH
