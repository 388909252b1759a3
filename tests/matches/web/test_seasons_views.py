"""Season pages through the Django test client: the list and create form,
the public page and CSVs (never a seat, host or manage token), the manage
page and its forms (refusals in a sentence, doubled posts applied once)."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from django.urls import reverse

from matches.models import Match, Season, Seat
from matches.play import season_matches, services
from matches.seasons import ledger as seasons
from tests.matches.seasons.test_seasons import NAMES, plan, play_rounds

pytestmark = pytest.mark.django_db


@pytest.fixture
def season() -> Season:
    season = seasons.create_season("Spring")
    for name in NAMES:
        seasons.add_player(season, name)
    return season


def manage(season: Season) -> str:
    return reverse("season_manage", args=[season.manage_token])


def act(client: Any, season: Season, **data: Any) -> Any:
    """Post a manage form the way the page does: with the key the page drew."""
    page = client.get(manage(season)).content.decode()
    hit = re.search(r'name="key" value="([^"]+)"', page)
    assert hit is not None
    key = hit.group(1)
    return client.post(reverse("season_act", args=[season.manage_token]), {"key": key, **data}, follow=True)


def flash(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def secrets_of(season: Season) -> list[str]:
    tokens = [season.manage_token]
    for match in season.matches.all():
        tokens.append(match.host_token)
        tokens += list(Seat.objects.filter(match=match).values_list("token", flat=True))
    return tokens


def played_season(season: Season) -> Match:
    match = season_matches.create_season_match(season, "back-to-the-wall", [season.players.get(name=n).pk for n in NAMES])
    seasons.adjust_garnets(season, season.players.get(name="Bob"), 1, "start")
    services.start_match(match)
    play_rounds(match, plan(0, {(1, 2): ("once",)}))
    running = season_matches.create_season_match(season, "grid-master", [season.players.get(name=n).pk for n in ("Ann", "Cy")])
    services.start_match(running)
    return match


def test_creating_a_season_lands_on_its_manage_page(client: Any) -> None:
    page = client.get(reverse("season_list")).content.decode()
    hit = re.search(r'name="key" value="([^"]+)"', page)
    assert hit is not None
    key = hit.group(1)
    response = client.post(reverse("season_list"), {"name": "Summer Cup", "webhook_url": "", "key": key})
    season = Season.objects.get(name="Summer Cup")
    assert response.status_code == 302 and response["Location"] == manage(season)
    again = client.post(reverse("season_list"), {"name": "Summer Cup", "key": key})  # doubled submit
    assert again["Location"] == manage(season) and Season.objects.count() == 1
    assert season.base_url == "http://testserver"
    assert "Summer Cup" not in client.get(reverse("season_list")).content.decode()  # listed once it has a match
    seasons.add_player(season, "Ann")
    seasons.add_player(season, "Bob")
    season_matches.create_season_match(season, "squava", list(season.players.values_list("pk", flat=True)))
    listed = client.get(reverse("season_list")).content.decode()
    assert "Summer Cup" in listed and season.manage_token not in listed


def test_a_bad_season_form_says_what_is_wrong(client: Any) -> None:
    response = client.post(reverse("season_list"), {"name": "X", "webhook_url": "ftp://example.org/hook"})
    assert response.status_code == 400
    assert "the webhook URL must start with https://" in response.content.decode()
    assert not Season.objects.exists()


def test_public_pages_and_csvs_never_show_a_secret_token(client: Any, season: Season) -> None:
    played_season(season)
    urls = [reverse("season_list"), reverse("season_page", args=[season.slug]),
            reverse("season_ledger_csv", args=[season.slug]), reverse("season_standings_csv", args=[season.slug])]
    tokens = secrets_of(season)
    assert len(tokens) == 1 + 2 * 1 + 4 + 2
    for url in urls:
        body = client.get(url).content.decode()
        leaked = [t for t in tokens if t in body]
        assert leaked == [], url
    page = client.get(reverse("season_page", args=[season.slug])).content.decode()
    for match in season.matches.all():
        assert reverse("watch_page", args=[match.watch_token]) in page  # spectator links only


def test_the_public_page_shows_standings_ledger_and_matches(client: Any, season: Season) -> None:
    match = played_season(season)
    page = client.get(reverse("season_page", args=[season.slug])).content.decode()
    rows = {r["name"]: r for r in seasons.standings(season)}
    candidate = next(n for n, r in rows.items() if r["status"] == "candidate")
    holder = next(n for n, r in rows.items() if r["tokens"])
    assert re.search(rf'data-player="{candidate}">.*?elimination candidate', page, re.S)
    assert re.search(rf'data-player="{holder}">.*?<td class="num tokens"[^>]*>1</td>', page, re.S)
    assert f"spent on Once (match #{match.pk})" in page and "sole first on" in page
    assert "Running now" in page and "Grid Master #" in page and "wins (points)" in page


def test_csv_exports(client: Any, season: Season) -> None:
    match = played_season(season)
    response = client.get(reverse("season_ledger_csv", args=[season.slug]))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sum(int(r["amount"]) for r in rows if r["player"] == "Bob") == seasons.standings(season)[
        [r["name"] for r in seasons.standings(season)].index("Bob")]["garnets"]
    spent = next(r for r in rows if r["kind"] == "spent")
    assert spent["match"] == str(match.pk) and spent["watch"].endswith(f"/w/{match.watch_token}/")
    standings = list(csv.DictReader(io.StringIO(client.get(
        reverse("season_standings_csv", args=[season.slug])).content.decode())))
    assert [r["player"] for r in standings] == [r["name"] for r in seasons.standings(season)]
    assert {r["status"] for r in standings} >= {"elimination candidate", "active"}


def test_manage_forms_do_what_they_say_and_refuse_in_a_sentence(client: Any, season: Season) -> None:
    assert "Eve added to the roster" in flash(act(client, season, action="add_player", name="Eve"))
    eve = season.players.get(name="Eve")
    response = act(client, season, action="garnets", player=eve.pk, sign="deduct", amount="2", reason="late")
    assert flash(response) == ['Eve has 0 garnets: deducting 2 would leave -2; tick "allow negative" to do it anyway']
    response = act(client, season, action="garnets", player=eve.pk, sign="deduct", amount="2", reason="late",
                   allow_negative="on")
    assert flash(response) == ["Eve -2 garnet(s) recorded"]
    assert flash(act(client, season, action="token", player=eve.pk, do="grant", reason="")) == [
        "Eve receives a Token of Life"]
    assert flash(act(client, season, action="status", player=eve.pk, status="candidate", reason="vote")) == [
        "Eve is an elimination candidate"]
    assert flash(act(client, season, action="token", player=eve.pk, do="use")) == [
        "Eve uses a Token of Life: no longer an elimination candidate"]
    assert flash(act(client, season, action="garnets", player=eve.pk, amount="x", reason="r")) == [
        "the number of garnets must be a whole number"]
    assert flash(act(client, season, action="rename", player=eve.pk, name="Ann")) == ["Ann is already on the roster"]
    assert flash(act(client, season, action="nonsense")) == ["unknown action; reload the page"]
    page = act(client, season, action="remove", player=eve.pk)
    assert "Eve removed from the roster" in flash(page)


def test_a_doubled_manage_post_is_applied_once(client: Any, season: Season) -> None:
    page = client.get(manage(season)).content.decode()
    hit = re.search(r'name="key" value="([^"]+)"', page)
    assert hit is not None
    key = hit.group(1)
    ann = season.players.get(name="Ann")
    url = reverse("season_act", args=[season.manage_token])
    data = {"key": key, "action": "garnets", "player": ann.pk, "amount": "2", "reason": "style"}
    first = client.post(url, data, follow=True)
    second = client.post(url, data, follow=True)
    assert flash(first) == ["Ann +2 garnet(s) recorded"]
    assert ann.garnet_balance() == 2
    assert flash(second) == ["already done: Ann +2 garnets, now 2 (a doubled submit: nothing was applied twice)"]


def test_a_match_created_from_the_manage_page_seats_roster_players(client: Any, season: Season) -> None:
    ids = {p.name: p.pk for p in season.players.all()}
    response = act(client, season, action="match", game="squava", seat1=ids["Di"], seat2=ids["Bob"],
                   elimination="on", bouts="")
    match = season.matches.get()
    assert flash(response) == [f"Elimination match #{match.pk} created: open its host dashboard below to hand out "
                               "the seat links"]
    assert [s.name for s in match.seats.order_by("number")] == ["Di", "Bob"] and match.elimination
    page = response.content.decode()
    assert reverse("host_page", args=[match.host_token]) in page  # the manage page lists host dashboards
    public = client.get(reverse("season_page", args=[season.slug])).content.decode()
    assert match.host_token not in public
    refused = act(client, season, action="match", game="back-to-the-wall", seat1=ids["Ann"], seat2=ids["Bob"])
    assert flash(refused) == ["Back to the Wall needs 4 players, you picked 2"]


def test_unknown_tokens_and_slugs_are_404(client: Any, season: Season) -> None:
    assert client.get(reverse("season_manage", args=["x" * 32])).status_code == 404
    assert client.post(reverse("season_act", args=["x" * 32]), {"action": "add_player"}).status_code == 404
    assert client.get(reverse("season_page", args=["nope"])).status_code == 404
    assert client.get(reverse("season_act", args=[season.manage_token])).status_code == 405


def test_the_manage_page_is_never_cached_and_shows_the_webhook_error(client: Any, season: Season) -> None:
    Season.objects.filter(pk=season.pk).update(webhook_error="the webhook answered HTTP 500 (attempt 1 of 6)")
    from django.utils import timezone

    Season.objects.filter(pk=season.pk).update(webhook_error_at=timezone.now())
    response = client.get(manage(season))
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]
    assert "the webhook answered HTTP 500 (attempt 1 of 6)" in response.content.decode()


def test_staff_find_every_season_model_in_the_admin_and_the_manage_link(admin_client: Any, season: Season) -> None:
    from django.contrib import admin

    from matches.models import GarnetEntry, SeasonEvent, SeasonPlayer, TokenOfLife, WebhookPost

    played_season(season)
    for model in [Season, SeasonPlayer, GarnetEntry, TokenOfLife, SeasonEvent, WebhookPost]:
        assert admin.site.is_registered(model), model
        url = reverse(f"admin:matches_{model._meta.model_name}_changelist")
        assert admin_client.get(url).status_code == 200, url
    page = admin_client.get(reverse("admin:matches_season_change", args=[season.pk])).content.decode()
    assert manage(season) in page
    # the ledger is append-only: no one edits or deletes an entry in the admin
    entry = season.garnet_entries.first()
    assert entry is not None
    assert admin_client.post(reverse("admin:matches_garnetentry_delete", args=[entry.pk]), {"post": "yes"}).status_code == 403


NASTY = ["", " ", "\x00", "x" * 5000, "1" * 5000, "99999999999999999999999", "-1", "0", "1e3", "nan", "[" * 500,
         "<script>alert(1)</script>", "☃", "\u202e", "2.5"]


#: the fields each manage action reads (season_views' handlers; every action reads "action" and "key")
READS = {"add_player": ["name"], "rename": ["player", "name"], "remove": ["player"],
         "garnets": ["amount", "sign", "player", "reason", "allow_negative"], "token": ["player", "reason", "do"],
         "status": ["player", "status", "reason"],
         "match": ["game", "seat1", "seat2", "seat3", "seat4", "bouts", "elimination"], "webhook": ["do", "webhook_url"]}
FIELDS = ["action", "key", "name", "player", "amount", "sign", "reason", "status", "do", "game", "seat1", "seat2",
          "seat3", "seat4", "bouts", "webhook_url", "allow_negative", "elimination"]


def hostile_posts(value: str) -> list[tuple[str, str]]:
    """(action, field) pairs to send `value` in: every field an action reads, the unknown action
    `value` itself, and each field once more under an action that ignores it, rotated with the value
    so that across NASTY every field meets every action."""
    index, actions = NASTY.index(value), [*READS, value]
    pairs = [(action, field) for action, read in READS.items() for field in ["action", "key", *read]]
    pairs.append((value, "action"))
    pairs += [(actions[(number + index) % len(actions)], field) for number, field in enumerate(FIELDS)]
    return list(dict.fromkeys(pairs))


def test_the_hostile_posts_meet_every_field_under_every_action() -> None:
    met = {pair for value in NASTY for pair in hostile_posts(value)}
    assert {(a, f) for a in READS for f in FIELDS} <= met


@pytest.mark.parametrize("value", NASTY)
def test_hostile_season_form_posts_get_a_sentence_never_a_500(client: Any, season: Season, value: str,
                                                              settings: Any) -> None:
    # every "match" post counts against the matches budget: this test is about what the form says
    settings.DEATHMATCH_RATE_LIMITS = {**settings.DEATHMATCH_RATE_LIMITS, "matches": "1000/m"}
    url = reverse("season_act", args=[season.manage_token])
    ann = str(season.players.get(name="Ann").pk)
    for action, field in hostile_posts(value):
        data = {"action": action, "player": ann, "amount": "1", "reason": "r", "name": "Zed", "game": "squava",
                "seat1": ann, field: value}
        response = client.post(url, data)
        assert response.status_code == 302, (action, field)
    for field in ["name", "webhook_url", "key"]:
        assert client.post(reverse("season_list"), {"name": "S", field: value}).status_code in (200, 302, 400)
    assert client.get(f"/s/{value[:100]}x/").status_code in (404, 301)
    assert all("\x00" not in name for name in Season.objects.values_list("name", flat=True))


def test_csv_cells_never_start_a_formula(client: Any, season: Season) -> None:
    """OWASP's CSV injection advice: a text cell starting with = + - @ (or a
    tab or carriage return) gets a leading apostrophe; numbers stay numbers."""
    name = '=HYPERLINK("http://evil.example","claim")'
    act(client, season, action="add_player", name=name)
    act(client, season, action="add_player", name="+1+cmd|' /C calc'!A0")
    hostile = season.players.get(name=name)
    act(client, season, action="garnets", player=hostile.pk, sign="award", amount="1", reason="-2+3")
    act(client, season, action="garnets", player=hostile.pk, sign="deduct", amount="3", reason="@SUM(1+1)*cmd",
        allow_negative="on")
    season.players.create(name="\t=1+1")  # the admin saves a name as typed
    season.players.create(name="\r=1+1")
    ledger = list(csv.DictReader(io.StringIO(client.get(
        reverse("season_ledger_csv", args=[season.slug])).content.decode())))
    assert [(r["player"], r["amount"], r["reason"]) for r in ledger if "HYPERLINK" in r["player"]] == [
        ("'" + name, "1", "'-2+3"), ("'" + name, "-3", "'@SUM(1+1)*cmd")]
    standings = {r["player"]: r for r in csv.DictReader(io.StringIO(client.get(
        reverse("season_standings_csv", args=[season.slug])).content.decode()))}
    assert standings["'" + name]["garnets"] == "-2"
    assert {"'+1+cmd|' /C calc'!A0", "'\t=1+1", "'\r=1+1", "Ann"} <= set(standings)
