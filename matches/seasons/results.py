"""Match results feeding a season, exactly once, and taken back exactly.

Called by `matches.play.engine` (and `services`) inside a match's transaction,
with the match and bout rows locked; each function then locks the season
row (lock order: match, bout, season).

- A finished bout gets one `bout_result` event and the ledger entries its
  game says it earns or costs (`Game.bout_garnets`: e.g. a garnet per board
  where a seat was sole first, less the ones its orders spent).
- A finished match gets one `match_result` event and what its game says it
  gives (`Game.season_awards`: Tokens of Life, Elimination Candidates); an
  elimination match eliminates its loser.
- Orders that spend garnets (`Game.spends_garnets`) are checked against the
  seat's balance less what it has committed in running bouts.
- Announced in the order things happened: the result, then what follows from
  it.  A one-bout match's result is the bout's, announced once as the match
  result, so the bout's garnets are logged and announced right after it
  (kept in the bout event's `data["garnets"]` until then).
- The Token of Life question (issue 25).  A loser of an elimination match who
  holds a Token of Life is not simply eliminated: the host is asked, on the
  match host's panel and on the season's manage page, whether to use it.
  The ruling while the question is open: the player is *eliminated unless the
  token is used*: the match was lost, so the elimination applies at once (the
  standings say "eliminated unless the Token of Life is used", the player is
  not seated in new matches, the announcement says the host decides), and the
  token is still theirs, untouched, until the host answers.  Nobody else's
  choice is presumed: not the player's (they may want to keep it), not the
  host's.  The match event lists the asked players in `data["asked"]`; the
  answer is `ledger.answer_token_question`: "use" spends the token and makes
  them active again (the match result then cannot be taken back, as with any
  token used against a result); "keep" logs that the elimination stands, and
  taking the match back takes that answer back too (and asks again when the
  match ends again).
- Tokens of Life and candidates of a main match (issue 52).  The season asks
  `Game.season_awards` for `AwardCounts(season.main_tokens, season.main_candidates)`
  (1 and 1 by default) and an elimination match for none (its loser is out:
  only what its game names explicitly counts).  Seats tied at a cut
  (`tied_tokens`, `tied_candidates`) get nothing and are flagged to the host
  (a `tie` line in the log and the webhook, and the result's own line): the
  host settles it on the manage page.  The result's line names what it gives;
  `data["awards"]` keeps it for the pages.
- The winner takes the loser's garnets (issue 52, season option
  `winner_takes_garnets`, on by default): when the loser of an elimination
  match is eliminated by it, their whole balance, if above zero, goes to the
  match's one winner as two ledger entries (kind `transfer`: minus for the
  loser, plus for the winner) booked on the match's result event, so taking the
  match back reverses them exactly and finishing it again moves what the
  balance is then.  The balance is the ledger's at that moment: the garnets the
  match's own bouts earned or cost (`Game.bout_garnets`, booked before the
  match result) count, as does anything the host gave.  Nothing moves when a
  Token of Life question is asked: while it is open the player keeps their
  garnets; "use it" saves them (nothing moves, ever); "don't use it" makes
  the elimination stand, and the garnets move then, from the balance at that
  moment (`ledger.answer_token_question`).  Nothing moves without exactly one
  winner, from a balance of zero or below, or when the loser was already
  eliminated before this match.
- Each event records what it changed (`data["previous"]` statuses, its
  ledger entries, its tokens); a reopened or corrected bout reverses it:
  opposite ledger entries (the ledger is append-only), tokens revoked,
  statuses restored.  It is refused when the season has since built on it
  (the token it gave, or a token that cleared its candidacy or elimination,
  was used).
- Exactly once: an active (not reversed) event for the bout or match means
  it was fed; its key (`bout:<id>:<n>`, `match:<id>:<n>`, n = times taken
  back before) is unique per season as a second guard.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from games.core import HOST
from games.core.facts import AwardCounts, SeasonAwards
from games.registry import get_game, slugs
from matches.core.errors import NotAllowed
from matches.models import (
    Bout,
    GarnetEntry,
    Match,
    MatchGarnet,
    Season,
    SeasonEvent,
    SeasonPlayer,
    Seat,
    TokenOfLife,
)
from matches.seasons import episodes
from matches.seasons import ledger as seasons

BOUT_RESULT, MATCH_RESULT = "bout_result", "match_result"


def _season(match: Match) -> Season | None:
    if match.season_id is None:
        return None
    return Season.objects.select_for_update().get(pk=match.season_id)


def _names(match: Match) -> dict[int, str]:
    return dict(match.seats.values_list("number", "name"))


def _who(names: dict[int, str], seats: Any) -> str:
    listed = [names.get(int(s), f"seat {s}") for s in seats]
    if len(listed) <= 1:
        return "".join(listed)
    return ", ".join(listed[:-1]) + " and " + listed[-1]


def _title(match: Match, names: dict[int, str]) -> str:
    return f"{match.game.name} #{match.pk} ({', '.join(names[n] for n in sorted(names))})"


def _watch(season: Season, match: Match) -> str:
    return seasons.public_url(season, reverse("watch_page", args=[match.watch_token]))


def _player(match: Match, seat: Seat) -> SeasonPlayer:
    """The seat's player on the roster of the match's season (only asked of a season match)."""
    assert match.season_id is not None
    player = seat.season_player
    if player is not None and player.season_id == match.season_id:
        return player
    player, _ = SeasonPlayer.objects.get_or_create(season_id=match.season_id, name=seat.name)
    seat.season_player = player
    seat.save(update_fields=["season_player"])
    return player


def _next_key(season: Season, prefix: str) -> str:
    taken = season.events.filter(key__startswith=f"{prefix}:").count()
    return f"{prefix}:{taken}"


# -- created, started ---------------------------------------------------------------------------


def match_created(match: Match) -> None:
    season = _season(match)
    if season is None:
        return
    names = _names(match)
    kind = "elimination match" if match.elimination else "match"
    seasons.log_event(season, "match", f"new {kind}: {_title(match, names)}. Watch: {_watch(season, match)}",
                      match=match)
    episodes.match_joined(season, match)  # a main match of the episode in progress (or the next), or its death match


def match_started(match: Match) -> None:
    season = _season(match)
    if season is None:
        return
    names = _names(match)
    seasons.log_event(season, "started", f"{_title(match, names)} has started. Watch: {_watch(season, match)}",
                      match=match)


def game_news(match: Match, bout: Bout, lines: list[str], now: datetime) -> None:
    """The game's public news (the host's game: each reveal) in the season log and its webhook;
    "seat N" becomes the seat's name."""
    if not lines:
        return
    season = _season(match)
    if season is None:
        return
    names = _names(match)
    for line in lines:
        text = re.sub(r"\bseat (\d+)\b", lambda found: names.get(int(found.group(1)), found.group(0)), line)
        seasons.log_event(season, "news", f"{_title(match, names)}: {text}", match=match, bout=bout, now=now)


