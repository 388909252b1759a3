"""Season announcements against a real local HTTP server started here, which
records every post: what a season's channel hears, that nothing is posted on
a move's path, retries of a failing or silent endpoint (play goes on), the
season's order, and that no secret link is ever posted."""

from __future__ import annotations

import datetime as dt
import json
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from matches.core import runtime
from matches.models import Seat, WebhookPost
from matches.play import season_matches, services
from matches.seasons import ledger as seasons
from matches.seasons import safe_http, webhooks
from tests.hookserver import Hook
from tests.matches.seasons.test_seasons import NAMES, orders, plan, play_rounds

pytestmark = pytest.mark.django_db


@pytest.fixture
def hook() -> Iterator[Hook]:
    server = Hook()
    yield server
    server.close()


@pytest.fixture
def season(hook: Hook) -> Any:
    season = seasons.create_season("Spring", webhook_url=hook.url, base_url="https://dm.example.org")
    for name in NAMES:
        seasons.add_player(season, name)
    return season


def drain(now: dt.datetime | None = None) -> int:
    """Deliver everything due now (several rounds: a season's posts go in order)."""
    total = 0
    while True:
        sent = webhooks.deliver_due(now or timezone.now())
        total += sent
        if not sent:
            return total


def secrets_of(season: Any) -> list[str]:
    tokens = [season.manage_token, *season.matches.values_list("host_token", flat=True)]
    return tokens + list(Seat.objects.filter(match__season=season).values_list("token", flat=True))


def test_the_channel_hears_every_step_of_a_season_and_never_a_secret(season: Any, hook: Hook) -> None:
    match = season_matches.create_season_match(season, "back-to-the-wall", [season.players.get(name=n).pk for n in NAMES])
    seasons.adjust_garnets(season, season.players.get(name="Bob"), 1, "start")
    services.start_match(match)
    play_rounds(match, plan(0, {(1, 2): ("once",)}))
    candidate = season.players.get(status="candidate")
    other = season.players.exclude(pk=candidate.pk).first()
    duel = season_matches.create_season_match(season, "squava", [other.pk, candidate.pk], elimination=True)
    services.start_match(duel)
    services.forfeit(duel, 2)
    assert hook.posts == []  # nothing leaves before the worker runs
    drain()
    texts = hook.texts
    watch = f"https://dm.example.org/w/{match.watch_token}/"
    assert texts[:2] == ["**Spring**: season Spring opened", "**Spring**: Ann joins the roster"]
    assert f"**Spring**: new match: Back to the Wall #{match.pk} (Ann, Bob, Cy, Di). Watch: {watch}" in texts
    assert f"**Spring**: Back to the Wall #{match.pk} (Ann, Bob, Cy, Di) has started. Watch: {watch}" in texts
    assert any(t.startswith("**Spring**: garnets: ") and "Bob -1 (spent on Once" in t for t in texts)
    assert any(t.endswith("earns a Token of Life") for t in texts)
    assert any(f"{candidate.name} finished last in Back to the Wall" in t and "Elimination Candidate" in t
               for t in texts)
    assert any(t.startswith(f"**Spring**: Back to the Wall #{match.pk} (Ann, Bob, Cy, Di) is over: ") for t in texts)
    assert f"**Spring**: {candidate.name} lost the elimination match and is eliminated" in texts
    assert all(p["text"] == p["content"] for p in hook.posts)  # Slack-style hooks read "text"
    everything = json.dumps(hook.posts)
    assert [t for t in secrets_of(season) if t in everything] == []
    assert "/h/" not in everything and "/p/" not in everything and "/s/" not in everything


def test_a_move_never_waits_for_the_webhook(season: Any, hook: Hook) -> None:
    match = season_matches.create_season_match(season, "back-to-the-wall", [season.players.get(name=n).pk for n in NAMES])
    hook.replies = ["hang"] * 10
    services.start_match(match)
    bout = match.bouts.get()
    services.submit(match, 1, orders(1, 1, random.Random(0)), bout.version)
    assert hook.requests == 0  # the move's path posted nothing
    # the season, its 4 players, the match created and started: queued, none sent
    assert WebhookPost.objects.filter(status=WebhookPost.PENDING).count() == 7


