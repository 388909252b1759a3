"""The pure core: grid helpers, errors, views, and no Django anywhere in the rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.core import HOST, SPECTATOR, IllegalAction, NotationError, Result, RuleError, grid
from games.core.notation import normalize, parse_count


def test_error_family() -> None:
    assert issubclass(RuleError, ValueError)
    assert issubclass(NotationError, RuleError)
    assert issubclass(IllegalAction, RuleError)
    assert HOST != SPECTATOR and HOST < 1 and SPECTATOR < 1


def test_rules_import_without_django() -> None:
    code = (
        "import sys, games.core, games.registry\n"
        "[games.registry.get_game(s) for s in games.registry.slugs()]\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""}, cwd=Path(__file__).resolve().parents[2]
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("text", "expected"), [("A1", (0, 0)), ("c3", (2, 2)), (" F6 ", (5, 5)), ("b 2", (1, 1))])
def test_parse_square_a1_is_top_left(text: str, expected: tuple[int, int]) -> None:
    assert grid.parse_square(text, 6, 6) == expected


@pytest.mark.parametrize("text", ["G1", "A7", "A0", "", "11", "AA1", "C-3"])
def test_parse_square_names_the_range(text: str) -> None:
    with pytest.raises(NotationError, match=r"expected a square from A1 to F6"):
        grid.parse_square(text, 6, 6)


def test_square_name_round_trip() -> None:
    for col in range(14):
        for row in range(14):
            assert grid.parse_square(grid.square_name(col, row), 14, 14) == (col, row)


@pytest.mark.parametrize(("text", "name"), [("U", "up"), ("down", "down"), ("L", "left"), ("Right", "right")])
def test_directions(text: str, name: str) -> None:
    assert grid.parse_direction(text) == name


def test_bad_direction() -> None:
    with pytest.raises(NotationError, match="expected a direction"):
        grid.parse_direction("diagonal")


def _board(rows: list[str]) -> tuple[int, ...]:
    return tuple(0 if ch == "." else int(ch) for row in rows for ch in row)


def test_longest_run_counts_overlines_and_diagonals() -> None:
    cells = _board(["1111.", ".2...", "..2..", "...2.", "....2"])
    assert grid.longest_run(cells, 5, 5, 1) == 4
    assert grid.longest_run(cells, 5, 5, 2) == 4
    assert grid.has_line(cells, 5, 5, 2, 4)
    assert not grid.has_line(cells, 5, 5, 2, 5)
    anti = _board(["....1", "...1.", "..1..", ".....", "....."])
    assert grid.longest_run(anti, 5, 5, 1) == 3
    assert grid.longest_through(anti, 5, 5, 2 * 5 + 2) == 3


def test_slide_moves_only_the_run() -> None:
    cells = _board(["12.1.."] + ["......"] * 5)
    out = grid.slide(cells, 6, 6, 0, 1, "right", 1)
    assert out[:6] == (0, 1, 2, 1, 0, 0)
    with pytest.raises(IllegalAction, match="not empty"):
        grid.slide(out, 6, 6, 1, 2, "right", 1)  # D1 is in the way: no pushing


def test_slide_refuses_gaps_sideways_and_edges() -> None:
    cells = _board(["1.1..."] + ["......"] * 5)
    with pytest.raises(IllegalAction, match="not connected"):
        grid.slide(cells, 6, 6, 0, 2, "right", 1)
    with pytest.raises(IllegalAction, match="can only slide along its row"):
        grid.slide(_board(["11...."] + ["......"] * 5), 6, 6, 0, 1, "down", 1)
    with pytest.raises(IllegalAction, match="off the board"):
        grid.slide(cells, 6, 6, 0, 0, "up", 1)
    with pytest.raises(IllegalAction, match="no tile on B1"):
        grid.slide(cells, 6, 6, 1, 1, "down", 1)
    with pytest.raises(IllegalAction, match="not in one row or column"):
        grid.run_between(0, 7, 6)


def test_notation_helpers() -> None:
    assert normalize("  I Place   tile on A1. ") == "i place tile on a1"
    assert parse_count("3", "chips", 1) == 3
    with pytest.raises(NotationError, match="chips must be at least 1"):
        parse_count("0", "chips", 1)
    with pytest.raises(NotationError, match="expected a whole number"):
        parse_count("x", "chips")


def test_result_json_round_trip() -> None:
    result = Result(frozenset({2}), "lance", {1: 0.0, 2: 1.0}, "blue made a lance")
    assert Result.from_json(result.to_json()) == result
    assert Result(frozenset(), "stalemate").is_draw


def test_square_grid_names_cells_from_a1_top_left_with_the_games_own_marks() -> None:
    from games.core.squares import Mark, square_grid

    grid = square_grid(["X.", ".O"], {"X": Mark("p1", "X"), "O": Mark("p2", "O")})
    assert grid["cols"] == ["A", "B"]
    cells = [cell for row in grid["rows"] for cell in row]
    assert [(c["coord"], c["value"], c["cls"], c["label"]) for c in cells] == [
        ("A1", "X", "p1", "X"), ("B1", "", "empty", "empty"), ("A2", "", "empty", "empty"), ("B2", "O", "p2", "O")]


def test_square_grid_refuses_a_value_the_game_did_not_name() -> None:
    from games.core.squares import Mark, square_grid

    with pytest.raises(KeyError):
        square_grid([["R", "Q"]], {"R": Mark("p1", "red tile")})
