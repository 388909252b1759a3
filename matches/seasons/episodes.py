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

from datetime import datetime

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from matches.core.errors import ServiceError
from matches.models import Duel, Episode, Match, Season, SeasonPlayer
from matches.seasons import ledger
from matches.seasons.episode_state import (
    AGREE,
    BAN,
    ELIMINATED,
    candidates,
    complete,
    current,
    duel_state,
    eligible,
    game_name,
    immune,
    main_over,
    played_between,
    pool_choices,
    queue,
    season_pool,
    title,
)

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
        only = pool[0] if len(pool) == 1 else ""  # nothing to ban: the one open game is the death match
        duel.game_slug, duel.settled_how = only, "only" if only else ""
        duel.save(update_fields=["game_slug", "settled_how"])
        host = " (chosen by the host)" if by_host and verb == "chooses" else ""
        games = ", ".join(game_name(g) for g in pool) or "none left: the host chooses the game"
        if only:
            games += " (the only one: it is the death match)"
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
        watch = ledger.public_url(season, reverse("watch_page", args=[match.watch_token]))
        ledger.log_event(season, "starter", f"Episode {found.episode.number}: {by} who starts the death match: "
                         f"{starter}. Watch: {watch}", key=ledger.form_key(key), data={"duel": found.pk})
        return found


def starting_seat(duel: Duel) -> int:
    """The death match seats the candidate in seat 1, the opponent in seat 2."""
    return 1 if duel.starter_id == duel.candidate_id else 2