# -- bouts --------------------------------------------------------------------------------------------


def bout_finished(match: Match, bout: Bout, now: datetime) -> None:
    season = _season(match)
    if season is None or season.events.filter(kind=BOUT_RESULT, bout=bout, reversed__isnull=True).exists():
        return
    names = _names(match)
    winners = [int(s) for s in (bout.result or {}).get("winners", [])]
    outcome = f"{_who(names, winners)} win{'s' if len(winners) == 1 else ''}" if winners else "no winner"
    text = f"bout {bout.number} of {_title(match, names)}: {outcome} ({bout.reason})"
    single = int(match.format.get("bouts", 1)) == 1
    event = seasons.log_event(season, BOUT_RESULT, text, key=_next_key(season, f"bout:{bout.pk}"), match=match,
                              bout=bout, now=now, announce=not single)
    garnets = _bout_garnets(season, match, bout, event, now)
    if garnets and single and bout.counts:  # the match result, which is this bout's, comes first
        event.data = {**event.data, "garnets": garnets}
        event.save(update_fields=["data"])
    elif garnets:
        seasons.log_event(season, "garnets", garnets, match=match, bout=bout, now=now)


def _bout_garnets(season: Season, match: Match, bout: Bout, event: SeasonEvent, now: datetime) -> str:
    """Credit and debit the garnets the game says the bout earns or costs; the log line that says so ("" if none)."""
    game = match.game
    changes = game.bout_garnets(game.load(bout.state))
    if not changes:
        return ""
    lines = []
    seats = {s.number: s for s in match.seats.select_related("season_player")}
    for number in sorted(seats):
        player = _player(match, seats[number])
        for change in (c for c in changes if c.seat == number):
            reason = f"{change.reason} (match #{match.pk})"
            kind = GarnetEntry.EARNED if change.amount > 0 else GarnetEntry.SPENT
            GarnetEntry.objects.create(season=season, player=player, amount=change.amount, reason=reason,
                                       kind=kind, match=match, bout=bout, event=event, created=now)
            lines.append(f"{player.name} {change.amount:+d} ({reason})")
    return "garnets: " + "; ".join(lines) if lines else ""


