"""Issue 21, defect 1: a season never takes a match by its name.

Garnets a host awards in a match outside a season stay on the match
(`MatchGarnet`); a match joins a season only through a Season object its
caller holds (the season's manage page creates it, or attaches it with the
match's host link, which proves the season host holds both).  The data
migration takes matches out of the seasons the old path named after them.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from games.core import HOST
from matches.models import GarnetEntry, Match, MatchGarnet, Season, SeasonEvent, SeasonPlayer, Seat
from matches.play import season_matches, services
from matches.seasons import ledger as seasons
from tests.hostform import seq

pytestmark = pytest.mark.django_db


def manage(season: Season) -> str:
    return reverse("season_manage", args=[season.manage_token])


def act(client: Client, season: Season, **data: Any) -> Any:
    """Post a manage form the way the page does: with the key the page drew."""
    page = client.get(manage(season)).content.decode()
    hit = re.search(r'name="key" value="([^"]+)"', page)
    assert hit is not None
    key = hit.group(1)
    return client.post(reverse("season_act", args=[season.manage_token]), {"key": key, **data}, follow=True)


def flash(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def award(client: Client, match: Match, seat: int, amount: int, reason: str) -> None:
    """The host dashboard's garnet form."""
    response = client.post(reverse("host_act", args=[match.host_token]), {
        "action": "garnets", "seat": str(seat), "amount": str(amount), "reason": reason,
        "host_seq": str(seq(match.host_token)),
    })
    assert response.status_code == 200, response.content
    assert f"garnets {amount:+d} recorded" in response.content.decode()


def secrets(match: Match) -> list[str]:
    return [match.host_token, *Seat.objects.filter(match=match).values_list("token", flat=True)]


# -- (a) a season named after a match ------------------------------------------------------------------


def test_a_season_named_after_a_match_never_gets_its_garnets_or_host_link(client: Client, make_match: Any) -> None:
    victim = make_match("lance-assembly")
    attacker = Client()
    response = attacker.post("/seasons/", {"name": f"Lance Assembly match #{victim.pk}"})
    assert response.status_code == 302
    trap = Season.objects.get(name=f"Lance Assembly match #{victim.pk}")

    award(client, victim, 1, 3, "style")
    award(client, victim, 2, -1, "late")

    victim.refresh_from_db()
    assert victim.season is None
    assert not Seat.objects.filter(match=victim, season_player__isnull=False).exists()
    assert not trap.garnet_entries.exists() and not trap.players.exists() and not trap.events.exclude(kind="season")
    page = attacker.get(manage(trap)).content.decode()
    public = attacker.get(reverse("season_page", args=[trap.slug])).content.decode()
    for html in (page, public):
        assert all(token not in html for token in secrets(victim))
        assert victim.watch_token not in html  # never put in a season: on no season's page
    # the garnets are kept on the match, and its host sees them per seat
    assert sorted(MatchGarnet.objects.filter(match=victim).values_list("seat__number", "amount", "reason",
                                                                         "kind")) == [
        (1, 3, "style", GarnetEntry.MATCH_HOST), (2, -1, "late", GarnetEntry.MATCH_HOST)]
    dashboard = client.get(reverse("host_page", args=[victim.host_token])).content.decode()
    hit = re.search(r'<dl class="facts garnet-totals">(.*?)</dl>', dashboard, re.S)
    assert hit is not None
    totals = hit.group(1)
    assert re.findall(r'<dt>(\w+)</dt><dd data-seat="(\d)">(-?\d+)</dd>', totals) == [("Ann", "1", "3"),
                                                                                  ("Bob", "2", "-1")]


def test_garnets_of_a_match_outside_a_season_stay_on_the_match(make_match: Any) -> None:
    match = make_match("bidding-ttt", start=False)
    before = Season.objects.count()
    entry = services.adjust_garnets(match, 2, 4, "board win")
    assert isinstance(entry, MatchGarnet) and (entry.seat.number, entry.amount) == (2, 4)
    assert Season.objects.count() == before and Match.objects.get(pk=match.pk).season_id is None
    # without a season, bouts start with the options as set (no ledger to read)
    bout = services.start_match(match)
    assert "garnets" not in match.options and bout.options["garnets"] == match.game.default_options["garnets"]


