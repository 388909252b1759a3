"""View shaping for the Bidding 3D Tic-Tac-Toe page (pure: no Django).

`context(view, ctx)` is called by `matches/render.py` for every audience with
that audience's `BiddingTTT.view()`, so it can only shape what that viewer may
already see: a seat's amounts and chips come from its own `private` part, the
host's from `hidden`, everyone else gets the public boards only.

What it adds for `bidding_ttt/board.html` and `controls.html` (key `bt`):

- `grid`: the nine boards as 3 rows of 3, each board with its letter, its
  control shading (`ctl-1`, `ctl-2`, `ctl-both`), a caption, and its 9 tiles
  named board letter + tile digit (`A1`-`I9`, reading order), each with its
  owner, whether it is part of the line that gave control, whether it was won
  last round, and (for a seat that may bid) why it may not be bid on.
- round-1 and round-2 restriction data for the bid builder script: per tile the
  pairs of free tiles that would complete three in a line with it, and the
  number of boards a round-2 bid may cover.  The script only applies this data.
- `reveal`: what each resolved round did (tiles won, boards newly controlled),
  plus, for a seat, how each of its own bids fared (won / lost / tied).
- `mine` (a seat) / `host` (the host): chips left and bids per round as tables.
- `result`: a sentence naming how the bout was decided (line or tie-break).

It also overrides `status` while a round is open ("Your bid is in. Waiting for
Ann (Red).") and empties the generic `private_rows` / `hidden_rows` dumps,
which the tables replace.
"""

from __future__ import annotations

from typing import Any

from games.bidding_ttt.rules import BOARDS, COLOURS, LINES, ROUNDS
from games.core import HOST
from games.core.howto import HowToPlay
from games.core.pages import OptionField, Page

from .howto import HOW_TO_PLAY

SEATS = (1, 2)
#: a letter per seat, so owners are told apart without colour
MARKS = {1: "R", 2: "B"}
#: how a line of boards reads in a result sentence
_LINE_KIND = {0: "a row", 1: "a row", 2: "a row", 3: "a column", 4: "a column", 5: "a column",
              6: "a diagonal", 7: "a diagonal"}
#: a result reason in a few words, for the end banner
_WHY = {
    "line": "three boards in a line",
    "boards": "more boards controlled",
    "tiles": "more tiles owned",
    "chips": "more chips left",
    "garnets": "more garnets",
    "tie": "equal on every tie-break",
}
_TIE_BREAK = {
    "boards": "boards controlled",
    "tiles": "tiles owned",
    "chips": "chips left",
    "garnets": "garnets",
}


