"""Episodes (issue 52, items 1, 3, 4, 5, 9) through the Django test client and a real webhook
endpoint: 8 players, a Host's game main match ended with a ranking naming its Token of Life and
candidate, the pick on the candidate's personal page, the bans down to one, the death match
created, its starting seat chosen, played by the seats to a result, the elimination; the host
overriding each step; doubled posts applied once; refusals in one sentence; and no secret link
in what any other audience receives (public page, CSVs, announcements, the season's records)."""

from __future__ import annotations

import csv
import html as html_lib
import io
import re
import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from config import logredact
from matches.models import Duel, Match, Season, SeasonEvent, SeasonPlayer, Seat
from matches.play import services
from matches.seasons import ledger as seasons
from matches.seasons import webhooks
from tests.hookserver import Hook
from tests.matches.seasons.test_webhooks import drain

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Finn", "Gus", "Hal"]
POOL = ["lance-assembly", "grid-master", "squava", "gomoku"]
#: a Squava bout the second seat to move wins with four in a row (the first never makes three)
FIRST_MOVER_LOSES = ["A5", "A1", "B5", "B1", "E3", "D1", "D4", "C1"]


@pytest.fixture
def hook() -> Iterator[Hook]:
    server = Hook()
    yield server
    server.close()


@pytest.fixture
def season(hook: Hook, settings: Any) -> Season:
    settings.DEATHMATCH_WEBHOOK_ALLOW_PRIVATE = True
    season = seasons.create_season("Genius", webhook_url=hook.url, base_url="https://dm.example.org")
    for name in NAMES:
        seasons.add_player(season, name)
    return season


def player(season: Season, name: str) -> SeasonPlayer:
    found: SeasonPlayer = season.players.get(name=name)
    return found


def manage_url(season: Season) -> str:
    return reverse("season_manage", args=[season.manage_token])


def personal_url(season: Season, name: str) -> str:
    return reverse("personal_page", args=[player(season, name).personal_token])


def form(page: str, selector: str) -> str:
    """The html of the form with this id (or the first form holding this marker)."""
    found = re.search(rf'<form[^>]*id="{selector}"[^>]*>.*?</form>', page, re.S)
    assert found is not None, selector
    return found.group(0)


def post(client: Client, url: str, form_id: str, **data: Any) -> list[str]:
    """Post the form `form_id` of the page at `url` with its own key and action; the flash messages."""
    html = form(client.get(url).content.decode(), form_id)
    action = re.search(r'action="([^"]+)"', html)
    key = re.search(r'name="key" value="([^"]+)"', html)
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))
    assert action and key
    response = client.post(action.group(1), {**hidden, **data}, follow=True)
    return [str(m) for m in response.context["messages"]]


def raw(client: Client, season: Season, name: str, **data: Any) -> list[str]:
    """A personal page's post as a script would send it (a fresh key, no form drawn)."""
    url = reverse("personal_act", args=[player(season, name).personal_token])
    response = client.post(url, {"key": secrets.token_urlsafe(16), **data}, follow=True)
    return [str(m) for m in response.context["messages"]]


def act(client: Client, season: Season, **data: Any) -> list[str]:
    """A manage-page action with a fresh key the page drew."""
    page = client.get(manage_url(season)).content.decode()
    key = re.search(r'name="key" value="([^"]+)"', page)
    assert key
    response = client.post(reverse("season_act", args=[season.manage_token]), {"key": key.group(1), **data},
                           follow=True)
    return [str(m) for m in response.context["messages"]]


