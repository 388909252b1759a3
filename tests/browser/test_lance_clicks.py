"""Every legal Lance Assembly turn can be composed by clicks (issue 25, defect 4).

Sample positions are reached by playing a seeded random game on a real
match; for each, the rules enumerate the legal turns of the seat to move and
the seat's page (its real click script, lance.js) composes each one by the
clicks a player would make: a placement, the neutral toggle, both ends of a
run (the tile just placed too), the distance and a direction.  The move box
must then hold the turn's canonical text.  A position with the neutral tile
has ~10^5 turns: up to 120 of each turn shape, spread evenly, are composed
there; every turn of a later position without it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.lance_assembly.notation import Neutral, Place, Slide, square_text
from games.registry import get_game

from .conftest import ARTIFACTS, TIMEOUT, StartMatch, version, wait_connected

pytestmark = pytest.mark.browser

GAME = get_game("lance-assembly")

#: compose each plan with the page's own click script; the mismatches come back
COMPOSE_JS = """(plans) => {
  // the preview (ghosts, arrows) is drawn from the composed text and plays no part in it: left out
  // of the bulk run for speed, drawn as usual for the last turn, clicked by the mouse
  const draw = window.SquareBoard.draw;
  window.SquareBoard.draw = () => {};
  const bad = [];
  const cellOf = (c) => document.querySelector('#board [data-board="lance-assembly"][data-coord="' + c + '"]');
  for (const [plan, want] of plans) {
    document.getElementById('move-clear').click();
    for (const [kind, arg] of plan) {
      if (kind === 'cell') { cellOf(arg).click(); }
      else if (kind === 'neutral') { document.getElementById('neutral-toggle').checked = true; }
      else if (kind === 'dist') { document.getElementById('slide-distance').value = String(arg); }
      else { document.querySelector('#lance-controls button.dir[data-dir="' + arg + '"]').click(); }
    }
    const got = document.getElementById('move-text').value;
    if (got !== want) { bad.push([want, got]); if (bad.length > 20) break; }
  }
  window.SquareBoard.draw = draw;
  document.getElementById('move-clear').click();
  return bad;
}"""


def plan(turn: Any) -> list[tuple[str, Any]]:
    """The clicks a player makes for `turn`, part by part in its order."""
    out: list[tuple[str, Any]] = []
    for part in turn.parts:
        if isinstance(part, Place):
            out.append(("cell", square_text(part.square)))
        elif isinstance(part, Neutral):
            out += [("neutral", ""), ("cell", square_text(part.square))]
        else:
            assert isinstance(part, Slide)
            out += [("cell", square_text(part.start)), ("cell", square_text(part.end)),
                    ("dist", part.distance), ("dir", part.direction)]
    return out


def sample(state: Any, seat: int, cap: int | None) -> list[Any]:
    """Every legal turn; with a `cap`, evenly spread turns of each shape, at most `cap` of one shape."""
    by_shape: dict[tuple[str, ...], list[Any]] = {}
    for turn in GAME.legal_actions(state, seat):
        by_shape.setdefault(tuple(type(p).__name__ for p in turn.parts), []).append(turn)
    return [t for turns in by_shape.values()
            for t in (turns if cap is None else turns[::max(1, -(-len(turns) // cap))])]


def test_every_legal_lance_turn_can_be_clicked(browser: Any, start_match: StartMatch) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    match = start_match("lance-assembly", ["Ann", "Bob"])
    links = match.seats
    match.start()
    seats = {n: browser.new_context(viewport={"width": 1280, "height": 800}).new_page() for n in (1, 2)}
    errors: list[str] = []
    for n, page in seats.items():
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(links[n])
        wait_connected(page)

    rng = random.Random(7)
    state = GAME.new({"starting_seat": 1})
    checked = 0
    # after 1 turn the neutral tile is Bob's (about 91,000 turns: up to 120 of each of its 10 shapes);
    # after 9, places and slides only: all of its 1,691 turns

    for depth in range(10):
        seat = next(iter(GAME.to_act(state)))
        page = seats[seat]
        if depth in (1, 9):
            page.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
            turns = sample(state, seat, 120 if depth == 1 else None)
            assert any(isinstance(t.parts[0], Place) and isinstance(t.parts[-1], Slide)
                       and t.parts[-1].start == t.parts[0].square for t in turns)  # place A1; slide A1 ...
            bad = page.evaluate(COMPOSE_JS, [[plan(t), GAME.format(t)] for t in turns])
            assert not bad, bad
            checked += len(turns)
        turn = GAME.random_action(state, seat, rng)
        state = GAME.apply(state, seat, turn)
        before = version(page)
        page.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
        page.fill("#move-text", GAME.format(turn))
        page.click("#move-submit")
        page.wait_for_function(f"+document.querySelector('#live-meta').dataset.version > {before}", timeout=TIMEOUT)
        assert page.is_hidden("#move-error"), page.inner_text("#move-error")
    assert checked > 2500 and not errors, errors
    # the tile just placed, slid alone, by clicks: place, the tile twice, a direction
    seat = next(iter(GAME.to_act(state)))
    page = seats[seat]
    page.wait_for_selector("#status.your-turn", timeout=TIMEOUT)
    turn = next(t for t in GAME.legal_actions(state, seat) if len(t.parts) == 2 and isinstance(t.parts[0], Place)
                and isinstance(t.parts[1], Slide) and t.parts[1].start == t.parts[1].end == t.parts[0].square)
    for kind, arg in plan(turn):
        if kind == "cell":
            page.click(f'#board .cell[data-coord="{arg}"]')
        elif kind == "dist":
            page.select_option("#slide-distance", str(arg))
        elif kind == "dir":
            page.click(f'#lance-controls button.dir[data-dir="{arg}"]')
    assert page.input_value("#move-text") == GAME.format(turn)
    page.screenshot(path=str(ARTIFACTS / "lance-slide-new-tile.png"))
    page.click("#move-submit")
    page.wait_for_selector(f'#log-list li:last-child:has-text("{GAME.format(turn)}")', timeout=TIMEOUT)