def context(view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    viewer = int(ctx.get("viewer", -1))
    public: dict[str, Any] = view["public"]
    who = _Namer(ctx.get("names") or {}, viewer)
    private: dict[str, Any] | None = view.get("private") if viewer >= 1 else None
    hidden: dict[str, Any] | None = view.get("hidden") if viewer == HOST else None
    result = view.get("result")
    can_bid = private is not None and result is None and bool(ctx.get("my_turn"))
    chips_left = int(private["chips"]) if private is not None else 0
    bt: dict[str, Any] = {
        "round": public["round"],
        "rounds": public["rounds"],
        "finished": result is not None,
        "restriction": _restriction(public["round"]) if result is None else "",
        "can_bid": can_bid,
        "max_boards": 2 if public["round"] == 2 else 9,
        "grid": grid(public, viewer, can_bid=can_bid, chips_left=chips_left, winning=winning_boards(result, public)),
        "counts": [
            {"seat": s, "mark": MARKS[s], "who": who.full(s),
             "boards": public["boards_controlled"][str(s)], "tiles": public["tiles_owned"][str(s)],
             "controlled": ", ".join(public["controlled"][str(s)])}
            for s in SEATS
        ],
        "reveal": reveal(public, who, private),
        "result": result_text(result, public, who) if result else "",
    }
    if private is not None:
        bt["mine"] = own_table(private, public)
    if hidden is not None:
        bt["host"] = host_table(hidden, public, who)
    out: dict[str, Any] = {"bt": bt}
    if viewer >= 1:
        out["private_rows"] = []  # the own-bids table replaces the generic dump
    if viewer == HOST:
        out["hidden_rows"] = []  # the side-by-side bids table replaces it
    status = _status(view, ctx, who, private)
    if status:
        out["status"] = status
    banner = ctx.get("banner")
    if result and isinstance(banner, dict) and _rules_ended(view, ctx):
        # the end banner names the line of boards or the tie-break in words; a match of
        # several bouts keeps its own "won 2 bouts" and gets the last bout's story
        if getattr(ctx.get("match"), "result_reason", "") == "bouts":
            out["banner"] = dict(banner, detail=f"Bout {ctx.get('bout_number') or 1}: {bt['result']}")
        else:
            out["banner"] = dict(banner, why=_WHY.get(str(result.get("reason", "")), banner.get("why", "")),
                                 detail=bt["result"])
    return out


def _rules_ended(view: dict[str, Any], ctx: dict[str, Any]) -> bool:
    """True when the rules' result is how the match stands (not a host award or end)."""
    match = ctx.get("match")
    result = view.get("result") or {}
    if getattr(match, "status", "") != "finished":
        return True
    return sorted(getattr(match, "winners", None) or []) == sorted(result.get("winners", []))


# -- the nine boards ---------------------------------------------------------------


def tile_name(board: str, row: int, col: int) -> str:
    """A tile's name: board letter + tile digit in reading order ("E", 1, 1 -> "E5")."""
    return f"{board}{row * 3 + col + 1}"


def grid(public: dict[str, Any], viewer: int, *, can_bid: bool, chips_left: int,
         winning: frozenset[str] = frozenset()) -> list[list[dict[str, Any]]]:
    """3 rows of 3 boards (A B C / D E F / G H I), each with its 9 tiles in reading order;
    `winning` names the boards of the line that won the bout (outlined)."""
    fresh = {t for s in SEATS for t in public["won_last_round"][str(s)]}
    lines = public.get("control_lines", {})
    rows: list[list[dict[str, Any]]] = []
    for letters in public["layout"]:
        row = []
        for letter in letters:
            owners = [cell for r in public["tiles"][letter] for cell in r]
            control = sorted(public["control"][letter])
            in_line = {t for s in control for line in lines.get(letter, {}).get(str(s), []) for t in line}
            start = [s for s in control if public["starting_boards"][str(s)] == letter]
            tiles = []
            for index, owner in enumerate(owners):
                name = tile_name(letter, index // 3, index % 3)
                reason = _blocked(owner, control, viewer, chips_left) if can_bid else ""
                tiles.append({
                    "name": name,
                    "owner": owner,
                    "mark": MARKS.get(owner, ""),
                    "line": name in in_line,
                    "fresh": name in fresh,
                    "blocked": reason,
                    "pairs": _pairs(letter, index, owners, control) if can_bid and not reason
                    and public["round"] == 1 else "",
                    "label": _tile_label(name, owner, viewer, reason),
                    "plain": _tile_label(name, owner, viewer, ""),  # where no one is bidding (replays)
                })
            row.append({
                "letter": letter,
                "control": control,
                "cls": shading(control),
                "caption": _board_caption(control, start, viewer),
                "label": _board_label(letter, control, start, viewer),
                "win": letter in winning,
                "tiles": tiles,
            })
        rows.append(row)
    return rows


def shading(control: list[int]) -> str:
    """CSS class of a board's shading: its controller's colour, striped when both control it."""
    if len(control) == 2:
        return "ctl-both"
    return f"ctl-{control[0]}" if control else ""


def _blocked(owner: int, control: list[int], viewer: int, chips_left: int) -> str:
    """Why the viewing seat may not bid on this tile whatever else it bids ("" if it may)."""
    if owner:
        return "owned by you" if owner == viewer else f"owned by {COLOURS[owner]}"
    if control:
        return "on a controlled board"
    if chips_left <= 0:
        return "you have no chips left"
    return ""


def _pairs(letter: str, index: int, owners: list[int], control: list[int]) -> str:
    """Round 1: each pair of free tiles that would make three in a line with this one
    ("E1 E9,E2 E8"), for the builder to refuse the third tile of a line."""
    if control:
        return ""
    out = []
    for line in LINES:
        if index in line:
            others = [c for c in line if c != index]
            if not any(owners[c] for c in others):
                out.append(" ".join(f"{letter}{c + 1}" for c in others))
    return ",".join(out)


def _tile_label(name: str, owner: int, viewer: int, reason: str) -> str:
    if owner:
        return f"{name}, yours" if owner == viewer else f"{name}, {COLOURS[owner]}'s"
    if reason:
        return f"{name}, empty, not allowed: {reason}"
    return f"{name}, empty"


def _board_caption(control: list[int], start: list[int], viewer: int) -> str:
    """Who controls the board, short enough for a phone ("Red's base", "yours", "both")."""
    if not control:
        return ""
    if len(control) == 2:
        return "both"
    seat = control[0]
    if start:
        return "your base" if seat == viewer else f"{COLOURS[seat]}'s base"
    return "yours" if seat == viewer else f"{COLOURS[seat]}'s"


def _board_label(letter: str, control: list[int], start: list[int], viewer: int) -> str:
    if not control:
        return f"board {letter}"
    whose = " and ".join("you" if s == viewer else COLOURS[s] for s in control)
    return f"board {letter}, controlled by {whose}{' from the start' if start else ''}"


def winning_boards(result: dict[str, Any] | None, public: dict[str, Any]) -> frozenset[str]:
    """The three boards in a line that won the bout outright (none for a tie-break)."""
    if not result or result.get("reason") != "line" or len(result.get("winners", [])) != 1:
        return frozenset()
    line = board_line(public["controlled"][str(result["winners"][0])])
    return frozenset(BOARDS[b] for b in line) if line else frozenset()


def _restriction(round_no: int) -> str:
    return {
        1: "No bid may hold three tiles in a line on one board.",
        2: "A bid may cover at most 2 boards.",
        3: "Bid anywhere you like.",
    }.get(round_no, "")


# -- what happened each round ---------------------------------------------------


def reveal(public: dict[str, Any], who: _Namer, private: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each resolved round, latest first: tiles won and boards newly controlled per side,
    and (in a seat's own view) how its own bids fared."""
    mine = {}
    if private is not None:
        for past, outcome in zip(private["history"], private["outcomes"], strict=True):
            verdict = {t: k for k in ("won", "lost", "tied") for t in outcome[k]}
            mine[past["round"]] = [
                {"tile": b["tile"], "chips": b["chips"], "outcome": verdict.get(b["tile"], "")}
                for b in past["bids"]
            ]
    out = []
    last = len(public.get("reveal", []))
    for entry in reversed(public.get("reveal", [])):
        sides = []
        for s in SEATS:
            won = entry["won"][str(s)]
            newly = entry["controlled"][str(s)]
            text = f"{who.full(s, capital=True)} won {_and(won)}" if won else f"{who.full(s, capital=True)} won no tile"
            if newly:
                text += f" and now {'control' if s == who.viewer else 'controls'} board{'s' if len(newly) > 1 else ''} "
                text += _and(newly)
            sides.append({"seat": s, "mark": MARKS[s], "text": text + ".", "won": won, "controlled": newly})
        out.append({
            "round": entry["round"],
            "latest": entry["round"] == last,
            "sides": sides,
            "quiet": not any(side["won"] for side in sides),
            "mine": mine.get(entry["round"], []),
            "seat_view": private is not None,
        })
    return out


def own_table(private: dict[str, Any], public: dict[str, Any]) -> dict[str, Any]:
    """The seat's chips left and its own bids per round (resolved rounds, then this one)."""
    verdicts = {
        o["round"]: {t: k for k in ("won", "lost", "tied") for t in o[k]} for o in private.get("outcomes", [])
    }
    rows = [
        {"round": past["round"], "spent": past["spent"], "open": False,
         "bids": [{"tile": b["tile"], "chips": b["chips"], "outcome": verdicts.get(past["round"], {}).get(b["tile"], "")}
                  for b in past["bids"]]}
        for past in private["history"]
    ]
    sealed = private["bids"]
    if not public["finished"]:
        rows.append({"round": public["round"], "spent": private["committed"], "open": True,
                     "submitted": private["submitted"],
                     "bids": [{"tile": b["tile"], "chips": b["chips"], "outcome": ""} for b in sealed or []]})
    return {
        "chips": private["chips"],
        "start": public["starting_chips"],
        "rows": rows,
        "submitted": private["submitted"],
        "sealed": notation(sealed) if sealed is not None else "",
        "committed": private["committed"],
    }


def host_table(hidden: dict[str, Any], public: dict[str, Any], who: _Namer) -> dict[str, Any]:
    """Both players' bids side by side for every round, with chips left (host only)."""
    rounds = max(len(hidden[str(s)]["history"]) for s in SEATS)
    rows = []
    for index in range(rounds):
        cells = []
        for s in SEATS:
            past = hidden[str(s)]["history"][index]
            outcome = hidden[str(s)]["outcomes"][index]
            verdict = {t: k for k in ("won", "lost", "tied") for t in outcome[k]}
            cells.append({"seat": s, "bids": [dict(b, outcome=verdict.get(b["tile"], "")) for b in past["bids"]],
                          "spent": past["spent"], "pass": not past["bids"]})
        rows.append({"round": index + 1, "open": False, "cells": cells})
    if not public["finished"]:
        cells = []
        for s in SEATS:
            h = hidden[str(s)]
            bids = h["bids"]
            cells.append({"seat": s, "bids": [dict(b, outcome="") for b in bids or []], "spent": h["committed"],
                          "pass": bids == [], "waiting": bids is None,
                          "text": notation(bids) if bids is not None else ""})
        rows.append({"round": public["round"], "open": True, "cells": cells})
    return {
        "seats": [{"seat": s, "mark": MARKS[s], "who": who.full(s), "chips": hidden[str(s)]["chips"]} for s in SEATS],
        "rows": rows,
        "start": public["starting_chips"],
    }


def notation(bids: list[dict[str, Any]]) -> str:
    """Canonical bid text ("A1 3; E5 2", or "pass"), as the rules format it."""
    return "; ".join(f"{b['tile']} {b['chips']}" for b in bids) or "pass"


# -- the result and the status line ----------------------------------------------


def result_text(result: dict[str, Any], public: dict[str, Any], who: _Namer) -> str:
    """How the bout was decided, naming the line of boards or the tie-break."""
    winners = [int(s) for s in result.get("winners", [])]
    reason = str(result.get("reason", ""))
    if reason == "line" and len(winners) == 1:
        seat = winners[0]
        line = board_line(public["controlled"][str(seat)])
        letters = ", ".join(BOARDS[b] for b in line) if line else ""
        kind = _LINE_KIND[LINES.index(line)] if line else "a line"
        controls = who.verb(seat, "controls", "you control")
        return f"{who.full(seat, capital=True)} {who.verb(seat, 'wins', 'win')}: {controls} {letters} ({kind})."
    lines = [s for s in SEATS if board_line(public["controlled"][str(s)])]
    why = ("Both control three boards in a line" if len(lines) == 2
           else f"No line of boards after round {ROUNDS}" if not lines
           else "The bout ended")
    figures = {
        "boards": public["boards_controlled"],
        "tiles": public["tiles_owned"],
        "garnets": public["garnets"],
    }
    if reason in _TIE_BREAK and len(winners) == 1:
        seat = winners[0]
        order = list(_TIE_BREAK)
        equal = order[:order.index(reason)]
        tied = f"; equal on {_and([_TIE_BREAK[k] for k in equal])}" if equal else ""
        head = f"{why}{tied}. {who.full(seat, capital=True)} {who.verb(seat, 'wins', 'win')} on {_TIE_BREAK[reason]}"
        if reason in figures:
            a, b = (figures[reason][str(s)] for s in (seat, 3 - seat))
            return f"{head}, {a} to {b}."
        return f"{head} (the amounts stay secret)."
    if not winners:
        return f"{why}; equal boards, tiles, chips and garnets: a draw for the host to settle."
    return str(result.get("detail", ""))


def board_line(letters: list[str]) -> tuple[int, int, int] | None:
    """The first line of the 3x3 grid of boards whose three boards are all in `letters`."""
    have = {BOARDS.index(x) for x in letters}
    return next((line for line in LINES if set(line) <= have), None)


def _status(view: dict[str, Any], ctx: dict[str, Any], who: _Namer, private: dict[str, Any] | None) -> str:
    match = ctx.get("match")
    result = view.get("result")
    if result:
        if not _rules_ended(view, ctx):
            return ""  # the host ended the match another way: the generic line says how
        prefix = "Match over" if getattr(match, "status", "") == "finished" else f"Bout {ctx.get('bout_number') or 1} over"
        winners = [int(s) for s in result.get("winners", [])]
        if not winners:
            return f"{prefix}: a draw for the host to settle."
        # the board's result line says how (line or tie-break)
        return f"{prefix}: {_and([who.full(s, capital=True) for s in winners])} {who.verb(winners[0], 'wins', 'win')}."
    if getattr(match, "status", "running") != "running":
        return ""
    public = view["public"]
    waiting = [s for s in SEATS if not public["submitted"][str(s)]]
    head = f"Round {public['round']} of {public['rounds']}"
    if getattr(match, "paused", False):
        return f"{head}: paused by the host; bids wait until play resumes."
    if private is not None:
        me = who.viewer
        other = 3 - me
        if private["submitted"]:
            if other in waiting:
                return f"{head}: your bid is in. Waiting for {who.full(other)}."
            return f"{head}: your bid is in."
        theirs = f" {who.full(other, capital=True)}'s bid is in." if other not in waiting else ""
        return f"{head}: place your sealed bid.{theirs}"
    if not waiting:
        return f"{head}: both bids are in."
    if len(waiting) == 1:
        done = 3 - waiting[0]
        return f"{head}: {who.full(done)}'s bid is in; waiting for {who.full(waiting[0])}."
    return f"{head}: waiting for sealed bids from {_and([who.full(s) for s in waiting])}."


class _Namer:
    """Seat names with their colour: "Ann (Red)", or "you" for the viewer's own seat."""

    def __init__(self, names: dict[Any, Any], viewer: int) -> None:
        self.names = {int(k): str(v) for k, v in names.items()}
        self.viewer = viewer

    def full(self, seat: int, capital: bool = False) -> str:
        if seat == self.viewer:
            return "You" if capital else "you"
        name = self.names.get(seat, "")
        colour = COLOURS[seat]
        if not name or name.lower() == colour.lower():
            return colour
        return f"{name} ({colour})"

    def verb(self, seat: int, third: str, second: str) -> str:
        return second if seat == self.viewer else third


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


class BiddingPage(Page):
    """Bidding 3D Tic-Tac-Toe page hooks (games.registry.get_page)."""

    description = "Sealed bids for tiles on nine tic-tac-toe boards over three rounds; control three boards in a line."
    option_fields = {"garnets": OptionField("per_seat", "whole numbers; empty = 0 (a season match uses the ledger)")}

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return context(view, ctx)

    def how_to_play(self) -> HowToPlay:
        return HOW_TO_PLAY

