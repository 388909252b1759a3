"""Season announcements: an outbox drained after commit, never on a request's path.

`announce(season, text)` writes a `WebhookPost` row inside the transaction of
what it announces (so a refused or rolled-back action announces nothing, and
a committed one is announced exactly once) and wakes the worker after commit.
The worker (`WORKER`) is a daemon thread in each web process (started like the
clock sweeper, matches/core/runtime.py) and/or `manage.py run_webhooks`; several of them
may run: each attempt is claimed by compare-and-swap on `attempts`, like the
sweeper's time-outs.  A delivery is one httpx POST with a short timeout;
failures are retried with a growing delay (Discord's 429 `Retry-After` is
honoured) and the season's last error is kept for its manage page.  Posts of
one season go out in order: a later one waits while an earlier one is retried.

The payload is Discord's `{"content": ...}` (with no mention allowed); the
same text is also sent as Slack's `"text"`, escaped as Slack asks (`&`, `<`,
`>`), so a name like `<!channel>` is shown, never acted on, and a Slack-style
incoming webhook works with the same URL field.  No secret link is ever
posted: `announce` refuses text that contains any seat, host or manage token
of the season.

A season host chooses the URL, so the server must not become their way into
its own network: every connection goes through `safe_http`, which resolves the
host once, refuses private, local and reserved addresses (unless
DEATHMATCH_WEBHOOK_ALLOW_PRIVATE) and connects to the address it checked; no
redirect is followed, and of a failed post only its status code is kept (its
body may be an internal service's).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from matches.core import runtime
from matches.models import Match, Season, Seat, WebhookPost
from matches.seasons import safe_http

log = logging.getLogger(__name__)

#: Discord refuses longer messages
MAX_CONTENT = 2000
#: attempts before a post is given up ("failed"); delays between them grow
MAX_ATTEMPTS = 6
BACKOFF = (2, 10, 30, 120, 600)
#: how long a claimed attempt may take before another worker may retry it
LEASE = timedelta(seconds=60)

_wake = threading.Event()


class WebhookError(ValueError):
    """A webhook URL the app will not post to; the message is shown to the host."""


def check_url(url: str) -> str:
    """The URL cleaned, or WebhookError with a sentence saying what is wrong."""
    url = url.strip()
    if not url:
        return ""
    if len(url) > 500:
        raise WebhookError("the webhook URL is too long (at most 500 characters)")
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        raise WebhookError("the webhook URL cannot contain spaces or control characters")
    try:  # parsed as the client that posts will parse it, so the host checked is the host posted to
        parts = httpx.URL(url)
    except httpx.InvalidURL as error:
        raise WebhookError(f"the webhook URL is not a valid address ({error})") from error
    if parts.scheme not in ("http", "https") or not parts.host:
        raise WebhookError("the webhook URL must start with https:// (or http://) and name a host")
    if parts.port is not None and not 0 < parts.port < 65536:
        raise WebhookError(f"the webhook URL names port {parts.port}; ports go from 1 to 65535")
    if not allow_private():
        problem = safe_http.refusal(parts.host)
        if problem:
            raise WebhookError(problem)
    return url


def allow_private() -> bool:
    """Local and private addresses are allowed while developing (and in tests),
    refused in production: a season host must not make the server post into
    its own network."""
    return bool(getattr(settings, "DEATHMATCH_WEBHOOK_ALLOW_PRIVATE", settings.DEBUG))


def slack_escape(text: str) -> str:
    """Text Slack shows as typed: only `&`, `<` and `>` are control characters
    there (Slack's "Escaping text"), e.g. `<!channel>` would notify everyone."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# -- writing ------------------------------------------------------------------------------


def secrets_of(season: Season) -> set[str]:
    """Every secret token an announcement of `season` must never contain."""
    tokens = {season.manage_token}
    matches = Match.objects.filter(season=season)
    tokens.update(matches.values_list("host_token", flat=True))
    tokens.update(Seat.objects.filter(match__season=season).values_list("token", flat=True))
    tokens.update(season.players.values_list("personal_token", flat=True))  # each player's personal page
    return {t for t in tokens if t}


#: who else posts a season's announcements (inside the announcing transaction): the Discord bot
#: in a season's channel (`matches.discord.season_hosting.announce`, subscribed in `MatchesConfig.ready`, as
#: this layer never imports the one beside web)
_listeners: list[Callable[[Season, str], None]] = []


def listen(callback: Callable[[Season, str], None]) -> None:
    """`callback(season, text)` is called with every announcement that passed the secret-link check,
    inside its transaction."""
    if callback not in _listeners:
        _listeners.append(callback)


def announce(season: Season, text: str) -> WebhookPost | None:
    """Queue `text` for the season's webhook and its listeners (inside the caller's transaction)."""
    if not season.webhook_url and not _listeners:
        return None
    text = text.strip()
    if len(text) > MAX_CONTENT:
        text = text[: MAX_CONTENT - 1] + "…"
    leaked = [t for t in secrets_of(season) if t in text]
    if leaked:  # a bug, never a message: keep the secret, drop the post
        log.error("refused to announce a secret link for season %s", season.pk)
        return None
    for callback in _listeners:
        callback(season, text)
    if not season.webhook_url:
        return None
    post = WebhookPost.objects.create(season=season, content=text, next_attempt=timezone.now())
    transaction.on_commit(_wake.set)
    return post


# -- delivering ----------------------------------------------------------------------------


def deliver_due(now: datetime | None = None, *, client: httpx.Client | None = None, limit: int = 50) -> int:
    """Attempt every post that is due (the oldest pending post of each season);
    returns how many were delivered."""
    now = now or timezone.now()
    due = list(
        WebhookPost.objects.filter(status=WebhookPost.PENDING, next_attempt__lte=now)
        .order_by("id")
        .values_list("id", "season_id")[: limit * 4]
    )
    first: dict[int, int] = {}
    for pk, season_id in due:
        first.setdefault(season_id, pk)
    delivered = 0
    own = client is None
    client = client or safe_http.client(timeout=timeout(), allow_private=allow_private())
    try:
        for season_id, pk in list(first.items())[:limit]:
            earlier = WebhookPost.objects.filter(season_id=season_id, status=WebhookPost.PENDING, id__lt=pk)
            if earlier.exists():  # keep the season's order: its earlier post is still being retried
                continue
            delivered += int(_attempt(pk, now, client))
    finally:
        if own:
            client.close()
    return delivered


def timeout() -> float:
    return float(getattr(settings, "DEATHMATCH_WEBHOOK_TIMEOUT", 5.0))


def _attempt(pk: int, now: datetime, client: httpx.Client) -> bool:
    post = WebhookPost.objects.select_related("season").filter(pk=pk).first()
    if post is None or post.status != WebhookPost.PENDING:
        return False
    # claim this attempt (another worker that read the same row gets 0 rows)
    claimed = WebhookPost.objects.filter(pk=pk, status=WebhookPost.PENDING, attempts=post.attempts).update(
        attempts=F("attempts") + 1, next_attempt=now + LEASE
    )
    if not claimed:
        return False
    attempts = post.attempts + 1
    url = post.season.webhook_url
    if not url:
        WebhookPost.objects.filter(pk=pk).update(status=WebhookPost.FAILED, last_error="no webhook URL any more")
        return False
    error, retry_after = _post(client, url, post.content)
    finished = timezone.now()
    if error is None:
        WebhookPost.objects.filter(pk=pk).update(status=WebhookPost.SENT, sent=finished, last_error="")
        Season.objects.filter(pk=post.season_id).update(webhook_ok_at=finished)
        return True
    give_up = attempts >= MAX_ATTEMPTS
    delay = retry_after if retry_after is not None else BACKOFF[min(attempts, len(BACKOFF)) - 1]
    WebhookPost.objects.filter(pk=pk).update(
        status=WebhookPost.FAILED if give_up else WebhookPost.PENDING,
        last_error=error,
        next_attempt=finished + timedelta(seconds=delay),
    )
    note = f"{error} (attempt {attempts} of {MAX_ATTEMPTS}{'; given up' if give_up else ''})"
    Season.objects.filter(pk=post.season_id).update(webhook_error=note[:1000], webhook_error_at=finished)
    log.warning("webhook of season %s failed: %s", post.season_id, note)
    return False


def _post(client: httpx.Client, url: str, text: str) -> tuple[str | None, float | None]:
    """(None, None) when delivered, else (a sentence for the host, seconds to wait if the server said).
    The reply's body is never read: it may be an internal service's, and only its status is shown."""
    payload: dict[str, Any] = {"content": text, "text": slack_escape(text), "allowed_mentions": {"parse": []}}
    try:
        with client.stream("POST", url, json=payload) as response:
            status, retry_header = response.status_code, response.headers.get("retry-after", "")
    except httpx.TimeoutException:
        return f"the webhook did not answer within {timeout():g} s", None
    except safe_http.RefusedAddress as error:
        return str(error), None
    except httpx.ConnectError as error:  # said by our own socket, e.g. "connection refused"
        return f"could not reach the webhook: {error}"[:300], None
    except httpx.HTTPError as error:
        # its text may quote the reply (a non-HTTP service's, say): name the kind only
        return f"could not reach the webhook ({type(error).__name__})", None
    except httpx.InvalidURL:
        return "the webhook URL is not a valid address", None
    if 200 <= status < 300:
        return None, None
    retry_after = None
    if status == 429:
        try:
            retry_after = min(3600.0, max(1.0, float(retry_header)))
        except ValueError:
            retry_after = None
    return f"the webhook answered HTTP {status}", retry_after


# -- the worker (matches/core/runtime.py runs it) -----------------------------------------------


@contextlib.contextmanager
def _rounds() -> Iterator[runtime.Step]:
    """The worker's rounds share one HTTP client (its connections) for as long as it runs."""
    with safe_http.client(timeout=timeout(), allow_private=allow_private()) as client:
        yield lambda: deliver_due(client=client)


WORKER = runtime.Worker(
    name="webhooks", rounds=_rounds, wake=_wake, done="delivered {} announcement(s)",
    enabled="DEATHMATCH_INPROCESS_WEBHOOKS", idle="DEATHMATCH_WEBHOOK_INTERVAL", idle_default=2.0)


def wake() -> None:
    _wake.set()
