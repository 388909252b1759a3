"""The page defects of issue 25, through the Django test client and the real
websocket: replay links apart in the score bar, the host's end banner saying
what the host can actually do, a pause shown where players look (and pushed
live), and one result sentence with names for every game's endings."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from matches.play import services
from tests.wsclient import Communicator

ORIGIN = [(b"origin", b"http://testserver")]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def _element(html: str, ident: str) -> str:
    found = re.search(rf'<(\w+)[^>]*\sid="{ident}".*?</\1>', html, re.S)
    assert found, f"no #{ident}"
    return found.group(0)


def _squava_three(match: Any) -> None:
    """Seat 1 makes three in a row: a bout the rules end (Bob wins)."""
    for seat, text in [(1, "A1"), (2, "E5"), (1, "A2"), (2, "E4"), (1, "A3")]:
        services.submit(match, seat, text, match.current_bout.version)


# -- 1. replay links ----------------------------------------------------------------------


@pytest.mark.django_db
def test_score_bar_replay_links_are_separated(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    for _ in range(2):
        services.award_bout(match, 1 if match.current_bout.number == 1 else 2)
        services.start_next_bout(match)
    for url in (f"/w/{match.watch_token}/", f"/p/{match.seat(1).token}/", f"/h/{match.host_token}/"):
        links = _text(_element(client.get(url).content.decode(), "replay-links"))
        assert "bout 1, bout 2" in links, links
        assert "bout 1bout" not in links and "bout 2bout" not in links


# -- 2. the host's end banner ---------------------------------------------------------------


@pytest.mark.django_db
def test_rules_ending_banner_offers_a_correction_not_a_reopen(client: Client, make_match: Any) -> None:
    match = make_match("squava")
    _squava_three(match)
    match.refresh_from_db()
    assert match.status == "finished"
    banner = _element(client.get(f"/h/{match.host_token}/").content.decode(), "banner")
    words = _text(banner)
    assert "reopen" not in words.lower()
    assert "decided on the board" in words and "correct" in words
    # a link to the turn to correct, and that turn is in the page with its correct form
    link = re.search(r'<a href="#(turn-1-(\d+))"', banner)
    assert link, banner
    page = client.get(f"/h/{match.host_token}/").content.decode()
    row = re.search(rf'<li id="{link.group(1)}"[^>]*>.*?</li>', page, re.S)
    assert row and "A3" in row.group(0) and 'name="action" value="correct"' in row.group(0)
    # players are told nothing about it
    assert "correct" not in _text(_element(client.get(f"/p/{match.seat(1).token}/").content.decode(), "banner"))


@pytest.mark.django_db
def test_host_ending_banner_offers_reopen(client: Client, make_match: Any) -> None:
    match = make_match("squava")
    services.forfeit(match, 1, scope="match")
    words = _text(_element(client.get(f"/h/{match.host_token}/").content.decode(), "banner"))
    assert "Reopen bout 1" in words and "correct" not in words


# -- 3. a pause where players look ----------------------------------------------------------


@pytest.mark.django_db
def test_paused_match_reads_paused_in_status_clocks_and_board(client: Client, make_match: Any) -> None:
    match = make_match("squava", clock={"per_move": 30, "reserve": 60})
    services.pause_clocks(match)
    for url in (f"/p/{match.seat(1).token}/", f"/p/{match.seat(2).token}/", f"/w/{match.watch_token}/",
                f"/h/{match.host_token}/"):
        page = client.get(url).content.decode()
        assert _text(_element(page, "status")) == "Paused by the host."
        assert "Paused by the host" in _text(_element(page, "clocks"))
        assert "Paused by the host" in _text(_element(page, "board"))
        assert 'data-paused="1"' in _element(page, "live-meta").split(">")[0]
    ann = client.get(f"/p/{match.seat(1).token}/").content.decode()
    assert "Your turn" not in ann
    assert re.search(r'<button type="submit" class="primary" id="move-submit"[^>]*\bdisabled\b', ann)
    services.resume_clocks(match)
    ann = client.get(f"/p/{match.seat(1).token}/").content.decode()
    assert _text(_element(ann, "status")) == "Your turn." and "Paused by the host" not in ann
    assert not re.search(r'id="move-submit"[^>]*\bdisabled\b', ann)


@pytest.fixture
def own_cache(settings: Any) -> None:
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.mark.django_db(transaction=True)
async def test_pause_and_resume_are_pushed_to_the_seat(make_match: Any, own_cache: None) -> None:
    from config.asgi import application

    match = await database_sync_to_async(make_match)("squava")
    token = await database_sync_to_async(lambda: match.seat(1).token)()
    comm = Communicator(application, f"/ws/m/{token}/", headers=ORIGIN)
    assert (await comm.connect())[0]
    assert "Your turn." in await comm.receive_from(timeout=5)

    async def update() -> str:
        for _ in range(10):
            text = await comm.receive_from(timeout=5)
            if 'id="live-meta"' in text:
                return text
        raise AssertionError("no update")

    await database_sync_to_async(services.pause_clocks)(match)
    paused = await update()
    assert "Paused by the host." in _text(_element(paused, "status")) and 'data-paused="1"' in paused
    await database_sync_to_async(services.resume_clocks)(match)
    resumed = await update()
    assert "Your turn." in _text(_element(resumed, "status")) and 'data-paused="0"' in resumed
    await comm.disconnect()


# -- 5. one sentence for every ending ----------------------------------------------------------

NAMES = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"}
SENTENCE = re.compile(
    r"^(?:(?:Ann|Bob|Cy|Di)(?: and (?:Ann|Bob|Cy|Di))* wins? (?:bout \d+|the match)"
    r"|Bout \d+ is (?:a stalemate|drawn)|The match is over: no winner)(?: — [^—]+)?\.$")


def _random_ending(slug: str, seed: int) -> Any:
    """A real ending of `slug`, played at random through its rules (every seat to act, in turn)."""
    import random

    from games.registry import get_game

    game, rng = get_game(slug), random.Random(seed)
    state = game.new()
    for _ in range(3000):
        if game.result(state) is not None:
            break
        for seat in sorted(game.to_act(state)):
            state = game.apply(state, seat, game.random_action(state, seat, rng))
            if game.result(state) is not None:
                break
    result = game.result(state)
    assert result is not None, slug
    return result


@pytest.mark.parametrize("slug", ["lance-assembly", "grid-master", "two-connect", "squava", "gomoku", "yinsh",
                                  "bidding-ttt", "back-to-the-wall"])
def test_every_game_ending_reads_as_one_sentence_with_names(slug: str) -> None:
    from types import SimpleNamespace

    from games.registry import get_game
    from matches.core import outcome

    names = {n: NAMES[n] for n in range(1, get_game(slug).seats + 1)}
    for seed in range(3):
        result = _random_ending(slug, seed)
        data = result.to_json()
        bout = SimpleNamespace(number=2, finished=True, result=data, reason=result.reason, counts=True)
        for status, winners, reason in (("running", [], ""), ("finished", sorted(result.winners), result.reason)):
            match = SimpleNamespace(status=status, game_slug=slug, game=get_game(slug), format={"bouts": 1}, winners=winners,
                                    result_reason=reason, options={})
            for viewer in (0, 1):
                banner = outcome.banner(match, bout, names, viewer, {})
                assert banner is not None
                words = outcome.sentence(banner)
                if viewer == 1 and 1 in result.winners:
                    words = words.replace("You", "Ann", 1)
                assert SENTENCE.match(words), words
                for text in (words, banner["detail"]):
                    assert not re.search(r"\b[Ss]eat \d", text), text
                for seat in result.winners:
                    assert names[seat] in words or (seat == viewer and words.startswith("Ann")), words


@pytest.mark.django_db
def test_stalemate_and_draw_sentences_do_not_repeat_themselves(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    services.declare_result(match, "stalemate", match.current_bout.version)
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert _text(_element(watch, "banner-head")) == "Bout 1 is a stalemate"
    assert _text(_element(watch, "status")) == "Bout 1 is a stalemate."
    services.start_next_bout(match)
    services.declare_result(match, "draw", match.current_bout.version)
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert _text(_element(watch, "banner-head")) == "Bout 2 is drawn — declared by the host"


@pytest.mark.django_db
def test_a_rules_ending_names_the_winner_in_status_and_banner(client: Client, make_match: Any) -> None:
    match = make_match("squava")
    _squava_three(match)
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert _text(_element(watch, "status")) == "Bob wins the match — the opponent made three in a row."
    bob = client.get(f"/p/{match.seat(2).token}/").content.decode()
    assert _text(_element(bob, "status")) == "You win the match — the opponent made three in a row."


# -- safer host controls ------------------------------------------------------------------------


@pytest.mark.django_db
def test_endings_confirm_their_consequence_and_offer_an_undo_toast(client: Client, make_match: Any) -> None:
    from tests.hostform import seq

    match = make_match("lance-assembly", bouts=3)
    panel = _element(client.get(f"/h/{match.host_token}/").content.decode(), "host-panel")
    # each ending's confirmation names what it does ({seat}/{others}: the seats chosen, static/js/confirm.js)
    for sentence in ("{seat} forfeits the match: {others} wins it.", "{seat} forfeits bout 1: {others} wins it.",
                     "Bout 1 goes to {seat}.", "Bout 1 ends in a draw.", "Bout 1 ends as a stalemate",
                     "The match ends now; {winners}."):
        assert f'hx-confirm="{sentence}' in panel, sentence
    reply = client.post(f"/h/{match.host_token}/act/", {"action": "forfeit", "seat": 2, "scope": "match",
                                                        "host_seq": seq(match.host_token)}).content.decode()
    toast = _element(reply, "undo-toast")
    assert "Bob forfeited the match" in reply and 'value="reopen"' in toast
    match.refresh_from_db()
    assert match.status == "finished"
    # the toast's form is the host's next action: it reopens the match
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', toast))
    client.post(f"/h/{match.host_token}/act/", fields)
    match.refresh_from_db()
    assert match.status == "running" and match.current_bout.finished is None
    # a bout the rules decided has no toast (there is nothing to reopen)
    squava = make_match("squava")
    _squava_three(squava)
    ended = client.post(f"/h/{squava.host_token}/act/", {"action": "end", "host_seq": seq(squava.host_token)})
    assert 'id="undo-toast"' not in ended.content.decode()


# -- 10. small ones -------------------------------------------------------------------------


@pytest.mark.django_db
def test_season_csvs_answer_head(client: Client) -> None:
    from django.urls import reverse

    from matches.seasons import ledger

    season = ledger.create_season("Spring")
    for name in ("season_ledger_csv", "season_standings_csv"):
        url = reverse(name, args=[season.slug])
        head = client.head(url)
        assert head.status_code == 200 and head["Content-Type"].startswith("text/csv") and head.content == b""
        assert client.post(url).status_code == 405


@pytest.mark.django_db
def test_two_seats_may_not_share_a_name(client: Client) -> None:
    from matches.models import Match

    response = client.post("/", {"game": "grid-master", "seat1": "Ann", "seat2": " ann "})
    html = response.content.decode()
    assert response.status_code == 400 and Match.objects.count() == 0
    assert "seat 1 and seat 2 are both called &#x27;ann&#x27;: give each seat its own name" in html
    assert client.post("/", {"game": "grid-master", "seat1": "Ann", "seat2": ""}).status_code == 302


# -- 8. a Back to the Wall replay step is not live ---------------------------------------------


@pytest.mark.django_db
def test_back_to_the_wall_replay_step_draws_nothing_live(client: Client, make_match: Any) -> None:
    import random

    from games.registry import get_game

    game, rng = get_game("back-to-the-wall"), random.Random(5)
    match = make_match("back-to-the-wall")
    state = services.bout_state(match.current_bout)
    version = match.current_bout.version
    for seat in (1, 2, 3, 4):
        services.submit(match, seat, game.format(game.random_action(state, seat, rng)), version)
    services.set_replay_access(match, 0)
    for url in (f"/w/{match.watch_token}/bouts/1/?step=1", f"/h/{match.host_token}/bouts/1/?step=1",
                f"/p/{match.seat(1).token}/bouts/1/?step=1"):
        step = client.get(url).content.decode()
        assert "After round 1 of 3" in step, url
        assert "waiting…" not in step and "orders in" not in step and "Round <b>" not in step, url
        assert 'class="bttw building' not in step and 'class="bttw-build"' not in step, url
    live = client.get(f"/h/{match.host_token}/").content.decode()
    assert "Round <b>2</b> of 3" in live and "waiting…" in live


# -- 9. seasons ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_winning_the_elimination_match_clears_the_candidacy_and_reopen_restores_it() -> None:
    from matches.models import SeasonPlayer
    from matches.play import season_matches
    from matches.seasons import ledger

    season = ledger.create_season("Autumn")
    ann, bob = ledger.add_player(season, "Ann"), ledger.add_player(season, "Bob")
    for player in (ann, bob):
        ledger.set_status(season, player, SeasonPlayer.CANDIDATE)
    match = season_matches.create_season_match(season, "squava", [ann, bob], elimination=True)
    services.start_match(match)
    services.forfeit(match, 2, scope="match")
    ann.refresh_from_db()
    bob.refresh_from_db()
    assert (ann.status, bob.status) == (SeasonPlayer.ACTIVE, SeasonPlayer.ELIMINATED)
    assert season.events.filter(text="Ann won the elimination match and is no longer an Elimination Candidate").exists()
    match.refresh_from_db()
    assert match.current_bout is not None
    services.reopen_bout(match, match.current_bout.version)
    ann.refresh_from_db()
    bob.refresh_from_db()
    assert (ann.status, bob.status) == (SeasonPlayer.CANDIDATE, SeasonPlayer.CANDIDATE)


@pytest.mark.django_db
def test_the_turn_sound_is_offered_while_the_match_has_turns_to_come(client: Client, make_match: Any) -> None:
    """A seat's page offers the turn sound (static/js/alerts.js shows the offer while no choice is
    saved); a finished match has no turn left to sound, so its pages offer nothing."""
    match = make_match("squava", bouts=3)
    assert 'id="sound-offer"' in client.get(f"/p/{match.seat(1).token}/").content.decode()
    services.forfeit(match, 1, scope="bout")
    match.refresh_from_db()
    assert match.status != "finished"  # between bouts: the next one has turns
    assert 'id="sound-offer"' in client.get(f"/p/{match.seat(1).token}/").content.decode()
    services.end_match(match)
    match.refresh_from_db()
    assert match.status == "finished"
    for seat in (1, 2):
        assert 'id="sound-offer"' not in client.get(f"/p/{match.seat(seat).token}/").content.decode()
