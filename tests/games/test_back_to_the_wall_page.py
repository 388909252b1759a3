"""Back to the Wall page shaping (games/back_to_the_wall/page.py) and its templates through the pages.

page.context() sees one audience's game.view(); these tests check what it
draws (territory, tokens, walls, corners, legend), what the order builder is
told (walls that are certainly dropped, adjacency, path previews that match
the engine), the host's pending orders, the final standings against
Result.scores, and that no page or fragment shows sealed orders before the
round resolves or a garnet spend before the match ends.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from games.back_to_the_wall import page, results
from games.back_to_the_wall.board import BoardOrders, make_board, parse_action
from games.back_to_the_wall.resolve import resolve_board
from games.back_to_the_wall.rules import BackToTheWall, make_state
from games.back_to_the_wall.state import BackToTheWallState
from games.core import HOST, SPECTATOR
from tests.hostform import seq

game = BackToTheWall()
NAMES = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"}


def ctx(viewer: int, my_turn: bool = True) -> dict[str, Any]:
    seats = [{"number": n, "name": name, "score": 0} for n, name in NAMES.items()]
    return {"viewer": viewer, "names": NAMES, "seats": seats, "my_turn": my_turn, "bout_number": 1}


def shaped(state: BackToTheWallState, viewer: int, my_turn: bool = True) -> dict[str, Any]:
    return page.context(game.view(state, viewer), ctx(viewer, my_turn))


def square(out: dict[str, Any], board: str, coord: str) -> dict[str, Any]:
    b = next(x for x in out["bttw"]["boards"] if x["name"] == board)
    q: dict[str, Any] = next(q for row in b["rows"] for q in row if q["coord"] == coord)
    return q


def dirs(state: BackToTheWallState, seat: int, text: str) -> str:
    return "; ".join(f"{b.name} piece {p.number} {text}" for b in state.boards for p in b.pieces_of(seat))


def play_round(state: BackToTheWallState, extra: dict[int, str] | None = None) -> BackToTheWallState:
    for seat in (1, 2, 3, 4):
        more = (extra or {}).get(seat, "")
        state = game.play(
            state, seat, "; ".join(x for x in (more, dirs(state, seat, "right down left")) if x)
        )
    return state


# -- the boards ---------------------------------------------------------------------------------
def test_squares_show_territory_walls_corners_and_pieces_apart() -> None:
    state = play_round(game.new())
    out = shaped(state, SPECTATOR)
    a1 = square(out, "once", "A1")
    # round 2: piece 2 spawned on Ann's corner; the territory stays a separate fact from the piece
    assert a1["corner"] == 1 and a1["owner"] == 1
    assert {"seat": 1, "number": 2} in a1["pieces"]
    assert a1["label"].startswith("A1, Ann's territory, Ann's corner, ")
    assert "Ann's piece 2" in a1["label"]
    b3 = square(out, "once", "B3")
    assert b3["wall"] and b3["owner"] == 0 and b3["label"] == "B3, wall"
    # a piece standing on another seat's territory keeps both facts
    once = state.boards[0]
    for p in once.pieces:
        owner = once.owners[p.square]
        q = square(out, "once", once.square(p.square))
        assert q["owner"] == owner
        assert {"seat": p.seat, "number": p.number} in q["pieces"]


def test_the_legend_names_who_sits_where_with_live_counts_per_board() -> None:
    state = play_round(game.new())
    out = shaped(state, SPECTATOR)
    twice = next(b for b in out["bttw"]["boards"] if b["name"] == "twice")
    where = {(x["name"], x["corner"]) for x in twice["legend"]}
    assert where == {("Ann", "A1"), ("Cy", "G1"), ("Bob", "G7"), ("Di", "A7")}
    counts = {x["seat"]: x["captured"] for x in twice["legend"]}
    assert counts == {s: state.boards[1].captured(s) for s in (1, 2, 3, 4)}


def test_the_header_shows_points_provisional_then_final() -> None:
    state = game.new()
    rows = shaped(state, SPECTATOR)["seats"]
    # nothing played yet: no points (not the 9.75 of the four-way tie of the start squares: issue 25)
    assert [r["score"] for r in rows] == ["0 pts*"] * 4
    rows = shaped(play_round(state), SPECTATOR)["seats"]
    assert any(r["score"] != "0 pts*" for r in rows) and all(r["score"].endswith(" pts*") for r in rows)
    for _ in range(3):
        state = play_round(state)
    result = game.result(state)
    assert result is not None and result.scores is not None
    rows = shaped(state, SPECTATOR)["seats"]
    assert {r["number"]: r["score"] for r in rows} == {s: f"{result.scores[s]:g} pts" for s in (1, 2, 3, 4)}
    assert {r["number"]: r["score_label"] for r in rows} == {s: f"{result.scores[s]:g} points" for s in (1, 2, 3, 4)}


def test_a_screen_reader_hears_points_not_bouts_won() -> None:
    """The header's score reads "9.5 points so far" to a screen reader, not the generic "9.5 pts bouts won"."""
    from django.template.loader import render_to_string

    rows = shaped(play_round(game.new()), SPECTATOR)["seats"]
    html = render_to_string("matches/partials/score.html", {"seats": rows})
    assert "bouts won" not in html and "bout won" not in html
    for row in rows:
        assert f'aria-label="{row["score"][:-len(" pts*")]} point' in html
    assert html.count(" so far") == 4


