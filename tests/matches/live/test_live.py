"""The live path: what a move costs and what every screen receives.

services decide and commit, then announce the change (events) to `live`; `live` asks
`render` for each audience with a socket open and sends a delta (changed
fragments, changed board cells, appended log rows) when it sent the
version before.  Sizes and query counts here are behaviour (they must not
grow with the log); speed lives in bench/fanout.py."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import random
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.core import HOST, SPECTATOR
from matches.core import events
from matches.live import drawing, presence, presence_store, render
from matches.live import fanout as live
from matches.play import requests, services
from tests.games.test_two_connect_page import OPENING
from tests.live_pages import Process
from tests.live_pages import apply_update as _apply
from tests.live_pages import board as _board
from tests.live_pages import cells as _cells
from tests.live_pages import rows as _rows
from tests.live_pages import same as _same
from tests.live_pages import top_level as _top_level
from tests.live_pages import write as _write

ROOT = Path(__file__).resolve().parents[3]
META = re.compile(r'<div id="live-meta"[^>]*data-version="(\d+)"(?:[^>]*data-base="(\d+)")?')


#: this process's sockets, one per audience (what its relay writes them)
_process = Process()


@pytest.fixture(autouse=True)
def fresh(monkeypatch: Any) -> None:
    live.forget()
    _process.sent.clear()
    monkeypatch.setattr(presence, "store", presence._Local())  # this test's own connections
    monkeypatch.setattr(presence_store, "TTL", 3600.0)  # open for the whole test, however slow the machine


@pytest.fixture
def handed() -> Iterator[list[Any]]:
    """What moves hand over after commit (events.Moved), drawn by the test itself, not by live."""
    got: list[Any] = []

    def record(match_id: int, moved: Any) -> None:
        got.append(moved)

    events.unsubscribe(live.notify)
    events.subscribe(record)
    try:
        yield got
    finally:
        events.unsubscribe(record)
        events.subscribe(live.notify)


def _open(match: Any, *labels: str) -> None:
    """Pretend sockets of these audiences are open (what the consumers record on connect)."""
    presence.store.add([(presence.key(match.id, label), f"socket-{label}") for label in labels])


def _updates(match: Any) -> dict[str, str]:
    return {group.rsplit("-", 1)[-1] if "seat" not in group else group.split("-", 2)[2]: msg["html"]
            for group, msg in _process.prepare(match.id)}


def _play(match: Any, seat: int, text: str) -> None:
    match.refresh_from_db()
    services.submit(match, seat, text, match.current_bout.version)


LANCE_MOVES = ["place C3", "place D4", "place C4", "place E5", "place B2", "place E2", "place F1", "place A6",
               "place B5", "place F6", "place A3", "place F3"]


# -- cost of a move -----------------------------------------------------------------------------


def test_a_move_takes_at_most_11_queries(roles: Any, django_assert_max_num_queries: Any) -> None:
    """Lock the match and its bout, read the clocks and the log's last number, write the move, the
    two clocks and the bout, and (PostgreSQL) let the commit not wait for the disk."""
    match = roles.match
    _play(match, 1, "place C3")
    match.refresh_from_db()
    version = match.current_bout.version
    with django_assert_max_num_queries(11 if connection.vendor == "postgresql" else 10):
        services.submit(match, 2, "slide C3 down 1", version)


def test_an_update_reads_the_same_queries_whatever_the_log_and_the_audiences(roles: Any) -> None:
    match = roles.match
    _open(match, "watch")
    _process.prepare(match.id)
    counts = []
    for index, text in enumerate(LANCE_MOVES[:10]):
        _play(match, 1 + index % 2, text)
        if index == 5:
            _open(match, "watch", "seat-1", "seat-2", "host")
        with CaptureQueriesContext(connection) as queries:
            assert _process.prepare(match.id)
        counts.append(len(queries.captured_queries))
    # one snapshot for every audience; rows appended, never the whole log (no N+1)
    assert counts[1] == counts[4] and counts[7] == counts[9], counts
    assert counts[9] <= counts[4] + 2, counts  # the host's presence/reopen checks at most


# -- what is sent ------------------------------------------------------------------------------------


def test_nothing_is_rendered_for_audiences_without_a_socket(roles: Any, monkeypatch: Any) -> None:
    match = roles.match
    _open(match, "watch", "seat-2")
    seen: list[int] = []
    real = render.context
    def context(m: Any, viewer: int, snap: dict[str, Any] | None = None) -> dict[str, Any]:
        seen.append(viewer)
        return real(m, viewer, snap)

    monkeypatch.setattr(render, "context", context)
    _play(match, 1, "place C3")
    groups = [group for group, _ in _process.prepare(match.id)]
    assert sorted(seen) == [SPECTATOR, 2]
    assert groups == [f"match-{match.id}-seat-2", f"match-{match.id}-watch"]  # the seat to act first


def test_presence_unknown_renders_every_audience(roles: Any, monkeypatch: Any) -> None:
    """Redis restarted empty (or does not answer): nobody is known, so nobody is skipped."""
    match = roles.match
    monkeypatch.setattr(presence.store, "known", lambda match_id, names: None)
    assert len(_process.prepare(match.id)) == 4


def test_a_cell_says_your_tile_only_to_the_seat_that_owns_it(roles: Any) -> None:
    match = roles.match
    _open(match, "watch", "seat-1", "seat-2", "host")
    _play(match, 1, "place C3")
    sent = _updates(match)
    assert re.search(r'data-coord="C3"[^>]*aria-label="C3, your red tile, last move"', sent["seat-1"])
    for label in ("seat-2", "watch", "host"):
        assert re.search(r'data-coord="C3"[^>]*aria-label="C3, red tile, last move"', sent[label]), label


def test_the_host_panel_is_redrawn_only_when_what_it_shows_changes(roles: Any) -> None:
    """A move changes only the bout version in the panel's forms, which live.js copies from
    #live-meta: the panel is not sent; a pause changes it: it is sent."""
    match = roles.match
    _open(match, "host")
    _play(match, 1, "place C3")
    _process.prepare(match.id)
    _play(match, 2, "place D4")
    (html,) = _updates(match).values()
    assert "data-base" in html and 'id="host-panel"' not in html
    match.refresh_from_db()
    services.pause_clocks(match)
    (html,) = _updates(match).values()
    assert 'id="host-panel"' in html and "Resume clocks" in html
    match.refresh_from_db()
    services.resume_clocks(match)
    (html,) = _updates(match).values()
    assert 'id="host-panel"' in html and "Pause clocks" in html
    _play(match, 1, "place C4")
    (html,) = _updates(match).values()
    assert 'id="host-panel"' not in html


