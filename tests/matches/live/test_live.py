"""The live path: what a move costs and what every screen receives.

services decide and commit, then announce the change (events) to the live path, which draws each
audience with a socket open once; each process sends its sockets a delta (changed fragments, changed
board cells, appended log rows) from what it last sent them.  Sizes and query counts here are behaviour (they must not
grow with the log); speed lives in bench/fanout.py."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.core import HOST, SPECTATOR
from matches.live import drawing, presence
from matches.pages import render
from matches.play import requests, services
from tests.games.test_two_connect_page import OPENING
from tests.live_pages import apply_update as _apply
from tests.live_pages import board as _board
from tests.live_pages import cells as _cells
from tests.live_pages import rows as _rows
from tests.live_pages import same as _same
from tests.live_pages import top_level as _top_level
from tests.live_pages import write as _write
from tests.matches.live.conftest import META, PROCESS, move, open_sockets, updates

LANCE_MOVES = ["place C3", "place D4", "place C4", "place E5", "place B2", "place E2", "place F1", "place A6",
               "place B5", "place F6", "place A3", "place F3"]


# -- cost of a move -----------------------------------------------------------------------------


def test_a_move_takes_at_most_11_queries(roles: Any, django_assert_max_num_queries: Any) -> None:
    """Lock the match and its bout, read the clocks and the log's last number, write the move, the
    two clocks and the bout, and (PostgreSQL) let the commit not wait for the disk."""
    match = roles.match
    move(match, 1, "place C3")
    match.refresh_from_db()
    version = match.current_bout.version
    with django_assert_max_num_queries(11 if connection.vendor == "postgresql" else 10):
        services.submit(match, 2, "slide C3 down 1", version)


def test_an_update_reads_the_same_queries_whatever_the_log_and_the_audiences(roles: Any) -> None:
    match = roles.match
    open_sockets(match, "watch")
    PROCESS.prepare(match.id)
    counts = []
    for index, text in enumerate(LANCE_MOVES[:10]):
        move(match, 1 + index % 2, text)
        if index == 5:
            open_sockets(match, "watch", "seat-1", "seat-2", "host")
        with CaptureQueriesContext(connection) as queries:
            assert PROCESS.prepare(match.id)
        counts.append(len(queries.captured_queries))
    # one snapshot for every audience; rows appended, never the whole log (no N+1)
    assert counts[1] == counts[4] and counts[7] == counts[9], counts
    assert counts[9] <= counts[4] + 2, counts  # the host's presence/reopen checks at most


# -- what is sent ------------------------------------------------------------------------------------


def test_nothing_is_rendered_for_audiences_without_a_socket(roles: Any, monkeypatch: Any) -> None:
    match = roles.match
    open_sockets(match, "watch", "seat-2")
    seen: list[int] = []
    real = render.context
    def context(m: Any, viewer: int, snap: dict[str, Any] | None = None) -> dict[str, Any]:
        seen.append(viewer)
        return real(m, viewer, snap)

    monkeypatch.setattr(render, "context", context)
    move(match, 1, "place C3")
    groups = [group for group, _ in PROCESS.prepare(match.id)]
    assert sorted(seen) == [SPECTATOR, 2]
    assert groups == [f"match-{match.id}-seat-2", f"match-{match.id}-watch"]  # the seat to act first


def test_presence_unknown_renders_every_audience(roles: Any, monkeypatch: Any) -> None:
    """Redis restarted empty (or does not answer): nobody is known, so nobody is skipped."""
    match = roles.match
    monkeypatch.setattr(presence.store, "known", lambda match_id, names: None)
    assert len(PROCESS.prepare(match.id)) == 4


def test_a_cell_says_your_tile_only_to_the_seat_that_owns_it(roles: Any) -> None:
    match = roles.match
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    move(match, 1, "place C3")
    sent = updates(match)
    assert re.search(r'data-coord="C3"[^>]*aria-label="C3, your red tile, last move"', sent["seat-1"])
    for label in ("seat-2", "watch", "host"):
        assert re.search(r'data-coord="C3"[^>]*aria-label="C3, red tile, last move"', sent[label]), label


def test_the_host_panel_is_redrawn_only_when_what_it_shows_changes(roles: Any) -> None:
    """A move changes only the bout version in the panel's forms, which live.js copies from
    #live-meta: the panel is not sent; a pause changes it: it is sent."""
    match = roles.match
    open_sockets(match, "host")
    move(match, 1, "place C3")
    PROCESS.prepare(match.id)
    move(match, 2, "place D4")
    (html,) = updates(match).values()
    assert "data-base" in html and 'id="host-panel"' not in html
    match.refresh_from_db()
    services.pause_clocks(match)
    (html,) = updates(match).values()
    assert 'id="host-panel"' in html and "Resume clocks" in html
    match.refresh_from_db()
    services.resume_clocks(match)
    (html,) = updates(match).values()
    assert 'id="host-panel"' in html and "Pause clocks" in html
    move(match, 1, "place C4")
    (html,) = updates(match).values()
    assert 'id="host-panel"' not in html


