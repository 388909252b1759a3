"""An episode of a season (the show's loop) and each candidate's way to a death match.

Only `matches.seasons.episodes` changes these rows (and `matches.play.death_matches`
through it).  What an episode's matches gave (Tokens of Life, candidates, eliminations,
garnets) is read from the season's own rows: `TokenOfLife.match`, `SeasonEvent`, `GarnetEntry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import models
from django.utils import timezone

if TYPE_CHECKING:
    from matches.models.match import Match


class Episode(models.Model):
    """One episode: its main match(es) and death match(es), numbered from 1 in its season."""

    season = models.ForeignKey("Season", on_delete=models.CASCADE, related_name="episodes")
    number = models.PositiveIntegerField()
    #: the main matches and the death matches of the episode
    matches: models.ManyToManyField[Match, Any] = models.ManyToManyField("Match", blank=True, related_name="episodes")
    #: candidates (SeasonPlayer ids) in the order the host set for a tie in the pick order
    pick_order = models.JSONField(default=list, blank=True)
    started = models.DateTimeField(default=timezone.now)
    #: set when the host starts the next episode, or when a main match opens the next one
    ended = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "number"]
        constraints = [models.UniqueConstraint(fields=["season", "number"], name="unique_episode_number")]

    def __str__(self) -> str:
        return f"{self.season}: episode {self.number}"


class Duel(models.Model):
    """A candidate's choice of opponent, the bans (or agreement) that settle the death match,
    who starts, and the death match itself."""

    CANDIDATE, HOST = "candidate", "host"

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="duels")
    candidate = models.ForeignKey("SeasonPlayer", on_delete=models.CASCADE, related_name="duels_as_candidate")
    opponent = models.ForeignKey("SeasonPlayer", on_delete=models.CASCADE, related_name="duels_as_opponent")
    #: "candidate" or "host": who made the (last) choice of opponent
    picked_by = models.CharField(max_length=10, default=CANDIDATE)
    #: the death match pool when the choosing started (game slugs), minus what the pair already played
    pool = models.JSONField(default=list, blank=True)
    #: every ban and agreement in order: {"player": id, "verdict": "ban"|"agree", "game": slug, "host": bool}
    steps = models.JSONField(default=list, blank=True)
    #: the settled game ("" while the bans go on), and how: "agreed", "bans", "host"
    game_slug = models.CharField(max_length=40, blank=True)
    settled_how = models.CharField(max_length=10, blank=True)
    #: who starts the first bout (chosen by the advantage holder or the host)
    starter = models.ForeignKey("SeasonPlayer", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    death_match = models.ForeignKey("Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="duels")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["episode", "created", "id"]
        constraints = [models.UniqueConstraint(fields=["episode", "candidate"], name="unique_duel_per_candidate")]

    def __str__(self) -> str:
        return f"{self.candidate.name} vs {self.opponent.name}"