def options(html: str, name: str) -> list[str]:
    select = re.search(rf'<select[^>]*name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select
    return re.findall(r'<option value="([^"]*)"', select.group(1))


def main_match(client: Client, season: Season, ending: str) -> Match:
    """The Host's game with all 8, created on the manage page, ended by the host's typed ranking."""
    seats = {f"seat{n}": str(player(season, name).pk) for n, name in enumerate(NAMES, start=1)}
    act(client, season, action="match", game="custom", **seats)
    match = season.matches.get(elimination=False, status=Match.SETUP)
    services.start_match(match)
    match.refresh_from_db()
    bout = match.current_bout
    assert bout is not None
    services.host_apply(match, ending, bout.version)
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    return match


def secrets_of(season: Season) -> list[str]:
    tokens = [season.manage_token, *season.players.values_list("personal_token", flat=True)]
    for match in season.matches.all():
        tokens.append(match.host_token)
        tokens += list(Seat.objects.filter(match=match).values_list("token", flat=True))
    return tokens


def play(client: Client, match: Match, moves: list[str]) -> None:
    """The seats move through their own pages (the seat to act posts each move)."""
    for text in moves:
        match.refresh_from_db()
        bout = match.current_bout
        assert bout is not None
        seat = match.seats.get(number=sorted(match.game.to_act(match.game.load(bout.state)))[0])
        response = client.post(reverse("player_move", args=[seat.token]), {"text": text, "version": bout.version})
        assert response.status_code == 200
    match.refresh_from_db()


def test_a_whole_episode_from_the_main_match_to_the_elimination(client: Client, season: Season, hook: Hook) -> None:
    assert act(client, season, action="death_match_pool", game=POOL) == [
        "Death match pool: Lance Assembly, Grid Master, Squava, Gomoku"]
    main = main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    assert player(season, "Hal").status == "candidate" and player(season, "Ann").tokens_held() == 1
    manage = client.get(manage_url(season)).content.decode()
    assert "Episode 1 in progress" in manage and "waiting for Hal to choose an opponent" in manage
    for name in NAMES:  # the host hands out each personal page
        assert f'data-player-link="{name}" href="{personal_url(season, name)}"' in manage

    # the candidate's page: the eligible players only (Ann is immune, Hal is the candidate)
    hal_url, gus_url = personal_url(season, "Hal"), personal_url(season, "Gus")
    hal_page = client.get(hal_url).content.decode()
    assert options(form(hal_page, "choose-opponent"), "opponent") == ["Bob", "Cy", "Di", "Eve", "Finn", "Gus"]
    assert 'id="choose-opponent"' not in client.get(gus_url).content.decode()
    # an ineligible pick: one sentence, nothing changed
    assert post(client, hal_url, "choose-opponent", opponent="Ann") == [
        "Ann won a Token of Life in this episode's main match and is immune"]
    assert not Duel.objects.exists()
    # the pick, posted twice with the same key: applied once
    html = form(client.get(hal_url).content.decode(), "choose-opponent")
    key = re.search(r'name="key" value="([^"]+)"', html)
    assert key
    data = {"key": key.group(1), "action": "choose_opponent", "opponent": "Gus"}
    act_url = reverse("personal_act", args=[player(season, "Hal").personal_token])
    client.post(act_url, data, follow=True)
    again = [str(m) for m in client.post(act_url, data, follow=True).context["messages"]]
    assert len(again) == 1 and again[0].endswith("(a doubled submit: nothing was applied twice)")
    assert Duel.objects.count() == 1 and season.events.filter(kind="pick").count() == 1
    duel = Duel.objects.get()
    assert duel.pool == POOL
    # the pool in force when the choosing started is the one used
    act(client, season, action="death_match_pool", game=["squava"])
    duel.refresh_from_db()
    assert duel.pool == POOL

    # the bans: the candidate first; the other sees the form disabled and who is awaited
    gus_page = client.get(gus_url).content.decode()
    gus_form = form(gus_page, "death-match-choice")
    assert options(gus_form, "game") == POOL
    assert gus_form.count(" disabled") == 3 and "Waiting for Hal to ban or agree." in gus_page
    hal_form = form(client.get(hal_url).content.decode(), "death-match-choice")
    assert " disabled" not in hal_form
    assert re.findall(r'name="verdict" value="(\w+)"', hal_form) == ["ban", "agree"]
    # out of turn: one sentence, nothing changed
    assert post(client, gus_url, "death-match-choice", game="squava", verdict="ban") == [
        "it is not your turn: waiting for Hal to ban"]
    duel.refresh_from_db()
    assert duel.steps == []
    assert post(client, hal_url, "death-match-choice", game="chess", verdict="ban") == [
        "chess is not one of the open death matches"]
    # a ban posted twice (the same form, the same key): applied once
    html = form(client.get(hal_url).content.decode(), "death-match-choice")
    ban = {**dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html)), "game": "gomoku",
           "verdict": "ban"}
    client.post(act_url, ban, follow=True)
    again = [str(m) for m in client.post(act_url, ban, follow=True).context["messages"]]
    assert again == ["already done: Episode 1: Hal bans Gomoku; Gus to ban next (open: Lance Assembly, Grid Master, "
                     "Squava) (a doubled submit: nothing was applied twice)"]
    duel.refresh_from_db()
    assert len(duel.steps) == 1
    post(client, gus_url, "death-match-choice", game="lance-assembly", verdict="ban")
    assert "waiting for Hal to ban or agree" in client.get(manage_url(season)).content.decode()
    post(client, hal_url, "death-match-choice", game="grid-master", verdict="ban")
    duel.refresh_from_db()
    assert duel.game_slug == "squava" and duel.settled_how == "bans"
    death = duel.death_match
    assert death is not None and death.elimination and death.status == Match.SETUP
    assert [(s.number, s.name) for s in death.seats.order_by("number")] == [(1, "Hal"), (2, "Gus")]

    # both personal pages link their own seat; the advantage holder (the opponent) chooses who starts
    for name, url in (("Hal", hal_url), ("Gus", gus_url)):
        page = client.get(url).content.decode()
        seat = death.seats.get(name=name)
        assert re.search(rf'<a data-seat-link="{death.pk}" href="/p/{seat.token}/"', page)
        other = death.seats.exclude(name=name).get()
        assert other.token not in page and season.manage_token not in page and death.host_token not in page
    assert 'id="choose-starter"' not in client.get(hal_url).content.decode()
    assert "waiting for Gus to choose who starts" in client.get(manage_url(season)).content.decode()
    post(client, gus_url, "choose-starter", starter="Hal")
    death.refresh_from_db()
    assert death.status == Match.RUNNING and death.current_bout is not None and death.current_bout.starting_seat == 1

    # the seats play it to a result: Gus wins, Hal is eliminated
    play(client, death, FIRST_MOVER_LOSES)
    assert death.status == Match.FINISHED and death.winners == [2]
    assert player(season, "Hal").status == "eliminated"

    # the public page tells the episode as it happened
    public = client.get(reverse("season_page", args=[season.slug])).content.decode()
    text = html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", public)))
    for told in ("Episode 1", f"Main match: Host's game #{main.pk}", "Token of Life: Ann",
                 "Elimination Candidate: Hal", "Hal chose Gus.", "Hal bans Gomoku", "Gus bans Lance Assembly",
                 "Hal bans Grid Master", "Death match: Squava (the last one left); Hal starts.", "Gus wins",
                 "Hal is eliminated."):
        assert told in text, told
    assert text.index("Hal bans Gomoku") < text.index("Gus bans Lance Assembly") < text.index("Hal bans Grid Master")
    assert f'href="/w/{death.watch_token}/"' in public

    # what each other audience receives holds no secret link
    drain()
    texts = hook.texts
    assert season.events.filter(kind="episode", text__startswith="Episode 1 begins with Host's game").exists()
    for said in ("Hal chooses Gus as the death match opponent", "Hal bans Gomoku",
                 "Gus bans Lance Assembly", "Squava remains, the death match of Hal and Gus",
                 "who starts the death match: Hal", f"/w/{death.watch_token}/"):
        assert any(said in t for t in texts), said
    assert any("has started. Watch: https://dm.example.org/w/" in t and f"#{death.pk}" in t for t in texts)
    received = [public, *texts, *SeasonEvent.objects.filter(season=season).values_list("text", flat=True)]
    for path in ("season_ledger_csv", "season_standings_csv"):
        received.append(client.get(reverse(path, args=[season.slug])).content.decode())
    for secret in secrets_of(season):
        for what in received:
            assert secret not in what


