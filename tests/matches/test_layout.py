"""matches/ is layered: each subpackage imports only from the layers below it
(matches/README.md), and no module imports one that imports it back, however
indirectly.  Every import counts, those inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "matches"
#: lowest first; a module may import from its own layer and the ones before it
LAYERS = ["models", "core", "seasons", "play", "pages", "live", "replays", "web"]
#: Django's fixed places, given the layer of what they serve
PLACED = {"templatetags": "pages", "management": "web", "admin": "web", "apps": "web", "migrations": "models"}
#: packages on the floor of another layer, beside it: they import what it may, and neither imports the other
BESIDE = {"discord": "web"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "models"  # the package itself (empty __init__)
    top = parts[1]
    return PLACED.get(top, BESIDE.get(top, top))


def imports(path: Path) -> set[str]:
    """Every matches module `path` imports, at any depth of its code."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return {m for m in found if m.split(".")[0] == "matches" and m in MODULES}


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
GRAPH = {name: imports(path) - {name} for name, path in MODULES.items()}


def test_every_module_has_a_known_layer() -> None:
    assert {layer(m) for m in MODULES} <= set(LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_follow_the_layers(module: str) -> None:
    mine = LAYERS.index(layer(module))
    upward = sorted(m for m in GRAPH[module] if LAYERS.index(layer(m)) > mine)
    assert upward == [], f"{module} ({layer(module)}) imports from a higher layer: {upward}"


def test_packages_beside_a_layer_and_that_layer_do_not_import_each_other() -> None:
    """matches/discord/ sits beside web/: only the wiring (apps.py, management commands) imports it."""
    for package, floor in BESIDE.items():
        inside = {m for m in MODULES if m.split(".")[1:2] == [package]}
        wiring = {m for m in MODULES if m.split(".")[1:2] in (["apps"], ["management"])}
        for module in sorted(set(MODULES) - inside - wiring):
            assert not GRAPH[module] & inside, f"{module} imports matches.{package}"
        for module in sorted(inside):
            assert not {m for m in GRAPH[module] if m.split(".")[1:2] == [floor]}, f"{module} imports matches.{floor}"


def test_no_import_cycle() -> None:
    cycles = [component for component in _strongly_connected(GRAPH) if len(component) > 1]
    assert cycles == []


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    """The walk finds an import hidden in a function body (how the old cycle was closed)."""
    probe = PACKAGE / "core" / "formats.py"
    assert imports(probe) <= set(MODULES)
    source = "def f():\n    from matches.web import views\n"
    tree = ast.parse(source)
    assert any(isinstance(n, ast.ImportFrom) and n.module == "matches.web" for n in ast.walk(tree))
    assert _strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) != [{"a"}, {"b"}, {"c"}]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative enough for a package of this size."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            out.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_tests_mirror_the_layers() -> None:
    """tests/matches/<layer>/ holds the tests of matches/<layer>/, and no test folder names a layer
    that is not there."""
    folders = {p.name for p in (ROOT / "tests" / "matches").iterdir() if p.is_dir() and p.name != "__pycache__"}
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} - set(PLACED)
    assert folders and folders <= packages
