"""View shaping for the Host's game page (pure: no Django).

`context(view, ctx)` runs for every audience with that audience's own
`CustomGame.view()`, so it only reshapes what the viewer may already see: a
seat's answers come from its own `private` part, every seat's from the
host's `hidden`, everyone else gets who answered and what was revealed.

What it adds for `custom/board.html` and `controls.html` (key `hg`):

- `open`: the open round (prompt, its kind in words, who answered, who is
  awaited) and, for a seat asked to answer, its answer control: `options`
  (a button per number of a short range, per choice or per seat: each with
  the canonical notation a click composes), `grid` (a square round's cells)
  or `free` (a number field or a text box the click script turns into
  notation), and the seat's `mine` answer so far.
- `rounds`: every round, newest first, with its revealed answers; the host's
  rows hold every answer and the reveal actions as notation.
- `scoreboard`: seats best first (every seat still in above every seat out,
  then by points), `awards`.
- `seats`: once the host has given or taken points, the header's seat rows
  show points instead of bouts won.
- `host`: the console rows (per seat: answer status, answer, points and
  eliminate and winner actions as notation), resolve, end by points, draw.
- `status`: a sentence for the status line.
"""

from __future__ import annotations

from typing import Any

from games.core import HOST
from games.core.facts import AwardCounts, SeasonAwards
from games.core.howto import HowToPlay
from games.core.pages import Page

from .howto import HOW_TO_PLAY
from .notation import LETTERS, Answer, OpenRound, Spec, format_action, parse_action
from .season import ending_awards

#: a number round shows a button per number up to this many numbers, else a number field
MAX_NUMBER_BUTTONS = 20
KIND_WORDS = {"text": "free text", "number": "a whole number", "choice": "one choice",
              "seat": "one or more seats", "square": "a square of the grid"}
REVEAL_WORDS = {"everyone": "revealed to everyone when the host says",
                "host": "seen by the host only", "author": "seen by each answer's author and the host only"}


class CustomPage(Page):
    view_only = False
    description = "Any other game: 2 to 16 named seats; you open rounds, they answer sealed, you reveal and score."
    example_move = "answer 7"

    def how_to_play(self) -> HowToPlay:
        return HOW_TO_PLAY

    def context(self, view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"hg": shape(view, ctx), "private_rows": [], "hidden_rows": [],
                               **({"status": _status(view, ctx)} if view.get("result") is None else {})}
        if view["public"].get("awards"):  # once the host scores, the header counts points, not bouts won
            out["seats"] = header(ctx.get("seats") or [], view["public"]["points"])
        return out


def header(rows: list[dict[str, Any]], points: dict[str, Any]) -> list[dict[str, Any]]:
    """The generic seat rows of the match header with each seat's points in place of bouts won."""
    out = []
    for row in rows:
        n = int(points.get(str(row["number"]), 0))
        out.append({**row, "score": f"{n} pt{'' if abs(n) == 1 else 's'}",
                    "score_label": f"{n} point{'' if abs(n) == 1 else 's'}"})
    return out


def ranked(count: int, points: dict[str, Any], out_seats: set[int]) -> list[int]:
    """Seats best first: every seat still in above every eliminated seat, then by points."""
    return sorted(range(1, count + 1), key=lambda s: (s in out_seats, -int(points[str(s)]), s))