# -- the order builder ---------------------------------------------------------------------------
def test_the_builder_is_only_for_a_seat_that_may_act_and_for_the_host() -> None:
    state = game.new()
    assert shaped(state, 1)["bttw"]["builder"]
    assert not shaped(state, 1, my_turn=False)["bttw"]["builder"]
    assert not shaped(state, SPECTATOR)["bttw"]["builder"]
    host = shaped(state, HOST)["bttw"]
    assert host["builder"] and [s["seat"] for s in host["builder_seats"]] == [1, 2, 3, 4]
    assert set(host["script"]["previews"]) == {"1", "2", "3", "4"}
    assert set(shaped(state, 2)["bttw"]["script"]["previews"]) == {"2"}


def test_squares_where_a_wall_is_certainly_dropped_say_why() -> None:
    board = make_board(
        "once",
        ["1.....", ".#....", "......", "......", "......", "......"],
        {(1, 1): "A1", (2, 1): "D4"},
    )
    why = page.wall_reasons(board)
    assert why[0] == "it is a corner"
    assert why[7] == "it is a wall already"  # B2
    assert why[3 * 6 + 3] == "a piece stands there"  # D4
    assert why[2 * 6 + 2] == "it touches the wall at B2"  # C3, diagonal on Once
    assert 4 * 6 + 4 not in why  # E5: free
    twice = make_board("twice", [".......", "...#...", "......."] + ["......."] * 4)
    why = page.wall_reasons(twice)
    assert why[2 * 7 + 3] == "it is orthogonally next to the wall at D2"  # D3
    assert 2 * 7 + 4 not in why  # E3 touches D2 diagonally: allowed on Twice
    thrice = make_board("thrice", ["........", "#......."] + ["........"] * 6)
    assert page.wall_reasons(thrice)[1] == "it would cut the corner A1 off"  # B1
    assert page.neighbours(thrice) == {}


def test_adjacency_lists_follow_each_board() -> None:
    once = page.neighbours(game.new().boards[0])
    assert sorted(once[2 * 6 + 2]) == [7, 8, 9, 13, 15, 19, 20, 21]  # C3: the 8 around
    twice_board = game.new().boards[1]
    twice = page.neighbours(twice_board)
    assert [twice_board.square(x) for x in twice[2 * 7 + 2]] == ["C2", "B3", "D3", "C4"]


@pytest.mark.parametrize("seed", range(6))
def test_a_path_preview_is_what_the_engine_does_with_the_piece_alone(seed: int) -> None:
    rng = random.Random(seed)
    state = game.new()
    while state.round < 3:
        state = play_round(state, {s: "" for s in (1, 2, 3, 4)}) if seed % 2 else _random_round(state, rng)
    for board in state.boards:
        for piece in board.pieces:
            tree = page.preview(board, piece)
            assert len(tree) == 4 + 16 + 64
            for key in ("u", "rd", "dll", "lur"):
                words = [{"u": "up", "r": "right", "d": "down", "l": "left"}[c] for c in key]
                alone = type(board)(board.index, board.size, board.walls, board.owners, (piece,))
                orders = {
                    piece.seat: BoardOrders((), ((piece.number, (*words, *["up"] * (3 - len(words)))),))
                }
                _new, log, _ = resolve_board(alone, orders, None)
                phase = log.moves[0].phases[len(key) - 1]
                where = (
                    phase.path[-1]
                    if phase.path
                    else (
                        log.moves[0].phases[len(key) - 2].path[-1]
                        if len(key) > 1 and log.moves[0].phases[len(key) - 2].path
                        else None
                    )
                )
                value = tree[key]
                assert value[0] == (phase.taken[0] if phase.taken else "x")
                if where is not None:
                    assert value[1:] == board.square(where)