def _deferred_garnets(season: Season, match: Match, bout: Bout | None, now: datetime) -> None:
    """Log (and announce) the garnets of a one-bout match's bout, after its result."""
    if bout is None:
        return
    event = season.events.filter(kind=BOUT_RESULT, bout=bout, reversed__isnull=True).first()
    if event is None or not event.data.get("garnets"):
        return
    seasons.log_event(season, "garnets", event.data["garnets"], match=match, bout=bout, now=now)
    event.data = {k: v for k, v in event.data.items() if k != "garnets"}
    event.save(update_fields=["data"])


# -- matches --------------------------------------------------------------------------------------------


def match_finished(match: Match, bout: Bout | None, now: datetime) -> None:
    season = _season(match)
    if season is None or season.events.filter(kind=MATCH_RESULT, match=match, reversed__isnull=True).exists():
        return
    names = _names(match)
    winners = [int(w) for w in match.winners]
    outcome = f"{_who(names, winners)} win{'s' if len(winners) == 1 else ''}" if winners else "no winner"
    score = match.score()
    if int(match.format.get("bouts", 1)) > 1:
        outcome += " " + "-".join(str(score.get(n, 0)) for n in sorted(names))
    counts = AwardCounts(0, 0) if match.elimination else AwardCounts(season.main_tokens, season.main_candidates)
    awards = match.game.season_awards(_ended_state(match, bout), tuple(winners), counts)
    previous: dict[str, Any] = {}
    event = seasons.log_event(season, MATCH_RESULT, f"{_title(match, names)} is over: {outcome} "
                              f"({match.result_reason}){_awards_words(awards, names)}",
                              key=_next_key(season, f"match:{match.pk}"), match=match,
                              bout=bout, now=now, data={"previous": previous})
    _deferred_garnets(season, match, bout, now)
    seats = {s.number: s for s in match.seats.select_related("season_player")}
    asked: list[int] = []
    for number in awards.tokens:
        player = _player(match, seats[int(number)])
        TokenOfLife.objects.create(season=season, player=player, match=match, reason=awards.token_reason,
                                   event=event, created=now)
        seasons.log_event(season, "token", f"{player.name} earns a Token of Life", match=match, now=now)
    title = _title(match, names).replace("{", "{{").replace("}", "}}")  # _set formats the text with the name
    for number in awards.candidates:
        _set(season, match, _player(match, seats[int(number)]), SeasonPlayer.CANDIDATE, event, previous, now,
             awards.candidate_text.format(player="{}", match=title))
    for tied, what in ((awards.tied_tokens, "the Token of Life"), (awards.tied_candidates, "Elimination Candidate")):
        if tied:  # the host settles it (grant the token, mark the candidate on the manage page)
            seasons.log_event(season, "tie", f"{_who(names, tied)} are tied for {what} in {_title(match, names)}: "
                              "the host settles it", match=match, now=now)
    if match.elimination:
        if winners:
            for number in winners:  # the winner survived the elimination match: no longer a candidate
                if _player(match, seats[number]).status == SeasonPlayer.CANDIDATE:
                    _set(season, match, _player(match, seats[number]), SeasonPlayer.ACTIVE, event, previous, now,
                         "{} won the elimination match and is no longer an Elimination Candidate")
            for number in sorted(set(seats) - set(winners)):
                loser = _player(match, seats[number])
                holds = loser.tokens_of_life.filter(used__isnull=True, revoked__isnull=True).exists()
                _set(season, match, loser, SeasonPlayer.ELIMINATED, event, previous, now,
                     "{} lost the elimination match and is eliminated" + (
                         " unless the host has them use their Token of Life: the host decides" if holds else ""))
                if holds and loser.status_event_id == event.pk:
                    asked.append(loser.pk)
                elif loser.status_event_id == event.pk:  # eliminated by this match: the winner takes the garnets
                    seasons.winner_takes_garnets(season, loser, match, event, now)
        else:
            seasons.log_event(season, "status", f"the elimination match {_title(match, names)} ended without a "
                              "winner: nobody is eliminated; the host decides", match=match, now=now)
    event.data = {"previous": previous, **({"asked": asked} if asked else {}),
                  "awards": {"tokens": list(awards.tokens), "candidates": list(awards.candidates),
                             "tied_tokens": list(awards.tied_tokens), "tied_candidates": list(awards.tied_candidates)}}
    event.save(update_fields=["data"])


