"""What every page of a season match says about its season (issue 52): an elimination match
says so ("Elimination match: the loser leaves Genius Season 1") and, once over, who is out (or
saved by a Token of Life, or waiting for the host's answer); a main match gives the host's game's
console the counts of its awards to preview.  Read by matches/pages/render.py, once per update."""

from __future__ import annotations

from typing import Any

from games.core import HOST, RuleError
from games.core.facts import AwardCounts
from matches.models import Match, Season, SeasonEvent, SeasonPlayer
from matches.seasons.results import MATCH_RESULT

__all__ = ["end_preview", "page_facts"]



def page_facts(match: Match) -> dict[str, Any]:
    """What every page of a season match says about its season, read once per update: `elimination`
    (an elimination match: its notice and, once over, who is out; else None) and `awards` (the
    `AwardCounts` the season asks of the match, as results.match_finished does: none of an elimination
    match; None outside a season), for the host's game's console preview and end."""
    if match.season_id is None:
        return {"elimination": None, "awards": None}
    season = Season.objects.only("name", "main_tokens", "main_candidates").get(pk=match.season_id)
    if not match.elimination:
        return {"elimination": None, "awards": AwardCounts(season.main_tokens, season.main_candidates)}
    return {"elimination": {"text": f"Elimination match: the loser leaves {season.name}",
                            "end": _elimination_end(season, match)}, "awards": AwardCounts(0, 0)}


def _elimination_end(season: Season, match: Match) -> str:
    """Who the finished elimination match put out (or a Token of Life saved, or the host is asked about)."""
    event = season.events.filter(kind=MATCH_RESULT, match=match, reversed__isnull=True).first()
    if match.status != Match.FINISHED or event is None:
        return ""
    winners = {int(w) for w in match.winners}
    if not winners:
        return "No winner: nobody is eliminated; the host decides."
    asked = set(event.data.get("asked") or [])
    saved = set(SeasonEvent.objects.filter(season=season, kind="token_used", reversed__isnull=True,
                                           data__cleared_event=event.pk).values_list("player_id", flat=True))
    words = []
    for seat in match.seats.filter(season_player__isnull=False).exclude(number__in=winners).select_related(
            "season_player").order_by("number"):
        player = seat.season_player
        assert player is not None
        if player.pk in saved:
            words.append(f"{player.name} is saved by a Token of Life.")
        elif player.status == SeasonPlayer.ELIMINATED and player.pk in asked and player.status_event_id == event.pk \
                and not season.events.filter(kind="token_kept", player=player, reversed__isnull=True,
                                             data__result_event=event.pk).exists():
            words.append(f"{player.name} is eliminated unless the host has them use their Token of Life.")
        elif player.status == SeasonPlayer.ELIMINATED:
            words.append(f"{player.name} is eliminated from {season.name}.")
    return " ".join(words)


def end_preview(match: Match, text: str) -> str:
    """What the host's typed `text`, an ending of the match's current bout, would give in the season
    (the host's game's console shows it before sending): the same rules as the result itself
    (`Game.season_awards` of the state the text would make), read only.  "" when the text ends
    nothing, the match is in no season, or it gives nothing to say."""
    bout = match.current_bout
    if match.season_id is None or bout is None or bout.finished is not None:
        return ""
    game = match.game
    counts = page_facts(match)["awards"]
    try:
        after = game.play(game.load(bout.state), HOST, text)
    except RuleError as error:
        return f"Not yet: {error}." if text.strip().lower().startswith("end") else ""
    result = game.result(after)
    if result is None or counts is None:
        return ""
    awards = game.season_awards(after, tuple(sorted(result.winners)), counts)
    names = dict(match.seats.values_list("number", "name"))
    words = []
    for seats, tied, what in ((awards.tokens, awards.tied_tokens, "Token of Life"),
                              (awards.candidates, awards.tied_candidates, "Elimination Candidate")):
        given = [_listed([names.get(s, f"seat {s}") for s in seats])] if seats else []
        if tied:
            given.append(_listed([names.get(s, f"seat {s}") for s in tied]) + " tied, for you to settle")
        words.append(f"{what}: {'; '.join(given) or 'nobody'}.")
    return "This end gives: " + " ".join(words)


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
