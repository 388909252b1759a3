"""The READMEs of matches/ name only what exists, so the docs cannot drift from the code.

- Every layer of matches/ has a README of at most 60 lines (issue 22, item 4).
- Every `module.name` written in backticks in them imports: `services.submit`,
  `matches.play.services.submit` and `Bout.version` alike.  A short module name is the last part
  of a module of matches/ (each is unique); a capitalised first part is a model.  When the name is
  written with its arguments, `services.submit(match, seat, text, expected_version)`, each
  argument is one of the function's parameters.
- Every path of a file they (and the project's and games/ READMEs) mention exists: in the
  repository, beside the README, or as a template name.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "matches"
LAYERS = ["core", "seasons", "play", "pages", "live", "replays", "web", "discord"]
READMES = [PACKAGE / "README.md", *(PACKAGE / layer / "README.md" for layer in LAYERS)]
#: docs outside matches/ that point into it: their paths are checked too
OTHER_DOCS = [ROOT / "README.md", ROOT / "games" / "README.md"]
MAX_LINES = 60

#: a dotted name, optionally followed by its arguments: `a.b`, `a.b.c(x, y=1)`
NAME = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\((.*)\))?$")
#: a file's path: `matches/pages/render.py`, static/js/live.js (a `<placeholder>` is no path)
PATH = re.compile(r"(?<![\w/<>.-])((?:[\w.-]+/)+[\w.-]+\.(?:py|html|js|css|md|txt|toml|json|sh))(?![\w/<>-])")
FILE_SUFFIXES = {"py", "html", "js", "css", "md", "txt", "toml", "json", "sh"}
TEMPLATE_DIRS = [ROOT / "templates", *ROOT.glob("*/templates"), *ROOT.glob("*/*/templates")]


def _modules() -> dict[str, str]:
    """Last part of every module of matches/ -> its dotted name (`services` -> matches.play.services)."""
    found: dict[str, str] = {}
    for path in PACKAGE.rglob("*.py"):
        if "migrations" in path.parts or path.name == "__init__.py":
            continue
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        assert path.stem not in found, f"two modules of matches/ are called {path.stem}: {found[path.stem]}, {dotted}"
        found[path.stem] = dotted
    return found


MODULES = _modules()


def _spans(readme: Path) -> Iterator[str]:
    text = readme.read_text() if readme.exists() else ""
    yield from re.findall(r"`([^`\n]+)`", text)


def _named(readme: Path) -> Iterator[tuple[str, str, str | None]]:
    """(as written, dotted name, arguments or None) of every name a README writes in backticks."""
    for span in _spans(readme):
        found = NAME.match(span.strip())
        if found is None:
            continue
        dotted, args = found.group(1), found.group(2)
        first, last = dotted.split(".")[0], dotted.split(".")[-1]
        if last in FILE_SUFFIXES and args is None:
            continue  # a file name: `models.py`
        if first in {"matches", "games", "config"} or first in MODULES or first[0].isupper():
            yield span, dotted, args


def _resolve(dotted: str) -> Any:
    parts = dotted.split(".")
    if parts[0] in {"matches", "games", "config"}:
        # the longest prefix that imports is the module; the rest are attributes
        for cut in range(len(parts), 0, -1):
            try:
                obj: Any = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            rest = parts[cut:]
            break
        else:  # pragma: no cover - `matches`, `games` and `config` always import
            raise ImportError(f"{dotted}: no module of it imports")
    elif parts[0] in MODULES:
        obj, rest = importlib.import_module(MODULES[parts[0]]), parts[1:]
    else:
        obj, rest = importlib.import_module("matches.models"), parts
    for attr in rest:
        obj = getattr(obj, attr)  # AttributeError names what is missing
    return obj


def _parameters(args: str) -> list[str]:
    names = []
    for arg in args.split(","):
        name = arg.split("=")[0].split(":")[0].strip().lstrip("*").strip()
        if name and name != "...":
            names.append(name)
    return names


CASES = [(readme, span, dotted, args) for readme in READMES for span, dotted, args in _named(readme)]


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_layer_has_a_short_readme(readme: Path) -> None:
    assert readme.exists(), f"{readme.relative_to(ROOT)} is missing"
    lines = len(readme.read_text().splitlines())
    assert lines <= MAX_LINES, f"{readme.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"


def test_the_readmes_name_entry_points() -> None:
    """The check below has something to check: each layer's README names some of its code."""
    for layer in LAYERS:
        readme = PACKAGE / layer / "README.md"
        mine = [dotted for _, dotted, _ in _named(readme)
                if MODULES.get(dotted.split(".")[0], dotted).startswith(f"matches.{layer}.")]
        assert mine, f"matches/{layer}/README.md names none of its own functions"


@pytest.mark.parametrize(("readme", "span", "dotted", "args"), CASES,
                         ids=[f"{r.parent.name}:{s}" for r, s, _, _ in CASES])
def test_every_name_in_the_readmes_exists(readme: Path, span: str, dotted: str, args: str | None) -> None:
    try:
        obj = _resolve(dotted)
    except (ImportError, AttributeError) as error:
        raise AssertionError(f"{readme.relative_to(ROOT)} names `{span}`, which does not exist: {error}") from None
    if args is None or not callable(obj):
        return
    signature = inspect.signature(obj)
    unknown = [name for name in _parameters(args) if name not in signature.parameters]
    assert unknown == [], f"{readme.relative_to(ROOT)}: `{span}` has no parameter {unknown} ({dotted}{signature})"


@pytest.mark.parametrize("doc", READMES + OTHER_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_in_the_docs_exists(doc: Path) -> None:
    text = doc.read_text() if doc.exists() else ""
    missing = [path for path in PATH.findall(text)
               if not any((base / path).exists() for base in [ROOT, doc.parent, *TEMPLATE_DIRS])]
    assert missing == [], f"{doc.relative_to(ROOT)} mentions files that do not exist: {missing}"


def test_the_checker_catches_a_wrong_name() -> None:
    """The checks fail on what they must: a moved function, a renamed argument, a stale path."""
    assert _resolve("services.submit") is _resolve("matches.play.services.submit")
    assert _resolve("Bout.version") is not None
    with pytest.raises(AttributeError):
        _resolve("services.no_such_function")
    with pytest.raises(AttributeError):
        _resolve("matches.nowhere.submit")
    assert "expected_version" in inspect.signature(_resolve("services.submit")).parameters
    assert _parameters("match, *, starting_seat=None") == ["match", "starting_seat"]
    assert PATH.findall("see matches/render.py and `static/js/live.js`, not <app>/page.py") == [
        "matches/render.py", "static/js/live.js"]
