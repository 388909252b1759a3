"""The games side's structure (issue 22): typed page hooks found through the
registry, no module over 600 lines, and one composer that owns the move box.
Issue 38: every registered game brings its own test module, the words of its
results and its home-page description (matches/ keeps no table of them).
Issue 41: and its How to play text (no default: a game without one fails).

The pages themselves (what a click composes, what the board shows) are
proved in tests/browser/test_*_match.py, which play every game by clicks."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.core import SPECTATOR
from games.core.pages import GamePage, Page
from games.registry import app_dir, get_game, get_page, registered, slugs
from tests.games.toy.rules import TicTacToe

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 600


@pytest.mark.parametrize("slug", slugs())
def test_every_game_has_a_typed_page_in_the_registry(slug: str) -> None:
    page = get_page(slug)
    assert isinstance(page, GamePage)
    assert isinstance(page.view_only, bool)
    view = {"game": slug, "viewer": -1, "public": {}, "to_act": [], "pending": [], "result": None}
    assert page.log_notes(view, [], {"names": {}, "bout_number": 1}) == []


def lacks(slug: str) -> list[str]:
    """What the registered game `slug` lacks that the platform asks of every game."""
    game, page = get_game(slug), get_page(slug)
    found = []
    module = ROOT / "tests" / "games" / f"test_{slug.replace('-', '_')}.py"
    if not module.exists():
        found.append(f"its test module {module.relative_to(ROOT)}")
    if not game.reason_words or not all(str(words).strip() for words in game.reason_words.values()):
        found.append("the words of its results (Game.reason_words)")
    if not page.description.strip():
        found.append("its home-page description (its page's description)")
    how = page.how_to_play()
    if how is None or not how.goal.strip() or not how.turn.strip() or not how.notation:
        found.append("its How to play text: goal, turn and notation (its page's how_to_play)")
    return found


@pytest.mark.parametrize("slug", slugs())
def test_every_game_has_its_tests_the_words_of_its_results_and_a_description(slug: str) -> None:
    assert lacks(slug) == []


def test_a_game_registered_without_them_is_caught() -> None:
    bare = type("Bare", (TicTacToe,), {"slug": "bare-toe", "reason_words": {}})()
    with registered(bare, app="toy_ttt"):
        assert lacks("bare-toe") == ["its test module tests/games/test_bare_toe.py",
                                     "the words of its results (Game.reason_words)",
                                     "its home-page description (its page's description)",
                                     "its How to play text: goal, turn and notation (its page's how_to_play)"]


def test_an_unknown_slug_has_no_page() -> None:
    with pytest.raises(KeyError, match="no game registered under 'chess'"):
        get_page("chess")


def test_the_default_page_adds_nothing_and_keeps_the_log() -> None:
    entries = [{"kind": "move", "text": "place C3"}]
    assert Page().context({}, {}) == {}
    assert Page().log_notes({}, entries, {}) is entries
    assert Page().how_to_play() is None  # no default text: the structure test fails a game without its own
    assert Page.view_only is False


@pytest.mark.parametrize("slug", [slug for slug in slugs() if get_page(slug).view_only])
def test_a_page_that_reads_the_view_alone_reads_nothing_else(slug: str) -> None:
    """`view_only` lets matches/pages/render.py shape equal views once for every audience: such a
    page's context must come from the view alone (an empty ctx changes nothing)."""
    game, page = get_game(slug), get_page(slug)
    rng = random.Random(slug)
    state = game.new()
    for _ in range(4):  # a position a few moves in: last move, hand counts, hints drawn
        seats = sorted(game.to_act(state))
        action = game.random_action(state, seats[0], rng) if seats else None
        if action is None:
            break
        state = game.apply(state, seats[0], action)
    view = game.view(state, SPECTATOR)
    full = {"names": {1: "Ann", 2: "Bob"}, "viewer": 1, "bout_number": 2, "my_turn": True, "over": False}
    assert page.context(view, {}) == page.context(view, full)


def test_pages_import_without_django() -> None:
    code = (
        "import sys, games.registry\n"
        "[games.registry.get_page(s) for s in games.registry.slugs()]\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""}, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


#: folders no check walks: tools, dependencies, caches and build output (what .gitignore keeps out)
_SKIP = {".git", ".venv", "venv", "node_modules", "__pycache__", "staticfiles", "build", "dist", "vendor",
         "migrations", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "test-artifacts"}


def _files(*suffixes: str, root: Path = ROOT, under: tuple[str, ...] = ("games", "static/js")) -> list[Path]:
    """Every file with one of `suffixes` in the working tree under `under`: walked, not asked of git,
    so a file a newcomer has just written (not yet added) is checked too."""
    found = []
    for top in under:
        for folder, dirs, names in os.walk(root / top):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.endswith(".egg-info"))
            found += [Path(folder) / name for name in sorted(names) if name.endswith(suffixes)]
    return found


