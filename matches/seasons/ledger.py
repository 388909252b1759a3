"""Seasons: the only code that changes a season (roster, garnet ledger, Tokens
of Life, candidates, eliminations, webhook).

Two kinds of callers:

- the season's host (manage page, `season_views`): every action runs in one
  transaction with the season row locked, is logged as a `SeasonEvent` with
  its time and reason, and carries a `key` from the form it was posted with:
  a doubled submit finds its key taken and raises `AlreadyDone` (nothing is
  applied twice).  Refusals raise `ServiceError` with a plain sentence.
- match results (`season_results`, called by `matches.play.engine` inside the
  match's transaction, match and bout rows already locked).

Lock order everywhere: match, bout, then season (then nothing else), so a
season action and a match ending never wait on each other in a circle.
Announcements go through `webhooks.announce` (an outbox row in the same
transaction, posted after commit by a worker).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any, TypedDict

from django.db import IntegrityError, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from matches.core import commits
from matches.core.errors import NotAllowed, ServiceError
from matches.models import GarnetEntry, Match, Season, SeasonEvent, SeasonPlayer, Seat, TokenOfLife
from matches.seasons import webhooks

__all__ = [
    "AlreadyDone",
    "NotAllowed",
    "ServiceError",
    "add_player",
    "adjust_garnets",
    "answer_token_question",
    "create_season",
    "grant_token",
    "open_questions",
    "remove_player",
    "rename_player",
    "set_status",
    "set_webhook",
    "standings",
    "test_webhook",
    "use_token",
    "winner_takes_garnets",
]

MAX_GARNETS = 1000
#: tries at a season's name and slug while others open seasons with names like it
CREATE_ATTEMPTS = 20
ACTIVE, CANDIDATE, ELIMINATED = SeasonPlayer.ACTIVE, SeasonPlayer.CANDIDATE, SeasonPlayer.ELIMINATED
STATUS_WORDS = {ACTIVE: "active", CANDIDATE: "elimination candidate", ELIMINATED: "eliminated"}
#: the status of a player whose Token of Life question is open (see `open_questions`)
QUESTION_WORDS = "eliminated unless the Token of Life is used"
_KEY = re.compile(r"^[A-Za-z0-9_-]{8,60}$")
#: the key a page's form carries (templatetags/season_tags.form_key: secrets.token_urlsafe(16))
PAGE_KEY = re.compile(r"^[A-Za-z0-9_-]{22}$")


class Standing(TypedDict):
    """One roster player's row of a season's standings."""

    player: SeasonPlayer
    name: str
    garnets: int
    tokens: int
    played: int
    won: int
    status: str
    status_label: str
    question: bool


class AlreadyDone(ServiceError):
    """A doubled submit: the action posted with this key was already applied."""


def clean(text: Any, limit: int) -> str:
    """Typed text without control characters, stripped and cut to `limit`."""
    text = "".join(ch for ch in str(text or "") if unicodedata.category(ch) != "Cc")
    return " ".join(text.split())[:limit]


def public_url(season: Season, path: str) -> str:
    """An absolute public link for announcements (settings.DEATHMATCH_PUBLIC_URL,
    else the address the season was created from; a bare path without either)."""
    from django.conf import settings

    base = getattr(settings, "DEATHMATCH_PUBLIC_URL", "") or season.base_url
    return f"{base.rstrip('/')}{path}" if base else path


# -- the season log -----------------------------------------------------------------------


def begin(season: Season, key: str | None) -> Season:
    """Lock the season row; refuse a key already used (inside a transaction)."""
    locked = Season.objects.select_for_update().get(pk=season.pk)
    if key is not None:
        if not _KEY.match(key):
            raise ServiceError("reload the page: the form lost its key")
        done = locked.events.filter(key=f"form:{key}").first()
        if done is not None:
            raise AlreadyDone(f"already done: {done.text}")
    return locked


def log_event(
    season: Season,
    kind: str,
    text: str,
    *,
    key: str | None = None,
    reason: str = "",
    player: SeasonPlayer | None = None,
    match: Match | None = None,
    bout: Any = None,
    data: dict[str, Any] | None = None,
    now: datetime | None = None,
    announce: bool = True,
) -> SeasonEvent:
    """One line of the season log (and its announcement, if the season has a webhook)."""
    commits.flush_now()  # what the season's log and webhook say is never lost (core/commits.py)
    event = SeasonEvent.objects.create(
        season=season, kind=kind, text=text[:500], reason=reason[:200], key=key, player=player, match=match,
        bout=bout, data=data or {}, created=now or timezone.now(),
    )  # fmt: skip
    if announce:
        why = f" ({reason})" if reason else ""
        webhooks.announce(season, f"**{season.name}**: {text}{why}")
    return event


def form_key(key: str | None) -> str | None:
    return None if key is None else f"form:{key}"


# -- creating a season ----------------------------------------------------------------------


def create_season(name: str, *, webhook_url: str = "", base_url: str = "", key: str | None = None,
                  client: str | None = None) -> Season:
    """A new season (its manage token is made here).  A doubled submit (same
    key) returns the season the first one made.

    `client`: who posted the form (the web layer's digest of the browser's CSRF cookie).  The
    key then only finds a season this same client created, and must be the page's own (22
    characters): a key replayed by anyone else opens a new season, never hands back the first
    one's manage link."""
    name = clean(name, 120)
    if not name:
        raise ServiceError("give the season a name")
    url = _webhook(webhook_url)
    if key is not None and not (PAGE_KEY if client is not None else _KEY).match(key):
        raise ServiceError("reload the page: the form lost its key")
    stored = None if key is None else f"form:{key}" if client is None else f"form:{key}:{client}"
    # The name and slug checks cannot see a season another request is creating at this moment: its
    # insert then fails on the unique name or slug.  Look again once it is committed (PostgreSQL
    # makes the failed insert wait for it): the name is taken, the key was used, or only the slug
    # was (names that slugify alike) and the next attempt picks the next free one.
    for _ in range(CREATE_ATTEMPTS):
        try:
            with transaction.atomic():
                return _create_season(name, url, clean(base_url, 200), stored)
        except IntegrityError:
            continue
    raise ServiceError(f"seasons with names like {name} are being opened right now; please try again")


