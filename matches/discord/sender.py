"""The Discord worker: sends the outbox (`DiscordMessage`) and queues the your-turn pings, after
commit and never on a request's path.

`run_round()` is one pass: forget expired interaction tokens and the answered interaction ids no
signature can bring back, queue the pings that are due (`pings.queue_due`), send every message that
is due.  `WORKER` repeats it (matches/core/runtime.py),
at once when a commit in this process queued a message (`outbox.wake`), else every `interval`
seconds.  It runs as a daemon thread in each web process of a Discord application and/or as
`manage.py run_discord`; any number of them may run: each attempt is claimed by compare-and-swap on
`attempts` (the season webhooks' and the clock sweeper's pattern), so a message is sent once.

Discord's answers (its REST documentation's "Rate Limits" and error codes):
- 2xx: sent.  With `X-RateLimit-Remaining: 0` the route's next messages wait `X-RateLimit-Reset-After`.
- 429: the message waits `retry_after` (the body's, else the headers') and is not counted as a
  failure; with `global` every pending message waits.
- 401 to the bot token (not a follow-up's: that one carries the interaction's token): Discord refuses
  the token itself.  It is recorded (`DiscordRefusedToken`, by its digest, seen by every worker) and
  nothing is sent with it again: every 401, 403 and 429 counts toward Discord's invalid-request limit
  (10,000 in 10 minutes, then the server's address is banned from the API).  The DMs wait, not
  failed, no ping is queued, follow-ups still go; a new DISCORD_BOT_TOKEN sends them.
- 5xx or no answer: tried again after 2, 10, 30, 120 then 600 s; given up after `MAX_ATTEMPTS`.
- any other 4xx: given up at once with the reason logged.  A seat link's DM refused with 403
  (code 50007: the player's DMs are closed) is told to the host in an ephemeral follow-up with the link.
The last failure of a match's messages is kept on its `DiscordMatch` for the host's dashboard.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import httpx
from django.db.models import F, Q
from django.utils import timezone

from matches.core import runtime
from matches.discord import api, bans, choices, hosting, outbox, pings, season_hosting
from matches.models import DiscordMatch, DiscordMessage, DiscordRefusedToken, Seat

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6
BACKOFF = (2, 10, 30, 120, 600)
#: how long a claimed attempt may take before another worker may take the message again
LEASE = timedelta(seconds=60)

def run_round(http: httpx.Client, now: datetime | None = None) -> int:
    """One pass of the worker; the number of messages sent."""
    hosting.expire_tokens(now)
    hosting.forget_interactions(now)
    if not token_refused():  # a ping queued now would be stale by the time a new token sends it
        pings.queue_due(now)
        choices.queue_picks()
        bans.queue_duels()
    return deliver_due(http, now)


def token_refused() -> bool:
    """Discord answered 401 to the bot token in the settings: nothing goes out with it."""
    return DiscordRefusedToken.of(api.bot_token()) is not None


def deliver_due(http: httpx.Client, now: datetime | None = None, limit: int = 100) -> int:
    now = now or timezone.now()
    pending = DiscordMessage.objects.filter(status=DiscordMessage.PENDING, next_attempt__lte=now)
    refused = token_refused()
    if refused:  # a follow-up carries the interaction's token, not the bot's: it still goes
        pending = pending.filter(kind=DiscordMessage.FOLLOWUP)
    due = list(pending.order_by("next_attempt", "id").values_list("id", flat=True)[:limit])
    sent = 0
    for pk in due:
        if not refused:
            refused = token_refused()  # (another worker's 401, or this round's)
        sent += _attempt(pk, now, http, bot_token=not refused)
    return sent


def _attempt(pk: int, now: datetime, http: httpx.Client, *, bot_token: bool = True) -> bool:
    message = DiscordMessage.objects.filter(pk=pk, status=DiscordMessage.PENDING).first()
    if message is not None and message.kind == DiscordMessage.DM and not bot_token:
        return False
    if message is None or message.next_attempt > now:  # (a rate limit moved it since it was listed)
        return False
    claimed = DiscordMessage.objects.filter(pk=pk, status=DiscordMessage.PENDING, attempts=message.attempts,
                                            next_attempt__lte=now).update(
        attempts=F("attempts") + 1, next_attempt=now + LEASE)
    if not claimed:  # another worker took it
        return False
    attempts = message.attempts + 1
    try:
        outcome = _send(http, message)
    except Exception:  # a bug here must not leave the message claimed and tried for ever
        log.exception("discord message %s could not be sent", message.key)
        outcome = api.Outcome(False, error="the server failed while sending it", retry=True)
    finished = timezone.now()
    if outcome.ok:
        where = outcome.body if isinstance(outcome.body, dict) and message.kind == DiscordMessage.DM else {}
        DiscordMessage.objects.filter(pk=pk).update(status=DiscordMessage.SENT, sent=finished, last_error="",
                                                    interaction_token="",
                                                    sent_channel=str(where.get("channel_id") or "")[:24],
                                                    sent_message=str(where.get("id") or "")[:24])
        if outcome.bucket_wait:
            _hold_route(message, finished + timedelta(seconds=outcome.bucket_wait))
        return True
    if outcome.status == 401 and outcome.bot_token:
        # Discord refused the bot token itself: every message waits for a new one, none fails for it
        _refuse_token(outcome)
        DiscordMessage.objects.filter(pk=pk).update(attempts=F("attempts") - 1, next_attempt=finished,
                                                    last_error=outcome.error)
        return False
    if outcome.status == 429:  # not a failure: Discord said when to come back
        until = finished + timedelta(seconds=outcome.retry_after or 1.0)
        DiscordMessage.objects.filter(pk=pk).update(attempts=F("attempts") - 1, next_attempt=until,
                                                    last_error=outcome.error)
        if outcome.global_limit:
            DiscordMessage.objects.filter(status=DiscordMessage.PENDING, next_attempt__lt=until).update(
                next_attempt=until)
        else:
            _hold_route(message, until)
        log.info("discord message %s waits %.1f s: rate limited%s", message.key, outcome.retry_after or 1.0,
                 " (global)" if outcome.global_limit else "")
        return False
    give_up = not outcome.retry or attempts >= MAX_ATTEMPTS
    delay = BACKOFF[min(attempts, len(BACKOFF)) - 1]
    DiscordMessage.objects.filter(pk=pk).update(
        status=DiscordMessage.FAILED if give_up else DiscordMessage.PENDING, last_error=outcome.error[:1000],
        next_attempt=finished + timedelta(seconds=delay), **({"interaction_token": ""} if give_up else {}))
    note = (f"{_what(message)}: {outcome.error} "
            f"({'given up' if give_up else f'attempt {attempts} of {MAX_ATTEMPTS}, tried again in {delay} s'})")
    if message.match_id is not None:
        DiscordMatch.objects.filter(match_id=message.match_id).update(last_error=note[:1000], last_error_at=finished)
    log.warning("discord message %s failed: %s", message.key, note)
    if give_up and message.kind == DiscordMessage.DM and outcome.status == 403:
        # 50007 "Cannot send messages to this user" (DMs closed), or another refusal of this user's DMs
        hosting.dm_closed(message)
        season_hosting.dm_closed(message)
    return False


def _refuse_token(outcome: api.Outcome) -> None:
    """Remember that Discord refused the bot token (by its digest), once, in every process's sight."""
    token = api.bot_token()
    DiscordRefusedToken.objects.get_or_create(digest=DiscordRefusedToken.digest_of(token),
                                              defaults={"error": outcome.error[:1000]})
    log.error("Discord refused the bot token (%s): no message is sent until DISCORD_BOT_TOKEN changes",
              outcome.error)