def test_the_first_update_is_whole_then_deltas_apply_to_the_version_before(roles: Any) -> None:
    match = roles.match
    _open(match, "watch", "seat-1", "seat-2", "host")
    _play(match, 1, "place C3")
    first = _updates(match)
    for html in first.values():
        assert 'id="log"' in html and 'data-base' not in html  # whole: this process sent nothing before
    hit = META.search(first["watch"])
    assert hit is not None
    version = int(hit.group(1))
    _play(match, 2, "place D4")
    second = _updates(match)
    for html in second.values():
        found = META.search(html)
        assert found is not None
        assert int(found.group(1)) == version + 1 and int(found.group(2)) == version
        assert 'id="log"' not in html and 'hx-swap-oob="beforeend:#log-list"' in html
        assert "place D4" in html
    watch = second["watch"]
    # only the square that changed and the one that lost its "last move" mark
    cells = re.findall(r'<button [^>]*\bid="sq-([A-F]\d)"', watch)
    assert sorted(cells) == ["C3", "D4"]
    assert 'id="board"' not in watch and 'id="score"' not in watch


def test_a_delta_turns_the_page_before_into_the_page_after(roles: Any) -> None:
    """Apply each delta's out-of-band elements to the previous whole page, like htmx does:
    the result is the next whole page (board cells, facts, clocks, status, log rows)."""
    match = roles.match
    _open(match, "watch", "seat-1", "seat-2", "host")
    _process.prepare(match.id)
    for index, text in enumerate(LANCE_MOVES[:6]):
        before = {v: render.fragments(match, v) for v in (SPECTATOR, 1, HOST)}
        _play(match, 1 + index % 2, text)
        sent = dict(_process.prepare(match.id))
        for viewer, label in ((SPECTATOR, "watch"), (1, "seat-1"), (HOST, "host")):
            delta = sent[f"match-{match.id}-{label}"]["html"]
            assert _cells(_apply(before[viewer], delta)) == _cells(render.fragments(match, viewer))
            assert _rows(_apply(before[viewer], delta)) == _rows(render.fragments(match, viewer))


def test_a_state_drawn_while_a_move_commits_shows_the_log_as_of_its_version(roles: Any) -> None:
    """The bout is read, then a move commits, then the log is read: the log stops at the bout's
    version (the move's row comes with its own update, a delta made from this version: the page
    sent this state on connect showed the row twice, tests/chaos/test_cluster.py)."""
    match = roles.match
    _play(match, 1, "place C3")
    match.refresh_from_db()
    read_first = match.current_bout  # as read before the move below commits
    _play(match, 2, "place D4")
    texts = [row.text for row in render.snapshot(match, bout=read_first)["turns"]]
    assert "place C3" in texts and "place D4" not in texts
    assert "place D4" in [row.text for row in render.snapshot(match)["turns"]]


def test_each_process_makes_its_sockets_deltas_from_what_it_sent_them_whichever_process_drew(
        roles: Any, monkeypatch: Any) -> None:
    """The moves of a match land on two web processes in turn (the proxy spreads them): each draws
    the moves it commits, and both processes' sockets get every drawing.  Each process makes its
    sockets' delta from what it sent them (the version before, drawn by either), never from what
    it drew itself two versions ago, and the delta turns the page before into the page after."""
    from collections import OrderedDict

    from matches.live import delta

    match = roles.match
    _open(match, "watch", "seat-1", "seat-2", "host")
    memories: list[OrderedDict[int, Any]] = [OrderedDict(), OrderedDict()]  # each process's own drawings
    sockets: list[dict[str, Any]] = [{}, {}]  # what each process sent its sockets last, per group
    monkeypatch.setattr(drawing, "_last", memories[1])
    for group, drawn in drawing.prepare(match.id):  # the first drawing, whole, reaches both
        sockets[0][group] = sockets[1][group] = drawn
    for index, text in enumerate(LANCE_MOVES[:6]):
        before = {v: render.fragments(match, v) for v in (SPECTATOR, 1, HOST)}
        _play(match, 1 + index % 2, text)
        monkeypatch.setattr(drawing, "_last", memories[index % 2])  # process A, then B, then A...
        drawn = dict(drawing.prepare(match.id))
        for process in sockets:
            for viewer, label in ((SPECTATOR, "watch"), (1, "seat-1"), (HOST, "host")):
                group = f"match-{match.id}-{label}"
                version = process[group]["version"]
                html = delta.update(process[group], drawn[group])
                assert html is not None
                found = META.search(html)
                assert found is not None and found.group(2) is not None, (text, label)
                assert (int(found.group(1)), int(found.group(2))) == (version + 1, version)
                assert _cells(_apply(before[viewer], html)) == _cells(render.fragments(match, viewer))
                assert _rows(_apply(before[viewer], html)) == _rows(render.fragments(match, viewer))
                process[group] = drawn[group]


def test_a_socket_is_never_sent_a_drawing_older_than_the_one_it_has(roles: Any) -> None:
    """Versions are totals: a drawing that arrives after a newer one (another process was slower)
    is dropped, and the next delta is made from the newer one."""
    from matches.live import delta

    match = roles.match
    _open(match, "watch")
    _play(match, 1, "place C3")
    ((_, older),) = drawing.prepare(match.id)
    _play(match, 2, "place D4")
    ((_, newer),) = drawing.prepare(match.id)
    assert delta.update(newer, older) is None
    assert delta.update(newer, newer) is None  # drawn twice (two processes): nothing new
    html = delta.update(older, newer)
    assert html is not None and f'data-base="{older["version"]}"' in html and "place D4" in html


