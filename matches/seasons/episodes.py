"""Episodes: the show's loop, the only code that changes `Episode` and `Duel` rows.

An episode holds its main match(es) and death match(es).  A match put into the season that
is not an elimination match is a main match of the episode in progress; when there is none,
or the one in progress is over (its main matches finished, every candidate's death match
finished), it opens the next episode.  The host may also start the next episode by hand.
An elimination match joins the episode in progress.

What the matches gave is read from the season's own rows, never copied: Tokens of Life
(`TokenOfLife.match` a main match), candidates (players whose status is candidate, and the
candidate of each duel), eliminations (`SeasonPlayer.status_event.match`), garnets
(`GarnetEntry.match`).

Rulings (issue 52):

- Immune = won a Token of Life (not revoked) in this episode's main match; a token kept from
  an earlier episode saves after a lost death match, it does not make its holder immune.
- Eligible opponents: active, on the roster, not immune, not a candidate, not already in a
  duel of this episode.
- Candidates choose in turn once every main match is over: fewest points in the main
  match first (the last-placed); a tie for the turn waits for the host to order it
  (`set_pick_first`).  The host may choose for any candidate, or change a choice until the
  death match's game is settled (the bans start again).  With the season's
  `pick_deadline_minutes`, a candidate's turn ends that long after it opened: the host decides.
- The pool in force when the opponent is chosen is the one used (snapshot in `Duel.pool`), less
  the games these two already played against each other in the season.  An empty pool leaves
  the game to the host.
- Ban takes the turn (candidate first, alternating) until one game remains.  Agree proposes
  a game and takes no turn; the game is settled when the other player agrees on the same
  game.  Only the player whose turn it is has the form (the page hook): so the other
  answers a proposal in their own turn.  A game banned ends the proposal of it.
- The death match advantage holder (season option: the chosen opponent by default) chooses
  who starts; play (matches/play/death_matches.py) creates the death match once the game is
  settled and starts it when the starting seat is chosen (unless the season leaves it in setup).

Every change: one transaction, the season row locked (`ledger.begin`), logged as a
`SeasonEvent` with the form's key (a doubled submit raises `ledger.AlreadyDone`), announced
through the season log (`webhooks.announce`, after commit): spectator links only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games.registry import get_game, slugs
from matches.core.errors import ServiceError
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
    """The episode's Elimination Candidates: those of its duels, and those marked candidate now."""
    season = episode.season
    dueled = set(episode.duels.values_list("candidate_id", flat=True))
    marked = season.players.filter(Q(status=CANDIDATE, removed=False) | Q(pk__in=dueled))
    return list(marked.order_by("name"))


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
    ids: set[int] = set()
    for duel in episode.duels.all():
        if leaving is not None and duel.pk == leaving.pk:
            continue
        ids |= {duel.candidate_id, duel.opponent_id}
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


# -- joining matches ---------------------------------------------------------------------------


def match_joined(season: Season, match: Match, now: datetime | None = None) -> Episode | None:
    """A match was put into the season (inside its transaction, the season row locked)."""
    now = now or timezone.now()
    episode = current(season)
    if match.elimination:
        if episode is not None:
            episode.matches.add(match)
        return episode
    if episode is None or complete(episode):
        episode = _open(season, episode, now, f"with {title(match)}")
    episode.matches.add(match)
    return episode