def _create_season(name: str, url: str, base_url: str, stored: str | None) -> Season:
    if stored is not None:
        done = SeasonEvent.objects.filter(kind="season", key=stored).select_related("season").first()
        if done is not None:
            return done.season
    if Season.objects.filter(name__iexact=name).exists():
        raise ServiceError(f"there is already a season called {name}; choose another name")
    season = Season.objects.create(name=name, webhook_url=url, base_url=base_url)
    log_event(season, "season", f"season {name} opened", key=stored)
    return season


def _webhook(url: str) -> str:
    try:
        return webhooks.check_url(str(url or ""))
    except webhooks.WebhookError as error:
        raise ServiceError(str(error)) from None


def set_webhook(season: Season, url: str, *, key: str | None = None) -> SeasonEvent:
    url = _webhook(url)
    with transaction.atomic():
        season = begin(season, key)
        season.webhook_url = url
        season.webhook_error = ""
        season.webhook_error_at = None
        season.save(update_fields=["webhook_url", "webhook_error", "webhook_error_at"])
        text = "announcements turned on" if url else "announcements turned off"
        return log_event(season, "webhook", text, key=form_key(key), announce=bool(url))


def test_webhook(season: Season, *, key: str | None = None) -> SeasonEvent:
    with transaction.atomic():
        season = begin(season, key)
        if not season.webhook_url:
            raise ServiceError("set a webhook URL first")
        return log_event(season, "webhook", "test announcement: this channel will hear about the season",
                         key=form_key(key))


# -- the roster -------------------------------------------------------------------------------