def _random_round(state: BackToTheWallState, rng: random.Random) -> BackToTheWallState:
    for seat in (1, 2, 3, 4):
        action = game.random_action(state, seat, rng)
        assert action is not None
        state = game.apply(state, seat, action)
    return state


def test_garnet_toggles_know_what_is_spent_and_what_is_left() -> None:
    state = game.new({"garnets": {"1": 1, "2": 0}})
    out = shaped(state, 1)["bttw"]["script"]["garnets"]
    assert out == {"1": {"left": 1, "spent": []}}
    assert shaped(state, 2)["bttw"]["script"]["garnets"] == {"2": {"left": 0, "spent": []}}
    state = play_round(state, {1: "twice garnet"})
    assert shaped(state, 1)["bttw"]["script"]["garnets"] == {"1": {"left": 0, "spent": ["twice"]}}
    # without the option, garnets are not counted: only the once-per-board limit
    assert shaped(play_round(game.new(), {1: "once garnet"}), 1)["bttw"]["script"]["garnets"] == {
        "1": {"left": None, "spent": ["once"]}
    }


def test_a_resubmission_starts_from_the_seat_s_own_sealed_orders() -> None:
    state = game.new()
    state = game.play(state, 3, "twice wall B2; " + dirs(state, 3, "up left down") + "; thrice garnet")
    mine = shaped(state, 3)["bttw"]
    assert mine["script"]["initial"]["3"]["twice"] == {
        "walls": ["B2"],
        "moves": {"1": ["up", "left", "down"]},
        "garnet": False,
    }
    assert mine["script"]["initial"]["3"]["thrice"]["garnet"] is True
    assert [m["seat"] for m in mine["mine"]] == [3]
    assert mine["mine"][0]["boards"][1]["text"] == "wall B2 · piece 1 ↑ ← ↓"


def test_the_host_sees_every_seat_s_pending_orders_per_board_and_nobody_else_does() -> None:
    start = game.new()
    state = game.play(start, 2, "once wall C5; " + dirs(start, 2, "left down right"))
    other = game.play(start, 2, "thrice wall D4; " + dirs(start, 2, "up up up") + "; twice garnet")
    host = shaped(state, HOST)["bttw"]["mine"]
    assert [(m["seat"], m["boards"] is not None) for m in host] == [
        (1, False),
        (2, True),
        (3, False),
        (4, False),
    ]
    assert host[1]["boards"][0]["text"] == "wall C5 · piece 1 ← ↓ →"
    # two different sealed orders of Bob's draw the same page for everyone else
    for viewer in (1, 3, 4, SPECTATOR):
        assert json.dumps(shaped(state, viewer)) == json.dumps(shaped(other, viewer)), viewer
    assert json.dumps(shaped(state, HOST)) != json.dumps(shaped(other, HOST))


# -- the replay --------------------------------------------------------------------------------
def test_the_replay_frames_and_reasons_come_from_the_trace() -> None:
    state = game.new({"boards": {"twice": {"walls": []}}})
    state = play_round(state, {1: "once wall C5", 2: "once wall D4"})
    out = shaped(state, SPECTATOR)["bttw"]
    assert out["replay"]["last"] == 1
    once = out["replay"]["rounds"][0]["boards"][0]
    assert [(w["name"], w["placed"]) for w in once["walls"]] == [("Ann", False), ("Bob", False)]
    assert once["walls"][0]["why"] == "C5 dropped: orthogonally or diagonally adjacent to D4 on Once"
    frames = out["script"]["replay"]["rounds"][0]
    assert frames["boards"][0]["dropped"] == ["C5", "D4"] and frames["boards"][0]["placed"] == []
    assert frames["steps"][0] == [1, 1]
    trace = game.public_view(state)["last_round"]["boards"][0]
    assert frames["boards"][0]["ticks"] == [
        [t["phase"], t["tick"], t["positions"], t["captured"], t["contested"]] for t in trace["ticks"]
    ]


