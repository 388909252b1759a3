"""matches/ names no game (issue 38): whatever the platform says or does about
one game it asks that game's own objects (`Game`, its page hooks) through
games.registry.  So no code in matches/ holds a game's slug, imports a game's
folder, or compares a slug with one: a game is its folder and one registry line.

Docstrings may mention a game as an example; code (strings, names, imports) may not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from games.registry import app_dir, slugs

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for p in (ROOT / "matches").rglob("*.py") if "migrations" not in p.parts)
TEMPLATES = sorted((ROOT / "matches" / "templates").rglob("*.html"))
#: what matches/ may import from games/: the interface, the registry and the shared bots
SHARED = {"core", "registry", "bots"}
#: every game's slug and its app folder's name, and the variants' values (Sliding Tic-Tac-Toe)
NAMES = sorted({*slugs(), *(app_dir(s) for s in slugs())} | {"sliding-tic-tac-toe"})
NAMED = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, NAMES)) + r")(?![\w-])")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def offences(source: str) -> list[str]:
    """Each place `source` (a matches/ module) names a game: a slug or app in a string, a
    `games.<game>` import."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found += [f"line {node.lineno}: {hit!r}" for hit in NAMED.findall(node.value)]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            for module in modules:
                parts = module.split(".")
                if parts[0] == "games" and len(parts) > 1 and parts[1] not in SHARED:
                    found.append(f"line {node.lineno}: imports {module}")
                    break
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_in_matches_names_a_game(path: Path) -> None:
    assert offences(path.read_text()) == []


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_in_matches_names_a_game(path: Path) -> None:
    assert NAMED.findall(path.read_text()) == []


@pytest.mark.parametrize("code", [
    'WHY = {("squava", "line"): "four in a row"}',
    "if match.game_slug == 'back-to-the-wall':\n    pass",
    "from games.back_to_the_wall.board import BOARD_TITLES",
    "def f():\n    import games.two_connect.page\n",
    "from games import lance_assembly",
    'TEMPLATE = "grid_master/board.html"',
])
def test_the_check_sees_a_game_named_again(code: str) -> None:
    assert offences(code) != []


def test_the_check_lets_the_interface_and_a_docstring_through() -> None:
    code = ('"""Back to the Wall\'s garnets, e.g. back-to-the-wall."""\n'
            "from games.core import HOST\nfrom games.registry import get_game\nfrom games.bots.search import Strength\n"
            'LABEL = "a custom-built board"\n')
    assert offences(code) == []
