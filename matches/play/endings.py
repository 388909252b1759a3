"""What ended a bout without the rules, and whether the host may reopen it.

Read-only queries over the models (no locking, no writes): the engine uses
them inside its transactions, pages (render.py) use them to show the
Reopen button, so neither has to import the other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from matches.models import Bout, Match, TurnLog

#: The log notes of the events that end a bout or a match without the rules
#: (award, forfeit, time-out, declared draw/stalemate, end_match, a seat's resignation, a draw
#: its opponent accepted).
ENDING_NOTES = re.compile(
    r"^(?:awarded bout \d+ to "
    r"|declared bout \d+ a (?:draw|stalemate)"
    r"|ended the match: "
    r"|seat \d+(?: \(.*\))? (?:(?:ran out of time and )?forfeits|resigns) the (?:bout|match)$"
    r"|seat \d+(?: \(.*\))? accepts the draw offer of )",
    re.DOTALL,
)


def last_ending(bout: Bout) -> list[TurnLog]:
    """The active log notes of the last event that ended `bout` (or its match)
    without the rules: one entry, or several for a time-out of several seats
    at once.  Empty when there is none."""
    notes = bout.turns.filter(kind__in=[TurnLog.HOST_NOTE, TurnLog.CLOCK, TurnLog.SEAT_NOTE], undone=False,
                              corrected=False)
    for entry in notes.order_by("-sequence", "-id"):
        if ENDING_NOTES.match(entry.text):
            if entry.text.startswith("ended the match: "):
                return [entry]
            return [e for e in notes.filter(version=entry.version) if ENDING_NOTES.match(e.text)
                    and not e.text.startswith("ended the match: ")]
    return []


def ended_match_only(match: Match, bout: Bout, ending: Sequence[TurnLog]) -> bool:
    """True when `ending` is an `end_match` that found the bout already over
    (so taking it back reopens the match, not the bout)."""
    return bool(ending) and ending[0].text.startswith("ended the match: ") and bout.reason != "ended"


def reopen_refusal(match: Match, bout: Bout | None) -> str:
    """Why the host cannot reopen the current bout (or match) now; "" when it can."""
    if bout is None:
        return "the match has not started yet"
    ending = last_ending(bout)
    if not ending:
        if bout.finished is not None or match.status == Match.FINISHED:
            return (f"bout {bout.number} was decided on the board, not by the host or a clock: "
                    "undo its last move instead")
        earlier = match.bouts.filter(number=bout.number - 1).first()
        if earlier is not None and earlier.finished is not None and last_ending(earlier):
            if earlier.reason == "stalemate" and not earlier.counts:
                return (f"the stalemate of bout {earlier.number} is already being replayed in bout {bout.number}; "
                        "it cannot be reopened")
            return (f"bout {bout.number} has already started after bout {earlier.number}; "
                    f"bout {earlier.number} cannot be reopened")
        return f"bout {bout.number} is still being played: there is nothing to reopen"
    if ended_match_only(match, bout, ending):
        if match.status != Match.FINISHED:
            return "the match is not over: there is nothing to reopen"
    elif bout.finished is None:
        return f"bout {bout.number} is still being played: there is nothing to reopen"
    if match.season_id:  # a result the season has built on stays (matches/season_results.py)
        from matches.seasons import results as season_results

        return season_results.reversal_refusal(match, bout, bout_too=not ended_match_only(match, bout, ending))
    return ""