def test_no_module_in_games_and_no_script_is_over_600_lines() -> None:
    files = _files(".py", ".js", ".css")
    assert ROOT / "games" / "registry.py" in files and ROOT / "static" / "js" / "composer.js" in files
    long = {str(f.relative_to(ROOT)): n for f in files if (n := len(f.read_text().splitlines())) > LIMIT}
    assert not long, long


def test_the_line_check_walks_the_tree_not_git_s_list(tmp_path: Path) -> None:
    """A new game's folder is checked before anyone runs `git add` (here: no repository at all);
    caches and dependencies are not."""
    for name in ("games/new_game/rules.py", "games/new_game/static/new_game/new.js",
                 "games/new_game/__pycache__/rules.py", "static/js/node_modules/lib.js", "static/js/composer.js"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = sorted(str(f.relative_to(tmp_path)) for f in _files(".py", ".js", root=tmp_path))
    assert found == ["games/new_game/rules.py", "games/new_game/static/new_game/new.js", "static/js/composer.js"]


#: what only the composer touches: the move box, its buttons, and the event a live update fires
_COMPOSER_ONLY = re.compile(r"move-text|move-submit|move-clear|move-form|dm:board-changed")


def test_only_the_composer_owns_the_move_box() -> None:
    scripts = _files(".js")
    owners = sorted(str(f.relative_to(ROOT)) for f in scripts if _COMPOSER_ONLY.search(f.read_text()))
    # live.js fires dm:board-changed; keys.js and the others never touch the move box
    assert owners == ["static/js/composer.js", "static/js/live.js"], owners


@pytest.mark.parametrize("app", sorted({app_dir(slug) for slug in slugs()}))
def test_every_game_has_a_click_script_that_registers_with_the_composer(app: str) -> None:
    """Each registered game's folder holds its click script (static/<app>/*.js, loaded by its
    head.html) and every script there maps clicks through the composer."""
    scripts = sorted((ROOT / "games" / app / "static" / app).glob("*.js"))
    assert scripts, f"games/{app}/static/{app}/ holds no click script"
    for script in scripts:
        assert "Composer.register(" in script.read_text(), script
        assert f"{app}/{script.name}" in (ROOT / "games" / app / "templates" / app / "head.html").read_text()


def _root_classes(slug: str) -> set[str]:
    """The classes on the root element of what the game's board template draws of its first position."""
    from matches.web.rules_views import draw

    game = get_game(slug)
    html = draw(slug, game.new(), SPECTATOR, {n: f"Player {n}" for n in range(1, game.seat_count() + 1)})
    found = re.search(r'<[a-z]+[^>]*\bclass="([^"]*)"', html)
    assert found, f"{slug}'s board template draws no element with a class"
    return set(found.group(1).split())


def test_each_game_s_look_lives_in_its_own_folder() -> None:
    """A class only one game's board carries at its root (`gridmaster`, `lance`, `tc-root`) is styled by
    that game's stylesheet (games/<app>/static/<app>/*.css, loaded by its head.html), never by the
    platform's static/css/: a new game adds its look without touching them."""
    roots = {slug: _root_classes(slug) for slug in slugs()}
    apps = {slug: app_dir(slug) for slug in slugs()}
    platform = "\n".join(re.sub(r"/\*.*?\*/", "", p.read_text(), flags=re.S)
                         for p in sorted((ROOT / "static" / "css").glob("*.css")))
    for slug, classes in roots.items():
        others = set().union(*(roots[s] for s in roots if apps[s] != apps[slug]))
        for own in sorted(classes - others):
            assert not re.search(rf"\.{re.escape(own)}(?![\w-])", platform), f"static/css styles {slug}'s .{own}"
            sheets = sorted((ROOT / "games" / apps[slug] / "static" / apps[slug]).glob("*.css"))
            assert any(f".{own}" in sheet.read_text() for sheet in sheets), f"no stylesheet of {slug} styles .{own}"
            head = (ROOT / "games" / apps[slug] / "templates" / apps[slug] / "head.html").read_text()
            assert all(f"{apps[slug]}/{sheet.name}" in head for sheet in sheets)
