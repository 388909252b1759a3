"""Back to the Wall: hidden information (pending orders, garnet spends), persistence, listed and
random orders, the notation, and the garnets a seat holds (option "garnets").
"""

from __future__ import annotations

import json
import random

import pytest

from games.back_to_the_wall.board import Action, BoardOrders, Orders, Resolve
from games.back_to_the_wall.rules import BackToTheWall
from games.back_to_the_wall.state import BackToTheWallState
from games.core import HOST, SPECTATOR, IllegalAction, NotationError

game = BackToTheWall()


def full(state: BackToTheWallState, seat: int, dirs: str = "up up up", extra: str = "") -> str:
    """A complete order for `seat`: `dirs` for every piece on every board, after `extra` parts."""
    parts = [f"{b.name} piece {p.number} {dirs}" for b in state.boards for p in b.pieces_of(seat)]
    return "; ".join(([extra] if extra else []) + parts)


def orders(action: Action | None) -> Orders:
    """`action` as a seat's orders (a seat's parse, listing or draw mid-match is never Resolve or None)."""
    assert isinstance(action, Orders)
    return action


def play_round(state: BackToTheWallState, texts: dict[int, str] | None = None) -> BackToTheWallState:
    texts = texts or {}
    for seat in (1, 2, 3, 4):
        state = game.play(state, seat, texts.get(seat, full(state, seat)))
    return state


# -- hidden information ----------------------------------------------------------------


def test_a_pending_submission_is_seen_only_by_its_seat_and_the_host() -> None:
    state = game.new()
    text = full(state, 2, "left down up", "once wall C2; twice garnet")
    state = game.play(state, 2, text)
    canonical = game.format(game.parse(state, 2, text))
    assert game.view(state, 2)["private"]["submission"] == canonical
    assert game.view(state, HOST)["hidden"]["2"]["submission"] == canonical
    for viewer in (1, 3, 4, SPECTATOR):
        seen = json.dumps(game.view(state, viewer))
        assert "C2" not in seen and "left" not in seen and 'garnet_bonus": {"' not in seen
    assert game.view(state, 1)["private"]["submission"] is None


def test_two_different_submissions_look_the_same_to_everyone_else() -> None:
    state = game.new()
    a = game.play(state, 3, full(state, 3, "left left left", "thrice walls C3 D4; once garnet"))
    b = game.play(state, 3, full(state, 3, "down up down"))
    for viewer in (1, 2, 4, SPECTATOR):
        assert game.view(a, viewer) == game.view(b, viewer)
    assert game.view(a, 3) != game.view(b, 3)


def test_garnet_spends_stay_hidden_until_the_end_of_the_match() -> None:
    state = game.new()
    state = play_round(state, {4: full(state, 4, extra="once wall C3; once garnet")})
    public = game.public_view(state)
    assert "garnet" not in json.dumps(public)
    # captured counts only: the published Once score of seat 4 does not include the bonus
    assert public["boards"][0]["captured"]["4"] == state.boards[0].captured(4)
    assert game.view(state, 4)["private"]["garnet_spends"] == {"once": 1}
    for viewer in (1, 2, 3):
        assert game.view(state, viewer)["private"]["garnet_spends"] == {}
    assert "private" not in game.view(state, SPECTATOR) and "hidden" not in game.view(state, SPECTATOR)
    assert game.view(state, HOST)["hidden"]["4"]["garnet_spends"] == {"once": 1}
    state = play_round(play_round(state))
    assert game.public_view(state)["final"]["garnet_spends"]["4"] == {"once": 1}


def test_the_last_round_log_reveals_walls_and_paths_after_resolution() -> None:
    state = game.new()
    state = play_round(state, {1: full(state, 1, "right down left", "once wall D2")})
    log = game.public_view(state)["last_round"]["boards"][0]
    assert log["walls"] == [{"seat": 1, "square": "D2", "outcome": "placed", "against": [], "why": "D2 placed"}]
    mine = next(m for m in log["moves"] if m["seat"] == 1)
    assert mine["phases"][0] == {
        "submitted": "right",
        "taken": "right",
        "path": ["B1", "C1", "D1", "E1", "F1"],
        "rule": "",
        "options": [],
        "why": "",
    }