def _awards_words(awards: SeasonAwards, names: dict[int, str]) -> str:
    """What a match result gives, for its log line and announcement (" Token of Life: Ann. ...")."""
    words = ""
    for seats, tied, what in ((awards.tokens, awards.tied_tokens, "Token of Life"),
                              (awards.candidates, awards.tied_candidates, "Elimination Candidate")):
        given = [_who(names, seats)] if seats else []
        if tied:
            given.append(f"{_who(names, tied)} tied, for the host to settle")
        if given:
            words += f" {what}: {'; '.join(given)}."
    return "." + words if words else ""


def _ended_state(match: Match, bout: Bout | None) -> Any:
    """The state of the match's last bout when its rules ended it (None after a host's ruling)."""
    if bout is None or bout.finished is None:
        return None
    game = match.game
    state = game.load(bout.state)
    return None if game.result(state) is None else state


def _set(season: Season, match: Match, player: SeasonPlayer, status: str, event: SeasonEvent,
         previous: dict[str, Any], now: datetime, text: str) -> None:
    if player.status == status or (status == SeasonPlayer.CANDIDATE and player.status == SeasonPlayer.ELIMINATED):
        return
    previous[str(player.pk)] = [player.status, player.status_event_id]
    player.status, player.status_event = status, event
    player.save(update_fields=["status", "status_event"])
    seasons.log_event(season, "status", text.format(player.name), match=match, player=player, now=now)


# -- taking results back -------------------------------------------------------------------------------


def _active(season_id: int, match: Match, bout: Bout | None, *, bout_too: bool) -> list[SeasonEvent]:
    events = SeasonEvent.objects.filter(season_id=season_id, reversed__isnull=True)
    found = list(events.filter(kind=MATCH_RESULT, match=match))
    if bout_too and bout is not None:
        found += list(events.filter(kind=BOUT_RESULT, bout=bout))
    return found


def reversal_refusal(match: Match, bout: Bout | None, *, bout_too: bool = True) -> str:
    """Why the results of `bout` (and of the match) cannot be taken back; "" if they can."""
    if match.season_id is None:
        return ""
    for event in _active(match.season_id, match, bout, bout_too=bout_too):
        used = event.tokens_given.filter(used__isnull=False, revoked__isnull=True).select_related("player").first()
        if used is not None:
            return (f"the Token of Life {used.player.name} won in this match has been used since, so its result "
                    "cannot be taken back: reopening is refused")
        cleared = SeasonEvent.objects.filter(kind="token_used", reversed__isnull=True,
                                             data__cleared_event=event.pk).select_related("player").first()
        if cleared is not None and cleared.player is not None:
            return (f"{cleared.player.name} used a Token of Life against the result of this match, so it cannot be "
                    "taken back: reopening is refused")
    return ""


def reverse_results(match: Match, bout: Bout | None, now: datetime | None = None, *, bout_too: bool = True) -> None:
    """Take back what the bout (and the match) fed into the season; NotAllowed
    (nothing changed) when `reversal_refusal` says so."""
    if match.season_id is None:
        return
    now = now or timezone.now()
    season = _season(match)
    assert season is not None
    refusal = reversal_refusal(match, bout, bout_too=bout_too)
    if refusal:
        raise NotAllowed(refusal)
    for event in _active(match.season_id, match, bout, bout_too=bout_too):
        undone = []
        for entry in event.garnet_entries.filter(reverses__isnull=True, reversal__isnull=True):
            GarnetEntry.objects.create(
                season=season, player=entry.player, amount=-entry.amount, reason=f"taken back: {entry.reason}",
                kind=GarnetEntry.REVERSAL, match=entry.match, bout=entry.bout, event=event, reverses=entry,
                created=now,
            )
            undone.append(f"{entry.player.name} {-entry.amount:+d}")
        for token in event.tokens_given.filter(revoked__isnull=True).select_related("player"):
            token.revoked = now
            token.save(update_fields=["revoked"])
            undone.append(f"{token.player.name}'s Token of Life revoked")
        kept = SeasonEvent.objects.filter(kind="token_kept", reversed__isnull=True, data__result_event=event.pk)
        for answer in kept.select_related("player"):  # the Token of Life question goes with the result
            answer.reversed = now
            answer.save(update_fields=["reversed"])
            if answer.player is not None:
                undone.append(f"the answer that {answer.player.name} keeps the Token of Life is taken back")
        for pk, (status, status_event) in (event.data.get("previous") or {}).items():
            player = SeasonPlayer.objects.filter(pk=int(pk), status_event=event).first()
            if player is not None:
                player.status, player.status_event_id = status, status_event
                player.save(update_fields=["status", "status_event"])
                undone.append(f"{player.name} is {seasons.STATUS_WORDS[status]} again")
        event.reversed = now
        event.save(update_fields=["reversed"])
        what = "bout" if event.kind == BOUT_RESULT else "match"
        seasons.log_event(season, "reversal", f"the host reopened it; this {what} result is taken back: "
                          f"{event.text}" + (f" ({'; '.join(undone)})" if undone else ""), match=match,
                          bout=event.bout, now=now)