def find_player(season: Season, player: SeasonPlayer | int | str) -> SeasonPlayer:
    pk = player.pk if isinstance(player, SeasonPlayer) else player
    try:
        number = int(pk)
    except (TypeError, ValueError):
        number = 0
    found = season.players.filter(pk=number, removed=False).first() if 0 < number < 2**63 else None
    if found is None:
        raise ServiceError("choose a player from the roster")
    return found


def _name(season: Season, name: str, *, exclude: int | None = None) -> str:
    name = clean(name, 80)
    if not name:
        raise ServiceError("type the player's name")
    same = season.players.filter(name__iexact=name, removed=False)
    clash = (same if exclude is None else same.exclude(pk=exclude)).first()
    if clash is not None:
        raise ServiceError(f"{clash.name} is already on the roster")
    return name


def add_player(season: Season, name: str, *, key: str | None = None) -> SeasonPlayer:
    with transaction.atomic():
        season = begin(season, key)
        name = _name(season, name)
        player = season.players.filter(name__iexact=name).first()  # a removed player comes back
        if player is None:
            player = SeasonPlayer.objects.create(season=season, name=name)
        else:
            player.removed = False
            player.name = name
            player.save(update_fields=["removed", "name"])
        log_event(season, "roster", f"{name} joins the roster", key=form_key(key), player=player)
        return player


def rename_player(season: Season, player: SeasonPlayer | int, name: str, *, key: str | None = None) -> SeasonPlayer:
    with transaction.atomic():
        season = begin(season, key)
        found = find_player(season, player)
        new = _name(season, name, exclude=found.pk)
        if season.players.filter(name__iexact=new).exclude(pk=found.pk).exists():
            raise ServiceError(f"a removed player was called {new}; add them back instead")
        old, found.name = found.name, new
        found.save(update_fields=["name"])
        # seats of matches not yet started carry the new name too (played matches keep theirs)
        Seat.objects.filter(season_player=found, match__status=Match.SETUP).update(name=new)
        log_event(season, "roster", f"{old} is now called {new}", key=form_key(key), player=found)
        return found


def remove_player(season: Season, player: SeasonPlayer | int, *, key: str | None = None) -> SeasonPlayer:
    """Take a player off the roster (kept in the ledger and in past matches)."""
    with transaction.atomic():
        season = begin(season, key)
        found = find_player(season, player)
        playing = Match.objects.filter(seats__season_player=found, status__in=[Match.SETUP, Match.RUNNING]).first()
        if playing is not None:
            raise ServiceError(f"{found.name} has a seat in match #{playing.pk}, which is not over; "
                               "remove them once it ends")
        found.removed = True
        found.save(update_fields=["removed"])
        log_event(season, "roster", f"{found.name} leaves the roster", key=form_key(key), player=found)
        return found


# -- garnets, tokens and statuses -------------------------------------------------------------


def adjust_garnets(
    season: Season,
    player: SeasonPlayer | int,
    amount: int,
    reason: str,
    *,
    allow_negative: bool = False,
    key: str | None = None,
) -> GarnetEntry:
    """Award (or deduct, negative) garnets with a reason.  Deducting below zero
    is refused unless `allow_negative`."""
    reason = clean(reason, 200)
    amount = int(amount)
    if amount == 0:
        raise ServiceError("award or deduct at least one garnet")
    if abs(amount) > MAX_GARNETS:
        raise ServiceError(f"award or deduct at most {MAX_GARNETS} garnets at a time")
    if not reason:
        raise ServiceError("say why: every garnet change is logged with a reason")
    with transaction.atomic():
        season = begin(season, key)
        found = find_player(season, player)
        balance = found.garnet_balance()
        if amount < 0 and balance + amount < 0 and not allow_negative:  # an award never needs the tick
            raise ServiceError(
                f"{found.name} has {garnets_text(balance)}: deducting {-amount} would leave {balance + amount}; "
                "tick \"allow negative\" to do it anyway"
            )
        verb = f"+{amount}" if amount > 0 else f"-{-amount}"
        event = log_event(season, "garnets", f"{found.name} {verb} garnet{'s' if abs(amount) != 1 else ''}, "
                          f"now {balance + amount}", key=form_key(key), reason=reason, player=found)
        return GarnetEntry.objects.create(
            season=season, player=found, amount=amount, reason=reason, kind=GarnetEntry.HOST, event=event,
            created=event.created,
        )