def shape(view: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    viewer = int(ctx.get("viewer", view.get("viewer", -1)))
    public: dict[str, Any] = view["public"]
    names: dict[int, str] = {int(k): str(v) for k, v in (ctx.get("names") or {}).items()}
    count = int(public["seats"])

    def name(seat: int) -> str:
        return names.get(seat) or f"Seat {seat}"

    own = _answers((view.get("private") or {}).get("answers")) if viewer >= 1 else {}
    every = ({int(s): _answers(h.get("answers")) for s, h in (view.get("hidden") or {}).items()}
             if viewer == HOST else {})
    out_seats = set(public["eliminated"])
    rounds = [_round(r, viewer, own, every, name) for r in reversed(public["rounds"])]
    current = next((r for r in rounds if r["number"] == public["open"]), None)
    can_answer = (current is not None and viewer >= 1 and viewer in view.get("to_act", [])
                  and bool(ctx.get("my_turn")))
    if current is not None:
        current["control"] = _control(current, count, name, own.get(current["number"])) if can_answer else None
    board = ranked(count, public["points"], out_seats)
    shaped: dict[str, Any] = {
        "count": count,
        "open": current,
        "can_answer": can_answer,
        "rounds": [r for r in rounds if r is not current],
        "scoreboard": [{"seat": s, "name": name(s), "points": public["points"][str(s)], "out": s in out_seats,
                        "me": s == viewer} for s in board],
        "awards": [{"seat": a["seat"], "name": name(a["seat"]), "points": a["points"], "reason": a["reason"]}
                   for a in reversed(public["awards"])],
        "announcements": list(reversed(public["announcements"])),
        "ending": _ending(public["ending"], name, ctx.get("season_awards")),
        "finished": view.get("result") is not None,
        # a closed round whose answers wait for the host: the idle box says so (not "no round is open")
        "awaiting": (_reveal_words(waiting, viewer) if (waiting := awaiting_reveal(public)) is not None
                     and not (viewer >= 1 and viewer in out_seats) else ""),
        "mine": [r for r in rounds if r["mine"] is not None] if viewer >= 1 else [],
        "host": (_host(public, current, every, count, name, board, ctx.get("season_awards"))
                 if viewer == HOST else None),
    }
    return shaped


def spec_of(definition: str) -> Spec:
    """A round's answer kind and bounds from its canonical definition (`number 1-10`)."""
    parsed = parse_action(f'round "x" {definition}')
    assert isinstance(parsed, OpenRound)
    return parsed.spec


def answer_text(round_number: int, kind: str, value: Any) -> str:
    """The canonical notation of an answer (`round 2 answer "Red"`)."""
    return format_action(Answer(round_number, kind, tuple(value) if isinstance(value, list) else value))


def show(kind: str, value: Any, name: Any) -> str:
    """An answer as a person reads it (seats by name)."""
    if value is None:
        return "no answer"
    if kind == "seat" and isinstance(value, list):
        return ", ".join(name(int(s)) for s in value)
    return str(value)


# -- helpers -----------------------------------------------------------------
def _answers(raw: Any) -> dict[int, Any]:
    return {int(k): v for k, v in (raw or {}).items()}


def _round(r: dict[str, Any], viewer: int, own: dict[int, Any],
           every: dict[int, dict[int, Any]], name: Any) -> dict[str, Any]:
    number, kind = int(r["number"]), str(r["kind"])
    answered = [int(s) for s in r["answered"]]
    required = [int(s) for s in r["required"]]
    revealed = {int(s): v for s, v in r["revealed"].items()}
    mine: Any = own.get(number, ...) if viewer >= 1 else ...
    shaped: dict[str, Any] = {
        "number": number, "prompt": r["prompt"], "kind": kind, "kind_words": _kind_words(r),
        "reveal": r["reveal"], "reveal_words": REVEAL_WORDS[r["reveal"]], "closed": r["closed"],
        "seconds": r.get("seconds"),
        "required": [{"seat": s, "name": name(s), "answered": s in answered} for s in required],
        "answered_count": len(answered),
        "awaited": [name(s) for s in required if s not in answered] if not r["closed"] else [],
        "revealed": [{"seat": s, "name": name(s), "answer": show(kind, v, name)} for s, v in sorted(revealed.items())],
        "mine": None if mine is ... else show(kind, mine, name),
        "asked": viewer in required,
        "spec": spec_of(str(r["definition"])),
    }
    if viewer == HOST:
        shaped["answers"] = [
            {"seat": s, "name": name(s), "answered": s in answered,
             "answer": show(kind, every.get(s, {}).get(number), name) if s in answered or r["closed"] else "",
             "revealed": s in revealed,
             "reveal": (f"reveal round {number} seat {s}" if r["closed"] and r["reveal"] == "everyone"
                        and s not in revealed else "")}
            for s in required]
        shaped["reveal_all"] = (f"reveal round {number}" if r["closed"] and r["reveal"] == "everyone"
                                and len(revealed) < len(required) else "")
    return shaped


def _kind_words(r: dict[str, Any]) -> str:
    spec = spec_of(str(r["definition"]))
    if spec.kind == "number":
        return f"a whole number from {spec.low} to {spec.high}"
    if spec.kind == "choice":
        return "one of: " + ", ".join(spec.choices)
    if spec.kind == "square":
        return f"a square of a {spec.rows} by {spec.columns} grid"
    return KIND_WORDS[spec.kind]


def _control(current: dict[str, Any], count: int, name: Any, mine: Any) -> dict[str, Any]:
    """The answer control of the open round for a seat asked to answer it."""
    number, kind = current["number"], current["kind"]
    spec: Spec = current["spec"]
    control: dict[str, Any] = {"kind": kind, "round": number, "prefix": f"round {number} answer "}
    if kind == "number" and spec.high - spec.low < MAX_NUMBER_BUTTONS:
        control["options"] = [{"label": str(n), "coord": str(n), "notation": answer_text(number, kind, n),
                               "chosen": mine == n} for n in range(spec.low, spec.high + 1)]
    elif kind == "number":
        control["free"] = "number"
        control["low"], control["high"] = spec.low, spec.high
    elif kind == "choice":
        control["options"] = [{"label": c, "coord": f"C{i}", "notation": answer_text(number, kind, c),
                               "chosen": mine == c} for i, c in enumerate(spec.choices, start=1)]
    elif kind == "seat":
        chosen = set(mine or [])
        control["seats"] = [{"seat": s, "label": name(s), "coord": f"S{s}", "chosen": s in chosen}
                            for s in range(1, count + 1)]
    elif kind == "square":
        control["grid"] = [[{"coord": f"{LETTERS[c]}{row}", "notation": answer_text(number, kind, f"{LETTERS[c]}{row}"),
                             "chosen": mine == f"{LETTERS[c]}{row}"} for c in range(spec.columns)]
                           for row in range(1, spec.rows + 1)]
        control["columns"] = [LETTERS[c] for c in range(spec.columns)]
    else:
        control["free"] = "text"
    return control


def _host(public: dict[str, Any], current: dict[str, Any] | None, every: dict[int, dict[int, Any]], count: int,
          name: Any, board: list[int], counts: AwardCounts | None = None) -> dict[str, Any]:
    out_seats = set(public["eliminated"])
    number = current["number"] if current is not None else None
    required = {r["seat"] for r in current["required"]} if current is not None else set()
    answered = {r["seat"] for r in current["required"] if r["answered"]} if current is not None else set()
    kind = current["kind"] if current is not None else ""
    rows = []
    for s in range(1, count + 1):
        if s in out_seats:
            status = "out"
        elif number is None:
            status = ""
        elif s not in required:
            status = "not asked"
        else:
            status = "answered" if s in answered else "waiting"
        answer = every.get(s, {}).get(number, None) if number is not None else None
        rows.append({
            "seat": s, "name": name(s), "status": status, "out": s in out_seats,
            "answer": show(kind, answer, name) if number is not None and s in answered else "",
            "points": public["points"][str(s)],
            "eliminate": "" if s in out_seats else f"eliminate {s}",
            "winner": f"end winner {s}",
        })
    groups: list[list[int]] = []
    for s in board:  # the ranking by points proposed to the host: seats out below every seat still in
        if (groups and public["points"][str(groups[-1][0])] == public["points"][str(s)]
                and (groups[-1][0] in out_seats) == (s in out_seats)):
            groups[-1].append(s)
        else:
            groups.append([s])
    awards = _console_awards(groups, count, name, counts)
    return {
        "rows": rows,
        "open": number,
        "resolve": "resolve" if number is not None else "",
        "ranking": "end ranking " + ", ".join("=".join(str(s) for s in g) for g in groups),
        "ranking_words": ", then ".join(" = ".join(name(s) for s in g) for g in groups),
        "awards": awards,
        "draw": "end draw",
        "seat_numbers": list(range(1, count + 1)),
        "in_play": [s for s in range(1, count + 1) if s not in out_seats],
    }


def _console_awards(groups: list[list[int]], count: int, name: Any, counts: AwardCounts | None) -> dict[str, Any] | None:
    """A season's main match (issue 52): what "End: ranking by points" gives (the preview) and a box per
    seat to give the Token of Life or the candidacy to others (the click script writes `token S
    candidate S` into the end's notation).  None outside a season and in an elimination match."""
    if counts is None or not (counts.tokens or counts.candidates):
        return None
    given = ending_awards("ranking", groups, (), (), counts)
    return {
        "tokens": [{"seat": s, "name": name(s), "checked": s in given.tokens} for s in range(1, count + 1)],
        "candidates": [{"seat": s, "name": name(s), "checked": s in given.candidates} for s in range(1, count + 1)],
        "default_tokens": ",".join(str(s) for s in given.tokens),
        "default_candidates": ",".join(str(s) for s in given.candidates),
        "words": awards_words(given, name),
    }


def awards_words(awards: SeasonAwards, name: Any) -> str:
    """What an ending gives in a season, as the console and the board say it."""
    words = []
    for seats, tied, what in ((awards.tokens, awards.tied_tokens, "Token of Life"),
                              (awards.candidates, awards.tied_candidates, "Elimination Candidate")):
        given = [" and ".join(name(s) for s in seats)] if seats else []
        if tied:
            given.append(" and ".join(name(s) for s in tied) + " tied, for the host to settle")
        words.append(f"{what}: {'; '.join(given) or 'nobody'}.")
    return " ".join(words)


def _ending(ending: dict[str, Any] | None, name: Any, counts: AwardCounts | None = None) -> str:
    if ending is None:
        return ""
    groups = ending["ranking"]
    if ending["how"] == "draw":
        text = "The host declared a draw."
    elif ending["how"] == "winner":
        text = "Winner: " + " and ".join(name(s) for s in groups[0]) + "."
    else:
        text = "Ranking: " + "; ".join(f"{place}. " + " = ".join(name(s) for s in g)
                                       for place, g in enumerate(groups, start=1)) + "."
    if counts is not None:  # only a season's match speaks of Tokens of Life and candidates
        given = ending_awards(ending["how"], groups, ending.get("token") or (), ending.get("candidate") or (), counts)
        if given.tokens or given.candidates or given.tied_tokens or given.tied_candidates:
            text += " " + awards_words(given, name)
    return text


def awaiting_reveal(public: dict[str, Any]) -> dict[str, Any] | None:
    """The newest round when it is closed and some of its answers wait for the host to reveal them."""
    if not public["rounds"]:
        return None
    newest = public["rounds"][-1]
    if not newest["closed"] or newest["reveal"] != "everyone":
        return None
    return newest if set(map(int, newest["answered"])) - set(map(int, newest["revealed"])) else None


def _reveal_words(r: dict[str, Any], viewer: int) -> str:
    """While a closed round's answers wait to be revealed: the host reveals, the others wait for it."""
    number = r["number"]
    if viewer == HOST:
        return f"All answers to round {number} are in: reveal them when ready (Reveal round {number} below)."
    if viewer >= 1 and viewer in r["answered"]:
        return f"Round {number}: your answer is in; the host will reveal the answers."
    return f"All answers to round {number} are in; the host will reveal them."


def _status(view: dict[str, Any], ctx: dict[str, Any]) -> str:
    public = view["public"]
    viewer = int(ctx.get("viewer", -1))
    names = ctx.get("names") or {}
    if public["open"] is None:
        if viewer >= 1 and viewer in public["eliminated"]:
            return "You are out. You can follow the rounds."
        waiting = awaiting_reveal(public)
        if waiting is not None:
            return _reveal_words(waiting, viewer)
        return "Waiting for the host to open a round." if viewer != HOST else "No round is open: open one below."
    current = public["rounds"][int(public["open"]) - 1]
    awaited = [s for s in view.get("pending", [])]
    if viewer >= 1 and viewer in awaited:
        return f"Round {current['number']} is open: your answer, please."
    if viewer >= 1 and viewer in current["answered"]:
        lead = f"Round {current['number']}: your answer is in (you may change it until the round closes). "
    else:
        lead = f"Round {current['number']} is open. "
    who = ", ".join("you" if s == viewer else str(names.get(s) or f"Seat {s}") for s in awaited)
    return lead + (f"Waiting for {who}." if who else "Every answer is in.")
