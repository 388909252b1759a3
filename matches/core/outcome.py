"""How a bout or match ended, in words people read: the end banner, the bout
label ("Bout 3 · replay of a stalemate") and the page title by variant.

Kept apart from render.py so the banner's wording has one home; render only
calls `banner()` and `bout_label()`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from games.core import HOST
from games.registry import get_game

#: the platform's own reasons, in words: how a match event ended a bout or a match (a time-out, a
#: forfeit, the host's ruling).  A game's reasons are its own (`Game.reason_words`) and come first.
_EVENTS: dict[str, str] = {
    "stalemate": "stalemate",
    "time": "ran out of time",
    "timeout": "ran out of time",
    "award": "host awarded",
    "forfeit": "forfeit",
    "resign": "resigned",
    "draw": "declared by the host",
    "agreed": "agreed by the players",
    "ended": "ended by the host",
    "ended by the host": "ended by the host",
    "abandoned": "abandoned",
}

#: the match events a seat loses by, as "<who> <words>" (the headline names them: outcome.banner)
_LOSER_EVENTS: dict[str, str] = {"time": "ran out of time", "timeout": "ran out of time", "resign": "resigned"}


def title(match: Any) -> str:
    """The match's name: its variant's name when it has one."""
    variant = (match.options or {}).get("variant")
    if isinstance(variant, str):
        found = match.game.variants.get(variant.strip().lower())
        if found is not None:
            return str(found.name)
    return str(match.game.name)


def why(slug: str, reason: str, detail: str = "") -> str:
    """`reason` (a Result's, or a match event's) in words: the game's own words first."""
    reason = (reason or "").strip()
    found = get_game(slug).reason_words.get(reason) or _EVENTS.get(reason)
    if found:
        return found
    if reason.startswith("ended"):
        return "ended by the host"
    return reason.replace("-", " ") or (detail.rstrip(".") if detail else "")


_SEAT_WORD = re.compile(r"\b[Ss]eat (\d+)\b")


def named(text: str, names: Mapping[int, str]) -> str:
    """`text` with each "seat N" of the rules' wording as the seat's name ("Seat 1 won two boards.")."""
    return _SEAT_WORD.sub(lambda m: names.get(int(m.group(1)), m.group(0)), text or "")


def sentence(banner: Mapping[str, Any]) -> str:
    """The one sentence of an ending: who did what, then why ("Ann wins bout 2 — five in a row.")."""
    why = str(banner.get("why") or "")
    return f"{banner['headline']}{' — ' + why if why else ''}."