def test_a_delta_sends_each_live_part_whose_drawing_changed_as_drawn_and_no_other(
        roles: Any, time_machine: Any) -> None:
    """Each fragment of the page is drawn once, its live parts recorded as their templates draw them
    ({% live %}): a delta holds every part whose drawing changed, whole, exactly as a fresh page
    draws it (a cell that only lost its "last move" mark, the state of a clock that stopped), and nothing else."""
    time_machine.move_to("2026-01-05 12:00:00+00:00", tick=False)  # a running clock's time left is the same
    match = roles.match
    _open(match, "watch")
    _process.prepare(match.id)
    for index, text in enumerate(LANCE_MOVES[:4]):
        before = render.parts(render.context(match, SPECTATOR))
        _play(match, 1 + index % 2, text)
        (delta,) = _updates(match).values()
        after = render.parts(render.context(match, SPECTATOR))
        changed = {}
        for element, drawn in after.items():
            if drawn.frame != before[element].frame:
                changed[element] = _same(drawn.html)
                continue
            for old, new in zip(before[element].live, drawn.live, strict=True):
                if old != new:
                    changed[str(re.search(r' id="([^"]+)"', new).group(1))] = _same(new)  # type: ignore[union-attr]
        sent = {str(attributes["id"]): _same(_write(tag, attributes, children))
                for tag, attributes, children in _top_level(delta) if attributes.get("id") not in (None, "live-meta")}
        assert sent == changed, index
        if index == 1:  # place D4: C3 loses its "last move" mark, D4 gets a tile, the clocks swap
            assert {"sq-C3", "sq-D4", "fact-empty", "clock-state-1", "clock-state-2"} <= set(sent), sorted(sent)
            assert "fact-neutral" not in sent and "sq-A1" not in sent
            # what a clock shows (name, time) is the same after a move in its allowance: its state alone goes
            assert "clock-1" not in sent and "clock-2" not in sent, sorted(sent)
            assert "></span>" in sent["clock-state-1"] and "clock-name" not in sent["clock-state-1"]


def test_a_host_rewrite_of_the_log_sends_the_whole_log(roles: Any) -> None:
    match = roles.match
    _open(match, "watch")
    for index, text in enumerate(LANCE_MOVES[:3]):
        _play(match, 1 + index % 2, text)
    _process.prepare(match.id)
    match.refresh_from_db()
    services.undo(match, match.current_bout.version)
    (html,) = _updates(match).values()
    assert 'id="log"' in html and "data-base" not in html and "undone" in html


ORDER = re.compile(r'<div id="live-meta"[^>]*data-bout="(\d+)" data-version="(\d+)" data-log="(\d+)"')


def _order(html: str) -> tuple[int, ...]:
    """(bout, version, log) of a drawing, from its `#live-meta`: the order static/js/live.js keeps."""
    found = ORDER.search(html)
    assert found, html[:300]
    return tuple(int(n) for n in found.groups())


def test_an_offer_and_its_answer_are_ordered_by_the_log_where_the_version_stays(roles: Any, client: Any) -> None:
    """An offer and its answer change no version.  Every drawing (the page, an HTTP reply, a live
    update, whole or delta) carries the log's highest row beside the version, so the offer's reply,
    drawn before the answer, is older than the answer's update, and a page that got the answer by
    its socket first keeps it (a computer declines within milliseconds: CI once saw the box go back
    to "waiting for the answer")."""
    match = roles.match
    _open(match, "watch", "seat-1", "seat-2", "host")
    _play(match, 1, "place C3")
    _process.prepare(match.id)
    reply = client.post(f"/p/{roles.player1.token}/request/", {"request": "draw"}).content.decode()
    offered = _order(reply)
    assert "waiting for Bob" in reply.replace("&#x27;", "'")
    assert {_order(html) for html in _updates(match).values()} == {offered}
    assert _order(client.get(f"/p/{roles.player1.token}/").content.decode()) == offered
    match.refresh_from_db()
    requests.respond(match, 2, "draw", False)
    declined = _updates(match)
    assert {_order(html) for html in declined.values()} == {_order(render.fragments(match, 1))}
    bout, version, log = _order(declined["seat-1"])
    assert (bout, version) == offered[:2] and log > offered[2]
    _play(match, 2, "place D4")
    moved = _updates(match)
    assert all("data-base" in html for html in moved.values())  # deltas carry the order too
    assert {_order(html) for html in moved.values()} == {(bout, version + 1, log + 2)}  # the move, the offer's end


def test_spectator_update_of_a_lance_move_is_at_most_3_kb_whatever_the_log_length(roles: Any, time_machine: Any) -> None:
    """The websocket message a spectator gets for a plain placement and for a slide: a few cells,
    facts, clocks and one log row, never the whole log: at most 3 KB, the same at the 2nd and the
    12th placement (time stands still: a clock's text is the same at every move)."""
    time_machine.move_to("2026-01-05 12:00:00+00:00", tick=False)
    match = roles.match
    _open(match, "watch")
    _process.prepare(match.id)
    sizes = []
    for index, text in enumerate(LANCE_MOVES):
        _play(match, 1 + index % 2, text)
        (html,) = _updates(match).values()
        assert "data-base" in html
        sizes.append(len(html.encode()))
    sizes = sizes[1:]  # the bout's first move adds the "last move" fact: the whole board once
    assert max(sizes) <= 3072, sizes
    # the 2nd and the 12th placement send the same things (a few digits longer at most)
    assert abs(sizes[10] - sizes[0]) <= 16, sizes
    match.refresh_from_db()
    game, bout = match.game, match.current_bout
    state = game.load(bout.state)
    seat = min(game.to_act(state))
    slide = next(game.format(action) for action in game.legal_actions(state, seat)
                 if game.format(action).startswith("slide") and game.result(game.apply(state, seat, action)) is None)
    _play(match, seat, slide)
    (html,) = _updates(match).values()
    assert "data-base" in html and slide in html
    assert len(html.encode()) <= 3072, (slide, len(html.encode()))