def test_the_host_panel_a_delta_redraws_keeps_reopen(roles: Any) -> None:
    """A delta's drawing leaves presence out (its box has messages of its own), not the Reopen
    button: after the host ended a bout, a host action that redraws the panel still offers it."""
    match = roles.match
    open_sockets(match, "host")
    move(match, 1, "place C3")
    PROCESS.prepare(match.id)
    match.refresh_from_db()
    services.declare_result(match, "stalemate", match.current_bout.version)
    (html,) = updates(match).values()
    assert 'id="host-reopen"' in html
    match.refresh_from_db()
    services.set_replay_access(match, 2)
    (html,) = updates(match).values()
    assert "data-base" in html and 'id="host-panel"' in html and 'id="host-reopen"' in html


def test_the_first_update_is_whole_then_deltas_apply_to_the_version_before(roles: Any) -> None:
    match = roles.match
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    move(match, 1, "place C3")
    first = updates(match)
    for html in first.values():
        assert 'id="log"' in html and 'data-base' not in html  # whole: this process sent nothing before
    hit = META.search(first["watch"])
    assert hit is not None
    version = int(hit.group(1))
    move(match, 2, "place D4")
    second = updates(match)
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


def test_a_host_action_logged_before_bout_1_sends_every_audience_its_whole_update(make_match: Any) -> None:
    """A match in setup has no bout: what the host does then (logged without one) is drawn whole."""
    match = make_match("lance-assembly", start=False)
    open_sockets(match, "watch", "seat-1", "host")
    PROCESS.prepare(match.id)
    services.set_replay_access(match, 2)
    sent = updates(match)
    assert sorted(sent) == ["host", "seat-1", "watch"]
    assert all("replays" in html for html in sent.values()), {k: "replays" in v for k, v in sent.items()}


def test_a_delta_turns_the_page_before_into_the_page_after(roles: Any) -> None:
    """Apply each delta's out-of-band elements to the previous whole page, like htmx does:
    the result is the next whole page (board cells, facts, clocks, status, log rows)."""
    match = roles.match
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    PROCESS.prepare(match.id)
    for index, text in enumerate(LANCE_MOVES[:6]):
        before = {v: render.fragments(match, v) for v in (SPECTATOR, 1, HOST)}
        move(match, 1 + index % 2, text)
        sent = dict(PROCESS.prepare(match.id))
        for viewer, label in ((SPECTATOR, "watch"), (1, "seat-1"), (HOST, "host")):
            delta = sent[f"match-{match.id}-{label}"]["html"]
            assert _cells(_apply(before[viewer], delta)) == _cells(render.fragments(match, viewer))
            assert _rows(_apply(before[viewer], delta)) == _rows(render.fragments(match, viewer))


def test_a_state_drawn_while_a_move_commits_shows_the_log_as_of_its_version(roles: Any) -> None:
    """The bout is read, then a move commits, then the log is read: the log stops at the bout's
    version (the move's row comes with its own update, a delta made from this version: the page
    sent this state on connect showed the row twice, tests/chaos/test_cluster.py)."""
    match = roles.match
    move(match, 1, "place C3")
    match.refresh_from_db()
    read_first = match.current_bout  # as read before the move below commits
    move(match, 2, "place D4")
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
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    memories: list[OrderedDict[int, Any]] = [OrderedDict(), OrderedDict()]  # each process's own drawings
    sockets: list[dict[str, Any]] = [{}, {}]  # what each process sent its sockets last, per group
    monkeypatch.setattr(drawing, "_last", memories[1])
    for group, drawn in drawing.prepare(match.id):  # the first drawing, whole, reaches both
        sockets[0][group] = sockets[1][group] = drawn
    for index, text in enumerate(LANCE_MOVES[:6]):
        before = {v: render.fragments(match, v) for v in (SPECTATOR, 1, HOST)}
        move(match, 1 + index % 2, text)
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
    open_sockets(match, "watch")
    move(match, 1, "place C3")
    ((_, older),) = drawing.prepare(match.id)
    move(match, 2, "place D4")
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
    open_sockets(match, "watch")
    PROCESS.prepare(match.id)
    for index, text in enumerate(LANCE_MOVES[:4]):
        before = render.parts(render.context(match, SPECTATOR))
        move(match, 1 + index % 2, text)
        (delta,) = updates(match).values()
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
    open_sockets(match, "watch")
    for index, text in enumerate(LANCE_MOVES[:3]):
        move(match, 1 + index % 2, text)
    PROCESS.prepare(match.id)
    match.refresh_from_db()
    services.undo(match, match.current_bout.version)
    (html,) = updates(match).values()
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
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    move(match, 1, "place C3")
    PROCESS.prepare(match.id)
    reply = client.post(f"/p/{roles.player1.token}/request/", {"request": "draw"}).content.decode()
    offered = _order(reply)
    assert "waiting for Bob" in reply.replace("&#x27;", "'")
    assert {_order(html) for html in updates(match).values()} == {offered}
    assert _order(client.get(f"/p/{roles.player1.token}/").content.decode()) == offered
    match.refresh_from_db()
    requests.respond(match, 2, "draw", False)
    declined = updates(match)
    assert {_order(html) for html in declined.values()} == {_order(render.fragments(match, 1))}
    bout, version, log = _order(declined["seat-1"])
    assert (bout, version) == offered[:2] and log > offered[2]
    move(match, 2, "place D4")
    moved = updates(match)
    assert all("data-base" in html for html in moved.values())  # deltas carry the order too
    assert {_order(html) for html in moved.values()} == {(bout, version + 1, log + 2)}  # the move, the offer's end