def test_the_host_panel_kept_live_shows_the_garnets_a_fresh_page_shows(roles: Any, monkeypatch: Any) -> None:
    """Each garnet change redraws the panel in the next update (the panel's totals are read again
    only when a host action, a bout's end or the match joining a season may have changed them)."""
    from matches.live import drawing, presence
    from matches.pages import render
    from tests.live_pages import Process

    drawing.forget()
    live = Process()
    monkeypatch.setattr(presence, "store", presence.LocalStore())
    match = roles.match
    presence.store.add([(presence.key(match.id, "host"), "socket-host")])
    live.prepare(match.id)
    for seat, amount in ((1, 3), (2, -2), (1, 1)):
        match.refresh_from_db()
        services.adjust_garnets(match, seat, amount, "")
        ((_, message),) = live.prepare(match.id)
        hit = re.search(r'<dl class="facts garnet-totals">.*?</dl>', message["html"], re.S)
        assert hit is not None
        panel = hit.group(0)
        assert panel in render.fragments(match, HOST)
    assert re.findall(r'data-seat="(\d)">(-?\d+)<', panel) == [("1", "4"), ("2", "-2")]
    match.refresh_from_db()
    services.submit(match, 1, "place C3", match.current_bout.version)  # nothing to read again
    ((_, message),) = live.prepare(match.id)
    assert 'id="host-panel"' not in message["html"]


# -- (b) no season by name -------------------------------------------------------------------------------------


def test_create_match_never_joins_a_season_by_name() -> None:
    spring = seasons.create_season("Spring")
    matches = Match.objects.count()
    # a season's name where its row belongs, as a caller would pass it by mistake (typed Any to reach the check)
    spring_by_name: Any = "Spring"
    autumn_by_name: Any = "Autumn"
    with pytest.raises(services.ServiceError, match="manage page"):
        services.create_match("lance-assembly", seat_names=["Ann", "Bob"], season=spring_by_name)
    with pytest.raises(services.ServiceError, match="manage page"):
        services.create_match("lance-assembly", seat_names=["Ann", "Bob"], season=autumn_by_name)
    assert Match.objects.count() == matches
    assert not spring.matches.exists() and not spring.players.exists()
    assert not Season.objects.filter(name="Autumn").exists()


# -- (c) attaching with the host link ------------------------------------------------------------------------


@pytest.fixture
def season() -> Season:
    season = seasons.create_season("Spring")
    seasons.add_player(season, "Ann")
    return season


def test_a_season_host_adds_a_match_with_its_host_link_and_its_garnets_move_once(
        client: Client, make_match: Any, season: Season) -> None:
    match = make_match("lance-assembly")
    award(client, match, 1, 3, "style")
    award(client, match, 2, 2, "sportsmanship")
    award(client, match, 1, -1, "late")
    link = "http://testserver" + reverse("host_page", args=[match.host_token])

    response = act(client, season, action="attach", link=f"  {link}  ")
    assert flash(response) == [f"Lance Assembly #{match.pk} joins {season.name}: Ann and Bob are on its roster; "
                               "3 garnet entries moved into the ledger"]
    match.refresh_from_db()
    assert match.season_id == season.pk
    ann, bob = season.players.get(name="Ann"), season.players.get(name="Bob")
    assert dict(match.seats.values_list("number", "season_player")) == {1: ann.pk, 2: bob.pk}
    ledger = list(season.garnet_entries.order_by("id").values_list("player__name", "amount", "reason", "kind",
                                                                    "match"))
    assert ledger == [("Ann", 3, "style", "match", match.pk), ("Bob", 2, "sportsmanship", "match", match.pk),
                      ("Ann", -1, "late", "match", match.pk)]
    assert not MatchGarnet.objects.filter(match=match).exists()
    assert season.garnets() == {"Ann": 2, "Bob": 2}
    event = season.events.get(kind="attach")
    assert event.match_id == match.pk and "Ann +3 (style)" in event.text
    assert set(season.garnet_entries.values_list("event", flat=True)) == {event.pk}

    # the public page lists it (spectator link only); no token in the ledger or log
    public = client.get(reverse("season_page", args=[season.slug])).content.decode()
    assert match.watch_token in public and "sportsmanship" in public
    assert all(token not in public for token in secrets(match))
    manage_page = client.get(manage(season)).content.decode()
    assert manage_page.count(match.host_token) == 1  # the dashboard link of its match list, nowhere else
    assert all(match.host_token not in e.text for e in season.events.all())

    # twice: refused, nothing moved again
    again = act(client, season, action="attach", link=link)
    assert flash(again) == [f"match #{match.pk} is already in this season"]
    assert season.garnet_entries.count() == 3 and season.events.filter(kind="attach").count() == 1

    # garnets the host awards from now on go to the season ledger
    award(client, match, 2, 1, "bonus")
    assert season.garnets() == {"Ann": 2, "Bob": 3} and not MatchGarnet.objects.exists()