def garnets_text(n: int) -> str:
    return f"{n} garnet{'' if n == 1 else 's'}"


def grant_token(season: Season, player: SeasonPlayer | int, reason: str = "", *, key: str | None = None) -> TokenOfLife:
    reason = clean(reason, 200) or "granted by the host"
    with transaction.atomic():
        season = begin(season, key)
        found = find_player(season, player)
        event = log_event(season, "token", f"{found.name} receives a Token of Life", key=form_key(key),
                          reason=reason, player=found)
        return TokenOfLife.objects.create(season=season, player=found, reason=reason, event=event,
                                          created=event.created)


def use_token(season: Season, player: SeasonPlayer | int, reason: str = "", *, key: str | None = None) -> SeasonEvent:
    """Spend one of the player's Tokens of Life to clear their candidacy, or to
    save them from an elimination (they are active again).  It answers an open
    Token of Life question of theirs too (its elimination is what it clears)."""
    reason = clean(reason, 200)
    with transaction.atomic():
        season = begin(season, key)
        return _spend_token(season, find_player(season, player), reason, key)


def _spend_token(season: Season, found: SeasonPlayer, reason: str, key: str | None,
                 extra: dict[str, Any] | None = None) -> SeasonEvent:
    if found.status == ACTIVE:
        raise ServiceError(f"{found.name} is neither an elimination candidate nor eliminated: "
                           "a Token of Life has nothing to clear")
    token = found.tokens_of_life.filter(used__isnull=True, revoked__isnull=True).order_by("created", "id").first()
    if token is None:
        raise ServiceError(f"{found.name} holds no Token of Life")
    what = "candidacy" if found.status == CANDIDATE else "elimination"
    text = (f"{found.name} uses a Token of Life: no longer an elimination candidate" if what == "candidacy"
            else f"{found.name} is saved from elimination by a Token of Life")
    event = log_event(season, "token_used", text, key=form_key(key), reason=reason, player=found,
                      match=found.status_event.match if found.status_event else None,
                      data={"cleared": what, "cleared_event": found.status_event_id, "was": found.status, **(extra or {})})
    token.used = event.created
    token.used_event = event
    token.save(update_fields=["used", "used_event"])
    found.status, found.status_event = ACTIVE, event
    found.save(update_fields=["status", "status_event"])
    return event


# -- the Token of Life question ----------------------------------------------------------------
#
# The ruling (what holds while it is open) is in matches/seasons/results.py's docstring.  Answers:
# "use" spends the token exactly like `use_token` (a `token_used` event that cleared the match's
# result, so the result can no longer be taken back); "keep" logs `token_kept` (data
# `result_event`), which reopening the match takes back with it.  Both carry data `question`.


class TokenQuestion(TypedDict):
    """An open Token of Life question: the player, and the elimination match they lost."""

    player: SeasonPlayer
    match: Match
    event: SeasonEvent


def open_questions(season: Season, match: Match | None = None) -> list[TokenQuestion]:
    """The season's open Token of Life questions (of `match` only, if given), oldest first."""
    events = season.events.filter(kind="match_result", reversed__isnull=True, data__has_key="asked")
    if match is not None:
        events = events.filter(match=match)
    found: list[TokenQuestion] = []
    for event in events.select_related("match").order_by("created", "id"):
        players = season.players.filter(pk__in=event.data["asked"], status=ELIMINATED, status_event=event,
                                        removed=False).order_by("name")
        for player in players:
            kept = season.events.filter(kind="token_kept", player=player, reversed__isnull=True,
                                        data__result_event=event.pk).exists()
            holds = player.tokens_of_life.filter(used__isnull=True, revoked__isnull=True).exists()
            if holds and not kept and event.match is not None:
                found.append({"player": player, "match": event.match, "event": event})
    return found