def test_spectator_update_of_a_lance_move_is_at_most_3_kb_whatever_the_log_length(roles: Any, time_machine: Any) -> None:
    """The websocket message a spectator gets for a plain placement and for a slide: a few cells,
    facts, clocks and one log row, never the whole log: at most 3 KB, the same at the 2nd and the
    12th placement (time stands still: a clock's text is the same at every move)."""
    time_machine.move_to("2026-01-05 12:00:00+00:00", tick=False)
    match = roles.match
    open_sockets(match, "watch")
    PROCESS.prepare(match.id)
    sizes = []
    for index, text in enumerate(LANCE_MOVES):
        move(match, 1 + index % 2, text)
        (html,) = updates(match).values()
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
    move(match, seat, slide)
    (html,) = updates(match).values()
    assert "data-base" in html and slide in html
    assert len(html.encode()) <= 3072, (slide, len(html.encode()))


def test_spectator_updates_of_typical_lance_turns_are_at_most_3_kb_at_the_median(roles: Any) -> None:
    """Turns as a bout goes on: mostly a placement and a slide, which moves a line of tiles (the
    fan-out benchmark plays such turns).  The cells and clocks that changed are sent whole: the
    median update is at most 3 KB (measured 3.0 KB; 2.3 KB when a part whose children had not
    changed was sent as its start tag, 1.8 KB when only changed attributes were sent), and a slide's
    update does not grow with the log."""
    match = roles.match
    open_sockets(match, "watch")
    PROCESS.prepare(match.id)
    game, chooser = match.game, random.Random(7)
    sizes: list[int] = []
    for turn in range(32):
        match.refresh_from_db()
        state = game.load(match.current_bout.state)
        seat = min(game.to_act(state))
        options = list(itertools.islice(game.legal_actions(state, seat), 400))
        chooser.shuffle(options)
        action = next(a for a in options if game.result(game.apply(state, seat, a)) is None)
        move(match, seat, game.format(action))
        (html,) = updates(match).values()
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
    move(match, 1 + index % 2, TC_TURNS[index])
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
    open_sockets(match, *TC_LABELS)
    PROCESS.prepare(match.id)
    sizes: dict[str, dict[int, int]] = {label: {} for label in TC_LABELS}
    for index in range(len(TC_TURNS)):
        _tc_play(match, index)
        for label, html in updates(match).items():
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
    open_sockets(match, *TC_LABELS)
    PROCESS.prepare(match.id)
    for index, text in enumerate(TC_RING_TURNS):
        move(match, 1 + index % 2, text)
        sent = updates(match)
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
    open_sockets(match, *TC_LABELS)
    PROCESS.prepare(match.id)
    board = render.parts(render.context(match, SPECTATOR))["board"]
    # points; won, hint, per board tab, state, meters, facts; the turn
    assert len(board.live) == 25 + 85 + 196 + 17 + 1
    viewers = ((SPECTATOR, "watch"), (1, "seat-1"), (2, "seat-2"), (HOST, "host"))
    for index, text in enumerate(turns):
        before = {v: render.fragments(match, v) for v, _ in viewers}
        move(match, 1 + index % 2, text)
        sent = dict(PROCESS.prepare(match.id))
        for viewer, label in viewers:
            delta = sent[f"match-{match.id}-{label}"]["html"]
            after = render.fragments(match, viewer)
            assert ('id="tc-root"' in delta) == (label in whole.get(index, ())), (index, label)
            assert _board(_apply(before[viewer], delta)) == _board(after), (index, label)


def test_sealed_orders_never_reach_spectators_or_the_other_seat_in_a_delta(make_match: Any) -> None:
    match = make_match("bidding-ttt")
    open_sockets(match, "watch", "seat-1", "seat-2", "host")
    PROCESS.prepare(match.id)
    move(match, 1, "A1 3")
    sent = updates(match)
    assert "data-base" in sent["watch"]
    assert "A1 3" in sent["host"]
    for label in ("watch", "seat-2"):
        assert "A1 3" not in sent[label] and '<span class="text">bid</span>' in sent[label]
