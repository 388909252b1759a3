"""Sign in with Discord through the Django test client and the stand-in Discord (tests/discordserver.py):
the header's link to allauth's login, its redirect to the authorize page (whose query the stand-in
checks against Discord's documentation), the stand-in's redirect back with a code and the state, the
code traded for a token and the token for /users/@me.  Then My matches shows what is bound to that
Discord id (built by the slash commands, through the real interactions endpoint), and nothing of
anyone else's.  Every way Discord refuses or fails leaves nobody signed in and no account made."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import requests
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse

from matches.discord import oauth
from matches.models import DiscordPlayer, Match, Season, Seat
from matches.play import services
from tests.discordserver import APPLICATION, CLIENT_SECRET, FakeDiscord
from tests.matches.discord.conftest import PEOPLE, Person, Post, command, new_command, reply

pytestmark = pytest.mark.django_db

ANN, BOB, CID, DEE = PEOPLE[0], PEOPLE[1], PEOPLE[2], PEOPLE[3]
CALLBACK = "http://testserver/accounts/discord/login/callback/"
User = get_user_model()


@pytest.fixture
def signin(discord: FakeDiscord) -> Iterator[FakeDiscord]:
    with override_settings(DISCORD_CLIENT_SECRET=CLIENT_SECRET):
        yield discord


@pytest.fixture
def seasons(post: Post, signin: FakeDiscord) -> dict[str, Season]:
    """Two seasons from the channel: Genius (Ann, Bob, Cid) with a running match of Ann and Bob and
    a finished one of Ann and Cid; Other (Dee, Bob) with a running match of Dee and Bob."""
    def season(name: str, people: list[Person]) -> Season:
        reply(post(command("season new", [{"type": 3, "name": "name", "value": name}])))
        reply(post(command("season add", [{"type": 6, "name": f"player{n}", "value": p.id}
                                          for n, p in enumerate(people, start=1)], people=people)))
        return Season.objects.get(name=name)

    def match(season: str, people: list[Person]) -> Match:
        reply(post(new_command("custom", people, extra=[{"type": 3, "name": "season", "value": season}])))
        made: Match = Match.objects.order_by("-pk").first()  # type: ignore[assignment]
        services.start_match(made)
        made.refresh_from_db()
        return made

    genius, other = season("Genius", [ANN, BOB, CID]), season("Other", [DEE, BOB])
    match("Genius", [ANN, BOB])
    ended = match("Genius", [ANN, CID])
    assert ended.current_bout is not None
    services.host_apply(ended, "end ranking 1, 2", ended.current_bout.version)
    ended.refresh_from_db()
    assert ended.status == Match.FINISHED
    match("Other", [DEE, BOB])
    return {"genius": genius, "other": other}


def authorize(client: Client, discord: FakeDiscord, next_url: str = "/seasons/") -> str:
    """The login's redirect to Discord's authorize page, checked; its URL."""
    response = client.get(reverse("discord_login"), {"next": next_url})
    assert response.status_code == 302, response.content
    location = response["Location"]
    assert location.startswith(f"{discord.origin}/oauth2/authorize?")
    return location


def back_from_discord(location: str) -> str:
    """The browser at the stand-in's authorize page: where Discord sends it back (path and query)."""
    answer = httpx.get(location, follow_redirects=False)
    assert answer.status_code == 302, answer.text
    back = answer.headers["location"]
    assert back.startswith(CALLBACK + "?")
    return back.removeprefix("http://testserver")


def sign_in(client: Client, discord: FakeDiscord, person: Person, next_url: str = "/seasons/") -> Any:
    discord.sign_in_as(person.user())
    return client.get(back_from_discord(authorize(client, discord, next_url)))


