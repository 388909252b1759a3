"""The games side's structure (issue 22): typed page hooks found through the
registry, no module over 600 lines, and one composer that owns the move box.
Issue 38: every registered game brings its own test module, the words of its
results and its home-page description (matches/ keeps no table of them).
Issue 41: and its How to play text (no default: a game without one fails).

The pages themselves (what a click composes, what the board shows) are
proved in tests/browser/test_*_match.py, which play every game by clicks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.core.pages import GamePage, Page
from games.registry import get_game, get_page, registered, slugs
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


@pytest.mark.parametrize(("slug", "view_only"), [("lance-assembly", True), ("grid-master", True),
                                                 ("two-connect", False), ("bidding-ttt", False),
                                                 ("back-to-the-wall", False)])
def test_a_page_says_whether_it_reads_the_view_alone(slug: str, view_only: bool) -> None:
    assert get_page(slug).view_only is view_only


def test_pages_import_without_django() -> None:
    code = (
        "import sys, games.registry\n"
        "[games.registry.get_page(s) for s in games.registry.slugs()]\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""}, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def _tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", *patterns], capture_output=True, text=True, cwd=ROOT, check=True)
    return [ROOT / name for name in out.stdout.split()]


def test_no_module_in_games_and_no_script_is_over_600_lines() -> None:
    files = [f for f in _tracked("games/*.py", "games/*.js", "static/js/*.js") if "/migrations/" not in str(f)]
    assert files
    long = {str(f.relative_to(ROOT)): n for f in files if (n := len(f.read_text().splitlines())) > LIMIT}
    assert not long, long


#: what only the composer touches: the move box, its buttons, and the event a live update fires
_COMPOSER_ONLY = re.compile(r"move-text|move-submit|move-clear|move-form|dm:board-changed")


def test_only_the_composer_owns_the_move_box() -> None:
    scripts = _tracked("games/*.js", "static/js/*.js")
    owners = sorted(str(f.relative_to(ROOT)) for f in scripts if _COMPOSER_ONLY.search(f.read_text()))
    # live.js fires dm:board-changed; keys.js and the others never touch the move box
    assert owners == ["static/js/composer.js", "static/js/live.js"], owners


_CLICK_SCRIPTS = {"bidding_ttt/static/bidding_ttt/bidding.js", "two_connect/static/two_connect/two_connect.js",
                  "back_to_the_wall/static/back_to_the_wall/bttw.js", "lance_assembly/static/lance_assembly/lance.js",
                  "grid_master/static/grid_master/grid_master.js"}


@pytest.mark.parametrize("script", sorted(_CLICK_SCRIPTS | {str(p.relative_to(ROOT / "games"))
                                                            for p in (ROOT / "games").glob("*/static/*/*.js")}))
def test_every_click_script_registers_with_the_composer(script: str) -> None:
    path = ROOT / "games" / script
    assert path.exists(), script
    assert "Composer.register(" in path.read_text()