def _finish(banner: dict[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """Every ending in one pattern: names, never seat numbers; no reason that repeats the headline
    ("Bout 3 is a stalemate — stalemate")."""
    out = {**banner, **{k: named(str(banner.get(k) or ""), names) for k in ("headline", "why", "detail")}}
    if out["why"] and out["why"].lower() in out["headline"].lower():
        out["why"] = ""
    return out


def bout_label(match: Any, bout: Any, previous: Any) -> str:
    """'Bout 3 · best of 3', or 'Bout 3 · replay of a stalemate' after a replayed stalemate."""
    if bout is None:
        return "Not started"
    label = f"Bout {bout.number}"
    if previous is not None and previous.reason == "stalemate" and not previous.counts:
        return f"{label} · replay of a stalemate"
    bouts = int((match.format or {}).get("bouts", 1) or 1)
    return f"{label} · best of {bouts}" if bouts > 1 else label


def _named(detail: str, names: dict[int, str]) -> str:
    """The host's game's result detail with each "seat N" by name (its rules know only numbers)."""
    return re.sub(r"\bseat (\d+)\b", lambda found: names.get(int(found.group(1)), found.group(0)), detail)


def banner(match: Any, bout: Any, names: dict[int, str], viewer: int, score: dict[int, Any]) -> dict[str, Any] | None:
    """The end-of-bout or end-of-match banner, or None while a bout is being played."""
    if bout is None or match.status == "setup":
        return None

    def who(seats: list[int], start: bool = True) -> str:
        you = "You" if start else "you"  # "You" opens a sentence; mid-sentence it is "you"
        return " and ".join(you if s == viewer else names.get(s, f"Seat {s}") for s in seats)

    def verb(seats: list[int]) -> str:
        return "win" if seats == [viewer] or len(seats) > 1 else "wins"

    def by_event(reason: str, winners: list[int], what: str, start: bool = True) -> tuple[str, str] | None:
        """A time-out or a resignation names who lost by it, for every audience: ("Bob ran out of
        time", "Bob ran out of time: Ann wins bout 2"), ("You resigned bout 3", "You resigned bout 3:
        Ann wins it"); None for any other ending.  `what`: "bout 3" or "the match"."""
        losers = [s for s in sorted(names) if s not in winners]
        if reason not in _LOSER_EVENTS or not losers:
            return None
        head = f"{who(losers, start)} {_LOSER_EVENTS[reason]}"
        if reason == "resign":
            head, what = f"{head} {what}", "it"
        return head, f"{head}: {who(winners, start=False)} {verb(winners)} {what}" if winners else head

    score_text = ", ".join(f"{names.get(s, f'seat {s}')} {score.get(s, 0)}" for s in sorted(names))
    result_detail = str((bout.result or {}).get("detail", ""))
    if match.game.host_moves and bout.result and bout.result.get("scores"):
        # the host's game: its result scores are the points, and its detail names the seats
        points = {int(s): int(v) for s, v in bout.result["scores"].items()}
        score_text = ", ".join(f"{names.get(s, f'seat {s}')} {points.get(s, 0)}" for s in sorted(names)) + " (points)"
        result_detail = _named(result_detail, names)
    if match.status == "finished":
        winners = [int(s) for s in (match.winners or [])]
        reason = match.result_reason or (bout.reason if bout.finished else "")
        words = why(match.game_slug, reason, result_detail)
        detail = result_detail if bout.finished else ""
        if reason == "bouts":
            best = max((int(v) for v in score.values()), default=0)
            bouts = int((match.format or {}).get("bouts", 1) or 1)
            words = f"won {best} bout{'s' if best != 1 else ''} of a best of {bouts}"
            if bout.finished and bout.reason:
                last = [int(s) for s in (bout.result or {}).get("winners") or []]
                ended = by_event(bout.reason, last, f"bout {bout.number}", start=bout.reason == "resign")
                if ended is None:
                    detail = f"Bout {bout.number}: {why(match.game_slug, bout.reason)}."
                else:  # "Bob resigned bout 3." / "Bout 3: you ran out of time."
                    detail = f"{ended[0]}." if bout.reason == "resign" else f"Bout {bout.number}: {ended[0]}."
        event = by_event(reason, winners, "the match")
        if event is not None:
            headline = event[1]
        elif winners:
            headline = f"{who(winners)} {verb(winners)} the match"
        else:
            headline = "The match is over: no winner"
        return _finish({"kind": "match", "headline": headline, "why": words, "score": score_text,
                        # what the host can do about it is live's to say (it reads the log and endings)
                        "detail": detail, "next": "The match is over."}, names)
    if bout.finished is None or not bout.result:
        return None
    winners = [int(s) for s in bout.result.get("winners") or []]
    words = why(match.game_slug, bout.reason or bout.result.get("reason", ""), result_detail)
    event = by_event(bout.reason or "", winners, f"bout {bout.number}")
    if event is not None:
        headline = event[1]
    elif winners:
        headline = f"{who(winners)} {verb(winners)} bout {bout.number}"
    elif bout.reason == "stalemate":
        headline = f"Bout {bout.number} is a stalemate"
    else:
        headline = f"Bout {bout.number} is drawn"
    replay = bout.reason == "stalemate" and not bout.counts
    if replay:
        after = f"bout {bout.number + 1} replays it with the same starting player"
    else:
        after = f"bout {bout.number + 1} comes next"
    nxt = (f"Start the next bout when everyone is ready: {after}." if viewer == HOST
           else f"Waiting for the host: {after}.")
    return _finish({"kind": "bout", "headline": headline, "why": words, "score": score_text,
                    "detail": bout.result.get("detail", ""), "next": nxt}, names)
