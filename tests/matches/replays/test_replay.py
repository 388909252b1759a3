"""Replays and records of bouts (matches/replay.py, record.py, replay_views.py).

Random games of every registered game are played through the services; the
replay's last step must be the bout's stored state, a record exported by the
host must import (through the services again) to the same states and results,
and no step, move list or record of another audience may hold what the live
page hides.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from games.core import HOST, SPECTATOR
from games.registry import get_game, slugs
from matches.core.replay_access import REPLAY_KEY
from matches.models import Match
from matches.play import services
from matches.replays import records as record
from matches.replays import steps as replay
from tests.hostform import seq

pytestmark = pytest.mark.django_db

MAX_MOVES = 400


def _bout(match: Any) -> Any:
    return match.bouts.order_by("-number").first()


def play_random(match: Any, rng: random.Random, *, max_moves: int = MAX_MOVES, whole_match: bool = False) -> None:
    """Random legal moves through `services.submit` until the bout (or match) ends."""
    game = match.game
    for _ in range(max_moves):
        match.refresh_from_db()
        bout = _bout(match)
        if bout.finished is not None:
            if not whole_match or match.status != Match.RUNNING:
                return
            services.start_next_bout(match)
            continue
        state = services.bout_state(bout)
        for seat in sorted(game.pending(state)):
            action = game.random_action(state, seat, rng)
            if action is None:
                raise AssertionError(f"{game.slug}: seat {seat} has nothing to play")
            services.submit(match, seat, game.format(action), _bout(match).version)
            if game.sealed:
                continue
            break
    raise AssertionError(f"{match.game_slug}: no end after {max_moves} moves")


def _finish(match: Any, rng: random.Random) -> None:
    """Play the bout out; a bout that runs too long is awarded by the host (still a finished bout)."""
    try:
        play_random(match, rng)
    except AssertionError as error:
        if "no end after" not in str(error):
            raise
        services.award_bout(match, 1)


@pytest.mark.parametrize("slug", slugs())
def test_a_host_record_imports_back_to_the_same_bouts(make_match: Any, slug: str, tmp_path: Any) -> None:
    rng = random.Random(f"record-{slug}")
    game = get_game(slug)
    match = make_match(slug, clock=False, **({"bouts": 2} if slug in ("lance-assembly", "grid-master") else {}))
    if not game.sealed:  # an undo and a correction in the log: the record holds the active moves only
        state = services.bout_state(_bout(match))
        seat = min(game.to_act(state))
        services.submit(match, seat, game.format(game.random_action(state, seat, rng)), _bout(match).version)
        services.undo(match, _bout(match).version)
        first = game.random_action(state, seat, rng)
        entry = services.submit(match, seat, game.format(first), _bout(match).version)
        other = next(a for a in game.legal_actions(state, seat) if a != first)
        services.correct(match, entry.sequence, game.format(other), _bout(match).version)
    try:
        play_random(match, rng, whole_match=True)
    except AssertionError as error:
        if "no end after" not in str(error):
            raise
        services.award_bout(match, 2)
    match.refresh_from_db()
    text = record.export(match, HOST)
    assert "Complete: yes" in text
    path = tmp_path / "record.txt"
    path.write_text(text, encoding="utf-8")
    before = set(Match.objects.values_list("pk", flat=True))
    call_command("import_record", str(path))
    (new_pk,) = set(Match.objects.values_list("pk", flat=True)) - before
    copy = Match.objects.get(pk=new_pk)
    assert copy.game_slug == slug and copy.status == match.status and copy.winners == match.winners
    old_bouts, new_bouts = list(match.bouts.order_by("number")), list(copy.bouts.order_by("number"))
    assert len(old_bouts) == len(new_bouts)
    for old, new in zip(old_bouts, new_bouts, strict=True):
        assert new.state == old.state and new.starting_seat == old.starting_seat
        assert (new.result or {}).get("winners") == (old.result or {}).get("winners")
        assert new.reason == old.reason
        assert [t.text for t in new.active_moves()] == [t.text for t in old.active_moves()]
    if not game.sealed:
        assert "# undone: " in text and "{was: " in text and "# host: undo 1" in text
    assert [s.name for s in copy.seats.order_by("number")] == [s.name for s in match.seats.order_by("number")]


def test_import_reproduces_host_endings_and_checks_the_state(make_match: Any, tmp_path: Any) -> None:
    match = make_match("lance-assembly", clock=False)
    services.submit(match, 1, "place C3", _bout(match).version)
    services.award_bout(match, 2)  # bout 1 by award
    services.start_next_bout(match)
    services.submit(match, 2, "place D4", _bout(match).version)
    services.declare_result(match, "stalemate", _bout(match).version)  # replayed: does not count
    services.start_next_bout(match)
    services.forfeit(match, 1, "bout")  # bout 3 forfeited: seat 2 wins the match 2-0
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.winners == [2]
    text = record.export(match, HOST)
    copy = record.import_record(text)
    assert copy.status == Match.FINISHED and copy.winners == [2]
    assert [(b.reason, b.counts) for b in copy.bouts.order_by("number")] == [
        ("award", True), ("stalemate", False), ("forfeit", True)]
    # a record whose moves do not lead to the recorded state is refused, and nothing is created
    count = Match.objects.count()
    tampered = text.replace("place D4", "place E4")
    with pytest.raises(record.RecordError, match="does not end in the recorded state"):
        record.import_record(tampered)
    assert Match.objects.count() == count
    path = tmp_path / "bad.txt"
    path.write_text("hello\n", encoding="utf-8")
    with pytest.raises(Exception, match="not a Deathmatch record"):
        call_command("import_record", str(path))


def test_import_reproduces_a_time_out(make_match: Any) -> None:
    match = make_match("lance-assembly", clock={"per_move": 5, "reserve": 0})
    services.submit(match, 1, "place C3", _bout(match).version)
    bout = _bout(match)
    clock = bout.clocks.get(seat=2)
    from matches.play import clocks, sweeper

    flag_at = clocks.flag_at(clock)
    assert flag_at is not None
    assert sweeper.claim_and_expire(match.pk, bout.pk, bout.version, flag_at)
    match.refresh_from_db()
    assert _bout(match).reason == "time"
    copy = record.import_record(record.export(match, HOST))
    bout = copy.bouts.get(number=1)
    assert bout.reason == "time" and bout.winners == [1]


# -- pages and access --------------------------------------------------------------------


def _lance_bout(make_match: Any) -> Any:
    match = make_match("lance-assembly", clock=False)
    for seat, text in [(1, "place C3"), (2, "place D4"), (1, "place E5")]:
        services.submit(match, seat, text, _bout(match).version)
    services.undo(match, _bout(match).version)  # E5 is undone
    services.submit(match, 1, "place B2", _bout(match).version)
    entry = services.submit(match, 2, "place D5", _bout(match).version)
    services.correct(match, entry.sequence, "place D6", _bout(match).version)
    return match


def test_replay_page_steps_through_a_bout_for_every_audience(client: Client, make_match: Any) -> None:
    match = _lance_bout(make_match)
    services.award_bout(match, 1)
    seat1 = match.seats.get(number=1)
    for prefix, token in (("w", match.watch_token), ("p", seat1.token), ("h", match.host_token)):
        page = client.get(f"/{prefix}/{token}/bouts/1/")
        assert page.status_code == 200
        html = page.content.decode()
        # the game's own board, at the last step; the moves as links; undone struck; corrected shows both
        assert 'data-coord="D6"' in html and 'data-coord="D6" data-value="B"' in html
        assert len(re.findall(r"<a [^>]*href=\"\?step=\d+\"", html)) == 5 + 4  # start + 4 moves + 4 controls
        assert re.search(r"<del class=\"text\">place E5</del>", html)
        assert re.search(r"corrected from <del>place D5</del>", html) and "place D6" in html
        assert "awarded bout 1 to" in html
        assert f"/{prefix}/{token}/bouts/1/record.txt" in html
        for other in (match.host_token, match.watch_token, seat1.token, match.seats.get(number=2).token):
            if other != token:
                assert other not in html
        # step 1: only C3 is on the board
        step = client.get(f"/{prefix}/{token}/bouts/1/?step=1&partial=1").content.decode()
        assert 'data-coord="C3" data-value="R"' in step and 'data-coord="D4" data-value=""' in step
        assert "Move 1 of 4" in step and 'id="board"' in step and "<html" not in step
        # step 0 is empty; a step past the end is the last
        assert 'data-value="R"' not in client.get(f"/{prefix}/{token}/bouts/1/?step=0&partial=1").content.decode()
        last = client.get(f"/{prefix}/{token}/bouts/1/?step=99&partial=1").content.decode()
        assert 'data-coord="D6" data-value="B"' in last and 'data-coord="E5" data-value=""' in last
    assert client.get(f"/w/{match.watch_token}/bouts/2/").status_code == 404
    assert client.get(f"/w/{match.host_token}/bouts/1/").status_code == 404


def test_a_running_bout_is_open_to_the_host_or_to_everyone_behind_the_host_delay(
    client: Client, make_match: Any
) -> None:
    match = _lance_bout(make_match)  # still running: C3 D4 B2 D6 are active
    watch = f"/w/{match.watch_token}/bouts/1/"
    closed = client.get(watch)
    assert closed.status_code == 403 and "keeps its replay closed" in closed.content.decode()
    assert "place C3" not in closed.content.decode()
    assert client.get(f"/h/{match.host_token}/bouts/1/").status_code == 200
    assert "place C3" not in client.get(f"/w/{match.watch_token}/bouts/1/record.txt").content.decode()
    response = client.post(f"/h/{match.host_token}/act/", {"host_seq": seq(match.host_token), "action": "replay_access", "access": "delay", "behind": "2"})
    assert "2 moves behind" in response.content.decode()
    match.refresh_from_db()
    assert match.format[REPLAY_KEY] == 2
    html = client.get(watch).content.decode()
    assert "2 moves behind the live board" in html
    assert "place C3" in html and "place D4" in html and "place B2" not in html and "place D6" not in html
    assert 'data-coord="B2" data-value=""' in client.get(watch + "?step=9&partial=1").content.decode()
    text = client.get(f"/w/{match.watch_token}/record.txt").content.decode()
    assert "place D4" in text and "place B2" not in text and "Complete: no" in text
    client.post(f"/h/{match.host_token}/act/", {"host_seq": seq(match.host_token), "action": "replay_access", "access": "host"})
    match.refresh_from_db()
    assert REPLAY_KEY not in match.format and client.get(watch).status_code == 403
    bad = client.post(f"/h/{match.host_token}/act/", {"host_seq": seq(match.host_token), "action": "replay_access", "access": "delay", "behind": "-1"})
    assert "between 0 and 99" in bad.content.decode()


def test_the_live_pages_link_each_finished_bout_and_the_banner_all_bouts(client: Client, make_match: Any) -> None:
    match = make_match("lance-assembly", clock=False)
    page = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Replays:" not in page  # nothing to replay yet: no empty label
    services.award_bout(match, 1)
    services.start_next_bout(match)
    page = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Replays:" in page and 'href="bouts/1/"' in page and 'href="bouts/2/"' not in page
    services.award_bout(match, 1)
    match.refresh_from_db()
    assert match.status == Match.FINISHED
    page = client.get(f"/p/{match.seats.get(number=2).token}/").content.decode()
    hit = re.search(r'<section id="banner".*?</section>', page, re.S)
    assert hit is not None
    banner = hit.group(0)
    assert 'href="bouts/1/"' in banner and 'href="bouts/2/"' in banner
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert 'href="record.txt"' in host and 'href="bouts/2/record.txt"' in host
    assert client.get(f"/h/{match.host_token}/record.txt")["Content-Disposition"].startswith("attachment")


# -- hidden information ---------------------------------------------------------------------------


def _normalise(html: str, match: Any) -> str:
    """A page without what differs between two matches anyway (tokens, ids, times)."""
    for token in [match.watch_token, match.host_token, *match.seats.values_list("token", flat=True)]:
        html = html.replace(token, "TOKEN")
    html = re.sub(r"\d{4}-\d\d-\d\d[ T][\d:.+]+(?: UTC)?", "TIME", html)
    html = re.sub(r"\{[0-9.]+ s\}|\d+\.\d s", "TIME", html)
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "CSRF", html)
    return re.sub(rf"(match #|{match.game_slug}-){match.pk}\b", r"\1ID", html)


def _pages(client: Client, match: Any, viewer: int) -> list[str]:
    prefix, token = ("w", match.watch_token) if viewer == SPECTATOR else ("p", match.seats.get(number=viewer).token)
    bout = _bout(match)
    last = len(replay.build_steps(bout)) - 1
    out = [client.get(f"/{prefix}/{token}/bouts/{bout.number}/?step={k}").content.decode() for k in range(last + 1)]
    out += [client.get(f"/{prefix}/{token}/bouts/{bout.number}/?step={k}&partial=1").content.decode()
            for k in range(last + 1)]
    out.append(client.get(f"/{prefix}/{token}/record.txt").content.decode())
    return [_normalise(page, match) for page in out]


def _bidding(make_match: Any, first_bids: list[str]) -> Any:
    match = make_match("bidding-ttt")
    rounds = [(first_bids[0], "E5 3"), (first_bids[1], "G7 2"), (first_bids[2], "pass")]
    for red, blue in rounds:
        if match.status != Match.RUNNING or _bout(match).finished:
            break
        version = _bout(match).version
        services.submit(match, 1, red, version)
        services.submit(match, 2, blue, version)
        match.refresh_from_db()
    return match


def test_bidding_replays_never_show_a_seats_bids_or_chips_to_others(client: Client, make_match: Any) -> None:
    # two matches that differ only in Red's bids (same tiles won): Blue and spectators must not tell them apart
    one = _bidding(make_match, ["A1 17; A5 4", "B1 9", "I9 6"])
    two = _bidding(make_match, ["A1 23; A5 6", "B1 11", "I9 1"])
    assert _bout(one).finished and _bout(two).finished
    assert _bout(one).state["owner"] == _bout(two).state["owner"]
    for viewer in (2, SPECTATOR):
        assert _pages(client, one, viewer) == _pages(client, two, viewer), viewer
    assert _pages(client, one, 1) != _pages(client, two, 1)  # the comparison can tell bids apart
    # ... while Red and the host do see them
    red = client.get(f"/p/{one.seats.get(number=1).token}/bouts/1/").content.decode()
    assert "A1 17" in red
    host = client.get(f"/h/{one.host_token}/bouts/1/?step=1").content.decode()
    assert "A1 17" in host and re.search(r"chips\W+\d+", host)


def test_back_to_the_wall_replays_hide_orders_and_garnet_spends(client: Client, make_match: Any) -> None:
    game = get_game("back-to-the-wall")
    matches = []
    rng = random.Random(11)
    orders: list[dict[int, str]] = []
    for spend in (False, True):  # identical but for seat 1's garnet spend on Once in round 1
        match = make_match("back-to-the-wall")
        for index in range(2):
            version = _bout(match).version
            state = services.bout_state(_bout(match))
            if len(orders) <= index:  # the same orders for both matches, garnets aside
                orders.append({seat: re.sub(r";?\s*(once|twice|thrice) garnet", "",
                                            game.format(game.random_action(state, seat, rng))) for seat in (1, 2, 3, 4)})
            for seat, text in orders[index].items():
                services.submit(match, seat, text + ("; once garnet" if spend and seat == 1 and index == 0 else ""),
                                version)
        matches.append(match)
    one, two = matches
    for match in matches:
        services.set_replay_access(match, 0)
    for viewer in (2, SPECTATOR):
        assert _pages(client, one, viewer) == _pages(client, two, viewer), viewer
    assert _pages(client, one, 1) != _pages(client, two, 1)  # seat 1 sees its own spend
    # each resolved round's tick-by-tick trace plays on the game's own board in the replay too
    step = client.get(f"/w/{one.watch_token}/bouts/1/?step=2&partial=1").content.decode()
    assert 'id="bttw-replay-play"' in step and 'id="bttw-data"' in step
    assert 'id="bttw-replay-play"' not in client.get(f"/w/{one.watch_token}/bouts/1/?step=0&partial=1").content.decode()
    # a round still open is no step, and its orders are nowhere in another audience's replay or record
    rng = random.Random(3)
    state = services.bout_state(_bout(two))
    open_orders = {seat: game.format(game.random_action(state, seat, rng)) for seat in (1, 2, 3)}
    for seat, text in open_orders.items():
        services.submit(two, seat, text, _bout(two).version)
    for page in _pages(client, two, SPECTATOR) + _pages(client, two, 4):
        assert all(text not in page for text in open_orders.values())
        assert "round not resolved" not in page
    host = client.get(f"/h/{two.host_token}/bouts/1/").content.decode()
    assert all(text in host for text in open_orders.values()) and "round not resolved yet" in host
    assert len(replay.build_steps(_bout(two))) == 3  # start + the two resolved rounds


def test_records_mask_sealed_orders_for_other_audiences_and_refuse_import(make_match: Any) -> None:
    match = _bidding(make_match, ["A1 17", "B1 9", "I9 6"])
    blue = record.export(match, 2)
    assert "A1 17" not in blue and "Complete: no" in blue and "E5 3" in blue
    with pytest.raises(record.RecordError, match="not complete"):
        record.import_record(blue)
    host = record.export(match, HOST)
    assert "A1 17" in host and "Complete: yes" in host
    hit = re.search(r"^Format: (.*)$", host, re.M)
    assert hit is not None
    assert json.loads(hit.group(1))["bouts"] == 1


@pytest.mark.parametrize("slug", slugs())
def test_every_games_replay_steps_end_at_the_stored_state_and_render_for_every_audience(
    client: Client, make_match: Any, slug: str
) -> None:
    match = make_match(slug, clock=False)
    _finish(match, random.Random(f"page-{slug}"))
    bout = _bout(match)
    steps = replay.build_steps(bout)
    # the last step is the stored state, and the steps are the active moves in order
    assert match.game.dump(steps[-1].state) == bout.state
    active = list(bout.active_moves())
    if match.game.sealed:  # one step per resolved round, each ending with the move that resolved it
        assert len(steps) - 1 == match.game.public_view(steps[-1].state).get("round", len(steps) - 1) or len(steps) > 1
        assert [m.pk for s in steps for m in s.moves] == [m.pk for m in active]
    else:
        assert [s.last.pk if s.last is not None else None for s in steps[1:]] == [m.pk for m in active]
    last = len(steps) - 1
    links = [("w", match.watch_token), ("h", match.host_token)]
    links += [("p", s.token) for s in match.seats.order_by("number")]
    for prefix, token in links:
        for step in sorted({0, last // 2, last}):
            page = client.get(f"/{prefix}/{token}/bouts/1/?step={step}")
            assert page.status_code == 200, (slug, prefix, step)
            html = page.content.decode()
            assert f'class="replay-step" data-step="{step}"' in html and 'id="board"' in html
        assert client.get(f"/{prefix}/{token}/bouts/1/record.txt").status_code == 200
