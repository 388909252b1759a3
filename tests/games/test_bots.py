"""games.bots: every bot plays only legal actions, decides from its seat's view
alone, takes a win and stops a loss it can see in constructed positions, and
judges Back to the Wall's orders by the game's own resolution.  Iteration budgets
and fixed seeds only (no time budgets), so each decision is reproducible and the
file stays fast.  No win rate or time is asserted: those are bench/bots.py's figures."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

from games.bidding_ttt.rules import BiddingTTT
from games.bots import STRENGTHS, choose
from games.core import Game
from games.lance_assembly.rules import LanceAssembly
from games.registry import get_game, slugs
from games.two_connect.board import BoardGame, GridBoard, SoloState
from games.two_connect.yinsh import Yinsh, YinshBoard
from tests.games import playing

#: each named strength's knobs with a small iteration budget and no clock
SMALL = {
    name: replace(knobs, iterations=12, seconds=None, candidates=min(knobs.candidates, 8), playout_depth=15,
                  tactic_checks=min(knobs.tactic_checks, 300))
    for name, knobs in STRENGTHS.items()
}


def _random_position(game: Game[Any, Any], rng: random.Random, steps: int) -> Any:
    state = game.new({})
    for _ in range(steps):
        if game.result(state) is not None:
            break
        acting = sorted(game.pending(state)) or sorted(game.to_act(state))
        if game.host_moves and not acting:  # the host's game: the host opens the next round
            action = next(a for a in game.legal_actions(state, 0) if type(a).__name__ == "OpenRound")
            state = game.apply(state, 0, action)
            continue
        seat = rng.choice(acting)
        state = game.apply(state, seat, game.random_action(state, seat, rng))
    return state


@pytest.mark.parametrize("slug", slugs())
def test_bots_only_return_legal_actions(slug: str) -> None:
    game = get_game(slug)
    rng = random.Random(slug)
    checked = 0
    for trial in range(40):
        if checked >= 18:
            break
        state = _random_position(game, rng, rng.randrange(0, 2 * game.seats if game.sealed else 30))
        if game.result(state) is not None or not game.to_act(state):
            continue
        for strength in ("easy", "normal", "strong"):
            seat = rng.choice(sorted(game.pending(state)) or sorted(game.to_act(state)))
            action = choose(game, state, seat, SMALL[strength], seed=trial)
            game.apply(state, seat, action)  # IllegalAction if the bot broke a rule
            assert game.parse(state, seat, game.format(action)) == action
            checked += 1
    assert checked >= 18


def test_a_bot_refuses_to_move_out_of_turn() -> None:
    game = get_game("grid-master")
    state = game.new({})
    other = 3 - next(iter(game.to_act(state)))
    with pytest.raises(ValueError, match="may not act now"):
        choose(game, state, other, SMALL["easy"], seed=1)


def _same_decision(game: Game[Any, Any], first: Any, second: Any, seat: int) -> None:
    assert first != second, "the pair must differ in hidden information"
    assert game.view(first, seat) == game.view(second, seat), "the pair must look the same to the seat"
    for strength in ("easy", "normal"):
        for seed in (1, 2):
            assert choose(game, first, seat, SMALL[strength], seed) == choose(game, second, seat, SMALL[strength], seed)


def test_bidding_bot_does_not_peek_at_sealed_bids_or_chips() -> None:
    game = playing.registered("bidding-ttt", BiddingTTT)
    base = game.position(red="A1 B5", blue="E5 C3", round=2, chips=(60, 60), start_chips=80)
    rich = replace(base, chips=(60, 75))  # Blue's chips are hidden from Red
    bid_a = game.parse(base, 2, "E1 10; E9 5")
    bid_b = game.parse(rich, 2, "A2 30")
    _same_decision(game, game.apply(base, 2, bid_a), game.apply(rich, 2, bid_b), 1)


def test_back_to_the_wall_bot_does_not_peek_at_sealed_orders() -> None:
    game = get_game("back-to-the-wall")
    start = game.new({})
    rng = random.Random(7)
    first = game.apply(start, 2, game.random_action(start, 2, rng))
    second = game.apply(start, 2, game.random_action(start, 2, rng))
    first = game.apply(first, 3, game.random_action(first, 3, rng))
    second = game.apply(second, 3, game.random_action(second, 3, rng))
    _same_decision(game, first, second, 1)


# -- Gomoku and Squava: alpha-beta (games/bots/grids.py) ------------------------------------

#: iteration budgets only: a node budget of 40 per iteration, no clock
GRID = {name: replace(knobs, seconds=None, iterations=60) for name, knobs in STRENGTHS.items()}


def _solo(slug: str, rows: str, to_move: int) -> tuple[BoardGame[GridBoard, int], SoloState[GridBoard]]:
    from games.two_connect.board import GridRules

    game: BoardGame[GridBoard, int] = playing.registered(slug, BoardGame)
    assert isinstance(game.rules, GridRules), game.rules
    return game, SoloState(board=game.rules.from_rows(rows), to_move=to_move)


GOMOKU_WIN = """
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . 1 1 1 1 . . . . . .
. . . . . . . . . . . . . .
. . . . 2 2 2 . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . 2 . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
"""


@pytest.mark.parametrize("strength", ["easy", "normal", "strong"])
def test_gomoku_bot_finishes_its_five_and_blocks_the_other_five(strength: str) -> None:
    game, state = _solo("gomoku", GOMOKU_WIN, 1)
    assert game.format(choose(game, state, 1, GRID[strength], seed=3)) in ("D5", "I5")  # wins at once
    game, state = _solo("gomoku", GOMOKU_WIN, 2)
    assert game.format(choose(game, state, 2, GRID[strength], seed=3)) in ("D5", "I5")  # must block


SQUAVA = """
1 . 1 . .
. . . . .
. 2 2 . 2
. . . . .
. . . . .
"""


@pytest.mark.parametrize("strength", ["easy", "normal", "strong"])
def test_squava_bot_blocks_a_four_and_never_makes_three_when_it_need_not(strength: str) -> None:
    game, state = _solo("squava", SQUAVA, 1)
    assert game.format(choose(game, state, 1, GRID[strength], seed=5)) == "D3"  # seat 2 would make four
    game, state = _solo("squava", SQUAVA, 2)
    assert game.format(choose(game, state, 2, GRID[strength], seed=5)) == "D3"  # four in a row wins
    # seat 1 to move with nothing to win or block: B1 would make three (A1 B1 C1) and lose
    quiet = """
    1 . 1 . .
    . . . . .
    . 2 . . 2
    . . . . .
    . . . . .
    """
    game, state = _solo("squava", quiet, 1)
    for seed in range(4):
        assert game.format(choose(game, state, 1, GRID[strength], seed=seed)) != "B1"


GOMOKU_OPEN_THREE = """
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . 1 . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . 1 . .
. . . . . . . . . . . . . .
. . . . . 2 2 2 . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . . . . . .
. . . . . . . . . 1 . . . .
. . . . . . . . . . . . . .
. . . . . 2 . . . . . . . .
. . . . . . . . . . . . . .
"""


@pytest.mark.parametrize("strength", ["easy", "normal", "strong"])
def test_gomoku_bot_closes_an_open_three_at_one_of_its_ends(strength: str) -> None:
    """F7 G7 H7 with both sides open: unless seat 1 plays E7 or I7 now, seat 2 makes an open four
    (E7 or I7 with D7 and J7 empty), two squares to finish it, and wins.  Seat 1 has nothing of
    its own to play for.  Beginners miss lines far from done; an open three is not one of them."""
    game, state = _solo("gomoku", GOMOKU_OPEN_THREE, 1)
    moves = {game.format(choose(game, state, 1, GRID[strength], seed=seed)) for seed in range(4)}
    assert moves <= {"E7", "I7"}


# -- Back to the Wall: the round planner (games/bots/planner.py) ----------------------------


def _played_rounds(game: Game[Any, Any], rng: random.Random, rounds: int) -> Iterator[tuple[Any, dict[int, Any]]]:
    """States at the start of rounds 1..`rounds` of a game of random orders, with each round's orders."""
    state = game.new({})
    for _ in range(rounds):
        orders = {seat: game.random_action(state, seat, rng) for seat in (1, 2, 3, 4)}
        yield state, orders
        for seat, action in orders.items():
            state = game.apply(state, seat, action)