def test_each_personal_page_shows_only_its_own_links(client: Client, season: Season) -> None:
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    main = season.matches.get()
    for name in NAMES:
        page = client.get(personal_url(season, name)).content.decode()
        mine = main.seats.get(name=name).token
        assert f'href="/p/{mine}/"' in page
        others = [t for t in secrets_of(season) if t not in (mine, player(season, name).personal_token)]
        assert not [t for t in others if t in page], name
        assert client.get(personal_url(season, name))["Cache-Control"].startswith(("private", "max-age=0"))
    assert client.get(reverse("personal_page", args=["x" * 32])).status_code == 404


def test_the_host_overrides_every_step(client: Client, season: Season, hook: Hook) -> None:
    act(client, season, action="death_match_pool", game=POOL)
    act(client, season, action="episode_options", advantage="candidate", start="setup", deadline="30")
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    hal_url = personal_url(season, "Hal")
    with time_machine.travel(start + timedelta(minutes=31), tick=False):
        # the deadline passed: the candidate is told, the host is shown it and decides
        page = client.get(hal_url).content.decode()
        assert 'id="choose-opponent"' not in page and "the deadline to choose has passed" in page
        assert raw(client, season, "Hal", action="choose_opponent", opponent="Bob") == [
            "the deadline to choose has passed: the host chooses your opponent"]
        assert "the deadline has passed, the host decides" in client.get(manage_url(season)).content.decode()
    hal = player(season, "Hal")
    assert act(client, season, action="host_pick", player=hal.pk, opponent="Ann") == [
        "Ann won a Token of Life in this episode's main match and is immune"]
    act(client, season, action="host_pick", player=hal.pk, opponent="Bob")
    duel = Duel.objects.get()
    assert duel.opponent.name == "Bob" and duel.picked_by == "host"
    # the host bans for Hal, then changes the opponent: the bans start again
    act(client, season, action="host_step", duel=duel.pk, player=hal.pk, verdict="ban", game="gomoku")
    act(client, season, action="host_pick", player=hal.pk, opponent="Cy")
    duel.refresh_from_db()
    assert duel.opponent.name == "Cy" and duel.steps == []
    cy = player(season, "Cy")
    assert act(client, season, action="host_step", duel=duel.pk, player=cy.pk, verdict="ban", game="gomoku") == [
        "it is Hal's turn to ban, not Cy's"]
    # Hal agrees to Squava (no turn taken), bans Gomoku; Cy, in turn, agrees too: settled by agreement
    post(client, hal_url, "death-match-choice", game="squava", verdict="agree")
    cy_page = client.get(personal_url(season, "Cy")).content.decode()
    assert "Hal agrees to Squava" in cy_page and " disabled" in form(cy_page, "death-match-choice")
    post(client, hal_url, "death-match-choice", game="gomoku", verdict="ban")
    act(client, season, action="host_step", duel=duel.pk, player=cy.pk, verdict="agree", game="squava")
    duel.refresh_from_db()
    assert duel.game_slug == "squava" and duel.settled_how == "agreed" and duel.death_match is not None
    # the candidate holds the advantage here; the host sets who starts instead; the match is left in setup
    assert 'id="choose-starter"' in client.get(hal_url).content.decode()
    act(client, season, action="host_starter", duel=duel.pk, starter="Cy")
    death = duel.death_match
    death.refresh_from_db()
    assert death.status == Match.SETUP
    assert "waiting for the host to start the death match" in client.get(manage_url(season)).content.decode()
    assert 'id="choose-starter"' not in client.get(hal_url).content.decode()
    # a doubled host post is applied once too
    page = client.get(manage_url(season)).content.decode()
    key = re.search(r'name="key" value="([^"]+)"', page)
    assert key
    data = {"key": key.group(1), "action": "host_starter", "duel": duel.pk, "starter": "Hal"}
    url = reverse("season_act", args=[season.manage_token])
    client.post(url, data, follow=True)
    again = [str(m) for m in client.post(url, data, follow=True).context["messages"]]
    assert len(again) == 1 and again[0].endswith("(a doubled submit: nothing was applied twice)")
    drain()
    assert any("Hal agrees to Squava and waits for Cy to agree" in t for t in hook.texts)
    assert any("Cy agrees to Squava (by the host), as Hal proposed: the death match of Hal and Cy" in t
               for t in hook.texts)
    kinds = list(season.events.filter(kind__in=["pick", "ban", "agree", "starter"]).values_list("kind", "text"))
    assert [k for k, _ in kinds] == ["pick", "ban", "pick", "agree", "ban", "agree", "starter", "starter"]
    assert "(by the host)" in kinds[1][1] and "the host chooses who starts" in kinds[-1][1]