def _send(http: httpx.Client, message: DiscordMessage) -> api.Outcome:
    body: dict[str, Any] = {"content": message.content, "allowed_mentions": {"parse": []}}
    if message.components or message.kind == DiscordMessage.EDIT:  # (an edit's [] removes the buttons)
        body["components"] = message.components
    if message.kind == DiscordMessage.EDIT:
        target = DiscordMessage.objects.filter(key=message.target).first()
        if target is None or target.status == DiscordMessage.FAILED:
            return api.Outcome(False, error="the message to edit was never sent")
        if not target.sent_message:  # sent later: this edit waits for it
            return api.Outcome(False, error="the message to edit is not sent yet", retry=True)
        return api.call(http, "PATCH", f"/channels/{target.sent_channel}/messages/{target.sent_message}", body)
    if message.kind == DiscordMessage.FOLLOWUP:
        if not api.INTERACTION_TOKEN.match(message.interaction_token or ""):
            return api.Outcome(False, error="the interaction's token has expired or is not one")
        if message.ephemeral:
            body["flags"] = 64  # EPHEMERAL: only the invoker sees it
        return api.call(http, "POST", f"/webhooks/{api.application_id()}/{message.interaction_token}", body,
                        auth=False)
    if message.kind == DiscordMessage.CHANNEL:  # a season's announcement, in its channel
        if not api.SNOWFLAKE.match(message.channel_id):
            return api.Outcome(False, error="the season's channel is not a Discord channel id")
        return api.call(http, "POST", f"/channels/{message.channel_id}/messages", body)
    if not api.SNOWFLAKE.match(message.recipient):
        return api.Outcome(False, error="the recipient is not a Discord user id")
    opened = api.call(http, "POST", "/users/@me/channels", {"recipient_id": message.recipient})
    if not opened.ok:
        return opened
    channel = opened.body.get("id") if isinstance(opened.body, dict) else None
    if not isinstance(channel, str) or not api.SNOWFLAKE.match(channel):
        return api.Outcome(False, error="Discord opened no DM channel", retry=True)
    sent = api.call(http, "POST", f"/channels/{channel}/messages", body)
    if opened.bucket_wait and sent.ok:  # the DM-opening route's bucket is empty: the next DMs wait
        return replace(sent, bucket_wait=max(opened.bucket_wait, sent.bucket_wait or 0.0))
    return sent