# -- final standings -------------------------------------------------------------------------------
def test_final_standings_match_the_result_and_name_the_deciding_tie_break() -> None:
    # Once: Ann alone first; Twice: Bob and Cy tie first; Thrice: Di first -- then totals tie-break
    once = make_board("once", ["111111", "111111", "222...", "33....", "4.....", "......"])
    twice = make_board("twice", ["2222222", "3333333", "1111...", "4......"] + ["......."] * 3)
    thrice = make_board(
        "thrice", ["44444444", "44444444", "1111111.", "222.....", "33......"] + ["........"] * 3
    )
    state = make_state([once, twice, thrice], round=3, spends={2: {"once": 2}}, bonus={2: {"once": 1}})
    state = game.apply(state, HOST, parse_action("resolve"))
    result = game.result(state)
    assert result is not None
    context = ctx(SPECTATOR)
    context["banner"] = {
        "kind": "match",
        "headline": "Ann wins the match",
        "score": "Ann 1, Bob 0",
        "detail": "seat 1",
    }
    shaped_all = page.context(game.view(state, SPECTATOR), context)
    out = shaped_all["bttw"]
    standings = out["standings"]
    # the end banner counts points, not bouts won, and names who earned what
    banner = shaped_all["banner"]
    assert banner["headline"] == "Ann wins the match"
    assert banner["score"] == ", ".join(f"{t['name']} {t['points']} pts" for t in standings["totals"])
    assert banner["detail"].startswith(
        f"Token of Life: {standings['token_of_life'][0]}. Elimination Candidate: "
    )
    totals = {t["seat"]: float(t["points"]) for t in standings["totals"]}
    assert totals == result.scores
    assert [t["seat"] for t in standings["totals"]] == [
        s for group in game.public_view(state)["final"]["ranking"] for s in group
    ]
    assert standings["token_of_life"] == [NAMES[s] for s in sorted(result.winners)]
    # every place says what decided it against the next one
    for row in standings["totals"][:-1]:
        assert row["decided"].startswith("ahead of ")
    assert standings["totals"][-1]["decided"].startswith("behind ")
    # the garnet spend and its bonus appear only now
    once_rows = {r["seat"]: r for r in standings["boards"][0]["rows"]}
    assert once_rows[2]["bonus"] == 1
    bob = next(t for t in standings["totals"] if t["seat"] == 2)
    assert bob["spends"] == "Once (round 2)"
    assert standings["boards"][0]["rows"][0]["place"] == "1st"


def test_a_tie_on_total_points_names_the_best_single_board() -> None:
    final = {
        "ranking": [[2], [1], [3], [4]],
        "points": {"1": 10.0, "2": 10.0, "3": 5.0, "4": 4.0},
        "boards": [
            {
                "name": n,
                "scores": {"1": 1, "2": 1, "3": 1, "4": 1},
                "captured": {"1": 1, "2": 1, "3": 1, "4": 1},
                "garnet_bonus": {"1": 0, "2": 0, "3": 0, "4": 0},
                "points": pts,
            }
            for n, pts in (
                ("once", {"1": 4, "2": 6, "3": 1, "4": 2}),
                ("twice", {"1": 4, "2": 2, "3": 2, "4": 1}),
                ("thrice", {"1": 2, "2": 2, "3": 2, "4": 1}),
            )
        ],
        "garnets_earned": {"1": 0, "2": 1, "3": 0, "4": 0},
        "garnet_spends": {"1": {}, "2": {}, "3": {}, "4": {}},
        "token_of_life": [2],
        "elimination_candidate": [4],
    }
    out = results.standings(final, NAMES)  # page.py draws them with this (results.py)
    assert out["totals"][0]["decided"] == (
        "ahead of Ann: tied on total points; decided by best single board (6 to 4)"
    )
    assert out["totals"][1]["decided"] == "ahead of Cy on total points (10 to 5)"
    assert out["totals"][0]["place"] == "1st" and out["garnets_earned"] == [{"name": "Bob", "count": 1}]


# -- through the pages ---------------------------------------------------------------------------
def _visible(html: str) -> str:
    return re.sub(r"\d+:\d\d(:\d\d)?", "", html)


def _move(client: Client, token: str, text: str, version: int) -> str:
    response = client.post(f"/p/{token}/move/", {"text": text, "version": version})
    assert response.status_code == 200
    error = re.search(r'id="move-error"[^>]*>([^<]*)<', response.content.decode())
    assert error is not None
    return error.group(1)