def test_the_planners_quick_resolution_is_the_games_own() -> None:
    """The planner judges its trials with wallsim.board_owners (owners only, no notes): on random
    orders of every seat, round after round, it gives the walls, the walls placed and the owners
    that resolve.py's resolve_board gives (fallbacks, shared ticks and the spawn included)."""
    from games.back_to_the_wall.resolve import resolve_board
    from games.bots.wallsim import board_owners, board_walls, ray_cache

    game = get_game("back-to-the-wall")
    rng = random.Random(3)
    compared = 0
    for _ in range(12):
        for state, orders in _played_rounds(game, rng, 3):
            spawn = state.round < 3
            for b, board in enumerate(state.boards):
                mine = {seat: action.boards[b] for seat, action in orders.items()}
                expected, _log, placed = resolve_board(board, mine, state.round + 1 if spawn else None)
                walls, quick_placed = board_walls(board, mine)
                assert walls == expected.walls and quick_placed == placed
                assert tuple(board_owners(board, walls, mine, ray_cache(board.size, walls), spawn)) == expected.owners
                compared += 1
    assert compared == 12 * 3 * 3


def test_a_seat_that_submits_full_wall_sets_every_round_is_taken_for_a_planner() -> None:
    """Strong samples a seat as a planner once the public logs show it submitted a full set of
    walls on every board in every round so far; not before the first round resolves, and not a
    seat that submitted fewer on any board in any round."""
    from games.back_to_the_wall.board import BoardOrders, Orders
    from games.bots.planner import plans_walls

    game = get_game("back-to-the-wall")
    state = game.new({})
    assert not any(plans_walls(state, seat) for seat in (1, 2, 3, 4))
    # seat 3 submits one wall of two on Twice; walls are (col, row) pairs
    for seat in (1, 2, 3, 4):
        mine = []
        for board in state.boards:
            limit = board.wall_limit if seat != 3 or board.index != 1 else 1
            walls = tuple((2 * k + 1, seat if board.index else 2) for k in range(limit))
            moves = tuple((p.number, ("down", "right", "up")) for p in board.pieces_of(seat))
            mine.append(BoardOrders(walls, moves))
        state = game.apply(state, seat, Orders((mine[0], mine[1], mine[2])))
    assert state.round == 2
    # B3 is a pre-placed wall on Once: a wall dropped at resolution still counts as submitted
    assert [plans_walls(state, seat) for seat in (1, 2, 3, 4)] == [True, True, False, True]