def _hold_route(message: DiscordMessage, until: datetime) -> None:
    """The messages that share `message`'s rate-limit bucket wait until `until`: every DM (they
    share the DM-opening route), or every follow-up of the same interaction."""
    same = (Q(kind=DiscordMessage.DM) if message.kind == DiscordMessage.DM
            else Q(kind=DiscordMessage.FOLLOWUP, interaction_token=message.interaction_token))
    DiscordMessage.objects.filter(same, status=DiscordMessage.PENDING, next_attempt__lt=until).exclude(
        pk=message.pk).update(next_attempt=until)


def _what(message: DiscordMessage) -> str:
    if message.kind == DiscordMessage.FOLLOWUP:
        return "reply to the host" if message.ephemeral else "post in the channel"
    if message.kind == DiscordMessage.CHANNEL:
        return "post in the season's channel"
    name = None
    if message.match_id is not None and message.seat is not None:
        name = Seat.objects.filter(match_id=message.match_id, number=message.seat).values_list("name", flat=True).first()
    return f"DM to {name} (seat {message.seat})" if name else "DM"


# -- the worker (matches/core/runtime.py runs it) -----------------------------------------------


@contextlib.contextmanager
def _rounds() -> Iterator[runtime.Step]:
    """The worker's rounds share one HTTP client for as long as it runs."""
    with api.client() as http:
        yield lambda: run_round(http)


# every `interval` seconds, or at once when a commit in this process queued a message (`outbox.wake`);
# the pings' 30 s are counted from presence, not from this loop
WORKER = runtime.Worker(
    name="discord", rounds=_rounds, wake=outbox.wake, done="sent {} message(s)", enabled="DEATHMATCH_INPROCESS_DISCORD",
    idle="DEATHMATCH_DISCORD_INTERVAL", idle_default=2.0, ready=api.configured,
    unready="set DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN first")
