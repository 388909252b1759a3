"""A season host's webhook URL cannot make the server post into its own
network (any spelling of a local address, a name resolving to one, or a DNS
answer that changes between check and connection), a failed post shows only
its status, and announcement text cannot ping a Slack channel.  Every post
goes to a real local HTTP server that counts the connections it accepts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import httpcore
import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Season, WebhookPost
from matches.seasons import ledger as seasons
from matches.seasons import safe_http, webhooks
from tests.hookserver import Hook

pytestmark = pytest.mark.django_db

#: a global address (example.com's, once): the "public" answer of a hostile resolver
PUBLIC = "93.184.215.14"


@pytest.fixture
def hook() -> Iterator[Hook]:
    server = Hook()
    yield server
    server.close()


@pytest.fixture
def season(hook: Hook) -> Season:
    season = seasons.create_season("Spring", webhook_url=hook.url)
    WebhookPost.objects.all().delete()
    return season


@pytest.fixture
def private_refused(settings: Any, season: Season) -> None:
    """Production's setting, after the season was made with the local hook's URL."""
    settings.DEATHMATCH_WEBHOOK_ALLOW_PRIVATE = False


def resolver(monkeypatch: pytest.MonkeyPatch, answers: dict[str, Callable[[], list[str]]]) -> None:
    """Names in `answers` resolve to what their function returns; others as the system says."""
    real = safe_http.resolve
    monkeypatch.setattr(safe_http, "resolve", lambda host: answers[host]() if host in answers else real(host))


def hostile_urls(hook: Hook) -> list[str]:
    """Loopback (where the hook listens) spelt every way a resolver accepts."""
    forms = ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "localhost", "[::ffff:127.0.0.1]", "hook.example"]
    return [f"http://{host}:{hook.port}/api/webhooks/1/abc" for host in forms]


def deliver(season: Season, url: str, when: dt.datetime | None = None) -> str:
    """Store `url` as if saved while it was allowed, queue a test post, attempt it; the season's error."""
    Season.objects.filter(pk=season.pk).update(webhook_url=url)
    season.refresh_from_db()
    if not WebhookPost.objects.filter(status=WebhookPost.PENDING).exists():
        seasons.test_webhook(season)
    webhooks.deliver_due(when or timezone.now())
    season.refresh_from_db()
    return season.webhook_error