def test_a_planners_sampled_orders_keep_the_random_directions_with_walls_that_stand() -> None:
    """A seat taken for a planner is sampled with a full set of walls that the placement rules would
    not drop on their own, a garnet where the planner would spend one (free garnets: with walls on
    every board), and the random directions it was drawn with."""
    from games.back_to_the_wall.board import cut_corners
    from games.back_to_the_wall.resolve import resolve_walls
    from games.bots.planner import _as_planner, _random

    game = get_game("back-to-the-wall")
    state = game.new({})
    rng = random.Random(2)
    for seat in (1, 2, 3, 4):
        drawn = _random(game, state, seat, rng)
        planned = _as_planner(state, seat, drawn, rng)
        for board, theirs, mine in zip(state.boards, drawn, planned, strict=True):
            assert mine.moves == theirs.moves
            assert len(mine.walls) == board.wall_limit and mine.garnet
            walls, notes, placed = resolve_walls(board, {seat: mine})
            assert placed[seat] == board.wall_limit, notes
            assert not cut_corners(board.size, walls)


def test_strong_samples_the_seats_that_plan_as_planners_and_normal_does_not() -> None:
    """After a round in which the others placed full wall sets, strong samples them as planners;
    normal and easy sample every seat at random, and nobody is modelled before the first round."""
    from games.bots.planner import modelled

    game = get_game("back-to-the-wall")
    state = game.new({})
    knobs = {name: replace(STRENGTHS[name], seconds=None, iterations=40) for name in STRENGTHS}
    assert modelled(state, 1, knobs["strong"]) == set()
    for seat in (1, 2, 3, 4):
        state = game.apply(state, seat, choose(game, state, seat, knobs["normal"], seed=seat))
    assert modelled(state, 1, knobs["strong"]) == {2, 3, 4}
    assert modelled(state, 1, knobs["normal"]) == modelled(state, 1, knobs["easy"]) == set()