def test_an_empty_pool_leaves_the_game_to_the_host(client: Client, season: Season) -> None:
    act(client, season, action="death_match_pool")  # nothing ticked
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    post(client, personal_url(season, "Hal"), "choose-opponent", opponent="Bob")
    duel = Duel.objects.get()
    assert duel.pool == []
    page = client.get(personal_url(season, "Bob")).content.decode()
    assert 'id="death-match-choice"' not in page and "Waiting for the host to choose the death match" in page
    act(client, season, action="host_game", duel=duel.pk, game="custom")  # the host's own death match, 2 seats
    duel.refresh_from_db()
    assert duel.death_match is not None and duel.death_match.game_slug == "custom"
    assert duel.death_match.seats.count() == 2 and duel.death_match.elimination
    # a second main match after the episode is over opens the next episode
    post(client, personal_url(season, "Bob"), "choose-starter", starter="Bob")
    death = duel.death_match
    death.refresh_from_db()
    services.forfeit(death, 1)
    seats = {f"seat{n}": str(player(season, name).pk) for n, name in enumerate(["Ann", "Cy"], start=1)}
    act(client, season, action="match", game="squava", **seats)
    assert [(e.number, e.ended is None) for e in season.episodes.order_by("number")] == [(1, False), (2, True)]


def test_candidates_pick_in_turn_last_placed_first_and_a_tie_is_the_host_s(client: Client, season: Season) -> None:
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7=8 token 1 candidate 7, 8")
    gus, hal = player(season, "Gus"), player(season, "Hal")
    assert "waiting for the host to say who chooses first: Gus and Hal are tied" in client.get(
        manage_url(season)).content.decode()
    assert 'id="choose-opponent"' not in client.get(personal_url(season, "Gus")).content.decode()
    act(client, season, action="pick_first", player=hal.pk)
    assert "waiting for Hal to choose an opponent" in client.get(manage_url(season)).content.decode()
    post(client, personal_url(season, "Hal"), "choose-opponent", opponent="Bob")
    # Gus's turn: neither the other candidate nor a player already in a death match
    gus_options = options(form(client.get(personal_url(season, "Gus")).content.decode(), "choose-opponent"),
                          "opponent")
    assert gus_options == ["Cy", "Di", "Eve", "Finn"]
    act_url = reverse("personal_act", args=[gus.personal_token])
    html = form(client.get(personal_url(season, "Gus")).content.decode(), "choose-opponent")
    key = re.search(r'name="key" value="([^"]+)"', html)
    assert key
    response = client.post(act_url, {"key": key.group(1), "action": "choose_opponent", "opponent": "Bob"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["Bob is already in a death match of this episode"]
    assert Duel.objects.count() == 1


def test_the_personal_page_reloads_when_the_season_changes(client: Client, season: Season) -> None:
    page = client.get(personal_url(season, "Hal")).content.decode()
    poll = re.search(r'hx-get="([^"]+)"', page)
    assert poll
    url = poll.group(1).replace("&amp;", "&")
    assert client.get(url).status_code == 204
    seasons.adjust_garnets(season, player(season, "Hal"), 3, "style")
    changed = client.get(url)
    assert changed.status_code == 200 and changed["HX-Refresh"] == "true"


def test_a_csv_row_never_holds_a_personal_link(client: Client, season: Season) -> None:
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    body = client.get(reverse("season_standings_csv", args=[season.slug])).content.decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0][0] == "player"
    assert not any(p in body for p in season.players.values_list("personal_token", flat=True))


def test_an_announcement_holding_a_personal_link_is_never_posted(season: Season) -> None:
    token = player(season, "Hal").personal_token
    assert webhooks.announce(season, f"Hal's page: https://dm.example.org/me/{token}/") is None
    assert not season.webhook_posts.filter(content__contains=token).exists()


def test_a_personal_link_is_redacted_from_log_lines_even_cut_short() -> None:
    assert logredact.redact("GET /me/abc123/act/ 302") == "GET /me/[personal page]/act/ 302"


def test_the_last_placed_candidate_chooses_first(client: Client, season: Season) -> None:
    seats = {f"seat{n}": str(player(season, name).pk) for n, name in enumerate(NAMES, start=1)}
    act(client, season, action="match", game="custom", **seats)
    match = season.matches.get()
    services.start_match(match)
    for text in ('give 7 2 "close"', "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 7, 8"):
        match.refresh_from_db()
        bout = match.current_bout
        assert bout is not None
        services.host_apply(match, text, bout.version)
    # Hal has fewer points than Gus: Hal first, no tie for the host
    assert "waiting for Hal to choose an opponent" in client.get(manage_url(season)).content.decode()
    assert raw(client, season, "Gus", action="choose_opponent", opponent="Bob") == [
        "it is not your turn to choose: waiting for Hal"]
    post(client, personal_url(season, "Hal"), "choose-opponent", opponent="Bob")
    assert "waiting for Gus to choose an opponent" in client.get(manage_url(season)).content.decode()


def test_the_recap_follows_a_reopened_death_match_and_a_token_of_life(client: Client, season: Season) -> None:
    act(client, season, action="death_match_pool", game=["squava"])  # one game: it is the death match at once
    seasons.grant_token(season, player(season, "Hal"), "kept from an earlier episode")
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    # a token kept from before saves, it does not make immune: Hal is still a candidate who picks
    post(client, personal_url(season, "Hal"), "choose-opponent", opponent="Gus")
    duel = Duel.objects.get()
    assert duel.game_slug == "squava" and duel.settled_how == "only" and duel.death_match is not None
    post(client, personal_url(season, "Gus"), "choose-starter", starter="Hal")
    death = duel.death_match
    play(client, death, FIRST_MOVER_LOSES)

    def told() -> str:
        page = client.get(reverse("season_page", args=[season.slug])).content.decode()
        return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))

    assert "Death match: Squava (the only one open to them)" in told()
    assert "Hal is eliminated unless the Token of Life is used: the host decides." in told()
    # the host takes the last move back: the result goes, and so does the elimination
    bout = death.current_bout
    assert bout is not None
    services.undo(death, bout.version)
    assert player(season, "Hal").status == "candidate" and "Hal is eliminated" not in told()
    assert "the death match is being played" in client.get(manage_url(season)).content.decode()
    play(client, death, FIRST_MOVER_LOSES[-1:])
    act(client, season, action="token_question", player=player(season, "Hal").pk, answer="use")
    assert "Hal is saved by a Token of Life." in told()


