"""Reading an episode: the death match pool, who is immune, the candidates and their turn to
choose, where each duel stands, what the episode waits for, the recap and a player's own view.
Read-only; the rulings and every change are matches/seasons/episodes.py's."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games.registry import get_game, slugs
from matches.models import Duel, Episode, GarnetEntry, Match, Season, SeasonEvent, SeasonPlayer, TokenOfLife
from matches.seasons import ledger

BAN, AGREE = "ban", "agree"
ACTIVE, CANDIDATE, ELIMINATED = SeasonPlayer.ACTIVE, SeasonPlayer.CANDIDATE, SeasonPlayer.ELIMINATED

# -- the pool ----------------------------------------------------------------------------------


def _two_seat_options(slug: str) -> dict[str, Any] | None:
    """The options that seat a game with two players (None: it cannot seat two)."""
    try:
        game = get_game(slug)
    except KeyError:
        return None
    options = {"seats": 2} if "seats" in game.default_options else {}
    try:
        return options if game.seat_count(options) == 2 else None
    except ValueError:
        return None


def pool_choices() -> list[tuple[str, str]]:
    """Every game that can be a death match (two seats), as (slug, name)."""
    return [(slug, get_game(slug).name) for slug in slugs() if _two_seat_options(slug) is not None]


def default_pool() -> list[str]:
    """Every two-player game (a game seating 2 to 16 by option, the host's own, only when picked)."""
    return [slug for slug, _ in pool_choices() if "seats" not in get_game(slug).default_options]


def season_pool(season: Season) -> list[str]:
    allowed = [slug for slug, _ in pool_choices()]
    chosen = default_pool() if season.death_match_pool is None else list(season.death_match_pool)
    return [slug for slug in allowed if slug in chosen]


def game_name(slug: str) -> str:
    try:
        return get_game(slug).name
    except KeyError:
        return slug


def played_between(season: Season, a: SeasonPlayer, b: SeasonPlayer, *, exclude: int | None = None) -> set[str]:
    """Games these two have played against each other (a two-seat match of the season)."""
    found = Match.objects.filter(season=season, seats__season_player=a).filter(seats__season_player=b)
    if exclude is not None:
        found = found.exclude(pk=exclude)
    return {m.game_slug for m in found.distinct() if m.seats.count() == 2}


# -- reading an episode --------------------------------------------------------------------------


def current(season: Season) -> Episode | None:
    """The episode in progress (None before the first one, or after the host closed it)."""
    return season.episodes.filter(ended__isnull=True).order_by("-number").first()


def main_matches(episode: Episode) -> list[Match]:
    return list(episode.matches.filter(elimination=False).order_by("created", "id"))


def immune(episode: Episode) -> set[int]:
    """Players who won a Token of Life in this episode's main match."""
    rows = TokenOfLife.objects.filter(match__in=main_matches(episode), revoked__isnull=True)
    return set(rows.values_list("player_id", flat=True))


def candidates(episode: Episode) -> list[SeasonPlayer]:
    """The episode's Elimination Candidates: those of its duels, those its main matches' results
    made candidates (the statuses each result changed: results.py's `data["previous"]`), and,
    while it is in progress, whoever is a candidate now (the host may mark one by hand)."""
    season = episode.season
    ids = set(episode.duels.values_list("candidate_id", flat=True))
    results = SeasonEvent.objects.filter(season=season, kind="match_result", match__in=main_matches(episode),
                                         reversed__isnull=True)
    for data in results.values_list("data", flat=True):
        ids |= {int(pk) for pk, (status, _) in ((data or {}).get("previous") or {}).items()}
    found = season.players.filter(pk__in=ids)
    if episode.ended is None:
        found = season.players.filter(Q(pk__in=ids) | Q(status=CANDIDATE, removed=False))
    return list(found.order_by("name"))


def _points(episode: Episode) -> dict[int, float]:
    """Player id -> points in the episode's main matches (their last bout's scores)."""
    points: dict[int, float] = {}
    for match in main_matches(episode):
        bout = match.current_bout
        scores = (bout.result or {}).get("scores") if bout is not None else None
        for seat in match.seats.all():
            if seat.season_player_id is not None:
                value = float((scores or {}).get(str(seat.number), 0) or 0)
                points[seat.season_player_id] = points.get(seat.season_player_id, 0.0) + value
    return points


def _in_duels(episode: Episode, *, leaving: Duel | None = None) -> set[int]:
    """Players already in a death match of the episode: a duel's pair, or seated in one of its
    elimination matches the host created by hand."""
    ids: set[int] = set()
    for duel in episode.duels.all():
        if leaving is not None and duel.pk == leaving.pk:
            continue
        ids |= {duel.candidate_id, duel.opponent_id}
    own = episode.duels.exclude(death_match=None).values_list("death_match_id", flat=True)
    by_hand = episode.matches.filter(elimination=True).exclude(pk__in=list(own))
    ids |= {pk for pk in by_hand.values_list("seats__season_player_id", flat=True) if pk is not None}
    return ids


def eligible(episode: Episode, candidate: SeasonPlayer, *, leaving: Duel | None = None) -> list[SeasonPlayer]:
    """Whom `candidate` may choose (`leaving`: a duel whose opponent is being changed)."""
    out = immune(episode) | {p.pk for p in candidates(episode)} | _in_duels(episode, leaving=leaving)
    out.add(candidate.pk)
    rows = episode.season.players.filter(status=ACTIVE, removed=False).exclude(pk__in=out)
    return list(rows.order_by("name"))


def main_over(episode: Episode) -> bool:
    mains = main_matches(episode)
    return bool(mains) and all(m.status == Match.FINISHED for m in mains)


@dataclass
class Queue:
    """The candidates still to choose an opponent, in turn; `tie`: the front is tied (the host orders it)."""

    pending: list[SeasonPlayer]
    tie: list[SeasonPlayer]
    opened: datetime | None
    deadline: datetime | None

    @property
    def turn(self) -> SeasonPlayer | None:
        return self.pending[0] if self.pending and not self.tie else None

    def passed(self, now: datetime | None = None) -> bool:
        return self.deadline is not None and (now or timezone.now()) >= self.deadline


def queue(episode: Episode) -> Queue:
    dueled = set(episode.duels.values_list("candidate_id", flat=True))
    pending = [p for p in candidates(episode) if p.pk not in dueled and p.status == CANDIDATE]
    if not main_over(episode):
        return Queue(pending, [], None, None)
    points = _points(episode)
    order = [int(pk) for pk in episode.pick_order]

    def rank(p: SeasonPlayer) -> tuple[int, float, str]:
        return (order.index(p.pk) if p.pk in order else len(order), points.get(p.pk, 0.0), p.name.casefold())

    pending.sort(key=rank)
    tie: list[SeasonPlayer] = []
    if len(pending) > 1 and pending[0].pk not in order:
        front = points.get(pending[0].pk, 0.0)
        tie = [p for p in pending if p.pk not in order and points.get(p.pk, 0.0) == front]
        if len(tie) < 2:
            tie = []
    finished = [m.finished for m in main_matches(episode) if m.finished is not None]
    picked = list(episode.duels.values_list("created", flat=True))
    opened = max([*finished, *picked]) if finished else None
    minutes = episode.season.pick_deadline_minutes
    deadline = opened + timedelta(minutes=minutes) if opened is not None and minutes else None
    return Queue(pending, tie, opened, deadline)


@dataclass
class DuelState:
    """Where a duel stands: the open games, whose turn to ban, the standing proposals."""

    duel: Duel
    open: list[str]
    turn: SeasonPlayer | None
    proposals: dict[int, str]
    advantage: SeasonPlayer
    steps: list[str] = field(default_factory=list)

    @property
    def waiting_for(self) -> str:
        duel = self.duel
        if duel.death_match is None and not duel.game_slug:
            if not duel.pool:
                return "waiting for the host to choose the death match (the pool is empty for these two)"
            assert self.turn is not None
            return f"waiting for {self.turn.name} to ban or agree"
        match = duel.death_match
        if match is None:
            return "waiting for the death match to be created"
        if match.status == Match.SETUP:
            if duel.starter_id is None:
                return f"waiting for {self.advantage.name} to choose who starts"
            return "waiting for the host to start the death match"
        if match.status == Match.RUNNING:
            return "the death match is being played"
        return ""


def duel_state(duel: Duel) -> DuelState:
    banned = {s["game"] for s in duel.steps if s["verdict"] == BAN}
    open_games = [g for g in duel.pool if g not in banned]
    bans = sum(1 for s in duel.steps if s["verdict"] == BAN)
    turn = None
    if not duel.game_slug and duel.pool:
        turn = duel.candidate if bans % 2 == 0 else duel.opponent
    proposals: dict[int, str] = {}
    for step in duel.steps:
        if step["verdict"] == AGREE:
            proposals[int(step["player"])] = step["game"]
    proposals = {pk: g for pk, g in proposals.items() if g not in banned}
    season = duel.episode.season
    holder = duel.candidate if season.death_match_advantage == Season.ADVANTAGE_CANDIDATE else duel.opponent
    names = {duel.candidate_id: duel.candidate.name, duel.opponent_id: duel.opponent.name}
    steps = [_step_text(names, s) for s in duel.steps]
    return DuelState(duel, open_games, turn, proposals, holder, steps)


def _step_text(names: dict[int, str], step: dict[str, Any]) -> str:
    who = names.get(int(step["player"]), "?")
    verb = "bans" if step["verdict"] == BAN else "agrees to"
    host = " (by the host)" if step.get("host") else ""
    return f"{who} {verb} {game_name(step['game'])}{host}"


def complete(episode: Episode) -> bool:
    """Over: its main matches finished, nobody left to choose, every death match finished."""
    if not main_over(episode) or queue(episode).pending:
        return False
    return all(d.death_match is not None and d.death_match.status == Match.FINISHED for d in episode.duels.all())


def waiting(episode: Episode) -> list[str]:
    """What the episode waits for, in words (the manage page)."""
    if not main_matches(episode):
        return ["waiting for the main match: create one below (or add one by its host link)"]
    if not main_over(episode):
        return ["waiting for the main match to end"]
    lines = []
    q = queue(episode)
    if q.tie:
        lines.append("waiting for the host to say who chooses first: " + _names_or(q.tie) + " are tied")
    elif q.turn is not None:
        line = f"waiting for {q.turn.name} to choose an opponent"
        if q.passed():
            line += ": the deadline has passed, the host decides"
        lines.append(line)
    for duel in episode.duels.select_related("candidate", "opponent", "death_match"):
        text = duel_state(duel).waiting_for
        if text:
            lines.append(f"{duel.candidate.name} vs {duel.opponent.name}: {text}")
    return lines


def _names_or(players: list[SeasonPlayer]) -> str:
    names = [p.name for p in players]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def title(match: Match) -> str:
    names = ", ".join(match.seats.order_by("number").values_list("name", flat=True))
    return f"{game_name(match.game_slug)} #{match.pk} ({names})"


# -- the recap ---------------------------------------------------------------------------------


def recap(season: Season) -> list[dict[str, Any]]:
    """The season's episodes, newest first, told as a community recap (spectator links only)."""
    return [episode_story(episode) for episode in season.episodes.order_by("-number")]


def _watch(match: Match) -> str:
    return reverse("watch_page", args=[match.watch_token])


def result_text(match: Match) -> str:
    if match.status != Match.FINISHED:
        return {"setup": "not started", "running": "being played"}[match.status]
    names = dict(match.seats.values_list("number", "name"))
    winners = [names.get(int(w), f"seat {w}") for w in match.winners]
    if not winners:
        return "no winner"
    return _plain_and(winners) + (" wins" if len(winners) == 1 else " win")


def _plain_and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def episode_story(episode: Episode) -> dict[str, Any]:
    season = episode.season
    mains = main_matches(episode)
    tokens = TokenOfLife.objects.filter(match__in=mains, revoked__isnull=True).select_related("player")
    duels = []
    for duel in episode.duels.select_related("candidate", "opponent", "death_match", "starter"):
        state = duel_state(duel)
        death = duel.death_match
        story: dict[str, Any] = {
            "duel": duel, "state": state, "candidate": duel.candidate.name, "opponent": duel.opponent.name,
            "picked_by": duel.picked_by, "steps": state.steps, "game": game_name(duel.game_slug) if duel.game_slug else "",
            "settled_how": duel.settled_how, "starter": duel.starter.name if duel.starter else "",
            "match": death, "watch": _watch(death) if death else "", "result": result_text(death) if death else "",
            "elimination": _elimination(season, death) if death else "", "garnets": _garnets(death) if death else "",
        }
        duels.append(story)
    others = [m for m in episode.matches.filter(elimination=True) if m.pk not in {d.death_match_id for d in episode.duels.all()}]
    return {
        "episode": episode,
        "number": episode.number,
        "over": episode.ended is not None or complete(episode),
        "mains": [{"match": m, "title": title(m), "watch": _watch(m), "result": result_text(m)} for m in mains],
        "tokens": [t.player.name for t in tokens],
        "candidates": [p.name for p in candidates(episode)],
        "duels": duels,
        "other_deaths": [{"match": m, "title": title(m), "watch": _watch(m), "result": result_text(m)} for m in others],
    }


def _elimination(season: Season, match: Match) -> str:
    if match.status != Match.FINISHED:
        return ""
    lines = []
    asked = {q["player"].pk for q in ledger.open_questions(season, match)}
    for seat in match.seats.select_related("season_player", "season_player__status_event"):
        player = seat.season_player
        if player is None:
            continue
        saved = SeasonEvent.objects.filter(season=season, kind="token_used", player=player, match=match,
                                           reversed__isnull=True).exists()
        out = player.status == ELIMINATED and player.status_event is not None and player.status_event.match_id == match.pk
        if saved:
            lines.append(f"{player.name} is saved by a Token of Life")
        elif out and player.pk in asked:
            lines.append(f"{player.name} is eliminated unless the Token of Life is used: the host decides")
        elif out:
            lines.append(f"{player.name} is eliminated")
    return "; ".join(lines)


def _garnets(match: Match) -> str:
    totals: dict[str, int] = {}
    for name, amount in GarnetEntry.objects.filter(match=match).values_list("player__name", "amount"):
        totals[name] = totals.get(name, 0) + amount
    return ", ".join(f"{name} {amount:+d}" for name, amount in sorted(totals.items()) if amount)


# -- a player's own view -----------------------------------------------------------------------


def waiting_for_player(player: SeasonPlayer) -> dict[str, Any]:
    """What waits for `player` in the episode in progress: the pick, the bans, who starts."""
    episode = current(player.season)
    out: dict[str, Any] = {"episode": episode, "pick": None, "duel": None}
    if episode is None:
        return out
    q = queue(episode)
    if player.pk in {p.pk for p in q.pending}:
        out["pick"] = {
            "turn": q.turn is not None and q.turn.pk == player.pk and not q.passed(),
            "passed": q.passed(),
            "waiting": waiting_pick_text(episode, q, player),
            "eligible": eligible(episode, player),
            "deadline": q.deadline,
        }
    duel = episode.duels.filter(Q(candidate=player) | Q(opponent=player)).select_related(
        "candidate", "opponent", "death_match").first()
    if duel is not None:
        state = duel_state(duel)
        other = duel.opponent if duel.candidate_id == player.pk else duel.candidate
        out["duel"] = {
            "duel": duel, "state": state, "other": other,
            "my_turn": state.turn is not None and state.turn.pk == player.pk,
            "advantage": state.advantage.pk == player.pk,
            "open": [(g, game_name(g)) for g in state.open],
            "proposal": game_name(state.proposals[other.pk]) if other.pk in state.proposals else "",
            "mine": game_name(state.proposals[player.pk]) if player.pk in state.proposals else "",
            "game": game_name(duel.game_slug) if duel.game_slug else "",
            "seat": duel.death_match.seats.filter(season_player=player).first() if duel.death_match else None,
        }
    return out


def waiting_pick_text(episode: Episode, q: Queue, player: SeasonPlayer) -> str:
    if not main_over(episode):
        return "waiting for the main match to end"
    if q.tie:
        return "waiting for the host to say who chooses first (" + _names_or(q.tie) + " are tied)"
    if q.passed():
        return "the deadline to choose has passed: the host chooses your opponent"
    if q.turn is not None and q.turn.pk != player.pk:
        return f"waiting for {q.turn.name} to choose an opponent first"
    return ""