def test_easy_forgets_the_garnet_normal_spends_one_on_every_board() -> None:
    """Free garnets: normal spends one with the walls it places on every board in round 1 (their
    bonus counts the walls placed); easy, a beginner, forgets the bonus."""
    game = get_game("back-to-the-wall")
    state = game.new({})
    for seed in range(3):
        easy = choose(game, state, 1, replace(STRENGTHS["easy"], seconds=None), seed=seed)
        assert not any(b.garnet for b in easy.boards)
        assert any(b.walls for b in easy.boards)
        normal = choose(game, state, 1, replace(STRENGTHS["normal"], seconds=None, iterations=40), seed=seed)
        assert all(b.garnet for b in normal.boards if b.walls)
        assert any(b.walls for b in normal.boards)


@pytest.mark.parametrize("strength", ["easy", "normal", "strong"])
def test_back_to_the_wall_orders_differ_by_seed(strength: str) -> None:
    """A seat's seed chooses among orders of nearly equal value: the same opening gives
    different games for different matches."""
    game = get_game("back-to-the-wall")
    knobs = replace(STRENGTHS[strength], seconds=None, iterations=40)
    state = game.new({})
    assert len({game.format(choose(game, state, 2, knobs, seed=seed)) for seed in range(4)}) >= 3


def test_back_to_the_wall_planner_decides_the_same_for_a_seed_without_a_clock() -> None:
    game = get_game("back-to-the-wall")
    knobs = replace(STRENGTHS["easy"], seconds=None)
    state = game.new({})
    assert choose(game, state, 3, knobs, seed=4) == choose(game, state, 3, knobs, seed=4)


# -- evaluations of positions cut short (games/bots/evals.py) -------------------------------


def _yinsh(markers1: str, markers2: str = "") -> tuple[Yinsh, SoloState[YinshBoard]]:
    game = playing.registered("yinsh", Yinsh)
    rings1, rings2 = "A2 B1 C1 D1 E1", "K7 K8 K9 K10 J11"
    board = game.rules.from_points(rings1, rings2, markers1, markers2)
    return game, SoloState(board=board, to_move=1)


def test_yinsh_evaluation_prefers_a_longer_own_row() -> None:
    from games.bots.evals import yinsh_evaluate

    game, four = _yinsh("E3 E4 E5 E6", "G6")
    _, scattered = _yinsh("E3 C5 G4 F8", "G6")
    assert yinsh_evaluate(game, four, 1) > yinsh_evaluate(game, scattered, 1)
    assert yinsh_evaluate(game, four, 2) < yinsh_evaluate(game, scattered, 2)
    _, blocked = _yinsh("E3 E4 E5 E6", "E7 E2 F7 D2 F4 D5")  # both ends and the diagonals crossed
    assert yinsh_evaluate(game, four, 1) > yinsh_evaluate(game, blocked, 1)


def test_yinsh_evaluation_counts_ring_mobility() -> None:
    from games.bots.evals import yinsh_cells, yinsh_score

    game = playing.registered("yinsh", Yinsh)
    rim = game.rules.from_points("A2 B1 C1 D1 E1", "K7 K8 K9 K10 J11")
    centre = game.rules.from_points("E5 F6 G7 F4 D4", "K7 K8 K9 K10 J11")
    scores = [yinsh_score(yinsh_cells(game.view(SoloState(board=b, to_move=1), 1)["public"]), 1)
              for b in (rim, centre)]
    assert scores[1] > scores[0]
    cells = yinsh_cells(game.view(SoloState(board=centre, to_move=1), 1)["public"])
    assert yinsh_score(cells, 1) == -yinsh_score(cells, 2)