def answer_token_question(season: Season, player: SeasonPlayer | int, use: bool, reason: str = "", *,
                          match: Match | None = None, key: str | None = None) -> SeasonEvent:
    """The host's answer to a player's open Token of Life question: `use` saves them (the token is
    spent), else the elimination stands (`match`: only a question of that match).  An answer
    given already raises AlreadyDone."""
    reason = clean(reason, 200)
    with transaction.atomic():
        season = begin(season, key)
        found = find_player(season, player)
        question = next((q for q in open_questions(season, match) if q["player"].pk == found.pk), None)
        if question is None:
            answered = season.events.filter(kind__in=["token_used", "token_kept"], player=found, reversed__isnull=True,
                                            data__has_key="question").order_by("-created", "-id").first()
            if answered is not None and found.status_event_id in (answered.pk, answered.data["question"]):
                raise AlreadyDone(f"already answered: {answered.text}")
            raise ServiceError(f"{found.name} has no open Token of Life question")
        asked = {"question": question["event"].pk}
        if use:
            return _spend_token(season, found, reason, key, asked)
        kept = log_event(season, "token_kept", f"{found.name} does not use a Token of Life: the elimination stands",
                         key=form_key(key), reason=reason, player=found, match=question["match"],
                         data={"result_event": question["event"].pk, **asked})
        # the elimination now stands: the winner takes the garnets (results.py's ruling), booked on the
        # match's result, so that taking the match back takes them back with it
        winner_takes_garnets(season, found, question["match"], question["event"], kept.created)
        return kept


def winner_takes_garnets(season: Season, loser: SeasonPlayer, match: Match, result: SeasonEvent,
                         now: datetime) -> None:
    """The eliminated `loser`'s garnets to the elimination match's winner (the season option
    `winner_takes_garnets`; the ruling is results.py's): one entry each way on the match's `result`
    event (a reopened match reverses them with it), nothing from a balance of zero or below, nothing
    without exactly one winner.  Inside the caller's transaction, season row locked."""
    if not season.winner_takes_garnets or len(match.winners) != 1:
        return
    seat = match.seats.select_related("season_player").filter(number=int(match.winners[0])).first()
    winner = seat.season_player if seat is not None else None
    balance = loser.garnet_balance()
    if winner is None or winner.pk == loser.pk or balance <= 0:
        return
    reason = f"{loser.name}'s garnets to {winner.name}, winner of the elimination match #{match.pk}"
    for player, amount in ((loser, -balance), (winner, balance)):
        GarnetEntry.objects.create(season=season, player=player, amount=amount, reason=reason[:200],
                                   kind=GarnetEntry.TRANSFER, match=match, event=result, created=now)
    log_event(season, "garnets", f"{winner.name} takes {loser.name}'s {garnets_text(balance)} "
              f"(elimination match #{match.pk}): {winner.name} now has {garnets_text(winner.garnet_balance())}, "
              f"{loser.name} 0", match=match, player=loser, now=now)


def set_status(season: Season, player: SeasonPlayer | int, status: str, reason: str = "", *,
               key: str | None = None) -> SeasonEvent:
    """Host: mark a player an elimination candidate, eliminated, or active again (reinstated)."""
    if status not in STATUS_WORDS:
        raise ServiceError("a player is active, an elimination candidate or eliminated")
    reason = clean(reason, 200)
    with transaction.atomic():
        season = begin(season, key)
        found = find_player(season, player)
        if found.status == status:
            raise ServiceError(f"{found.name} is already {STATUS_WORDS[status]}")
        text = {
            ACTIVE: f"{found.name} is reinstated",
            CANDIDATE: f"{found.name} is an elimination candidate",
            ELIMINATED: f"{found.name} is eliminated",
        }[status]
        event = log_event(season, "status", text, key=form_key(key), reason=reason, player=found,
                          data={"was": found.status, "was_event": found.status_event_id})
        found.status, found.status_event = status, event
        found.save(update_fields=["status", "status_event"])
        return event


