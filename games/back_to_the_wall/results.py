"""Back to the Wall's page, what happened: each resolved round's trace (in
words for the page, as frames for the replay script), the points, and the
final standings with the tie-break that decided each place.

Pure: no Django.  Reads only the public view (page.py passes it in).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .board import BOARD_NAMES, SEATS
from .resolve import PLACE_POINTS, place_points, ranking_key

ARROWS: dict[str, str] = {"up": "↑", "right": "→", "down": "↓", "left": "←"}
TIE_BREAKS = ("total points", "best single board", "points on Thrice", "points on Twice", "points on Once")


# -- replay ------------------------------------------------------------------------------------
def replay_rounds(
    public: Mapping[str, Any], names: Mapping[int, str]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Every resolved round's trace: reasons as text for the page, compact frames for the script."""
    traces = [
        *public.get("earlier_rounds", []),
        *([public["last_round"]] if public.get("last_round") else []),
    ]
    page_rounds = []
    script_rounds = []
    for trace in traces:
        if any(b.get("before") is None for b in trace["boards"]):
            continue  # a round stored before the trace existed: nothing to replay
        steps = sorted({(t["phase"], t["tick"]) for b in trace["boards"] for t in b["ticks"]})
        page_rounds.append({"round": trace["round"], "boards": [_explain(b, names) for b in trace["boards"]]})
        script_rounds.append(
            {
                "round": trace["round"],
                "steps": [list(s) for s in steps],
                "boards": [_frames(b) for b in trace["boards"]],
            }
        )
    if not page_rounds:
        return None, None
    last = page_rounds[-1]["round"]
    return {"rounds": page_rounds, "last": last}, {"rounds": script_rounds, "last": last}


def _frames(b: Mapping[str, Any]) -> dict[str, Any]:
    """One board's trace as the replay script draws it (no reasons: those are in the page)."""
    return {
        "name": b["name"],
        "size": b["size"],
        "owners": "".join(str(v) for row in b["before"]["owners"] for v in row),
        "walls": b["before"]["walls"],
        "placed": [w["square"] for w in b["walls"] if w["outcome"] == "placed"],
        "dropped": [w["square"] for w in b["walls"] if w["outcome"] != "placed"],
        "pieces": [[p["seat"], p["number"]] for p in b["before"]["pieces"]],
        "starts": [p["square"] for p in b["before"]["pieces"]],
        "ticks": [[t["phase"], t["tick"], t["positions"], t["captured"], t["contested"]] for t in b["ticks"]],
        "spawned": [[p["seat"], p["number"], p["square"]] for p in b["spawned"]],
    }


def _explain(b: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """One board's trace in words: each wall kept or dropped and why, each phase's moves and contests."""
    walls = [
        {
            "seat": w["seat"],
            "name": names[int(w["seat"])],
            "placed": w["outcome"] == "placed",
            "why": w["why"],
        }
        for w in b["walls"]
    ]
    phases = []
    for i in range(3):
        lines = []
        for m in b["moves"]:
            p = m["phases"][i]
            who = f"{names[int(m['seat'])]} {m['number']}"
            if p["submitted"] is None:
                if i == 0:
                    lines.append(
                        {
                            "seat": m["seat"],
                            "who": who,
                            "text": "no orders: stays all round",
                            "fallback": False,
                        }
                    )
                continue
            end = p["path"][-1] if p["path"] else None
            if not p["rule"]:
                text = f"{ARROWS[p['taken']]} to {end}"
            else:
                why = (
                    str(p["why"])
                    .removeprefix(f"{p['submitted']} is blocked; ")
                    .removeprefix(f"{p['submitted']} is blocked and so is every other direction: ")
                )
                took = f"took {ARROWS[p['taken']]} to {end}" if p["taken"] else "stays"
                text = f"{ARROWS[p['submitted']]} blocked, {took}: {why}"
            lines.append({"seat": m["seat"], "who": who, "text": text, "fallback": bool(p["rule"])})
        contested = [f"{c['square']} (tick {c['tick']})" for c in b["contested"] if c["phase"] == i + 1]
        phases.append({"phase": i + 1, "lines": lines, "contested": ", ".join(contested)})
    return {"name": b["name"], "walls": walls, "phases": phases}


# -- points and standings ------------------------------------------------------------------------
def points(public: Mapping[str, Any], final: Mapping[str, Any] | None) -> dict[int, float]:
    """Each seat's points: final, or provisional from the squares held now (no garnet bonus yet)."""
    if final:
        return {s: float(final["points"][str(s)]) for s in SEATS}
    totals = dict.fromkeys(SEATS, 0.0)
    for b in public["boards"]:
        pts = place_points({s: float(b["captured"][str(s)]) for s in SEATS})
        for s in SEATS:
            totals[s] += pts[s]
    return totals


def _fmt(value: float) -> str:
    return f"{value:g}"


def header(
    rows: Sequence[Mapping[str, Any]], points: Mapping[int, float], final: bool
) -> list[dict[str, Any]]:
    """The generic seat rows with points in place of bouts won (the header's score)."""
    out = []
    for row in rows:
        copy = dict(row)
        value = points.get(int(row["number"]), 0.0)
        copy["score"] = f"{_fmt(value)} pts" + ("" if final else "*")
        # what a screen reader says for it (the generic header reads "N bouts won")
        copy["score_label"] = f"{_fmt(value)} point{'' if value == 1 else 's'}" + ("" if final else " so far")
        out.append(copy)
    return out


def banner(banner: Mapping[str, Any], standings: Mapping[str, Any]) -> dict[str, Any]:
    """The end-of-match banner with points (not bouts won) and who earned what, by name."""
    earned = ", ".join(f"{g['name']} {g['count']}" for g in standings["garnets_earned"]) or "none"
    detail = (
        f"Token of Life: {standings['token_words']}. "
        f"Elimination Candidate: {standings['candidate_words']}. "
        f"Garnets earned: {earned}."
    )
    score = ", ".join(f"{t['name']} {t['points']} pts" for t in standings["totals"])
    return {**banner, "detail": detail, "score": score}


def _place_label(place: int, tied: bool) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place, "th")
    return f"{'=' if tied else ''}{place}{suffix}"


