"""Who may replay the running bout: the host's setting, kept in `Match.format`
(finished bouts are open to everyone whatever it says)."""

from __future__ import annotations

from matches.models import Match

#: `Match.format` key of the host's choice for replays of the running bout.
REPLAY_KEY = "replay_behind"
MAX_BEHIND = 99


def replay_behind(match: Match) -> int | None:
    """The host's setting for replays of the running bout (None: host only)."""
    value = (match.format or {}).get(REPLAY_KEY)
    if value is None or isinstance(value, bool):
        return None
    try:
        return max(0, min(MAX_BEHIND, int(value)))
    except (TypeError, ValueError):
        return None


def describe_access(match: Match) -> str:
    """The setting in words, for the host panel and the log note."""
    behind = replay_behind(match)
    unit = "rounds" if match.game.sealed else "moves"
    if behind is None:
        return "the running bout's replay is open to the host only"
    if behind == 0:
        return "everyone may replay the running bout up to the live board"
    return f"everyone may replay the running bout, {behind} {unit if behind != 1 else unit[:-1]} behind the live board"
