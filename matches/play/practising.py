"""Practice against the computer: creating one, bounded per client (issue 51).

Every computer player is played by the bots' workers, so one client with many strong practice
matches slows everyone's: a browser may have `BROWSER_LIMIT` practice matches running at once, an
address `ADDRESS_LIMIT` (a room of players behind one router).  The browser is a digest of its CSRF
cookie (the web layer's `forms.form_client`, as the practice form's double-submit key), the address
its network (config.ratelimits.client_network: an IPv6 client by its /64); both are kept on the
match (`Match.practice_browser`, `Match.practice_address`).

The bound holds in the database, inside the creating transaction: it first locks its client's
`PracticeClient` rows (the browser's, then the address's: always in that order), so two posts at
once are counted one after the other; on SQLite every write transaction already runs alone
(settings: transaction_mode IMMEDIATE).  A practice match nobody has a page of for
`sweeper.abandoned_after()` ends as abandoned (`sweeper.sweep_abandoned`), which frees its place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import QuerySet

from matches.core.errors import ServiceError
from matches.models import Match, PracticeClient
from matches.play import bots, services

BROWSER_LIMIT = 3
ADDRESS_LIMIT = 10


@dataclass(frozen=True)
class Running:
    """A practice match the client has running: `seat_token` is the player's own seat link when
    the match is this browser's, else "" (another browser's link is never handed out)."""

    match: Match
    seat_token: str


class TooManyPractice(ServiceError):
    """The client has its limit of practice matches running (`scope` "browser" or "address");
    `running`: them, oldest first.  The web layer says it in one sentence, with links to its own."""

    def __init__(self, scope: str, limit: int, running: Sequence[Running]) -> None:
        super().__init__(f"{limit} practice matches are running already: one must end before another starts")
        self.scope, self.limit, self.running = scope, limit, list(running)


def create(game_slug: str, seat_names: Sequence[str], mine: int, strength: str, *, key: str | None,
           browser: str | None, address: str | None) -> Match:
    """A one-bout practice match, started, with the computer (`strength`) in every seat but `mine`,
    for the client (`browser`, `address`: see the module's docstring).  A doubled submit (`key`)
    finds its first match (`services.AlreadyCreated`) even at the limit; past the limit
    `TooManyPractice`, and nothing is created."""
    with transaction.atomic():
        for name in (f"browser:{browser}" if browser else "", f"address:{address}" if address else ""):
            if name:
                PracticeClient.objects.get_or_create(key=name)
                PracticeClient.objects.select_for_update().get(key=name)  # held until the commit
        # (after the locks: a doubled submit that waited for its first one sees what it made)
        if key is not None and (found := Match.objects.filter(create_key=key).first()) is not None:
            raise services.AlreadyCreated(found)
        _refuse_past_limits(browser, address)
        match = services.create_match(game_slug, seat_names=seat_names, bouts=1, practice=True, key=key)
        Match.objects.filter(pk=match.pk).update(practice_browser=browser, practice_address=address)
        match.practice_browser, match.practice_address = browser, address
        for number in range(1, len(seat_names) + 1):
            if number != mine:
                bots.set_bot(match, number, strength)
        services.start_match(match, starting_seat=1)
    return match


def _refuse_past_limits(browser: str | None, address: str | None) -> None:
    live = Match.objects.filter(status=Match.RUNNING, format__practice=True)
    if browser and live.filter(practice_browser=browser).count() >= BROWSER_LIMIT:
        raise TooManyPractice("browser", BROWSER_LIMIT, _running(live.filter(practice_browser=browser), browser))
    if address and live.filter(practice_address=address).count() >= ADDRESS_LIMIT:
        raise TooManyPractice("address", ADDRESS_LIMIT, _running(live.filter(practice_address=address), browser))


def _running(matches: QuerySet[Match], browser: str | None) -> list[Running]:
    rows = list(Match.objects.filter(pk__in=matches).order_by("created", "id").prefetch_related("seats"))
    out = []
    for match in rows:
        own = next((s.token for s in match.seats.all() if not s.bot), "") if browser and \
            match.practice_browser == browser else ""
        out.append(Running(match, own))
    return out