def shown(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


def test_the_header_links_to_discord_only_when_sign_in_is_configured(discord: FakeDiscord, client: Client) -> None:
    # the bot is configured (the discord fixture) but not its client secret: no link, no login page
    assert "data-discord-login" not in shown(client, "/")
    assert client.get(reverse("discord_login")).status_code == 404
    with override_settings(DISCORD_CLIENT_SECRET=CLIENT_SECRET):
        for page in ("/", "/seasons/", "/rules/"):
            assert 'data-discord-login' in shown(client, page)
        location = authorize(client, discord)
    query = parse_qs(urlsplit(location).query)
    assert query["client_id"] == [APPLICATION]
    assert query["scope"] == ["identify"]
    assert query["response_type"] == ["code"]
    assert query["redirect_uri"] == [CALLBACK]
    assert query["state"][0]
    assert CLIENT_SECRET not in location


def test_the_header_link_carries_the_page_back_but_never_a_secret_link(signin: FakeDiscord, client: Client,
                                                                         seasons: dict[str, Season]) -> None:
    page = shown(client, "/seasons/")
    assert '<a href="/accounts/discord/login/?next=%2Fseasons%2F" data-discord-login' in page
    seat = Seat.objects.filter(match__status=Match.RUNNING).first()
    assert seat is not None
    on_seat = shown(client, reverse("player_page", kwargs={"token": seat.token}))
    assert '<a href="/accounts/discord/login/" data-discord-login' in on_seat  # no ?next= with the seat's token


def test_a_player_signs_in_and_finds_exactly_their_seasons_and_matches(
        signin: FakeDiscord, client: Client, seasons: dict[str, Season]) -> None:
    response = sign_in(client, signin, ANN)
    assert response.status_code == 302 and response["Location"] == "/seasons/"
    (user,) = User.objects.all()
    assert user.socialaccount_set.get().uid == ANN.id  # type: ignore[attr-defined]
    home = shown(client, "/")
    assert "Player 1" in home and "data-sign-out" in home and "data-discord-login" not in home

    mine = shown(client, reverse("my_matches"))
    ann = DiscordPlayer.objects.get(user_id=ANN.id).player
    assert reverse("personal_page", kwargs={"token": ann.personal_token}) in mine
    assert f'href="{reverse("season_page", kwargs={"slug": "genius"})}"' in mine
    ann_seats = Seat.objects.filter(season_player=ann)
    assert ann_seats.count() == 2
    for seat in ann_seats:  # the running match and the finished one
        assert reverse("player_page", kwargs={"token": seat.token}) in mine
    # nobody else's: Bob's and Cid's seats beside hers, the other season and its match
    for seat in Seat.objects.exclude(season_player=ann):
        assert seat.token not in mine
    for player in DiscordPlayer.objects.exclude(user_id=ANN.id):
        assert player.player.personal_token not in mine
    assert "Other" not in mine
    assert response.cookies  # a session, not a link, is what opens the page
    assert "Cache-Control" in client.get(reverse("my_matches")).headers
    assert "no-store" in client.get(reverse("my_matches"))["Cache-Control"]


def test_bob_in_two_seasons_sees_both_and_a_second_sign_in_is_the_same_account(
        signin: FakeDiscord, client: Client, seasons: dict[str, Season]) -> None:
    sign_in(client, signin, BOB)
    mine = shown(client, reverse("my_matches"))
    for bound in DiscordPlayer.objects.filter(user_id=BOB.id):
        assert bound.player.personal_token in mine
        for seat in Seat.objects.filter(season_player=bound.player):
            assert seat.token in mine
    client.post(reverse("account_logout"))
    sign_in(client, signin, BOB)
    assert User.objects.count() == 1


def test_a_signed_out_visitor_sees_no_links_and_the_sent_links_keep_working(
        signin: FakeDiscord, client: Client, seasons: dict[str, Season]) -> None:
    sign_in(client, signin, ANN)
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    mine = shown(client, reverse("my_matches"))
    assert "data-discord-login-page" in mine
    assert all(seat.token not in mine for seat in Seat.objects.all())
    seat = Seat.objects.filter(season_player__discord__user_id=ANN.id).first()
    assert seat is not None
    assert client.get(reverse("player_page", kwargs={"token": seat.token})).status_code == 200
    anonymous = Client()
    assert anonymous.get(reverse("player_page", kwargs={"token": seat.token})).status_code == 200


def refused(client: Client, response: Any, sentence: str) -> None:
    """Back to the page the sign-in started from, the sentence shown, nobody signed in or created."""
    assert response.status_code == 302 and response["Location"] == "/seasons/"
    page = shown(client, "/seasons/")
    assert sentence in page and 'id="signin-note"' in page
    assert "data-discord-login" in page and "data-sign-out" not in page
    assert User.objects.count() == 0
    assert "data-discord-login-page" in shown(client, reverse("my_matches"))


def test_cancelling_at_discord_signs_nobody_in(signin: FakeDiscord, client: Client) -> None:
    signin.deny()
    refused(client, client.get(back_from_discord(authorize(client, signin))),
            "Discord sign-in was cancelled")
    assert not [c for c in signin.calls if c.route == "token"]


def test_a_code_discord_refuses_signs_nobody_in(signin: FakeDiscord, client: Client) -> None:
    signin.sign_in_as(ANN.user())
    back = back_from_discord(authorize(client, signin))
    query = parse_qs(urlsplit(back).query)
    forged = f"{urlsplit(back).path}?code=not-one-discord-issued&state={query['state'][0]}"
    refused(client, client.get(forged), "Discord refused the sign-in")
    assert [c.status for c in signin.calls if c.route == "token"] == [400]


@pytest.mark.parametrize("route", ["token", "me"])
def test_discord_failing_signs_nobody_in(signin: FakeDiscord, client: Client, route: str) -> None:
    signin.fail(route, 500, {"message": "500: Internal Server Error", "code": 0})
    refused(client, sign_in(client, signin, ANN), "Discord did not complete the sign-in")
    assert [c.status for c in signin.calls if c.route == route] == [500]


def test_a_callback_this_browser_did_not_start_is_refused(signin: FakeDiscord, client: Client) -> None:
    """A stranger's code and state (a link sent to a victim, to sign them in as the stranger), or a
    state altered: refused before any code is traded."""
    stranger = Client()
    signin.sign_in_as(DEE.user())
    back = back_from_discord(authorize(stranger, signin))
    response = client.get(back)
    assert response.status_code == 302 and response["Location"] == "/"
    page = shown(client, "/")
    assert "not started from this browser" in page and "data-sign-out" not in page
    own = back_from_discord(authorize(client, signin))
    path, query = urlsplit(own).path, parse_qs(urlsplit(own).query)
    response = client.get(f"{path}?code={query['code'][0]}&state=altered{query['state'][0]}")
    assert "not started from this browser" in shown(client, "/")
    assert not [c for c in signin.calls if c.route == "token"]
    assert User.objects.count() == 0
    # the same callback twice: the first signs in, the second finds its state used
    assert client.get(own).status_code == 302 and User.objects.count() == 1
    client.post(reverse("account_logout"))
    client.get(own)
    assert "not started from this browser" in shown(client, "/")
    assert len([c for c in signin.calls if c.route == "token"]) == 1


def test_oauth_requests_reach_only_the_configured_discord_host(signin: FakeDiscord) -> None:
    with oauth.session() as session:
        with pytest.raises(requests.ConnectionError):
            session.get("http://127.0.0.2:9/api/v10/users/@me")
        with pytest.raises(requests.ConnectionError):
            session.get(f"https://127.0.0.1:{signin.port}/api/v10/users/@me")  # the port's scheme is http
        # the configured host answers (a token it never issued: 401)
        assert session.get(oauth.me_url(), headers={"Authorization": "Bearer never-issued"}).status_code == 401


def test_the_client_secret_and_the_tokens_reach_no_log_line(signin: FakeDiscord, client: Client,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    sign_in(client, signin, ANN)
    signin.fail("token", 500, {"message": "500: Internal Server Error", "code": 0})
    client.post(reverse("account_logout"))
    sign_in(client, signin, ANN)
    secrets = [CLIENT_SECRET, *signin.bearers, *signin.grants]
    assert len(secrets) == 4  # the secret, one token, two codes
    text = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert not [s for s in secrets if s in text]


def test_allauth_s_own_pages_are_the_site_s_and_offer_no_password(signin: FakeDiscord, client: Client) -> None:
    text = shown(client, "/accounts/login/")
    assert 'class="topbar"' in text and 'type="password"' not in text and "/accounts/discord/login/" in text
    sign_in(client, signin, ANN)
    text = shown(client, "/accounts/logout/")  # sign out's confirmation, for a GET
    assert 'class="topbar"' in text and 'type="password"' not in text and "Sign Out" in text
    text = shown(client, "/accounts/3rdparty/")  # allauth's connections page: the one Discord account
    assert 'class="topbar"' in text and "Player 1" in text
    client.post(reverse("account_logout"))
    for gone in ("/accounts/signup/", "/accounts/password/reset/", "/accounts/email/"):
        assert client.get(gone).status_code == 404
    assert client.post("/accounts/login/", {"login": "x", "password": "y"}).status_code == 403