def test_an_ended_episode_keeps_its_own_candidates(client: Client, season: Season) -> None:
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    act(client, season, action="start_episode")
    seasons.set_status(season, player(season, "Bob"), "candidate")  # by hand, in episode 2
    page = client.get(reverse("season_page", args=[season.slug])).content.decode()
    told = dict(re.findall(r'data-episode="(\d+)".*?<li class="ep-candidates">([^<]*)</li>', page, re.S))
    # episode 1 keeps what its main match made; the one in progress has whoever is a candidate now
    assert told == {"2": "Elimination Candidates: Bob, Hal", "1": "Elimination Candidate: Hal"}


def test_hostile_personal_posts_get_a_sentence_never_a_500(client: Client, season: Season) -> None:
    """Every field of the candidate's choice, each with every kind of bad value, against one ended
    main match (a post that is refused changes nothing, so each starts from the same state)."""
    main_match(client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    url = reverse("personal_act", args=[player(season, "Hal").personal_token])
    for field in ["action", "duel", "opponent", "game", "verdict", "starter", "key"]:
        for value in ["", "x" * 5000, "\x00", "-1", "99999999999999999999", "<script>"]:
            data = {"action": "death_match_choice", "duel": "1", "opponent": "Bob", "game": "squava",
                    "verdict": "ban", "starter": "Hal", "key": secrets.token_urlsafe(16), field: value}
            response = client.post(url, data, follow=True)
            assert response.status_code == 200, (field, value[:20])
            said = [str(m) for m in response.context["messages"]]
            assert len(said) == 1 and "\n" not in said[0] and "<script>" not in response.content.decode(), (
                field, value[:20], said)
            assert not Duel.objects.exists(), (field, value[:20])


def test_staff_find_the_episode_rows_in_the_admin(admin_client: Client, season: Season) -> None:
    main_match(admin_client, season, "end ranking 1, 2, 3, 4, 5, 6, 7, 8 token 1 candidate 8")
    for name in ("episode", "duel"):
        assert admin_client.get(f"/admin/matches/{name}/").status_code == 200