@pytest.mark.usefixtures("private_refused")
def test_every_spelling_of_a_local_address_is_refused_on_save(
    hook: Hook, season: Season, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolver(monkeypatch, {"hook.example": lambda: ["127.0.0.1"]})
    for url in hostile_urls(hook):
        with pytest.raises(seasons.ServiceError, match=r"private or local address|not a valid address"):
            seasons.set_webhook(season, url)
    for url in ["http://[::1]/h", "http://10.1.2.3/h", "http://169.254.169.254/latest", "http://224.0.0.1/h",
                "http://0.0.0.0/h", "http://240.0.0.1/h", "http://[fe80::1]/h", "http://100.64.0.1/h"]:
        with pytest.raises(webhooks.WebhookError, match="private or local address"):
            webhooks.check_url(url)
    season.refresh_from_db()
    assert season.webhook_url == hook.url and hook.connections == 0


@pytest.mark.usefixtures("private_refused")
def test_a_stored_local_url_is_refused_without_any_connection(
    hook: Hook, season: Season, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    resolver(monkeypatch, {"hook.example": lambda: ["127.0.0.1"]})
    for url in hostile_urls(hook):
        error = deliver(season, url, timezone.now() + dt.timedelta(days=1))
        assert error.startswith(("the webhook host resolves to a private or local address (attempt",
                                 "the webhook URL is not a valid address (attempt")), (url, error)
    assert hook.connections == 0 and hook.posts == []
    assert not WebhookPost.objects.filter(status=WebhookPost.SENT).exists()


@pytest.mark.usefixtures("private_refused")
def test_a_name_with_any_private_address_is_refused(
    hook: Hook, season: Season, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolver(monkeypatch, {"localhost": lambda: [PUBLIC, "127.0.0.1"]})
    with pytest.raises(webhooks.WebhookError, match="private or local address"):
        webhooks.check_url(f"http://localhost:{hook.port}/h")
    assert deliver(season, f"http://localhost:{hook.port}/h").startswith(
        "the webhook host resolves to a private or local address (attempt 1 of 6)")
    assert hook.connections == 0


@pytest.mark.usefixtures("private_refused")
def test_a_rebinding_resolver_cannot_reach_loopback(
    hook: Hook, season: Season, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Public on the first answer, 127.0.0.1 after: the check and the connection
    use one answer.  (`localhost` also resolves to 127.0.0.1 for the system, so a
    client that resolved the name again itself would reach the hook.)  No packet
    leaves the machine: the socket layer under the guard records where it was
    asked to connect and refuses."""
    dialled: list[str] = []

    def record(self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        dialled.append(host)
        raise httpcore.ConnectError("the test connects nowhere")

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", record)
    answers = iter([[PUBLIC]])
    resolver(monkeypatch, {"localhost": lambda: next(answers, ["127.0.0.1"])})
    url = f"http://localhost:{hook.port}/api/webhooks/1/abc"
    deliver(season, url)  # public: the connection is asked of the checked address, never the name
    assert dialled == [PUBLIC] and hook.connections == 0
    later = timezone.now() + dt.timedelta(hours=1)
    assert deliver(season, url, later).startswith(  # then 127.0.0.1: refused before any connection
        "the webhook host resolves to a private or local address (attempt 2 of 6)")
    assert dialled == [PUBLIC] and hook.connections == 0 and hook.posts == []


def test_private_addresses_are_allowed_when_the_setting_says_so(
    hook: Hook, season: Season, settings: Any
) -> None:
    settings.DEATHMATCH_WEBHOOK_ALLOW_PRIVATE = True
    seasons.set_webhook(season, f"http://localhost:{hook.port}/api/webhooks/1/abc")
    WebhookPost.objects.all().delete()
    seasons.test_webhook(season)
    assert webhooks.deliver_due(timezone.now()) == 1
    assert hook.texts == ["**Spring**: test announcement: this channel will hear about the season"]


def test_a_failed_post_shows_only_its_status(
    client: Any, hook: Hook, season: Season, caplog: pytest.LogCaptureFixture
) -> None:
    hook.replies = [500]
    hook.body = b"<h1>Internal admin</h1> db password hunter2"
    seasons.test_webhook(season)
    webhooks.deliver_due(timezone.now())
    post = WebhookPost.objects.get()
    season.refresh_from_db()
    assert post.last_error == "the webhook answered HTTP 500"
    assert season.webhook_error == "the webhook answered HTTP 500 (attempt 1 of 6)"
    page = client.get(reverse("season_manage", args=[season.manage_token])).content.decode()
    assert "the webhook answered HTTP 500 (attempt 1 of 6)" in page
    assert "hunter2" not in page and "Internal admin" not in page and "hunter2" not in caplog.text


def test_a_redirect_is_not_followed(hook: Hook, season: Season) -> None:
    other = Hook()
    try:
        hook.replies = [307]
        hook.headers = {"Location": other.url}
        seasons.test_webhook(season)
        webhooks.deliver_due(timezone.now())
        season.refresh_from_db()
        assert season.webhook_error.startswith("the webhook answered HTTP 307")
        assert other.connections == 0
    finally:
        other.close()


def test_slack_markup_in_a_name_is_escaped(hook: Hook, season: Season) -> None:
    name = "<!channel> @everyone <http://evil.example|claim garnets> & co"
    seasons.add_player(season, name)
    webhooks.deliver_due(timezone.now())
    assert hook.posts == [{
        "content": f"**Spring**: {name} joins the roster",
        "text": "**Spring**: &lt;!channel&gt; @everyone &lt;http://evil.example|claim garnets&gt; &amp; co"
                " joins the roster",
        "allowed_mentions": {"parse": []},
    }]  # fmt: skip
