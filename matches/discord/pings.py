"""Your-turn pings: a Discord player whose turn it is (or whom a sealed round waits on) and who has had
no page of the match open for `AWAY` seconds gets one DM with their seat link, once for that turn.

A turn is the bout's `round_version` (the version at which the turn or sealed round began): the
ping's outbox key is made of it, so any number of workers queue it once, and the next turn may be
pinged again.  "No page open" is presence's answer (`core.away.presence`, shared by every web
process; see `_presence`); a seat that never opened its page has been away since its turn began.
Presence unknown because Redis does not answer pings nobody.  Off for a match whose host said `pings:false`; never for a computer
player, never while the host holds the clocks (an away pause still pings: that player is the one
the match waits on)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.utils import timezone

from games.registry import get_game
from matches.core import away
from matches.core.audiences import viewer_label
from matches.discord import hosting, outbox
from matches.live import presence
from matches.models import Bout, DiscordMatch, DiscordMessage, Match, Seat, TurnLog

log = logging.getLogger(__name__)

#: seconds without a page open before a player is pinged on their turn
AWAY = 30.0


def queue_due(now: datetime | None = None) -> int:
    """Queue every ping that is due; the number queued."""
    now = now or timezone.now()
    queued = 0
    records = DiscordMatch.objects.filter(pings=True, match__status=Match.RUNNING).select_related("match")
    for record in records:
        match = record.match
        if match.paused and match.away_paused is None:
            continue  # the host holds the clocks: nobody is waited on
        try:
            queued += _queue_match(record, match, now)
        except Exception:  # one broken match must not stop the others' pings
            log.exception("your-turn pings failed for match %s", match.pk)
    return queued


def _queue_match(record: DiscordMatch, match: Match, now: datetime) -> int:
    bout = Bout.objects.filter(match=match, finished__isnull=True).order_by("-number").first()
    if bout is None:
        return 0
    game = get_game(match.game_slug)
    waiting = game.pending(game.load(bout.state))
    if not waiting:
        return 0
    seats = Seat.objects.filter(match=match, number__in=waiting, bot="", discord__isnull=False).select_related("discord")
    queued = 0
    started: float | None = None
    for seat in seats:
        key = f"ping:{bout.pk}:{bout.round_version}:{seat.number}"
        if DiscordMessage.objects.filter(key=key).exists():
            continue
        count, left = _presence(match.pk, seat.number)
        if count is None or count > 0:
            continue
        if started is None:
            started = _turn_began(bout)
        since = max(left or 0.0, started)
        if now.timestamp() - since < AWAY:
            continue
        link = hosting.link(record.base_url, "player_page", seat.token)
        queued += outbox.dm(key, match, seat.discord.user_id,
                            f"It is your turn in {game.name} ({seat.name}, bout {bout.number}): {link}", seat=None)
    return queued


def _presence(match_id: int, seat: int) -> tuple[int | None, float | None]:
    """(open pages, when the last one closed) of a seat; (None, None) when nobody can tell.

    Presence answers "unknown" both when Redis does not answer and when no page of the match has
    been open for a minute (it keeps a match's "known" mark only while some page is open, so that a
    Redis restarted empty is not read as everyone gone).  A match nobody has open is exactly when a
    ping matters, so the store is asked again without that mark: when Redis answers, its count is
    the truth but for the seconds after a restart that emptied it (a player with a page open may
    then be pinged once for the turn; presence's heartbeat adds them back within 20 s)."""
    count, left = away.presence(match_id, seat)
    if count is not None:
        return count, left
    name = presence.key(match_id, viewer_label(seat))
    try:
        return presence.store.counts([name])[0], presence.store.left([name])[0]
    except Exception:  # Redis does not answer: decide nothing
        return None, None


def _turn_began(bout: Bout) -> float:
    """When the current turn (or sealed round) began: the log entry that made its version, else the bout's start."""
    at = TurnLog.objects.filter(bout=bout, version=bout.round_version).order_by("-id").values_list(
        "created", flat=True).first()
    return (at or bout.started).timestamp()
