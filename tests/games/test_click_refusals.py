"""What a click may not choose, said by the page (issue 56): the game's page hooks name the
squares the player to move may not click now, with the rules' own reason, and every square
they leave clickable can still start a legal turn (as chessground is fed only legal
destinations).  The click script shows the sentence and composes nothing
(tests/browser/test_click_feedback.py)."""

from __future__ import annotations

from typing import Any

import pytest

from games.core import Game, IllegalAction
from games.grid_master.page import CORNERS
from games.lance_assembly.rules import LanceAssembly
from games.registry import get_game, get_page


def _context(slug: str, game: Game[Any, Any], state: Any, seat: int) -> dict[str, Any]:
    return get_page(slug).context(game.view(state, seat), {"viewer": seat, "names": {}, "over": False})


def _squares(state_cells: list[list[str]]) -> list[str]:
    return [f"{chr(65 + c)}{r + 1}" for r, row in enumerate(state_cells) for c in range(len(row))]


def _starts_a_legal_turn(game: Game[Any, Any], state: Any, seat: int, square: str) -> bool:
    return any(square in game.format(action) for action in game.legal_actions(state, seat))


def test_grid_master_refuses_every_first_square_but_a_corner_in_the_rules_words() -> None:
    game = get_game("grid-master")
    state = game.new()
    refuse = _context("grid-master", game, state, 1)["refuse_cells"]
    assert set(refuse) == set(_squares(game.view(state, 1)["public"]["cells"])) - set(CORNERS)
    assert refuse["B2"] == "B2 is not a corner: the first move goes on a corner."
    with pytest.raises(IllegalAction, match="corner"):
        game.play(state, 1, "place B2")


def test_grid_master_refuses_the_other_players_symbols_and_a_symbol_that_may_not_move() -> None:
    game = get_game("grid-master")
    state = game.play(game.new(), 1, "place A1")
    refuse = _context("grid-master", game, state, 2)["refuse_cells"]
    assert refuse == {"A1": "A1 holds X, the other player's symbol: place on an empty square or move one of yours."}
    state = game.play(game.play(state, 2, "place B2"), 1, "place C1; move A1 down 1")
    state = game.play(state, 2, "place C3; move B2 up 1")
    # X's third turn moves any symbol: only O's are refused; every other square starts a legal turn
    refuse = _context("grid-master", game, state, 1)["refuse_cells"]
    cells = game.view(state, 1)["public"]["cells"]
    assert set(refuse) == {sq for sq, v in zip(_squares(cells), [v for row in cells for v in row], strict=True)
                           if v == "O"}
    for square in set(_squares(cells)) - set(refuse):
        assert _starts_a_legal_turn(game, state, 1, square), square


def test_grid_master_second_turn_refuses_the_symbols_that_may_not_be_repositioned() -> None:
    game = get_game("grid-master")
    state = game.play(game.play(game.new(), 1, "place A1"), 2, "place B2")
    state = game.play(state, 1, "place C1; move A1 down 1")
    refuse = _context("grid-master", game, state, 2)["refuse_cells"]
    assert refuse["A2"].startswith("A2 holds X") and refuse["C1"].startswith("C1 holds X")
    # B2 is O's first symbol: the one this turn moves, so it stays clickable
    assert "B2" not in refuse


def test_lance_refuses_empty_squares_only_when_nothing_may_be_placed() -> None:
    game = LanceAssembly()
    state = game.play(game.new(), 1, "place C3")
    assert _context("lance-assembly", game, state, 2)["refuse_cells"] == {}
    full = game.position("""
        R B R B R B
        B R B R B R
        R B R B R B
        B R B R B R
        R B R B . .
        B R . . R B""", to_move=1, turn=30)
    refuse = _context("lance-assembly", game, full, 1)["refuse_cells"]
    assert set(refuse) == {"E5", "F5", "C6", "D6"}
    assert refuse["E5"].startswith("No tile can be placed now: 4 squares are empty")
    for square in refuse:
        with pytest.raises(IllegalAction):
            game.play(full, 1, f"place {square}")