def test_the_last_round_log_shows_squares_contested_on_one_tick() -> None:
    state = game.new({"boards": {"twice": {"walls": []}}})
    # on Twice seat 1 (A1) and seat 3 (G1) meet on D1 on tick 3
    state = play_round(state, {1: full(state, 1, "right down down"), 3: full(state, 3, "left down down")})
    twice = game.public_view(state)["last_round"]["boards"][1]
    assert {"phase": 1, "tick": 3, "square": "D1"} in twice["contested"]
    assert game.public_view(state)["boards"][1]["owners"][0][3] == 0


def test_public_view_has_what_a_board_renderer_needs() -> None:
    view = game.public_view(game.new())
    assert set(view) == {"round", "rounds", "finished", "submitted", "boards", "last_round", "earlier_rounds"}
    once = view["boards"][0]
    assert set(once) == {
        "name",
        "title",
        "size",
        "wall_limit",
        "walls",
        "owners",
        "pieces",
        "corners",
        "captured",
    }
    assert once["owners"][0] == [1, 0, 0, 0, 0, 2]
    assert once["pieces"][0] == {"seat": 1, "number": 1, "square": "A1"}
    json.dumps(view)


# -- persistence, listing, randomness ----------------------------------------------------------


def test_dump_and_load_round_trip_through_json_mid_round_and_at_the_end() -> None:
    state = game.new()
    state = play_round(state, {2: full(state, 2, "left down right", "thrice walls C2 E4; once garnet")})
    state = game.play(state, 3, full(state, 3, extra="twice wall B4"))
    again = game.load(json.loads(json.dumps(game.dump(state))))
    assert again == state and game.dump(state)["v"] == 1
    state = play_round(play_round(again))
    assert game.load(json.loads(json.dumps(game.dump(state)))) == state


def test_legal_actions_are_lazy_and_legal() -> None:
    state = play_round(game.new())
    actions = game.legal_actions(state, 1)
    first = [next(actions) for _ in range(50)]
    for action in first[:5] + first[-5:]:
        game.apply(state, 1, action)
        assert game.parse(state, 1, game.format(action)) == action
    assert len(set(first)) == 50


def test_legal_actions_offer_no_second_garnet_on_a_board() -> None:
    state = game.new()
    state = play_round(state, {1: full(state, 1, extra="once garnet; twice garnet; thrice garnet")})
    for _, action in zip(range(300), game.legal_actions(state, 1), strict=False):
        assert not any(b.garnet for b in orders(action).boards)


def test_random_action_gives_legal_complete_orders() -> None:
    rng = random.Random(7)
    state = game.new()
    for _ in range(3):
        for seat in (1, 2, 3, 4):
            action = game.random_action(state, seat, rng)
            assert action is not None
            assert game.parse(state, seat, game.format(action)) == action
            state = game.apply(state, seat, action)
    assert game.result(state) is not None


# -- notation -------------------------------------------------------------------------


def test_canonical_notation_round_trips() -> None:
    text = "once wall C3; once piece 1 up right down; twice wall B2; twice wall A4; twice garnet; thrice piece 1 left left down"
    action = orders(game.parse(game.new(), 1, text))
    assert game.format(action) == text
    assert action.boards[1].walls == ((1, 1), (0, 3))


def test_canonical_order_is_boards_then_walls_in_given_order_then_pieces_by_number_then_garnet() -> None:
    action = game.parse(
        game.new(),
        1,
        "thrice garnet; thrice piece 2 up up up; once piece 1 down down down; thrice walls D4 A2; thrice piece 1 u d l",
    )
    assert game.format(action) == (
        "once piece 1 down down down; thrice wall D4; thrice wall A2; "
        "thrice piece 1 up down left; thrice piece 2 up up up; thrice garnet"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Once: wall C3, piece 1: up, right, down. Twice: garnet",
        "ONCE WALL c3; ONCE PIECE 1 U R D; TWICE GARNET",
        "once wall C3 piece 1 up right down and twice garnet",
        "once: place a wall on C3 and move piece 1 up, right and down; spend a garnet on twice",
        "wall C3 on once; once p1 up right down; garnet on twice.",
        "once   wall   C3 ;  once piece #1 up right down ; twice garnet",
    ],
)
def test_natural_phrasings(text: str) -> None:
    expected = Orders(
        (
            BoardOrders(walls=((2, 2),), moves=((1, ("up", "right", "down")),)),
            BoardOrders(garnet=True),
            BoardOrders(),
        )
    )
    assert game.parse(game.new(), 1, text) == expected