def test_a_doubled_attach_post_is_applied_once(client: Client, make_match: Any, season: Season) -> None:
    match = make_match("lance-assembly")
    services.adjust_garnets(match, 2, 5, "style")
    page = client.get(manage(season)).content.decode()
    hit = re.search(r'name="key" value="([^"]+)"', page)
    assert hit is not None
    key = hit.group(1)
    url = reverse("season_act", args=[season.manage_token])
    first = client.post(url, {"key": key, "action": "attach", "link": match.host_token}, follow=True)
    second = client.post(url, {"key": key, "action": "attach", "link": match.host_token}, follow=True)
    assert flash(first)[0].startswith(f"Lance Assembly #{match.pk} joins Spring")
    assert flash(second)[0].startswith("already done")
    assert list(season.garnet_entries.values_list("amount", flat=True)) == [5]


def test_a_finished_match_can_join_and_counts_in_the_standings(make_match: Any, season: Season) -> None:
    match = make_match("lance-assembly")
    services.adjust_garnets(match, 1, 2, "won with style")
    services.end_match(match, [1])
    season_matches.attach_match(season, match.host_token)
    rows = {row["name"]: row for row in seasons.standings(season)}
    assert (rows["Ann"]["played"], rows["Ann"]["won"], rows["Ann"]["garnets"]) == (1, 1, 2)
    assert (rows["Bob"]["played"], rows["Bob"]["won"]) == (1, 0)
    assert not season.tokens_of_life.exists()  # results decided before it joined give no token or status


def test_attaching_refuses_seats_it_cannot_map_and_changes_nothing(make_match: Any, season: Season) -> None:
    twins = make_match("lance-assembly", seat_names=["Ann", "ann"])
    with pytest.raises(seasons.ServiceError, match="seats 1 and 2 are both called Ann"):
        season_matches.attach_match(season, twins.host_token)
    seasons.set_status(season, season.players.get(name="Ann"), "eliminated")
    match = make_match("lance-assembly")
    with pytest.raises(seasons.ServiceError, match="Ann is eliminated"):
        season_matches.attach_match(season, match.host_token)
    assert not season.matches.exists() and list(season.players.values_list("name", flat=True)) == ["Ann"]


# -- (d) other links and other matches -------------------------------------------------------------------------


