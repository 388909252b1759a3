"""A match joins a season explicitly: the season host pastes the match's host link on the
season's manage page (holding both secret links proves they may join them).  A match never
joins or creates a season by a name (issue 21).

What is carried over when a match joins:

- each seat is linked to the roster player of its name (added to the roster, or brought back
  to it, when there is none);
- the garnets the match host awarded or deducted while the match was outside a season
  (`MatchGarnet`) move into the season ledger, once: each becomes a `GarnetEntry` of this
  match (same amount, reason, kind and time) and the match's own rows are deleted;
- the match is then listed on the season's pages and counts in its standings (played, won),
  finished or not;
- bouts and the match ending from now on feed the season as in any season match (garnets,
  Tokens of Life, candidates).

Not carried over: the results of bouts (and of the match) decided before it joined give no
garnets, Token of Life, candidacy or elimination; they were played outside
the season's ledger.  The season host records what should count by hand on the manage page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from urllib.parse import urlsplit

from django.db import transaction
from django.urls import Resolver404, resolve, reverse

from games.core import RuleError
from games.registry import get_game
from matches.core.errors import ServiceError
from matches.models import GarnetEntry, Match, MatchGarnet, Season, SeasonEvent, SeasonPlayer, Seat
from matches.play import services
from matches.play.change import change
from matches.seasons import episodes
from matches.seasons import ledger as seasons

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
#: URL names of the links a match has, for a refusal that says which one was pasted
_NOT_HOST = {
    "watch_page": "that is the match's spectator link: paste its host link, which only its host has",
    "player_page": "that is a player's seat link: paste the match's host link, which only its host has",
}
_NOT_A_LINK = "that is not a match's host link: copy it from the match's host dashboard"
_UNKNOWN = "no match has this host link: copy the whole link from the match's host dashboard"


def host_token(link: str) -> str:
    """The host token in `link` (the host dashboard's address, or the token alone); ServiceError
    in a sentence for anything else.  Only the address's form is read, so a refusal tells
    nothing about which tokens exist."""
    text = seasons.clean(link, 500)
    if not text:
        raise ServiceError("paste the host link of the match to add")
    if _TOKEN.match(text):
        return text
    path = urlsplit(text if "//" in text else "/" + text.lstrip("/")).path
    try:
        found = resolve(path)
    except Resolver404:
        raise ServiceError(_NOT_A_LINK) from None
    if found.url_name in _NOT_HOST:
        raise ServiceError(_NOT_HOST[found.url_name])
    if found.url_name not in ("host_page", "host_act"):
        raise ServiceError(_NOT_A_LINK)
    token = str(found.kwargs.get("token", ""))
    if not _TOKEN.match(token):
        raise ServiceError(_UNKNOWN)
    return token


def attach_match(season: Season, link: str, *, key: str | None = None) -> SeasonEvent:
    """Put the match whose host link is `link` in `season` (see the module's docstring for
    what is carried over); the season event that says so (`data["garnets"]`: the entries
    moved).  Refused, nothing changed: a link that is not a match's host link, a match already
    in a season, seats that cannot be told apart on the roster or that name an eliminated
    player.  Locks the match, its current bout, then the season (the lock order of every
    season change)."""
    found = Match.objects.filter(host_token=host_token(link)).first()
    if found is None:
        raise ServiceError(_UNKNOWN)
    with change(found) as c:
        match, now = c.match, c.now
        season = seasons.begin(season, key)
        if match.season_id == season.pk:
            raise ServiceError(f"match #{match.pk} is already in this season")
        if match.season_id is not None:
            raise ServiceError(f"match #{match.pk} already belongs to another season; a match is in one season only")
        seats = list(match.seats.order_by("number"))
        players = _roster(season, match, seats, now)
        match.season = season
        match.save(update_fields=["season"])
        for seat in seats:
            seat.season_player = players[seat.number]
            seat.save(update_fields=["season_player"])
        garnets = list(MatchGarnet.objects.filter(match=match).order_by("created", "id"))
        secrets = [match.host_token, match.watch_token, *(seat.token for seat in seats)]
        owner = {seat.pk: players[seat.number] for seat in seats}
        moved = [(row, owner[row.seat_id], _scrubbed(row.reason, secrets)) for row in garnets]
        watch = seasons.public_url(season, reverse("watch_page", args=[match.watch_token]))
        text = f"{_title(match, seats)} joins the season. Watch: {watch}"
        if moved:
            text += ". Its garnets move into the ledger: " + "; ".join(
                f"{player.name} {row.amount:+d}" + (f" ({reason})" if reason else "") for row, player, reason in moved)
        event = seasons.log_event(season, "attach", text, key=seasons.form_key(key), match=match, now=now,
                                  data={"garnets": len(moved)})
        for row, player, reason in moved:
            GarnetEntry.objects.create(season=season, player=player, amount=row.amount, reason=reason, kind=row.kind,
                                       match=match, event=event, created=row.created)
        MatchGarnet.objects.filter(pk__in=[row.pk for row in garnets]).delete()  # moved: exactly once
        episodes.match_joined(season, match, now)  # a main match of the episode, or its death match
    return event


def _scrubbed(reason: str, secrets: list[str]) -> str:
    """A reason without the match's links (one typed there stays off the season's pages)."""
    for secret in secrets:
        reason = reason.replace(secret, "(link removed)")
    return reason[:200]


def _title(match: Match, seats: list[Seat]) -> str:
    try:
        name = match.game.name
    except KeyError:
        name = match.game_slug
    return f"{name} #{match.pk} ({', '.join(seat.name for seat in seats)})"


def _roster(season: Season, match: Match, seats: list[Seat], now: datetime) -> dict[int, SeasonPlayer]:
    """Seat number -> the roster player of its name (added, or back on the roster, if needed)."""
    by_name: dict[str, Seat] = {}
    for seat in seats:
        twin = by_name.setdefault(seat.name.casefold(), seat)
        if twin is not seat:
            raise ServiceError(f"seats {twin.number} and {seat.number} are both called {twin.name}: the roster "
                               "needs one name per player, so this match cannot join")
    players: dict[int, SeasonPlayer] = {}
    for seat in seats:
        player = (season.players.filter(name__iexact=seat.name, removed=False).first()
                  or season.players.filter(name__iexact=seat.name).first())
        if player is not None and player.status == SeasonPlayer.ELIMINATED:
            raise ServiceError(f"{player.name} is eliminated in this season; reinstate them first to add this match")
        players[seat.number] = player if player is not None else SeasonPlayer(season=season, name=seat.name)
    for seat in seats:  # every refusal is made: now change the roster
        player = players[seat.number]
        if player.pk is not None and not player.removed:
            continue
        player.removed = False
        player.save()
        seasons.log_event(season, "roster", f"{player.name} joins the roster (a player of match #{match.pk})",
                          player=player, now=now)
    return players


def create_season_match(
    season: Season,
    game_slug: str,
    players: Sequence[SeasonPlayer | int],
    *,
    elimination: bool = False,
    bouts: int | None = None,
    key: str | None = None,
) -> Match:
    """A match in the season, seated with roster players (seat 1 = the first
    one): their names carry over and their seats are linked to the roster.
    `elimination` marks a 2-player match as the elimination match."""
    try:
        game = get_game(game_slug)
    except KeyError:
        raise ServiceError("choose a game from the list") from None
    with transaction.atomic():
        season = seasons.begin(season, key)
        chosen = [seasons.find_player(season, p) for p in players]
        # the host's game seats as many as were picked (its "seats" option)
        options = {"seats": len(chosen)} if "seats" in game.default_options else {}
        try:
            count = game.seat_count(options)
        except RuleError as error:
            raise ServiceError(f"{game.name}: {error}") from None
        if len(chosen) != count:
            raise ServiceError(f"{game.name} needs {count} players, you picked {len(chosen)}")
        if len({p.pk for p in chosen}) != len(chosen):
            raise ServiceError("pick each player once")
        out = [p.name for p in chosen if p.status == SeasonPlayer.ELIMINATED]
        if out:
            raise ServiceError(f"{', '.join(out)} {'is' if len(out) == 1 else 'are'} eliminated; "
                               "reinstate them first to seat them")
        if elimination and count != 2:
            raise ServiceError("only a 2-player match can be the elimination match")
        match = services.create_match(game_slug, options=options, seat_names=[p.name for p in chosen], bouts=bouts,
                                      season=season, elimination=elimination)
        for seat, player in zip(match.seats.order_by("number"), chosen, strict=True):
            if seat.season_player_id != player.pk:
                seat.season_player = player
                seat.save(update_fields=["season_player"])
        if key is not None:
            SeasonEvent.objects.filter(season=season, match=match, kind="match").update(key=seasons.form_key(key))
        return match