def test_several_walls_and_pieces_in_one_part() -> None:
    action = orders(
        game.parse(game.new(), 1, "thrice walls C3 D4 E5, piece 1: up, up, left, piece 2 down down down")
    )
    assert action.boards[2].walls == ((2, 2), (3, 3), (4, 4))
    assert action.boards[2].moves == ((1, ("up", "up", "left")), (2, ("down", "down", "down")))


def test_resolve_parses_for_anyone_but_only_the_host_may_apply_it() -> None:
    assert game.parse(game.new(), HOST, "Resolve") == Resolve()
    assert game.format(Resolve()) == "resolve"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "got nothing"),
        ("pass", "there is no pass"),
        ("wall C3", "a board name"),
        ("once", "expected parts like"),
        ("once piece", "expected a piece number after 'piece'"),
        ("once piece up up up", "expected a piece number after 'piece', got 'up'"),
        ("once up up up", "directions must follow 'piece <number>'"),
        ("once wall C0", "expected a square like C3"),
        ("once piece 0 up up up", "piece numbers start at 1"),
        ("once piece 1 up sideways down", "got 'sideways'"),
        ("twice flag B2", "got 'flag'"),
        ("once piece 1 up up up c3", "got 'c3'"),
    ],
)
def test_bad_notation_says_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        game.parse(game.new(), 1, text)


# -- garnets held (option "garnets", from the season ledger or the host) -------------------------


def test_the_garnets_option_limits_spends_across_the_match() -> None:
    state = game.new({"garnets": {"1": 1, "3": 2}})
    with pytest.raises(IllegalAction, match="you have only 1 garnet to spend"):
        game.play(state, 1, full(state, 1, extra="once garnet; twice garnet"))
    with pytest.raises(IllegalAction, match="you have no garnet to spend"):
        game.play(state, 2, full(state, 2, extra="thrice garnet"))  # seats left out hold none
    assert game.hidden(state, 1)["garnets_to_spend"] == 1
    state = play_round(state, {1: full(state, 1, extra="twice garnet"), 3: full(state, 3, extra="once garnet")})
    assert game.hidden(state, 1)["garnets_to_spend"] == 0 and game.hidden(state, 3)["garnets_to_spend"] == 1
    with pytest.raises(IllegalAction, match="you have no garnet to spend"):
        game.play(state, 1, full(state, 1, extra="once garnet"))
    state = game.play(state, 3, full(state, 3, extra="thrice garnet"))
    assert game.hidden(state, 2)["garnets_to_spend"] == 0
    again = game.load(json.loads(json.dumps(game.dump(state))))
    assert again.garnets == (1, 0, 2, 0) and game.hidden(again, 3)["garnets_to_spend"] == 1


def test_without_the_option_garnets_are_not_counted() -> None:
    state = game.new()
    assert game.hidden(state, 1)["garnets_to_spend"] is None
    game.play(state, 1, full(state, 1, extra="once garnet; twice garnet; thrice garnet"))


def test_listed_and_random_orders_never_spend_garnets_a_seat_lacks() -> None:
    state = game.new({"garnets": {"1": 1}})
    rng = random.Random(4)
    for _ in range(40):
        assert not any(b.garnet for b in orders(game.random_action(state, 2, rng)).boards)
        assert sum(b.garnet for b in orders(game.random_action(state, 1, rng)).boards) <= 1
    for count, action in enumerate(game.legal_actions(state, 1)):
        assert sum(b.garnet for b in orders(action).boards) <= 1
        if count > 3000:
            break


@pytest.mark.parametrize("value", [[1], {"5": 1}, {"1": -1}, {"1": True}, {"x": 2}])
def test_a_bad_garnets_option_is_refused(value: object) -> None:
    with pytest.raises(IllegalAction, match="option garnets"):
        game.new({"garnets": value})