def test_lance_evaluation_prefers_a_longer_own_line() -> None:
    from games.bots.evals import lance_evaluate

    game = playing.registered("lance-assembly", LanceAssembly)
    four = game.position("......\n.RRRR.\n......\n..B...\n..B...\n......", to_move=2)
    spread = game.position("R.....\n...R..\n......\n..B..R\n..B...\nR.....", to_move=2)
    assert lance_evaluate(game, four, 1) > lance_evaluate(game, spread, 1)
    assert lance_evaluate(game, four, 2) < 0.5 < lance_evaluate(game, four, 1)


def test_grid_master_evaluation_prefers_an_open_two() -> None:
    from games.bots.evals import grid_master_evaluate
    from games.grid_master.rules import GridState

    game = get_game("grid-master")
    two = GridState.from_diagram("XX. / ... / O..")
    split = GridState.from_diagram("X.. / ..X / .O.")
    assert grid_master_evaluate(game, two, 1) > grid_master_evaluate(game, split, 1)
    assert grid_master_evaluate(game, two, 2) < 0.5


# -- Bidding 3D Tic-Tac-Toe: planned submissions (games/bots/bidding.py) --------------------


@pytest.mark.parametrize("seat", [1, 2])
def test_bidding_plan_controls_a_line_of_boards_in_two_rounds_when_unopposed(seat: int) -> None:
    """Round 1 sets up lines of tiles on the two boards beside the starting board (never three in
    a line: the round's rule), round 2 completes them: a line of boards, the bout won."""
    from games.bots.bidding import plan

    game = get_game("bidding-ttt")
    state = game.new({})
    for _ in range(2):
        view = game.view(state, seat)
        bids = plan(view["public"], seat, int(view["private"]["chips"]), 0, 0.5, False)
        assert bids is not None
        state = game.apply(state, seat, game.parse(state, seat, "; ".join(f"{t} {a}" for t, a in bids)))
        state = game.apply(state, 3 - seat, game.parse(state, 3 - seat, "pass"))
    outcome = game.result(state)
    assert outcome is not None and outcome.winners == {seat}
    assert outcome.reason == "line"


def test_bidding_proposals_are_legal_and_spend_within_the_chips() -> None:
    game = playing.registered("bidding-ttt", BiddingTTT)
    from games.bots import knowledge

    state = game.position(red="A1 A5", blue="C5 I1", round=2, chips=(50, 60), start_chips=80)
    for seat in (1, 2):
        for action in knowledge_for_bidding(knowledge, game, state, seat):
            game.apply(state, seat, action)
            assert sum(a for _, a in action.bids) <= state.chips[seat - 1]


def knowledge_for_bidding(knowledge: ModuleType, game: Game[Any, Any], state: Any, seat: int) -> list[Any]:
    proposals: list[Any] = knowledge.knowledge_for(game).propose(game, state, seat, random.Random(1), SMALL["normal"])
    return proposals


@pytest.mark.parametrize("strength", ["normal", "strong"])
def test_lance_proposals_rank_the_turns_by_the_position_they_leave(strength: str) -> None:
    """Normal and strong search the best-ranked of ~2,000 turns; a random 24-40 of them (before)
    rarely held the one that mattered, so strong's extra time bought nothing."""
    from games.bots.knowledge import knowledge_for

    game = playing.registered("lance-assembly", LanceAssembly)
    # Red to move: a fifth tile at E1 makes a lance; most turns leave Blue's four open
    state = game.position("RRRR.. \n BBBB.. \n ...... \n ...... \n ...... \n ......", to_move=1)
    knobs = replace(STRENGTHS[strength], seconds=None, iterations=10_000)
    for seed in range(3):
        proposals = knowledge_for(game).propose(game, state, 1, random.Random(seed), knobs)
        assert len(proposals) == knobs.candidates
        best = game.apply(state, 1, proposals[0])
        outcome = game.result(best)
        assert outcome is not None and outcome.winners == {1}