def test_spectator_updates_of_typical_lance_turns_are_at_most_3_kb_at_the_median(roles: Any) -> None:
    """Turns as a bout goes on: mostly a placement and a slide, which moves a line of tiles (the
    fan-out benchmark plays such turns).  The cells and clocks that changed are sent whole: the
    median update is at most 3 KB (measured 3.0 KB; 2.3 KB when a part whose children had not
    changed was sent as its start tag, 1.8 KB when only changed attributes were sent), and a slide's
    update does not grow with the log."""
    match = roles.match
    _open(match, "watch")
    _process.prepare(match.id)
    game, chooser = match.game, random.Random(7)
    sizes: list[int] = []
    for turn in range(32):
        match.refresh_from_db()
        state = game.load(match.current_bout.state)
        seat = min(game.to_act(state))
        options = list(itertools.islice(game.legal_actions(state, seat), 400))
        chooser.shuffle(options)
        action = next(a for a in options if game.result(game.apply(state, seat, a)) is None)
        _play(match, seat, game.format(action))
        (html,) = _updates(match).values()
        if turn >= 2:  # the bout's first moves add the "last move" fact: the whole board once
            assert "data-base" in html and 'id="board"' not in html
            sizes.append(len(html.encode()))
    assert sorted(sizes)[len(sizes) // 2] <= 3072, sizes
    assert max(sizes) <= 4096, sizes


#: A Two Connect match: a one-board first turn, two-board turns (Yinsh rings, Gomoku and Squava
#: stones); Uli's third Squava stone (A1 B1 C1) loses him that board, so every turn after it is one
#: move on one board.
TC_TURNS = ["squava A1", "squava E5; gomoku N14", "squava B1; gomoku H7", "yinsh ring E5; gomoku N13",
            "yinsh ring B2; gomoku H8", "yinsh ring D2; gomoku N11", "squava C1; gomoku H9", "gomoku A1",
            "gomoku B1", "yinsh ring C5", "gomoku C1", "yinsh ring F9", "gomoku D1", "gomoku D14"]
TC_ONE_BOARD = range(7, 14)  # indexes of TC_TURNS played after Squava was decided


def _tc_play(match: Any, index: int) -> None:
    _play(match, 1 + index % 2, TC_TURNS[index])
    match.refresh_from_db()
    public = match.game.view(match.game.load(match.current_bout.state), SPECTATOR)["public"]
    assert public["moves_this_turn"] == (1 if index + 1 >= TC_ONE_BOARD.start else 2), (index, public)


TC_LABELS = ("watch", "seat-1", "seat-2", "host")
#: Two Connect turns where Yinsh rings move (Uli's and Vic's last five placements, then ring moves)
TC_RING_TURNS = OPENING[:18]
TC_RING_MOVES = range(10, 18)


def test_every_audiences_update_of_a_two_connect_move_is_small_whatever_the_log_length(
        make_match: Any, time_machine: Any) -> None:
    """Two Connect draws three boards (about 50 KB, 75 KB for a seat): an update for a turn carries
    the points it changed, the board facts (bank meters, stone counts, tabs), #tc-turn (whose turn
    it is for that audience), the status, the clocks and a log row, not the boards.  A spectator's
    update is at most 5 KB, a seat's and the host's at most 5.5 KB, for a two-board turn and for a
    one-board turn, the same early and late in the log (time stands still: a clock's text is the
    same at every move).  (Measured when only changed attributes were sent: spectator 3.4-3.5 KB
    and 2.6-2.7 KB; seats 3.7-4.0 KB and 2.9-3.1 KB; host 3.8-4.0 KB and 3.0-3.1 KB.)"""
    time_machine.move_to("2026-01-05 12:00:00+00:00", tick=False)
    match = make_match("two-connect")
    _open(match, *TC_LABELS)
    _process.prepare(match.id)
    sizes: dict[str, dict[int, int]] = {label: {} for label in TC_LABELS}
    for index in range(len(TC_TURNS)):
        _tc_play(match, index)
        for label, html in _updates(match).items():
            assert "data-base" in html
            sizes[label][index] = len(html.encode())
            if index != 6:  # C1 decides Squava: its board's frame changes, the whole board is sent
                assert 'id="board"' not in html and 'id="tc-root"' not in html, (index, label)
                assert TC_TURNS[index].split(";")[0].split()[-1] in html
    for label, bound in (("watch", 5120), ("seat-1", 5632), ("seat-2", 5632), ("host", 5632)):
        two_boards = [sizes[label][i] for i in range(1, 6)]
        one_board = [sizes[label][i] for i in TC_ONE_BOARD]
        assert max(two_boards + one_board + [sizes[label][0]]) <= bound, (label, sizes[label])
        # a later turn by the same seat on the same boards sends what an earlier one sent (a few digits
        # more at most): Vic's rings and stones of turns 4 and 6, Uli's Gomoku stones of turns 9 and 13,
        # Vic's rings of turns 10 and 12 (a seat's update differs between acting and waiting)
        for early, late in ((3, 5), (8, 12), (9, 11)):
            assert abs(sizes[label][late] - sizes[label][early]) <= 32, (label, sizes[label])


def test_a_seats_update_of_a_yinsh_ring_move_is_small(make_match: Any) -> None:
    """Once the rings are placed, the seat coming to act also gets the map of its ring moves (legal
    destinations, flips and the refusal of every other point on the rings' lines, ~4-5 KB) inside
    #tc-turn: at most 11 KB for a seat (measured 4.2-9.1 KB when only changed attributes were sent),
    6 KB for the spectator and the host (then 3.7-4.8 KB), and never the whole board."""
    match = make_match("two-connect")
    _open(match, *TC_LABELS)
    _process.prepare(match.id)
    for index, text in enumerate(TC_RING_TURNS):
        _play(match, 1 + index % 2, text)
        sent = _updates(match)
        if index not in TC_RING_MOVES:
            continue
        for label, html in sent.items():
            assert "data-base" in html and 'id="tc-root"' not in html, (index, label)
            bound = 11264 if label.startswith("seat") else 6144
            assert len(html.encode()) <= bound, (index, label, len(html.encode()))
        acting = f"seat-{2 - index % 2}"
        assert 'id="tc-ring-moves"' in sent[acting], (index, acting)


@pytest.mark.parametrize(("turns", "whole"), [
    (TC_TURNS, {6: set(TC_LABELS)}),  # C1 decides Squava
    # the turn a seat places its fifth ring, its Yinsh board's click sentences change (data-phase)
    (TC_RING_TURNS, {8: {"seat-1"}, 9: {"seat-2"}}),
], ids=["stones", "rings"])
def test_a_two_connect_delta_turns_the_board_before_into_the_board_after(make_match: Any, turns: list[str],
                                                                          whole: dict[int, set[str]]) -> None:
    """Applied to the page before (like htmx and live.js do), each update of a spectator, each seat
    and the host draws the same board as a full rendering of the position after the turn; and it is
    made of parts (not the whole #board) but where the board's frame changes."""
    match = make_match("two-connect")
    _open(match, *TC_LABELS)
    _process.prepare(match.id)
    board = render.parts(render.context(match, SPECTATOR))["board"]
    # points; won, hint, per board tab, state, meters, facts; the turn
    assert len(board.live) == 25 + 85 + 196 + 17 + 1
    viewers = ((SPECTATOR, "watch"), (1, "seat-1"), (2, "seat-2"), (HOST, "host"))
    for index, text in enumerate(turns):
        before = {v: render.fragments(match, v) for v, _ in viewers}
        _play(match, 1 + index % 2, text)
        sent = dict(_process.prepare(match.id))
        for viewer, label in viewers:
            delta = sent[f"match-{match.id}-{label}"]["html"]
            after = render.fragments(match, viewer)
            assert ('id="tc-root"' in delta) == (label in whole.get(index, ())), (index, label)
            assert _board(_apply(before[viewer], delta)) == _board(after), (index, label)


def test_sealed_orders_never_reach_spectators_or_the_other_seat_in_a_delta(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    _open(match, "watch", "seat-1", "seat-2", "host")
    _process.prepare(match.id)
    _play(match, 1, "A1 3")
    sent = _updates(match)
    assert "data-base" in sent["watch"]
    assert "A1 3" in sent["host"]
    for label in ("watch", "seat-2"):
        assert "A1 3" not in sent[label] and '<span class="text">bid</span>' in sent[label]


# -- off the move's path; failures ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_notify_returns_before_rendering_when_a_server_loop_runs(make_match: Any, monkeypatch: Any) -> None:
    from asgiref.sync import sync_to_async

    match = await sync_to_async(make_match)("lance-assembly")
    started = threading.Event()
    released = threading.Event()
    rendered = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow_prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        started.set()
        released.wait(5)
        loop.call_soon_threadsafe(rendered.set)
        return []

    monkeypatch.setattr(drawing, "prepare", slow_prepare)
    live.attach(loop)
    try:
        await asyncio.to_thread(live.notify, match.id)  # returns while nothing is rendered yet
        assert not rendered.is_set()
        released.set()
        await asyncio.wait_for(rendered.wait(), 5)
        assert started.is_set()
    finally:
        live._loop = None  # the next tests run without a server loop


@contextlib.contextmanager
def _server_loop(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Draw and send from `loop`, as a server does; the next tests run without a server loop."""
    live.attach(loop)
    try:
        yield
    finally:
        live._loop = None
        live._pending.clear()


async def test_each_audiences_update_leaves_while_the_next_one_is_drawn(monkeypatch: Any) -> None:
    """Issue 22 (spectators' p95): the spectators' update is sent as soon as it is drawn, not
    after the seats' and the host's.  Here the drawing of the second audience waits until the
    first was sent: were the sends held until the whole draw ended, it would wait in vain."""
    loop = asyncio.get_running_loop()
    sent: list[str] = []
    first_sent = threading.Event()
    done = asyncio.Event()

    async def record(group: str, drawn: Any) -> None:
        sent.append(group)
        if "watch" in sent:
            first_sent.set()
        if "host" in sent:
            done.set()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("watch", {"html": "spectators"})
        assert first_sent.wait(5), "the spectators' update waited for the rest of the draw"
        on_drawn("host", {"html": "host"})
        return []

    monkeypatch.setattr(drawing, "prepare", prepare)
    monkeypatch.setattr(live, "_send_drawing", record)
    with _server_loop(loop):
        await asyncio.to_thread(live.notify, 3)
        await asyncio.wait_for(done.wait(), 10)
        assert sent == ["watch", "host"]


async def _broadcast(monkeypatch: Any, match_id: int, prepare: Any, deliver: Any, publish: Any, until: asyncio.Event) -> None:
    """Draw `match_id`'s update with `prepare` and send it from this loop as a server does, writing
    to this process's sockets with `deliver` and to the others with `publish`, until `until` is set."""
    class Here:  # this process's relay
        async def write_drawing(self, group: str, drawn: Any) -> None:
            await deliver([(group, drawn)])

    monkeypatch.setattr(drawing, "prepare", prepare)
    monkeypatch.setattr(live, "_local_relay", Here)
    monkeypatch.setattr(live, "_publish", publish)
    with _server_loop(asyncio.get_running_loop()):
        await asyncio.to_thread(live.notify, match_id)
        await asyncio.wait_for(until.wait(), 10)


async def test_an_update_reaches_this_process_while_the_one_before_is_still_relayed(monkeypatch: Any) -> None:
    """The spectators' update is written to this process's sockets without waiting for the seat's,
    drawn before it, to be sent on to the other web processes (Redis):
    here that relay waits until the spectators' update is here, which it never would if this
    process's writing waited for it."""
    here: list[str] = []
    relayed: list[str] = []
    seat_here = threading.Event()
    spectators_here, both_relayed = asyncio.Event(), asyncio.Event()

    async def deliver(messages: list[Any], **kwargs: Any) -> None:
        here.extend(group for group, _ in messages)
        seat_here.set()
        if "watch" in here:
            spectators_here.set()

    async def publish(messages: list[Any]) -> None:
        await spectators_here.wait()
        relayed.extend(group for group, _ in messages)
        if len(relayed) == 2:
            both_relayed.set()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("seat", {"html": "seat"})
        assert seat_here.wait(5)  # drawn apart: the seat's update is handled before the next is drawn
        on_drawn("watch", {"html": "spectators"})
        return []

    await _broadcast(monkeypatch, 4, prepare, deliver, publish, until=both_relayed)
    assert here == ["seat", "watch"] and relayed == ["seat", "watch"]


async def test_the_other_processes_get_an_update_while_this_one_writes_its_own_sockets(monkeypatch: Any) -> None:
    """Issue 40: with 1,000 spectators a process, the drawing process's own writing took ~80 ms, and
    the other processes heard of the update only after it.  Here this process's writing waits
    until the update is on its way: were it published after the writing, it would wait in vain."""
    published, written = asyncio.Event(), asyncio.Event()
    order: list[str] = []

    async def deliver(messages: list[Any], **kwargs: Any) -> None:
        await asyncio.wait_for(published.wait(), 5)
        order.append("here")
        written.set()

    async def publish(messages: list[Any]) -> None:
        order.append("published: " + ",".join(group for group, _ in messages))
        published.set()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("watch", {"html": "spectators"})
        return []

    await _broadcast(monkeypatch, 5, prepare, deliver, publish, until=written)
    assert order == ["published: watch", "here"]


async def test_a_broadcaster_lost_with_its_loop_does_not_stop_the_next_loops(monkeypatch: Any) -> None:
    """A change queued on a loop that closed before its broadcaster ran (a test's loop ending, a
    server shutting down) must not leave every later change of the process queued forever."""
    drawn = asyncio.Event()
    loop = asyncio.get_running_loop()

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        loop.call_soon_threadsafe(drawn.set)
        return []

    monkeypatch.setattr(drawing, "prepare", prepare)
    gone = asyncio.new_event_loop()
    assert live._schedule(gone, 1)  # queued on a loop that never runs its broadcaster...
    gone.close()  # ...and closes
    live.attach(loop)
    try:
        await asyncio.to_thread(live.notify, 2)
        await asyncio.wait_for(drawn.wait(), 5)
    finally:
        live._loop = None
        live._pending.clear()


def test_a_failed_broadcast_is_logged_and_never_undoes_the_move(roles: Any, monkeypatch: Any, caplog: Any,
                                                                django_capture_on_commit_callbacks: Any) -> None:
    class Broken:
        async def group_send(self, group: str, message: Any) -> None:
            raise ConnectionError("redis is down")

    monkeypatch.setattr(live, "get_channel_layer", lambda: Broken())
    match = roles.match
    _open(match, "watch")
    with django_capture_on_commit_callbacks(execute=True):
        _play(match, 1, "place C3")
    match.refresh_from_db()
    assert match.turns.filter(text="place C3").exists()
    assert "live update to" in caplog.text and "redis is down" in caplog.text




# -- a move drawn from its own transaction ---------------------------------------------------------


def _legal(match: Any, rng: random.Random) -> tuple[int, str, int] | None:
    """A random legal action of a seat that may act now, with the bout version to send."""
    bout = match.bouts.order_by("-number").first()
    game = match.game
    state = game.load(bout.state)
    if bout.finished is not None or game.result(state) is not None:
        return None
    seat = sorted(game.pending(state))[0]
    options = list(itertools.islice(game.legal_actions(state, seat), 80))
    return seat, game.format(rng.choice(options)), bout.version


@pytest.mark.parametrize("slug", ["lance-assembly", "grid-master", "two-connect", "squava", "gomoku", "yinsh",
                                  "bidding-ttt", "back-to-the-wall"])
def test_an_update_drawn_from_the_moves_transaction_is_the_one_read_back(
        make_match: Any, slug: str, monkeypatch: Any, handed: list[Any],
        django_capture_on_commit_callbacks: Any) -> None:
    """services hand over what a move wrote (events.Moved); when it follows the version this process
    sent, the update is drawn from it with no query.  For every game and audience it is, byte for
    byte, the update drawn by reading the match back (the time frozen so clocks read the same)."""
    from django.utils import timezone

    match = make_match(slug)
    _open(match, "watch", "host", *(f"seat-{n}" for n in range(1, match.game.seats + 1)))
    _process.prepare(match.id)
    rng = random.Random(slug)
    drawn_alone = 0
    for _ in range(10):
        found = _legal(match, rng)
        if found is None:
            break
        seat, text, version = found
        handed.clear()
        with django_capture_on_commit_callbacks(execute=True):
            services.submit(match.id, seat, text, version)
        (written,) = handed
        assert written is not None and written.rows[-1].text == text
        before = drawing._last[match.id]
        with monkeypatch.context() as patched:
            patched.setattr(timezone, "now", functools.partial(lambda at: at, timezone.now()))
            with CaptureQueriesContext(connection) as queries:
                quick = drawing.prepare(match.id, written)
            drawing._last[match.id] = before  # the same drawing again, read back from the database
            read = drawing.prepare(match.id)
        assert quick == read, text
        if drawing._follows(before, written):  # drawn from the transaction: nothing of the move read back
            # (the host panel's one aggregate of the match's own garnets is not the move's: it is read)
            read_back = [q["sql"] for q in queries.captured_queries if "matches_matchgarnet" not in q["sql"]]
            assert not read_back, (text, read_back)
            drawn_alone += 1
    assert drawn_alone >= 3, drawn_alone


def test_a_move_that_does_not_follow_the_update_sent_is_read_back(
        roles: Any, handed: list[Any], django_capture_on_commit_callbacks: Any) -> None:
    """Version n+1 was drawn by no process this one can read (this one holds n; the other's drawing
    never reached the cache): the move making n+2 is read back from the database, and its delta
    carries both moves' log rows; a transaction's hand-over arriving after a newer update never
    takes a page back."""
    match = roles.match
    _open(match, "watch")
    with django_capture_on_commit_callbacks(execute=True):
        _play(match, 1, "place C3")
    _process.prepare(match.id, handed[-1])
    with django_capture_on_commit_callbacks(execute=True):
        _play(match, 2, "place D4")  # broadcast by "another process": this one never draws it
    older = handed[-1]
    with django_capture_on_commit_callbacks(execute=True):
        _play(match, 1, "place C4")
    with CaptureQueriesContext(connection) as queries:
        ((_, sent),) = _process.prepare(match.id, handed[-1])
    assert queries.captured_queries  # read back
    assert "place D4" in sent["html"] and "place C4" in sent["html"]
    hit = META.search(sent["html"])
    assert hit is not None
    version = int(hit.group(1))
    ((_, late),) = _process.prepare(match.id, older)  # the hand-over of version n+1 arrives last
    assert late["html"] == "" and version == late["version"]  # read back: nothing new to send


def test_the_seat_to_act_is_sent_first_then_spectators(roles: Any) -> None:
    """Its clock runs from the commit: every audience drawn before it would be charged to it."""
    match = roles.match
    _open(match, "watch", "seat-1", "seat-2", "host")
    _play(match, 1, "place C3")  # seat 2 to act
    order = [group.split(f"match-{match.id}-")[1] for group, _ in _process.prepare(match.id)]
    assert order == ["seat-2", "watch", "seat-1", "host"]


def _whole(html: str, version: int) -> dict[str, Any]:
    """A drawing whose every socket is sent `html` (no socket here was sent one of its frame)."""
    return {"bout": 1, "version": version, "log": 0, "frame": f"test {version}", "meta": "", "parts": {}, "rows": [],
            "rows_from": 0, "whole": html}


class _Recorded:
    """`count` sockets of `group` on the relay `mine`, each recording what it is sent.  `on_chat()`
    is called when the first socket the relay writes gets "chat"; `done` is set once the last one
    has two messages (then every socket has both: each message is written to them in one order)."""

    def __init__(self, on_chat: Any) -> None:
        self.got: dict[int, list[str]] = {}
        self.order: list[int] = []  # the sockets in the order the relay writes them
        self.done = asyncio.Event()
        self.on_chat = on_chat

    async def join(self, mine: Any, group: str, count: int) -> None:
        recorded = self

        class Sock:
            def __init__(self, number: int) -> None:
                self.number = number
                recorded.got[number] = []

            async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                           close: bool = False) -> None:
                got = recorded.got[self.number]
                got.append(text_data or "")
                if self.number == recorded.order[0] and text_data == "chat":
                    recorded.on_chat()
                if self.number == recorded.order[-1] and len(got) == 2:
                    recorded.done.set()

        for number in range(count):
            await mine.join(group, Sock(number))
        self.order.extend(sock.number for sock in mine.sockets[group])


async def test_a_chat_line_to_many_sockets_gives_way_to_a_move_committed_meanwhile(monkeypatch: Any) -> None:
    """Issue 24 (chat never slows a move): a chat line written to 200 spectators' sockets lets a
    move committed while it is written be drawn and written first; the line then goes on.  The
    move here commits when the first socket gets the line: the sockets of the first
    GIVE_WAY_EVERY got the line first, every later one the move first.  Written in one go, as
    before, every socket got the line first."""
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    # a move commits when the first socket gets the line (from the server's loop: notify only queues it)
    sockets = _Recorded(on_chat=lambda: live.notify(5))
    got, order = sockets.got, sockets.order

    def prepare(match_id: int, moved: Any = None, on_drawn: Any = None) -> list[Any]:
        on_drawn("match-5-watch", _whole("move", 1))
        return []

    layer = InMemoryChannelLayer()
    monkeypatch.setattr(live, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(drawing, "prepare", prepare)
    monkeypatch.setattr(live, "GIVE_WAY_AT_MOST", 30.0)  # (the bound is not what is tested: a slow CI machine)
    mine = relay.for_loop(layer)
    await sockets.join(mine, "match-5-watch", 200)
    with _server_loop(asyncio.get_running_loop()):
        live.send_soon([("match-5-watch", {"html": "chat"})])
        await asyncio.wait_for(sockets.done.wait(), 10)
    first = order[:live.GIVE_WAY_EVERY]
    assert all(got[n] == ["chat", "move"] for n in first), [got[n] for n in first]
    assert all(got[n] == ["move", "chat"] for n in order[live.GIVE_WAY_EVERY:]), [got[n] for n in order]
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()


async def test_another_processs_relay_reads_a_move_sent_while_it_writes_a_chat_line() -> None:
    """A chat line drawn by another web process comes through the layer marked `give_way`; its relay
    writes it to 1,000 sockets from a task of its own, giving the loop a turn every 50 sockets, so a
    move sent while the line is written reaches the last sockets before the line does (here the
    relay read it within 250 sockets).  Read and written in line, as before, every socket got the
    line first."""
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    layer = InMemoryChannelLayer()
    sent: list[asyncio.Task[None]] = []

    def update(html: str) -> dict[str, Any]:
        return {"type": relay.DRAWING_TYPE, "group": "match-6-watch", "drawing": _whole(html, 1), "origin": "elsewhere"}

    # a move is sent when the first socket gets the line
    sockets = _Recorded(on_chat=lambda: sent.append(asyncio.get_running_loop().create_task(
        layer.group_send("relay-match-6-watch", update("move")))))
    got, order = sockets.got, sockets.order
    mine = relay.Relay(layer)
    await sockets.join(mine, "match-6-watch", 1000)
    await layer.group_send("relay-match-6-watch", {"type": relay.HTML_TYPE, "group": "match-6-watch", "html": "chat",
                                                   "origin": "elsewhere", "give_way": True})
    await asyncio.wait_for(sockets.done.wait(), 10)
    assert got[order[0]] == ["chat", "move"]
    assert got[order[-1]] == ["move", "chat"]
    for task in (mine.task, mine.refresher, mine.lines_task):
        assert task is not None
        task.cancel()


async def test_the_relay_writes_to_every_socket_and_drops_one_that_fails() -> None:
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    class Sock:
        def __init__(self, broken: bool = False) -> None:
            self.got: list[str] = []
            self.broken = broken

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            if self.broken:
                raise RuntimeError("socket closed")
            self.got.append(text_data or "")

        async def layer_recovered(self) -> None:  # relay.Socket's; no outage here
            pass

    layer = InMemoryChannelLayer()
    mine = relay.Relay(layer)
    good, bad, other = Sock(), Sock(broken=True), Sock()
    for sock in (good, bad):
        await mine.join("match-1-watch", sock)
    await mine.join("match-1-seat-1", other)
    assert set(layer.groups["relay-match-1-watch"]) == {mine.channel}  # one member for the process
    await layer.group_send("relay-match-1-watch", {"type": relay.HTML_TYPE, "group": "match-1-watch", "html": "v2"})
    for _ in range(50):
        if good.got:
            break
        await asyncio.sleep(0.01)
    assert good.got == ["v2"] and other.got == [] and bad not in mine.sockets["match-1-watch"]
    await mine.leave("match-1-watch", good)
    assert "match-1-watch" not in mine.sockets and not layer.groups.get("relay-match-1-watch")
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()


async def test_an_update_reaches_this_process_at_once_and_other_processes_through_the_layer(monkeypatch: Any) -> None:
    """The update is on its way to the layer before this loop's relay writes it; the relay of another
    process (another Relay on the same layer) gets it through the layer; nobody gets it twice; with
    Redis away this process's sockets still get it."""
    from channels.layers import InMemoryChannelLayer

    from config.channel_layer import LayerUnavailable
    from matches.live import relay

    class Sock:
        def __init__(self) -> None:
            self.got: list[str] = []

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            self.got.append(text_data or "")

        async def layer_recovered(self) -> None:  # relay.Socket's; no outage here
            pass

    layer = InMemoryChannelLayer()
    monkeypatch.setattr(live, "get_channel_layer", lambda: layer)
    mine, elsewhere = relay.for_loop(layer), relay.Relay(layer)
    here, there = Sock(), Sock()
    await mine.join("match-1-watch", here)
    await elsewhere.join("match-1-watch", there)
    asked: list[str] = []
    real_send = layer.group_send

    async def group_send(group: str, message: dict[str, Any]) -> None:
        asked.append(f"{group} with {len(here.got)} here")
        await real_send(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    await live._send_drawing("match-1-watch", _whole("v2", 2))
    assert asked == ["relay-match-1-watch with 0 here"] and here.got == ["v2"]  # asked, then written here
    # a marker sent through the layer after it, with no origin (both relays deliver it): each relay
    # reads its channel in order, so once both have the marker each has handled its copy of v2
    await real_send("relay-match-1-watch", {"type": relay.HTML_TYPE, "group": "match-1-watch", "html": "marker"})
    for _ in range(500):
        if "marker" in here.got and "marker" in there.got:
            break
        await asyncio.sleep(0.01)
    assert here.got == ["v2", "marker"] and there.got == ["v2", "marker"]

    async def away(group: str, message: dict[str, Any]) -> None:
        raise LayerUnavailable("Redis is away")

    monkeypatch.setattr(layer, "group_send", away)  # Redis away: this process's sockets still get it
    await live._send_drawing("match-1-watch", _whole("v3", 3))
    assert here.got == ["v2", "marker", "v3"] and there.got == ["v2", "marker"]
    for each in (mine, elsewhere):
        assert each.task is not None and each.refresher is not None
        each.task.cancel()
        each.refresher.cancel()


async def test_when_redis_is_back_the_relay_has_every_local_page_resync() -> None:
    """Sockets hold no layer channel: the layer's "Redis is back" note reaches the relay's channel,
    and the relay has each of its sockets, of every audience, resync (a closing one does not stop
    the others)."""
    from channels.layers import InMemoryChannelLayer

    from config.channel_layer import RECOVERED
    from matches.live import relay

    class Sock:
        def __init__(self, broken: bool = False) -> None:
            self.resynced = asyncio.Event()
            self.broken = broken

        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            pass

        async def layer_recovered(self) -> None:
            if self.broken:
                raise RuntimeError("socket closed")
            self.resynced.set()

    layer = InMemoryChannelLayer()
    mine = relay.Relay(layer)
    watch, closing, seat = Sock(), Sock(broken=True), Sock()
    await mine.join("match-1-watch", watch)
    await mine.join("match-1-watch", closing)
    await mine.join("match-1-seat-1", seat)
    assert mine.channel is not None
    await layer.send(mine.channel, dict(RECOVERED))
    await asyncio.wait_for(asyncio.gather(watch.resynced.wait(), seat.resynced.wait()), 5)
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()


async def test_the_relay_renews_its_memberships(monkeypatch: Any) -> None:
    """Redis expires group members after a day: a relay whose sockets stay open joins again."""
    from channels.layers import InMemoryChannelLayer

    from matches.live import relay

    class Sock:
        async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
            pass

        async def layer_recovered(self) -> None:  # relay.Socket's; no outage here
            pass

    monkeypatch.setattr(relay, "REJOIN_AFTER", 0.05)
    layer = InMemoryChannelLayer(group_expiry=1)
    mine = relay.Relay(layer)
    await mine.join("match-2-watch", Sock())
    added: list[str] = []
    renewed = asyncio.Event()
    real = layer.group_add

    async def counting(group: str, channel: str) -> None:
        added.append(group)
        await real(group, channel)
        renewed.set()

    monkeypatch.setattr(layer, "group_add", counting)
    await asyncio.wait_for(renewed.wait(), 5)  # the renewal itself, not a guess of when it comes
    assert added and set(added) == {"relay-match-2-watch"}
    assert mine.task is not None and mine.refresher is not None
    mine.task.cancel()
    mine.refresher.cancel()
