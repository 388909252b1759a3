"""Each registered game's first move by clicks, as its page draws it: what to click, what the clicks
compose in the move box, and what every audience's page then shows.  test_every_game_page.py plays
every entry on a desktop seat with a phone seat, a spectator and the host watching; a new game adds
its entry here (the test fails for a registered slug without one).  The games' own browser tests
(test_<game>_match.py) go on from there: whole matches, hidden information, their boards' details.

An act is ("click", selector), ("fill", selector, text) or ("select", selector, value), done on the
page of `Turn.by` (a seat number, or "host").
"""

from __future__ import annotations

from dataclasses import dataclass

from .conftest import cell

Act = tuple[str, ...]


@dataclass(frozen=True)
class Turn:
    by: int | str
    acts: tuple[Act, ...]
    #: what the move box holds once the acts are done (None: the page queues it elsewhere)
    text: str | None
    #: the button that sends it
    send: str = "#move-submit"
    #: what the same page shows once the server took it, before the next turn is played
    after: str = ""


@dataclass(frozen=True)
class Flow:
    turns: tuple[Turn, ...]
    #: a selector every page (host, both seats, spectator) shows once the turns are in
    shown: str
    #: options set on the home form after the game is chosen
    fields: tuple[tuple[str, str], ...] = ()


def point(board: str, coord: str) -> str:
    """A point of the Two Connect family's boards (Squava, Gomoku, Yinsh, alone or together)."""
    return f'#tc-root .pt[data-board="{board}"][data-coord="{coord}"]'


def click(*selectors: str) -> tuple[Act, ...]:
    return tuple(("click", s) for s in selectors)


#: the host closes a sealed round (missing orders do nothing)
RESOLVE = Turn("host", click("#host-panel button:has-text('Resolve round now')"), None, send="")
ARROW = '.bttw-build[data-for="{board}"] .bttw-piece[data-seat="1"][data-number="1"] .bttw-arrow[data-dir="right"]'

FLOWS: dict[str, Flow] = {
    "lance-assembly": Flow((Turn(1, click('#board .cell[data-coord="A1"]'), "place A1"),), cell("A1", "R")),
    "grid-master": Flow((Turn(1, click('#board .cell[data-coord="A1"]'), "place A1"),), cell("A1", "X")),
    "squava": Flow((Turn(1, click(point("squava", "C3")), "squava C3"),), point("squava", "C3") + ".s1"),
    "gomoku": Flow((Turn(1, click(point("gomoku", "H7")), "gomoku H7"),), point("gomoku", "H7") + ".s1"),
    "yinsh": Flow((Turn(1, click(point("yinsh", "E5")), "yinsh ring E5"),), point("yinsh", "E5") + ".r1"),
    "two-connect": Flow((Turn(1, click(point("squava", "C3")), "squava C3"),), point("squava", "C3") + ".s1"),
    "bidding-ttt": Flow(
        (Turn(1, click('#bt .bt-tile[data-board="bidding"][data-coord="E5"]'), "E5 1",
              after="#status >> text=your bid is in"), RESOLVE),
        '#bt .bt-tile[data-board="bidding"][data-coord="E5"][data-owner="1"]'),
    "back-to-the-wall": Flow(
        (Turn(1, tuple(("click", ARROW.format(board=b)) for b in ("once", "twice", "thrice") for _ in range(3)),
              "; ".join(f"{b} piece 1 right right right" for b in ("once", "twice", "thrice")),
              after="#status >> text=Waiting for sealed orders from Player 2"), RESOLVE),
        '#bttw .sq.o1[data-board="once"][data-coord="B1"]'),
    "custom": Flow(
        (Turn("host", (("fill", "#hg-prompt-in", "Pick a number"), ("select", "#hg-kind", "number"),
                       ("click", "#hg-compose-round")), None, after="#hg-prompt >> text=Pick a number"),
         Turn(1, click('#hg-answer [data-board="custom"][data-coord="4"]'), "round 1 answer 4")),
        "#hg-who .hg-seat.answered", fields=(('input[name="opt-custom-seats"]', "2"),)),
}