def test_links_that_are_not_the_host_link_of_a_free_match_are_refused(client: Client, make_match: Any,
                                                                       season: Season) -> None:
    match = make_match("lance-assembly")
    services.adjust_garnets(match, 1, 3, "style")
    other = seasons.create_season("Autumn")
    taken = season_matches.create_season_match(other, "lance-assembly", [seasons.add_player(other, n).pk
                                                                    for n in ("Cy", "Di")])
    seat = match.seats.get(number=1)
    refusals = {
        "": "paste the host link of the match to add",
        "http://testserver" + reverse("watch_page", args=[match.watch_token]):
            "that is the match's spectator link: paste its host link, which only its host has",
        "http://testserver" + reverse("player_page", args=[seat.token]):
            "that is a player's seat link: paste the match's host link, which only its host has",
        match.watch_token: "no match has this host link: copy the whole link from the match's host dashboard",
        "http://testserver/h/" + "x" * 32 + "/": "no match has this host link: copy the whole link from the "
                                                 "match's host dashboard",
        "http://testserver/seasons/": "that is not a match's host link: copy it from the match's host dashboard",
        "h/\x00/": "that is not a match's host link: copy it from the match's host dashboard",
        taken.host_token: f"match #{taken.pk} already belongs to another season; a match is in one season only",
    }
    for link, message in refusals.items():
        assert flash(act(client, season, action="attach", link=link)) == [message], link
    assert not season.matches.exists() and not season.garnet_entries.exists()
    assert list(season.players.values_list("name", flat=True)) == ["Ann"]
    assert Match.objects.get(pk=match.pk).season_id is None and MatchGarnet.objects.filter(match=match).count() == 1
    assert Match.objects.get(pk=taken.pk).season_id == other.pk
    assert not season.events.filter(kind="attach").exists()


def test_the_manage_page_has_the_add_a_match_form(client: Client, season: Season) -> None:
    page = client.get(manage(season)).content.decode()
    assert "Add a match to this season" in page
    assert re.search(r'<input type="hidden" name="action" value="attach">', page)
    assert re.search(r'<input[^>]*id="attach-link"[^>]*name="link"', page)


# -- the data migration ------------------------------------------------------------------------------------


def _old_way(match: Match, season: Season) -> dict[str, SeasonPlayer]:
    """What the old path made: the match in `season`, each seat with a roster entry."""
    match.season = season
    match.save(update_fields=["season"])
    players = {}
    for seat in match.seats.all():
        players[seat.name] = SeasonPlayer.objects.create(season=season, name=seat.name)
        seat.season_player = players[seat.name]
        seat.save(update_fields=["season_player"])
    return players


def test_the_migration_moves_garnets_out_of_seasons_named_after_their_match(make_match: Any) -> None:
    migration = importlib.import_module("matches.migrations.0007_match_garnets")
    victim = make_match("lance-assembly")
    trap = Season.objects.create(name=f"Lance Assembly match #{victim.pk}")
    players = _old_way(victim, trap)
    own = SeasonPlayer.objects.create(season=trap, name="Mallory")
    award = GarnetEntry.objects.create(season=trap, player=players["Ann"], amount=3, reason="style", match=victim)
    GarnetEntry.objects.create(season=trap, player=players["Ann"], amount=-3, reason="taken back: style",
                               kind=GarnetEntry.REVERSAL, match=victim, reverses=award)
    GarnetEntry.objects.create(season=trap, player=players["Bob"], amount=2, reason="sole first on Once",
                               kind=GarnetEntry.EARNED, match=victim)
    GarnetEntry.objects.create(season=trap, player=own, amount=7, reason="the trap's own", kind=GarnetEntry.HOST)
    # a season match that merely shares a game: untouched
    spring = seasons.create_season("Spring")
    kept = make_match("grid-master")
    kept_players = _old_way(kept, spring)
    GarnetEntry.objects.create(season=spring, player=kept_players["Ann"], amount=4, reason="kept", match=kept)

    migration.move_named_seasons(apps, None)

    victim.refresh_from_db()
    assert victim.season_id is None
    assert not Seat.objects.filter(match=victim, season_player__isnull=False).exists()
    moved = list(MatchGarnet.objects.filter(match=victim).order_by("id").values_list(
        "seat__number", "amount", "reason", "kind"))
    assert moved == [(1, 3, "style", "match"), (1, -3, "taken back: style", "reversal"),
                     (2, 2, "sole first on Once", "earned")]
    assert list(trap.garnet_entries.values_list("reason", flat=True)) == ["the trap's own"]
    assert Season.objects.filter(pk=trap.pk).exists()
    assert spring.garnet_entries.count() == 1 and Match.objects.get(pk=kept.pk).season_id == spring.pk
    assert not MatchGarnet.objects.filter(match=kept).exists()
    # run twice: nothing more to move
    migration.move_named_seasons(apps, None)
    assert MatchGarnet.objects.count() == 3
    assert not SeasonEvent.objects.filter(season=trap, kind="attach").exists()