#: how long the manage page's Undo takes an action back (its toast shows 30 s; a few more for the trip)
UNDO_SECONDS = 35
UNDOABLE = ("status", "garnets")


def undo(season: Season, event_id: int, *, key: str | None = None, now: datetime | None = None) -> SeasonEvent:
    """Host: take back a status change or a garnet entry made on the manage page a moment ago
    (issue 25: the toast's Undo).  A status goes back to what it was, if nothing changed it since;
    garnets get an entry that cancels them (the ledger is append-only).  Logged and announced as
    an undo; the event undone is marked reversed, so a second Undo is refused."""
    now = now or timezone.now()
    with transaction.atomic():
        season = begin(season, key)
        event = season.events.select_for_update().filter(pk=event_id, kind__in=UNDOABLE).first()
        if event is None or event.player is None or event.key is None:
            raise ServiceError("only a status change or garnets entered on this page can be undone")
        if event.reversed is not None:
            raise ServiceError(f"already undone: {event.text}")
        if (now - event.created).total_seconds() > UNDO_SECONDS:
            raise ServiceError(f"too late to undo \"{event.text}\" (30 s): change it by hand")
        found = find_player(season, event.player)
        if event.kind == "status":
            if found.status_event_id != event.pk:
                raise ServiceError(f"{found.name}'s status has changed since: set it by hand")
            was = str(event.data.get("was", ACTIVE))
            undone = log_event(season, "status", f"undone: {event.text} ({found.name} is {STATUS_WORDS[was]} again)",
                               key=form_key(key), player=found, data={"undoes": event.pk})
            found.status = was
            found.status_event_id = event.data.get("was_event")
            found.save(update_fields=["status", "status_event"])
        else:
            entry = GarnetEntry.objects.filter(event=event).first()
            if entry is None:
                raise ServiceError("only a status change or garnets entered on this page can be undone")
            balance = found.garnet_balance() - entry.amount
            undone = log_event(season, "garnets", f"undone: {event.text} ({found.name} has {garnets_text(balance)})",
                               key=form_key(key), player=found, data={"undoes": event.pk})
            GarnetEntry.objects.create(season=season, player=found, amount=-entry.amount,
                                       reason=f"undo of: {entry.reason}"[:200], kind=GarnetEntry.HOST, event=undone,
                                       created=undone.created)
        event.reversed = now
        event.save(update_fields=["reversed"])
        return undone


# -- reading ---------------------------------------------------------------------------------------


def standings(season: Season) -> list[Standing]:
    """One row per roster player: garnets, tokens held, matches played/won, status.
    Eliminated players come last; then most garnets, then most wins, then name."""
    players = list(season.players.filter(removed=False))
    balance = dict(
        GarnetEntry.objects.filter(season=season).values("player").annotate(t=Sum("amount")).values_list("player", "t")
    )
    tokens = dict(
        TokenOfLife.objects.filter(season=season, used__isnull=True, revoked__isnull=True)
        .values("player").annotate(n=Count("id")).values_list("player", "n")
    )
    asked = {q["player"].pk for q in open_questions(season)}
    played: dict[int, int] = {}
    won: dict[int, int] = {}
    seats = Seat.objects.filter(match__season=season, match__status=Match.FINISHED, season_player__isnull=False)
    for player_id, number, winners in seats.values_list("season_player_id", "number", "match__winners"):
        played[player_id] = played.get(player_id, 0) + 1
        if number in (winners or []):
            won[player_id] = won.get(player_id, 0) + 1
    rows: list[Standing] = [
        {
            "player": p,
            "name": p.name,
            "garnets": balance.get(p.pk) or 0,
            "tokens": tokens.get(p.pk, 0),
            "played": played.get(p.pk, 0),
            "won": won.get(p.pk, 0),
            "status": p.status,
            "status_label": QUESTION_WORDS if p.pk in asked else STATUS_WORDS[p.status],
            "question": p.pk in asked,
        }
        for p in players
    ]
    rows.sort(key=lambda r: (r["status"] == ELIMINATED, -r["garnets"], -r["won"], r["name"].lower()))
    return rows