def _open(season: Season, previous: Episode | None, now: datetime, how: str, key: str | None = None) -> Episode:
    if previous is not None:
        previous.ended = now
        previous.save(update_fields=["ended"])
    number = (season.episodes.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    episode = Episode.objects.create(season=season, number=number, started=now)
    # logged, not announced: the main match's own announcement follows at once
    ledger.log_event(season, "episode", f"Episode {number} begins {how}".strip(), key=key, now=now, announce=False)
    return episode


def title(match: Match) -> str:
    names = ", ".join(match.seats.order_by("number").values_list("name", flat=True))
    return f"{game_name(match.game_slug)} #{match.pk} ({names})"


def start_episode(season: Season, *, key: str | None = None) -> Episode:
    """Host: close the episode in progress (if any) and start the next one."""
    with transaction.atomic():
        season = ledger.begin(season, key)
        return _open(season, current(season), timezone.now(), "", key=ledger.form_key(key))


# -- season options ------------------------------------------------------------------------------


def set_pool(season: Season, chosen: list[str], *, key: str | None = None) -> list[str]:
    allowed = [slug for slug, _ in pool_choices()]
    unknown = [s for s in chosen if s not in allowed]
    if unknown:
        raise ServiceError(f"{unknown[0]} is not a two-player game: pick the death matches from the list")
    with transaction.atomic():
        season = ledger.begin(season, key)
        pool = [s for s in allowed if s in chosen]
        season.death_match_pool = pool
        season.save(update_fields=["death_match_pool"])
        what = ", ".join(game_name(s) for s in pool) or "empty (the host chooses each death match)"
        ledger.log_event(season, "pool", f"the death match pool is now {what}", key=ledger.form_key(key),
                         announce=False)
        return pool


def set_options(season: Season, *, advantage: str, start: str, deadline: int | None,
                key: str | None = None) -> Season:
    if advantage not in dict(Season.ADVANTAGES):
        raise ServiceError("the death match advantage goes to the chosen opponent or to the candidate")
    if start not in dict(Season.STARTS):
        raise ServiceError("a death match starts at once or is left in setup")
    if deadline is not None and not 1 <= deadline <= 10080:
        raise ServiceError("the deadline to choose an opponent is between 1 minute and 7 days (10080 minutes)")
    with transaction.atomic():
        season = ledger.begin(season, key)
        season.death_match_advantage, season.death_match_start, season.pick_deadline_minutes = advantage, start, deadline
        season.save(update_fields=["death_match_advantage", "death_match_start", "pick_deadline_minutes"])
        ledger.log_event(season, "options", "the episode options are changed", key=ledger.form_key(key),
                         announce=False)
        return season


def _episode(season: Season) -> Episode:
    episode = current(season)
    if episode is None:
        raise ServiceError("no episode is in progress: start one, or create its main match")
    return episode


def set_pick_first(season: Season, candidate: SeasonPlayer | int, *, key: str | None = None) -> Episode:
    """Host: a tie in the pick order is settled: `candidate` chooses next."""
    with transaction.atomic():
        season = ledger.begin(season, key)
        episode = _episode(season)
        found = ledger.find_player(season, candidate)
        if found.pk not in {p.pk for p in queue(episode).pending}:
            raise ServiceError(f"{found.name} is not a candidate still to choose an opponent")
        episode.pick_order = [pk for pk in episode.pick_order if pk != found.pk]
        episode.pick_order.append(found.pk)
        episode.save(update_fields=["pick_order"])
        ledger.log_event(season, "episode", f"Episode {episode.number}: {found.name} chooses an opponent next "
                         "(the host settled the tie)", key=ledger.form_key(key), player=found)
        return episode


# -- the pick ---------------------------------------------------------------------------------


def choose_opponent(season: Season, candidate: SeasonPlayer | int, opponent: str, *, by_host: bool = False,
                    key: str | None = None, now: datetime | None = None) -> Duel:
    """The candidate (or the host for them) chooses an opponent by roster name."""
    now = now or timezone.now()
    with transaction.atomic():
        season = ledger.begin(season, key)
        episode = _episode(season)
        found = ledger.find_player(season, candidate)
        duel = episode.duels.select_for_update().filter(candidate=found).first()
        if not by_host:
            if duel is not None:
                raise ServiceError(f"you have chosen {duel.opponent.name} already; the host can change it")
            q = queue(episode)
            if not main_over(episode):
                raise ServiceError("the main match is not over: the candidates choose once it ends")
            if found.pk not in {p.pk for p in q.pending}:
                raise ServiceError("you are not an Elimination Candidate still to choose an opponent")
            if q.turn is None or q.turn.pk != found.pk:
                who = f"{q.turn.name}" if q.turn is not None else "the host (a tie)"
                raise ServiceError(f"it is not your turn to choose: waiting for {who}")
            if q.passed(now):
                raise ServiceError("the deadline to choose has passed: the host chooses your opponent")
        else:
            if duel is None and found.pk not in {p.pk for p in queue(episode).pending}:
                raise ServiceError(f"{found.name} is not an Elimination Candidate of this episode")
            if duel is not None and (duel.game_slug or duel.death_match_id):
                raise ServiceError(f"the death match of {found.name} is settled already: the choice cannot change")
        chosen = next((p for p in eligible(episode, found, leaving=duel) if p.name == str(opponent)), None)
        if chosen is None:
            raise ServiceError(_ineligible(episode, season, str(opponent), found))
        pool = sorted(set(season_pool(season)) - played_between(season, found, chosen),
                      key=season_pool(season).index)
        if duel is None:
            duel = Duel.objects.create(episode=episode, candidate=found, opponent=chosen, created=now, pool=pool,
                                       picked_by=Duel.HOST if by_host else Duel.CANDIDATE)
            verb = "chooses"
        else:
            duel.opponent, duel.pool, duel.steps, duel.picked_by = chosen, pool, [], Duel.HOST
            duel.save(update_fields=["opponent", "pool", "steps", "picked_by"])
            verb = "is changed by the host to"
        host = " (chosen by the host)" if by_host and verb == "chooses" else ""
        games = ", ".join(game_name(g) for g in pool) or "none left: the host chooses the game"
        ledger.log_event(season, "pick", f"Episode {episode.number}: {found.name} {verb} {chosen.name} as the "
                         f"death match opponent{host}. Open death matches: {games}", key=ledger.form_key(key),
                         player=found, now=now, data={"duel": duel.pk})
        return duel


def _ineligible(episode: Episode, season: Season, name: str, candidate: SeasonPlayer) -> str:
    player = season.players.filter(name=name, removed=False).first()
    if player is None:
        return "choose your opponent from the list of eligible players"
    if player.pk == candidate.pk:
        return "you cannot choose yourself"
    if player.pk in immune(episode):
        return f"{player.name} won a Token of Life in this episode's main match and is immune"
    if player.status == ELIMINATED:
        return f"{player.name} is eliminated"
    if player.pk in {p.pk for p in candidates(episode)}:
        return f"{player.name} is an Elimination Candidate too"
    return f"{player.name} is already in a death match of this episode"


# -- the bans ---------------------------------------------------------------------------------


def _duel(season: Season, duel: Duel | int) -> Duel:
    pk = duel.pk if isinstance(duel, Duel) else int(duel)
    found = Duel.objects.select_for_update().filter(pk=pk, episode__season=season).first()
    if found is None:
        raise ServiceError("no such death match choice; reload the page")
    return found


def death_match_step(season: Season, duel: Duel | int, player: SeasonPlayer | int, verdict: str, game: str, *,
                     by_host: bool = False, key: str | None = None) -> Duel:
    """A ban or an agreement by `player` (or the host for them); settles the game when one
    remains or both agree on it."""
    if verdict not in (BAN, AGREE):
        raise ServiceError("ban a game or agree to one")
    with transaction.atomic():
        season = ledger.begin(season, key)
        found = _duel(season, duel)
        who = ledger.find_player(season, player)
        if who.pk not in (found.candidate_id, found.opponent_id):
            raise ServiceError("only the two players of this death match choose its game")
        if found.game_slug:
            raise ServiceError(f"the death match is settled already: {game_name(found.game_slug)}")
        state = duel_state(found)
        if state.turn is None:
            raise ServiceError("the pool is empty for these two: the host chooses the death match")
        if state.turn.pk != who.pk and (verdict == BAN or not by_host):
            raise ServiceError(f"it is not your turn: waiting for {state.turn.name} to ban" if not by_host else
                               f"it is {state.turn.name}'s turn to ban, not {who.name}'s")
        if game not in state.open:
            raise ServiceError(f"{game_name(game)} is not one of the open death matches" if game else
                               "choose a game from the open death matches")
        found.steps = [*found.steps, {"player": who.pk, "verdict": verdict, "game": game, "host": by_host}]
        episode = found.episode
        other = found.opponent if who.pk == found.candidate_id else found.candidate
        host = " (by the host)" if by_host else ""
        if verdict == BAN:
            left = [g for g in state.open if g != game]
            text = f"{who.name} bans {game_name(game)}{host}"
            if len(left) == 1:
                found.game_slug, found.settled_how = left[0], "bans"
                text += f": {game_name(left[0])} remains, the death match of {found.candidate.name} and {found.opponent.name}"
            else:
                text += f"; {other.name} to ban next (open: {', '.join(game_name(g) for g in left)})"
        else:
            text = f"{who.name} agrees to {game_name(game)}{host}"
            if state.proposals.get(other.pk) == game:
                found.game_slug, found.settled_how = game, "agreed"
                text += f", as {other.name} proposed: the death match of {found.candidate.name} and {found.opponent.name}"
            else:
                text += f" and waits for {other.name} to agree"
        found.save(update_fields=["steps", "game_slug", "settled_how"])
        ledger.log_event(season, "ban" if verdict == BAN else "agree", f"Episode {episode.number}: {text}",
                         key=ledger.form_key(key), player=who, data={"duel": found.pk})
        return found


def set_game(season: Season, duel: Duel | int, game: str, *, key: str | None = None) -> Duel:
    """Host: settle the death match's game (any two-player game)."""
    with transaction.atomic():
        season = ledger.begin(season, key)
        found = _duel(season, duel)
        if found.death_match_id is not None:
            raise ServiceError("the death match exists already: change its game before creating it")
        if game not in [slug for slug, _ in pool_choices()]:
            raise ServiceError("choose a two-player game for the death match")
        found.game_slug, found.settled_how = game, "host"
        found.save(update_fields=["game_slug", "settled_how"])
        ledger.log_event(season, "agree", f"Episode {found.episode.number}: the host sets the death match of "
                         f"{found.candidate.name} and {found.opponent.name}: {game_name(game)}",
                         key=ledger.form_key(key), data={"duel": found.pk})
        return found


def link_death_match(season: Season, duel: Duel, match: Match) -> Duel:
    """The death match play created for `duel` (inside the same transaction)."""
    duel.death_match = match
    duel.save(update_fields=["death_match"])
    duel.episode.matches.add(match)
    return duel


# -- who starts ---------------------------------------------------------------------------------


def choose_starter(season: Season, duel: Duel | int, chooser: SeasonPlayer | int | None, starter: str, *,
                   key: str | None = None) -> Duel:
    """The advantage holder (`chooser`; None: the host) says who starts the death match (a name)."""
    with transaction.atomic():
        season = ledger.begin(season, key)
        found = _duel(season, duel)
        state = duel_state(found)
        if chooser is not None and ledger.find_player(season, chooser).pk != state.advantage.pk:
            raise ServiceError(f"{state.advantage.name} holds the death match advantage and chooses who starts")
        match = found.death_match
        if match is None:
            raise ServiceError("the death match is not created yet")
        if match.status != Match.SETUP:
            raise ServiceError("the death match has started already")
        pair = {found.candidate.name: found.candidate, found.opponent.name: found.opponent}
        if starter not in pair:
            raise ServiceError(f"choose {found.candidate.name} or {found.opponent.name} to start")
        found.starter = pair[starter]
        found.save(update_fields=["starter"])
        by = f"{state.advantage.name} chooses" if chooser is not None else "the host chooses"
        ledger.log_event(season, "starter", f"Episode {found.episode.number}: {by} who starts the death match: "
                         f"{starter}", key=ledger.form_key(key), data={"duel": found.pk})
        return found


def starting_seat(duel: Duel) -> int:
    """The death match seats the candidate in seat 1, the opponent in seat 2."""
    return 1 if duel.starter_id == duel.candidate_id else 2


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
    for seat in match.seats.select_related("season_player", "season_player__status_event"):
        player = seat.season_player
        if player is None:
            continue
        saved = SeasonEvent.objects.filter(season=season, kind="token_used", player=player, match=match,
                                           reversed__isnull=True).exists()
        if saved:
            lines.append(f"{player.name} is saved by a Token of Life")
        elif player.status == ELIMINATED and player.status_event is not None and player.status_event.match_id == match.pk:
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