@pytest.mark.django_db
def test_pages_draw_the_game_s_own_board_and_hide_orders_and_spends(
    client: Client, make_match: Callable[..., Any]
) -> None:
    from matches.play import services

    match = make_match("back-to-the-wall", options={"garnets": {"1": 1, "2": 1, "3": 1, "4": 1}})
    seats = {s.number: s.token for s in match.seats.all()}
    bout = match.bouts.get()
    version = bout.version
    state = services.bout_state(bout)
    secret = "thrice wall E2; " + dirs(state, 1, "down down down") + "; twice garnet"
    assert _move(client, seats[1], secret, version) == ""
    urls = {v: f"/p/{t}/" for v, t in seats.items()} | {
        SPECTATOR: f"/w/{match.watch_token}/",
        HOST: f"/h/{match.host_token}/",
    }
    for viewer, url in urls.items():
        html = client.get(url).content.decode()
        assert 'class="bttw' in html and "board_generic" not in html and 'class="cell' not in html
        for name in ("once", "twice", "thrice"):
            assert f'data-board="{name}" data-coord="A1"' in html
        sees = viewer in (1, HOST)
        assert ("wall E2" in html) == sees, viewer
        assert _shows_spend(html) == sees, viewer
        fragment = client.get(
            url.replace("/p/", "/f/").replace("/w/", "/f/").replace("/h/", "/f/")
        ).content.decode()
        assert ("wall E2" in fragment) == sees
    for seat in (2, 3, 4):
        bout.refresh_from_db()
        assert (
            _move(client, seats[seat], dirs(services.bout_state(bout), seat, "up up up"), bout.version) == ""
        )
    # resolved: the wall and its outcome are public; the garnet spend only to Ann and the host
    for viewer, url in urls.items():
        html = client.get(url).content.decode()
        assert "E2 placed" in html and "bttw-replay-round" in html
        assert _shows_spend(html) == (viewer in (1, HOST)), viewer
        assert "spent on" not in html


def _shows_spend(html: str) -> bool:
    """Ann's garnet on Twice, in any of the forms a page could show it."""
    markers = ("twice garnet", "· garnet", '"spent": ["twice"]', "twice: 1")
    return any(m in html for m in markers)


@pytest.mark.django_db
def test_the_host_resolves_early_and_the_replay_shows_who_had_no_orders(
    client: Client, make_match: Callable[..., Any]
) -> None:
    from matches.play import services

    match = make_match("back-to-the-wall")
    seats = {s.number: s.token for s in match.seats.all()}
    bout = match.bouts.get()
    assert _move(client, seats[2], dirs(services.bout_state(bout), 2, "left left left"), bout.version) == ""
    bout.refresh_from_db()
    host = client.get(f"/h/{match.host_token}/").content.decode()
    assert 'id="bttw-host-form"' in host and "piece 1 ← ← ←" in host  # pending orders per board
    response = client.post(f"/h/{match.host_token}/act/", {"action": "resolve", "version": bout.version,
                                                          "host_seq": seq(match.host_token)})
    reply = response.content.decode()
    assert "round resolved" in reply
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Round <b>2</b> of 3" in watch
    assert watch.count("Ann 1: no orders: stays all round") == 3  # once, twice, thrice
    assert "Bob 1: ← to A1" in watch  # Once: from his corner F1 along row 1
    # the toast's Undo (30 s) takes the early resolve back: round 1 waits again, Bob's orders kept
    toast = re.search(r'<form[^>]*id="undo-toast".*?</form>', reply, re.S)
    assert toast, reply[:2000]
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', toast.group(0)))
    assert fields["action"] == "undo" and fields["count"] == "1"
    undone = client.post(f"/h/{match.host_token}/act/", fields).content.decode()
    assert 'class="flash error"' not in undone, undone[:500]
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    assert "Round <b>1</b> of 3" in watch
    bout.refresh_from_db()
    assert set(match.game.pending(services.bout_state(bout))) == {1, 3, 4}  # Bob's orders are still in


def test_a_wall_raised_on_territory_still_shows_and_counts_its_owner() -> None:
    once = make_board("once", ["......", "...1..", "......", "......", "......", "......"])
    twice = make_board("twice", ["......."] * 7)
    thrice = make_board("thrice", ["........"] * 8)
    state = make_state([once, twice, thrice])
    state = game.play(state, 2, "once wall D2")
    state = game.apply(state, HOST, parse_action("resolve"))
    d2 = square(shaped(state, SPECTATOR), "once", "D2")
    assert d2["wall"] and d2["owner"] == 1 and d2["label"] == "D2, wall, Ann's territory"
    legend = next(b for b in shaped(state, SPECTATOR)["bttw"]["boards"] if b["name"] == "once")["legend"]
    # D2 under the wall, and A1 where piece 2 spawned
    assert next(x["captured"] for x in legend if x["seat"] == 1) == state.boards[0].captured(1) == 2