def standings(final: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """The final standings: per board, the totals with the deciding tie-break, who earned what."""
    boards = []
    per_seat: dict[int, list[float]] = {s: [] for s in SEATS}
    for b in final["boards"]:
        scores = {s: float(b["scores"][str(s)]) for s in SEATS}
        rows = []
        for s in sorted(SEATS, key=lambda seat: (-scores[seat], seat)):
            higher = sum(1 for o in SEATS if scores[o] > scores[s])
            tied = sum(1 for o in SEATS if scores[o] == scores[s]) > 1
            pts = float(b["points"][str(s)])
            per_seat[s].append(pts)
            rows.append(
                {
                    "seat": s,
                    "name": names[s],
                    "captured": int(b["captured"][str(s)]),
                    "bonus": int(b["garnet_bonus"][str(s)]),
                    "score": _fmt(scores[s]),
                    "place": _place_label(higher + 1, tied),
                    "points": _fmt(pts),
                }
            )
        boards.append({"name": b["name"], "title": b["name"].capitalize(), "rows": rows})
    ranking: list[list[int]] = [list(g) for g in final["ranking"]]
    keys = {s: ranking_key(per_seat[s]) for s in SEATS}
    order = [s for group in ranking for s in group]
    totals = []
    place = 1
    for gi, group in enumerate(ranking):
        for s in group:
            totals.append(
                {
                    "seat": s,
                    "name": names[s],
                    "place": _place_label(place, len(group) > 1),
                    "points": _fmt(float(final["points"][str(s)])),
                    "boards": " + ".join(_fmt(p) for p in per_seat[s]),
                    "decided": _decided(s, ranking, gi, keys, names),
                    "garnets": int(final["garnets_earned"][str(s)]),
                    "spends": ", ".join(
                        f"{board.capitalize()} (round {rnd})"
                        for board, rnd in sorted(
                            (final.get("garnet_spends") or {}).get(str(s), {}).items(),
                            key=lambda kv: BOARD_NAMES.index(kv[0]),
                        )
                    ),
                    "token": s in final["token_of_life"],
                    "candidate": s in final["elimination_candidate"],
                }
            )
        place += len(group)
    assert len(order) == len(SEATS)
    by_seat = [
        {
            "seat": s,
            "name": names[s],
            "cells": [{"board": b["name"], **next(r for r in b["rows"] if r["seat"] == s)} for b in boards],
        }
        for s in order
    ]
    return {
        "boards": boards,
        "by_seat": by_seat,
        "totals": totals,
        "token_of_life": [names[s] for s in final["token_of_life"]],
        "elimination_candidate": [names[s] for s in final["elimination_candidate"]],
        "token_words": _award(final["token_of_life"], final.get("tied_first") or [], names),
        "candidate_words": _award(final["elimination_candidate"], final.get("tied_last") or [], names),
        "garnets_earned": [
            {"name": names[s], "count": int(final["garnets_earned"][str(s)])}
            for s in SEATS
            if int(final["garnets_earned"][str(s)])
        ],
        "place_points": "/".join(str(p) for p in PLACE_POINTS),
    }


def _award(seats: Sequence[int], tied: Sequence[int], names: Mapping[int, str]) -> str:
    """Who an award goes to by name, or the tie the host settles (rules.py's ruling on ties)."""
    if seats:
        return " and ".join(names[s] for s in seats)
    return f"{' and '.join(names[s] for s in tied)} are tied on every tie-break: the host decides"


def _decided(
    seat: int,
    ranking: Sequence[Sequence[int]],
    index: int,
    keys: Mapping[int, Sequence[float]],
    names: Mapping[int, str],
) -> str:
    """Which tie-break put `seat` above the next place (the last: below the one before), in words."""
    group = ranking[index]
    if len(group) > 1:
        return "equal on every tie-break with " + " and ".join(names[s] for s in group if s != seat)
    if index + 1 < len(ranking):
        below = ranking[index + 1][0]
        return _versus(keys[seat], keys[below], "ahead of", names[below])
    if index > 0:
        above = ranking[index - 1][0]
        return _versus(keys[above], keys[seat], "behind", names[above])
    return ""


def _versus(better: Sequence[float], worse: Sequence[float], word: str, other: str) -> str:
    for i, label in enumerate(TIE_BREAKS):
        if better[i] != worse[i]:
            mine, theirs = (better[i], worse[i]) if word == "ahead of" else (worse[i], better[i])
            if i == 0:
                return f"{word} {other} on {label} ({_fmt(mine)} to {_fmt(theirs)})"
            tied = f"tied on {TIE_BREAKS[0]}" if i == 1 else f"tied on {', '.join(TIE_BREAKS[:i])}"
            return f"{word} {other}: {tied}; decided by {label} ({_fmt(mine)} to {_fmt(theirs)})"
    return f"equal with {other}"
