"""Every page of an elimination match says so and, once over, who it put out (issue 52): seat,
host, spectator and replay pages, a fresh load and a live update alike; a main match's pages say
nothing of it.  And the manage page's roster: where the page starts, many names pasted at once."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from config.asgi import application
from matches.models import Match, Season
from matches.play import season_matches, season_tokens, services
from matches.seasons import ledger as seasons
from tests.matches.web.test_consumers import ORIGIN, _update, state_on_connect
from tests.matches.web.test_seasons_views import act, flash, manage
from tests.wsclient import Communicator

NOTICE = "Elimination match: the loser leaves Genius Season 1"


def make_season() -> Season:
    season = seasons.create_season("Genius Season 1")
    for name in ("Ann", "Bob", "Cy", "Di"):
        seasons.add_player(season, name)
    return season


def death_match(season: Season) -> Match:
    match = season_matches.create_season_match(
        season, "squava", [season.players.get(name="Ann").pk, season.players.get(name="Di").pk], elimination=True)
    services.start_match(match)
    return match


def pages(client: Any, match: Match) -> dict[str, str]:
    urls = {"seat": reverse("player_page", args=[match.seats.get(number=2).token]),
            "host": reverse("host_page", args=[match.host_token]),
            "watch": reverse("watch_page", args=[match.watch_token])}
    if match.bouts.filter(finished__isnull=False).exists():
        urls["replay"] = reverse("replay_w", args=[match.watch_token, 1])
    return {name: html.unescape(client.get(url).content.decode()) for name, url in urls.items()}


def note(page: str) -> str:
    hit = re.search(r'<p id="elimination"[^>]*>(.*?)</p>', page, re.S)
    assert hit is not None, "no elimination note"
    return re.sub(r"<[^>]+>", "", hit.group(1)).strip()


@pytest.mark.django_db
def test_every_page_of_a_running_elimination_match_says_the_loser_leaves_the_season(client: Any) -> None:
    match = death_match(make_season())
    for name, page in pages(client, match).items():
        assert note(page) == NOTICE, name
    assert "elimination" in pages(client, match)["seat"].lower()


@pytest.mark.django_db
def test_its_end_says_who_is_eliminated_on_every_page_and_the_replay(client: Any) -> None:
    match = death_match(make_season())
    services.forfeit(match, 2)
    for name, page in pages(client, match).items():
        assert note(page) == f"{NOTICE} Di is eliminated from Genius Season 1.", name


@pytest.mark.django_db
def test_its_end_says_the_host_is_asked_then_that_the_token_saved_them(client: Any) -> None:
    season = make_season()
    seasons.grant_token(season, season.players.get(name="Di"), "an earlier episode")
    match = death_match(season)
    services.forfeit(match, 2)
    assert note(pages(client, match)["watch"]) == (
        f"{NOTICE} Di is eliminated unless the host has them use their Token of Life.")
    season_tokens.answer(match, season.players.get(name="Di"), True)
    for name, page in pages(client, match).items():
        assert note(page) == f"{NOTICE} Di is saved by a Token of Life.", name


@pytest.mark.django_db
def test_a_main_match_and_a_match_outside_a_season_say_nothing_of_it(client: Any, make_match: Any) -> None:
    season = make_season()
    main = season_matches.create_season_match(season, "squava", [p.pk for p in season.players.all()[:2]])
    services.start_match(main)
    for match in (main, make_match("squava")):
        for page in pages(client, match).values():
            assert 'id="elimination"' in page and "Elimination match" not in page  # the live part, empty


@database_sync_to_async
def _forfeit(match: Match) -> int:
    match.refresh_from_db()
    services.forfeit(match, 2)
    bout = match.bouts.get()
    version: int = bout.version
    return version


@database_sync_to_async
def _fresh(client: Any, url: str) -> str:
    return html.unescape(client.get(url).content.decode())


@pytest.mark.django_db(transaction=True)
async def test_a_page_kept_live_says_who_is_eliminated_as_a_fresh_load_does(client: Any) -> None:
    match = await database_sync_to_async(lambda: death_match(make_season()))()
    seat_token = await database_sync_to_async(lambda: match.seats.get(number=1).token)()
    sockets = {}
    for name, token in (("seat", seat_token), ("watch", match.watch_token), ("host", match.host_token)):
        comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
        assert (await comm.connect())[0]
        assert NOTICE in html.unescape(await state_on_connect(comm))
        sockets[name] = comm
    version = await _forfeit(match)
    urls = {"seat": reverse("player_page", args=[seat_token]), "watch": reverse("watch_page", args=[match.watch_token]),
            "host": reverse("host_page", args=[match.host_token])}
    for name, comm in sockets.items():
        update = html.unescape(await _update(comm, after=version - 1))
        assert note(update) == note(await _fresh(client, urls[name])) == f"{NOTICE} Di is eliminated from Genius Season 1."
        await comm.disconnect()


# -- the roster on the manage page ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_roster_box_is_where_the_manage_page_starts(client: Any) -> None:
    season = make_season()
    page = client.get(manage(season)).content.decode()
    cards = re.findall(r'<section class="card[^"]*" id="([^"]+)"', page)
    assert cards[0] == "roster"
    assert 'id="add-name"' in page and 'id="add-names"' in page


@pytest.mark.django_db
def test_pasting_names_adds_them_all_or_none_with_one_sentence(client: Any) -> None:
    season = make_season()
    done = act(client, season, action="add_players", names="Finn\r\n\r\nGus\r\nHal")
    assert flash(done) == ["Finn, Gus and Hal added to the roster (3 players)"]
    refused = act(client, season, action="add_players", names="Ivy\nfinn\nIvy")
    assert flash(refused) == ["nothing was added: Finn is already on the roster and Ivy is listed twice; fix the list "
                              "and paste it again"]
    assert not season.players.filter(name="Ivy").exists()
    # the refused paste is back in its box (once), for the host to fix
    assert "Ivy\nfinn\nIvy</textarea>" in refused.content.decode()
    assert "</textarea>" in client.get(manage(season)).content.decode()
    assert "Ivy\nfinn" not in client.get(manage(season)).content.decode()
    single = act(client, season, action="add_player", name="Jo")  # one name, as before
    assert flash(single) == ["Jo added to the roster"]


@pytest.mark.django_db
def test_the_episode_results_options_are_saved_from_the_manage_page(client: Any) -> None:
    season = make_season()
    done = act(client, season, action="result_options", main_tokens="2", main_candidates="1")
    assert flash(done) == ["episode results options saved"]
    season.refresh_from_db()
    assert (season.main_tokens, season.main_candidates, season.winner_takes_garnets) == (2, 1, False)
    refused = act(client, season, action="result_options", main_tokens="x", main_candidates="1",
                  winner_takes_garnets="on")
    assert flash(refused) == ["the number of Tokens of Life must be a whole number"]
    season.refresh_from_db()
    assert season.winner_takes_garnets is False


@pytest.mark.django_db
def test_the_end_preview_says_what_a_typed_end_gives_to_the_host_only(client: Any, make_match: Any) -> None:
    season = make_season()
    main = season_matches.create_season_match(season, "custom", [p.pk for p in season.players.all()])
    services.start_match(main)
    names = dict(main.seats.values_list("number", "name"))
    url = reverse("host_end_preview", args=[main.host_token])
    said = client.get(url, {"text": "end ranking 2, 3, 1=4"})
    assert said["Cache-Control"].startswith("max-age=0") or "private" in said["Cache-Control"]
    assert said.content.decode() == (f"This end gives: Token of Life: {names[2]}. Elimination Candidate: {names[1]} "
                                     f"and {names[4]} tied, for you to settle.")
    named = client.get(url, {"text": "end ranking 2, 3, 1=4 token 3 candidate 1"}).content.decode()
    assert named == f"This end gives: Token of Life: {names[3]}. Elimination Candidate: {names[1]}."
    assert client.get(url, {"text": "end ranking 2, 2"}).content.decode().startswith("Not yet: ")
    assert client.get(url, {"text": 'give 2 1 "x"'}).content.decode() == ""
    main.refresh_from_db()
    assert main.status == "running" and not main.bouts.filter(finished__isnull=False).exists()  # read only
    seat = main.seats.get(number=1).token
    assert client.get(f"/h/{seat}/end-preview/", {"text": "end ranking 1, 2, 3, 4"}).status_code == 404
    outside = make_match("custom")
    assert client.get(reverse("host_end_preview", args=[outside.host_token]),
                      {"text": "end ranking 1, 2, 3, 4"}).content.decode() == ""