# -- garnet spends against the ledger (games whose orders spend garnets) ------------


def committed_spends(player: SeasonPlayer, *, replacing: tuple[int, int] | None = None) -> int:
    """Garnets the player has committed in running bouts of the season (debited
    only when each bout ends).  `replacing` (match id,
    seat) leaves out that seat's pending submission, which is being replaced."""
    total = 0
    spending = [slug for slug in slugs() if get_game(slug).spends_garnets]
    seats = Seat.objects.filter(season_player=player, match__status=Match.RUNNING, match__game_slug__in=spending)
    for seat in seats.select_related("match"):
        bout = seat.match.bouts.order_by("-number").first()
        if bout is None or bout.finished is not None:
            continue
        game = seat.match.game
        pending = replacing != (seat.match_id, seat.number)
        total += game.garnets_spent(game.load(bout.state), seat.number, pending=pending)
    return total


def check_spends(match: Match, bout: Bout, actor: int, action: Any, *, by_host: bool = False) -> None:
    """Refuse orders that spend more garnets than the seat's
    season balance now (less what it has committed and not yet paid, here and
    in other running matches of the season).  The rules themselves count the
    garnets held when the bout started (option `garnets`, seeded by
    `engine.bout_options`, so a replay stays exact): garnets awarded during the
    match are spendable from the next one, garnets deducted are not spendable
    at once."""
    if match.season_id is None or not match.game.spends_garnets or actor == HOST:
        return
    spending = match.game.garnet_cost(action)
    if not spending:
        return
    _season(match)  # locked: no other spend or deduction of the season can slip in between
    seat = match.seats.select_related("season_player").get(number=actor)
    player = _player(match, seat)
    balance = player.garnet_balance()
    committed = committed_spends(player, replacing=(match.pk, actor))
    available = balance - committed
    if spending <= available:
        return
    who = f"{player.name} has" if by_host else "you have"
    held = f" ({seasons.garnets_text(balance)} in the ledger, {committed} already spent and not yet paid)" if committed else ""
    if available <= 0:
        raise NotAllowed(f"{who} no garnet to spend{held}")
    raise NotAllowed(f"{who} only {seasons.garnets_text(available)} to spend{held}, and these orders spend {spending}")


def garnets_available(match: Match, seat: int) -> int | None:
    """Garnets the seat may still spend in this match (None without a season); for pages that grey out the garnet toggle."""
    if match.season_id is None:
        return None
    row = match.seats.select_related("season_player").filter(number=seat).first()
    if row is None or row.season_player is None:
        return 0
    return row.season_player.garnet_balance() - committed_spends(row.season_player, replacing=(match.pk, seat))


def match_host_garnets(match: Match, seat: Seat, amount: int, reason: str,
                       now: datetime) -> GarnetEntry | MatchGarnet:
    """The match host's garnet award or deduction (host dashboard): in a season match, a ledger
    entry logged and announced like the season host's; outside a season, kept on the match."""
    if match.season_id is None:
        return MatchGarnet.objects.create(match=match, seat=seat, amount=amount, reason=reason, created=now)
    season = _season(match)
    assert season is not None
    player = _player(match, seat)
    verb = f"+{amount}" if amount > 0 else f"-{-amount}"
    event = seasons.log_event(season, "garnets", f"{player.name} {verb} garnet{'s' if abs(amount) != 1 else ''} "
                              f"from the host of match #{match.pk}", reason=reason, player=player, match=match,
                              now=now)
    return GarnetEntry.objects.create(season=season, player=player, amount=amount, reason=reason,
                                      kind=GarnetEntry.MATCH_HOST, match=match, event=event, created=now)


def match_garnet_totals(match: Match) -> dict[int, int]:
    """Seat -> garnets this match gave it (less what it took): its own entries outside a season,
    the season ledger's entries of this match in one (for the host dashboard)."""
    if match.season_id is None:
        rows = MatchGarnet.objects.filter(match=match).values_list("seat__number").annotate(total=Sum("amount"))
        return {number: total or 0 for number, total in rows}
    seat_of = dict(match.seats.filter(season_player__isnull=False).values_list("season_player", "number"))
    entries = GarnetEntry.objects.filter(season_id=match.season_id, match=match, player__in=list(seat_of))
    totals = entries.values_list("player").annotate(total=Sum("amount"))
    return {seat_of[player]: total or 0 for player, total in totals}