def test_a_failing_endpoint_is_retried_and_play_goes_on(season: Any, hook: Hook, settings: Any) -> None:
    settings.DEATHMATCH_WEBHOOK_TIMEOUT = 0.3
    WebhookPost.objects.all().delete()
    hook.replies = [500, "hang"]
    seasons.test_webhook(season)
    now = timezone.now()
    assert webhooks.deliver_due(now) == 0
    season.refresh_from_db()
    assert season.webhook_error.startswith("the webhook answered HTTP 500 (attempt 1 of 6)")
    post = WebhookPost.objects.get()
    assert post.status == "pending" and post.attempts == 1 and post.next_attempt > now
    assert webhooks.deliver_due(now) == 0  # not due yet
    # meanwhile play goes on
    match = season_matches.create_season_match(season, "squava", [season.players.get(name=n).pk for n in ("Ann", "Bob")])
    services.start_match(match)
    services.submit(match, 1, "C3", match.bouts.get().version)
    later = now + dt.timedelta(seconds=5)
    assert webhooks.deliver_due(later) == 0  # the silent one
    season.refresh_from_db()
    assert season.webhook_error.startswith("the webhook did not answer within 0.3 s (attempt 2 of 6)")
    assert drain(later + dt.timedelta(seconds=60)) == 3  # the test post, then the match's posts, in order
    assert hook.texts[0].endswith("test announcement: this channel will hear about the season")
    assert "new match: Squava" in hook.texts[1] and "has started" in hook.texts[2]
    season.refresh_from_db()
    assert season.webhook_ok_at is not None and hook.requests == 5


def test_a_post_is_given_up_after_the_last_attempt_and_the_next_one_goes(season: Any, hook: Hook) -> None:
    WebhookPost.objects.all().delete()
    hook.replies = [503] * webhooks.MAX_ATTEMPTS
    seasons.test_webhook(season)
    seasons.grant_token(season, season.players.get(name="Cy"))
    when = timezone.now()
    for _ in range(webhooks.MAX_ATTEMPTS):
        webhooks.deliver_due(when)
        when += dt.timedelta(hours=1)
    webhooks.deliver_due(when)
    first, second = WebhookPost.objects.order_by("id")
    assert (first.status, first.attempts) == ("failed", webhooks.MAX_ATTEMPTS)
    assert second.status == "sent" and hook.texts == ["**Spring**: Cy receives a Token of Life (granted by the host)"]
    season.refresh_from_db()
    assert season.webhook_error == "the webhook answered HTTP 503 (attempt 6 of 6; given up)"
    assert hook.requests == webhooks.MAX_ATTEMPTS + 1


def test_discords_retry_after_is_honoured(season: Any, hook: Hook) -> None:
    WebhookPost.objects.all().delete()
    hook.replies = [429]
    hook.headers = {"Retry-After": "30"}
    seasons.test_webhook(season)
    now = timezone.now()
    webhooks.deliver_due(now)
    post = WebhookPost.objects.get()
    assert post.status == "pending" and post.next_attempt >= now + dt.timedelta(seconds=30)


def test_a_refused_or_doubled_action_announces_nothing(season: Any, hook: Hook) -> None:
    WebhookPost.objects.all().delete()
    with pytest.raises(services.ServiceError):
        seasons.adjust_garnets(season, season.players.get(name="Ann"), -1, "fine")
    seasons.grant_token(season, season.players.get(name="Ann"), key="token-key-1")
    with pytest.raises(seasons.AlreadyDone):
        seasons.grant_token(season, season.players.get(name="Ann"), key="token-key-1")
    assert WebhookPost.objects.count() == 1


def test_no_secret_link_is_ever_queued(season: Any) -> None:
    match = season_matches.create_season_match(season, "squava", [season.players.get(name=n).pk for n in ("Ann", "Bob")])
    before = WebhookPost.objects.count()
    for secret in [season.manage_token, match.host_token, match.seats.get(number=1).token]:
        assert webhooks.announce(season, f"join at https://dm.example.org/p/{secret}/") is None
    assert WebhookPost.objects.count() == before


def test_webhook_urls_are_checked(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.DEATHMATCH_WEBHOOK_ALLOW_PRIVATE = False
    real = safe_http.resolve  # and discord.com resolves to a public address without a network
    monkeypatch.setattr(safe_http, "resolve", lambda host: ["162.159.128.233"] if host == "discord.com" else real(host))
    for url, message in [("ftp://x.org/h", "must start with https://"), ("https:///nohost", "must start"),
                         ("http://127.0.0.1:9/h", "private or local"), ("http://localhost/h", "private or local"),
                         ("http://[::1]/h", "private or local"), ("http://10.1.2.3/h", "private or local"),
                         ("https://no-such-host.invalid/h", "no-such-host.invalid could not be found"),
                         ("http://x.org:99999/h", "ports go from 1 to 65535")]:
        with pytest.raises(webhooks.WebhookError, match=message):
            webhooks.check_url(url)
    assert webhooks.check_url(" https://discord.com/api/webhooks/1/x ") == "https://discord.com/api/webhooks/1/x"
    assert webhooks.check_url("") == ""


@pytest.mark.django_db(transaction=True)
def test_the_worker_thread_posts_after_commit(hook: Hook) -> None:
    season = seasons.create_season("Thread", webhook_url=hook.url)
    stop = threading.Event()
    worker = threading.Thread(target=runtime.run, args=(webhooks.WORKER, 0.05), kwargs={"stop": stop}, daemon=True)
    worker.start()
    try:
        seasons.add_player(season, "Ann")
        deadline = time.monotonic() + 10
        while len(hook.posts) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        worker.join(5)
    assert hook.texts == ["**Thread**: season Thread opened", "**Thread**: Ann joins the roster"]
