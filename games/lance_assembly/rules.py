"""Lance Assembly (also published as Sliding Tic-Tac-Toe): the rules of one bout.

Pure Python, no Django.  The card is the game's rules as written for the show's
community; the full rules a player reads are howto.py's (/rules/lance-assembly/).
6x6 board, 18 tiles each, seat 1 red, seat 2 blue; the seat that moves second
in the bout holds the neutral tile.  A turn is one action made of ordered parts
(see notation.py): place; slide; place then slide; plus the neutral tile at any
point.  Five or more of one player's tiles in a row (any of four directions) at
the end of a turn is a lance.

Rulings taken here where the card is silent:

Ruling: a turn is one action; turns made of the same parts in a different
    order are different actions (their legality can differ: the placement
    limit is checked at the moment of each placement).
Ruling: the bout's first turn is its turn number 0 (`LanceState.turn`); a
    position set up with `LanceAssembly.position` says which turn it is.
Ruling: the neutral tile may be placed on any empty square even when that
    leaves the mover no slide; it may itself be slid later by anyone (it is a
    normal tile for sliding).
Ruling: a position for the repetition rule is (board, player to move,
    neutral tile still available); tiles in hand follow from the board.
    Positions before a placement (own or neutral) can never recur, so only
    positions since the last placement are remembered.
Ruling: the stalemate checks come after the lance check: a turn that makes a
    lance wins even if it also repeats a position for the third time.
Ruling: "no legal turn" means no placement, no slide, and no
    neutral-then-slide is possible for the player to move; the neutral tile
    alone never counts as a turn.
Ruling: when a turn makes lances for both players, the view's `lance` shows
    the mover's (the winner's) lance squares.
Ruling (notation): a slide named by a list of squares ("B2, B3 and B4") must
    list one unbroken run of one row or column; a list with a gap ("B2 and
    B4") breaks slide rule 2 and is refused while parsing, because a slide is
    recorded by its end squares.  "move B2 to B4" (a destination instead of a
    direction and distance) is read for a single tile.  The distance is never
    guessed: "slide B2 down" is refused.
Ruling: the variant ("lance-assembly" or "sliding-tic-tac-toe") changes no
    rule of the board; it is recorded in the state and the public view for the
    match layer (clocks, reserve refills).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from games.core.errors import IllegalAction
from games.core.facts import Variant
from games.core.game import Game
from games.core.grid import index_name, parse_index
from games.core.result import Result

from .board import (
    BLUE,
    EMPTY,
    NEUTRAL,
    PLACEMENT_LIMIT,
    RED,
    SIZE,
    SQUARES,
    WINDOWS,
    any_slide,
    lances,
    put,
    random_turn,
    shifted,
    slide_in_place,
    slides,
)
from .notation import Neutral, Part, Place, Slide, Turn, format_turn, parse_turn

TILES = 18
REPETITIONS = 3

SYMBOLS = {EMPTY: ".", RED: "R", BLUE: "B", NEUTRAL: "N"}
_FROM_SYMBOL = {".": EMPTY, "R": RED, "B": BLUE, "N": NEUTRAL, "X": RED, "O": BLUE}
VIEW_SYMBOLS = {EMPTY: "", RED: "R", BLUE: "B", NEUTRAL: "N"}
COLOURS = {1: "red", 2: "blue"}
VARIANTS = ("lance-assembly", "sliding-tic-tac-toe")


Position = tuple[tuple[int, ...], int]


@dataclass(frozen=True)
class LanceState:
    """One bout.  `cells` is row-major (A1 = 0), values EMPTY/RED/BLUE/NEUTRAL.

    `history` holds the positions (cells, seat to move) since the last
    placement, the current one last, for the repetition rule.
    """

    cells: tuple[int, ...]
    to_move: int
    starting_seat: int
    in_hand: tuple[int, int]
    neutral_available: bool
    turn: int
    variant: str
    history: tuple[Position, ...]
    result: Result | None = None
    last_action: Turn | None = None
    last_squares: tuple[int, ...] = ()
    lance: tuple[int, ...] = ()

    @property
    def neutral_owner(self) -> int:
        return 3 - self.starting_seat

    @property
    def empty_count(self) -> int:
        return self.cells.count(EMPTY)


class LanceAssembly(Game[LanceState, Turn]):
    """Lance Assembly / Sliding Tic-Tac-Toe.

    public_view keys:
      size (6); cells (6 rows of 6 strings: "R", "B", "N" or ""); rows (6
      strings of ".RBN", for text renderers); to_move (seat or None when the
      bout is over); starting_seat; colours {"1": "red", "2": "blue"};
      in_hand {"1": n, "2": n}; neutral_owner (seat); neutral_available;
      empty_count; can_place (the player to move may place now);
      first_turn (the next turn is the bout's opening placement);
      last_action (canonical text or None); last_squares (squares changed by
      the last turn, e.g. ["C3", "B2"]); lance (squares of the winning
      lance(s), empty unless won); variant; turn (turns played so far);
      repetitions (how often the current position has occurred).
    """

    slug = "lance-assembly"
    name = "Lance Assembly"
    seats = 2
    default_options = {"starting_seat": 1, "variant": "lance-assembly"}
    #: the host chooses who places first in bout 1, and the starter alternates (option starting_seat)
    takes_starting_seat = True
    reason_words = {"lance": "five in a row", "stalemate": "stalemate"}
    default_format = {"bouts": 3, "alternate": True, "stalemate_replays": True, "forfeit": "bout", "auto_next_bout": False,
                      "clock": {"per_move": 60, "reserve": 300, "refill": True, "on_timeout": "bout", "round_seconds": None}}
    variants = {
        "lance-assembly": Variant("Lance Assembly", "60 s a move plus a 5-minute reserve, refilled every bout."),
        "sliding-tic-tac-toe": Variant("Sliding Tic-Tac-Toe", "The same game timed 120 s a turn plus a 5-minute "
                                       "reserve that is not refilled.", {"per_move": 120, "reserve": 300, "refill": False}),
    }

    # -- setting up -------------------------------------------------------
    def new(self, options: Mapping[str, Any] | None = None) -> LanceState:
        merged = self.options(options)
        starting = _seat_option(merged["starting_seat"])
        variant = _variant_option(merged["variant"])
        cells = (EMPTY,) * SQUARES
        return LanceState(
            cells=cells,
            to_move=starting,
            starting_seat=starting,
            in_hand=(TILES, TILES),
            neutral_available=True,
            turn=0,
            variant=variant,
            history=((cells, starting),),
        )

    def position(
        self,
        diagram: str,
        to_move: int = 1,
        starting_seat: int = 1,
        turn: int | None = None,
        neutral_available: bool | None = None,
        in_hand: tuple[int, int] | None = None,
        variant: str = "lance-assembly",
    ) -> LanceState:
        """A test-friendly position from 6 rows of 'R', 'B', 'N' and '.' (spaces ignored).

        Tiles in hand default to 18 minus the tiles on the board; the neutral
        tile is available unless it is on the board; `turn` defaults to the
        number of tiles on the board (0 only for an empty board).  A position
        whose player to move has no legal turn is already a stalemate.
        """
        rows = [row.replace(" ", "").upper() for row in diagram.strip().splitlines() if row.strip()]
        if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
            raise ValueError("a Lance Assembly diagram has 6 rows of 6 squares")
        if any(ch not in _FROM_SYMBOL for row in rows for ch in row):
            raise ValueError("a Lance Assembly diagram uses only R, B, N and '.'")
        cells = tuple(_FROM_SYMBOL[ch] for row in rows for ch in row)
        if in_hand is None:
            in_hand = (TILES - cells.count(RED), TILES - cells.count(BLUE))
        if neutral_available is None:
            neutral_available = NEUTRAL not in cells
        if turn is None:
            turn = SQUARES - cells.count(EMPTY)
        state = LanceState(
            cells=cells,
            to_move=to_move,
            starting_seat=starting_seat,
            in_hand=in_hand,
            neutral_available=neutral_available,
            turn=turn,
            variant=_variant_option(variant),
            history=((cells, to_move),),
        )
        if not _has_legal_turn(state, to_move):
            state = replace(state, result=_stalemate_no_turn(to_move))
        return state

    # -- notation ---------------------------------------------------------
    def parse(self, state: LanceState, seat: int, text: str) -> Turn:
        return parse_turn(text)

    def format(self, action: Turn) -> str:
        return format_turn(action)

    # -- the rules --------------------------------------------------------
    def to_act(self, state: LanceState) -> frozenset[int]:
        return frozenset() if state.result is not None else frozenset((state.to_move,))

    def result(self, state: LanceState) -> Result | None:
        return state.result

    def apply(self, state: LanceState, seat: int, action: Turn) -> LanceState:
        self.require_turn(state, seat)
        if not isinstance(action, Turn):
            raise IllegalAction("that is not a Lance Assembly turn")
        parts = action.parts
        _check_shape(state, seat, parts)
        cells = list(state.cells)
        empty = cells.count(EMPTY)
        hand = list(state.in_hand)
        neutral_available = state.neutral_available
        placed = False
        for part in parts:
            if isinstance(part, Place):
                _check_placement(cells, part.square, empty, "your tile")
                if hand[seat - 1] <= 0:
                    raise IllegalAction("you have no tiles left in hand to place")
                cells[part.square] = seat
                hand[seat - 1] -= 1
                empty -= 1
                placed = True
            elif isinstance(part, Neutral):
                if seat != state.neutral_owner:
                    owner = COLOURS[state.neutral_owner].capitalize()
                    raise IllegalAction(
                        f"only the player who moves second in the bout ({owner}) has the neutral tile"
                    )
                if not neutral_available:
                    raise IllegalAction("you have already used the neutral tile")
                _check_placement(cells, part.square, empty, "the neutral tile")
                cells[part.square] = NEUTRAL
                neutral_available = False
                empty -= 1
                placed = True
            else:
                slide_in_place(cells, part)
        new_cells = tuple(cells)
        nxt = 3 - seat
        key: Position = (new_cells, nxt)
        history = (key,) if placed else (*state.history, key)
        changed = tuple(i for i in range(SQUARES) if new_cells[i] != state.cells[i])
        out = LanceState(
            cells=new_cells,
            to_move=nxt,
            starting_seat=state.starting_seat,
            in_hand=(hand[0], hand[1]),
            neutral_available=neutral_available,
            turn=state.turn + 1,
            variant=state.variant,
            history=history,
            last_action=action,
            last_squares=changed,
        )
        return _conclude(out, seat)

    def legal_actions(self, state: LanceState, seat: int) -> Iterator[Turn]:
        """Every distinct legal turn (parts in every legal order), lazily."""
        if state.result is not None or seat != state.to_move:
            return
        cells = state.cells
        empties = [i for i in range(SQUARES) if cells[i] == EMPTY]
        n_empty = len(empties)
        place_ok = state.in_hand[seat - 1] > 0 and n_empty > PLACEMENT_LIMIT
        if state.turn == 0:
            if place_ok:
                for p in empties:
                    yield Turn((Place(p),))
            return
        neutral_ok = seat == state.neutral_owner and state.neutral_available and n_empty > PLACEMENT_LIMIT
        # place; place then slide
        if place_ok:
            for p in empties:
                yield Turn((Place(p),))
                for s in slides(put(cells, p, seat)):
                    yield Turn((Place(p), s))
        # slide
        for s in slides(cells):
            yield Turn((s,))
        if not neutral_ok:
            return
        second_ok = n_empty - 1 > PLACEMENT_LIMIT
        for n in empties:
            after_n = put(cells, n, NEUTRAL)
            # neutral, place (, slide)
            if place_ok and second_ok:
                for p in empties:
                    if p == n:
                        continue
                    yield Turn((Neutral(n), Place(p)))
                    for s in slides(put(after_n, p, seat)):
                        yield Turn((Neutral(n), Place(p), s))
            # neutral, slide
            for s in slides(after_n):
                yield Turn((Neutral(n), s))
        if place_ok:
            for p in empties:
                after_p = put(cells, p, seat)
                # place, neutral (, slide)
                if second_ok:
                    for n in empties:
                        if n == p:
                            continue
                        yield Turn((Place(p), Neutral(n)))
                        for s in slides(put(after_p, n, NEUTRAL)):
                            yield Turn((Place(p), Neutral(n), s))
                    # place, slide, neutral
                    for s in slides(after_p):
                        after_s = shifted(after_p, s)
                        for n in range(SQUARES):
                            if after_s[n] == EMPTY:
                                yield Turn((Place(p), s, Neutral(n)))
        # slide, neutral
        for s in slides(cells):
            after_s = shifted(cells, s)
            for n in range(SQUARES):
                if after_s[n] == EMPTY:
                    yield Turn((s, Neutral(n)))

    def legal_slides(self, state: LanceState) -> list[Slide]:
        """Every legal slide on the current board (ignores whose turn it is)."""
        return list(slides(state.cells))

    def random_action(self, state: LanceState, seat: int, rng: random.Random) -> Turn | None:
        """A legal turn picked cheaply: a random turn shape, then random parts.

        Not uniform over turns (that would need the full list): shapes are
        drawn first, so short turns are as likely as long ones.
        """
        if state.result is not None or seat != state.to_move:
            return None
        cells = state.cells
        empties = [i for i in range(SQUARES) if cells[i] == EMPTY]
        n_empty = len(empties)
        place_ok = state.in_hand[seat - 1] > 0 and n_empty > PLACEMENT_LIMIT
        if state.turn == 0:
            return Turn((Place(rng.choice(empties)),)) if place_ok else None
        neutral_ok = seat == state.neutral_owner and state.neutral_available and n_empty > PLACEMENT_LIMIT
        shapes = ["S", "S"]
        if place_ok:
            shapes += ["P", "PS", "PS", "PS"]
        if neutral_ok and rng.random() < 0.25:
            # the neutral tile may go before, between or after the other parts
            shapes = [s[:k] + "N" + s[k:] for s in sorted(set(shapes)) for k in range(len(s) + 1)]
        rng.shuffle(shapes)
        for shape in shapes:
            turn = random_turn(cells, seat, shape, rng)
            if turn is not None:
                return turn
        return next(self.legal_actions(state, seat), None)

    # -- views and storage --------------------------------------------------
    def public_view(self, state: LanceState) -> dict[str, Any]:
        cells = state.cells
        empty = state.empty_count
        over = state.result is not None
        return {
            "size": SIZE,
            "cells": [[VIEW_SYMBOLS[cells[r * SIZE + c]] for c in range(SIZE)] for r in range(SIZE)],
            "rows": _rows(cells),
            "to_move": None if over else state.to_move,
            "starting_seat": state.starting_seat,
            "colours": {str(seat): colour for seat, colour in COLOURS.items()},
            "in_hand": {"1": state.in_hand[0], "2": state.in_hand[1]},
            "neutral_owner": state.neutral_owner,
            "neutral_available": state.neutral_available,
            "empty_count": empty,
            "can_place": (not over) and empty > PLACEMENT_LIMIT and state.in_hand[state.to_move - 1] > 0,
            "first_turn": state.turn == 0,
            "last_action": None if state.last_action is None else format_turn(state.last_action),
            "last_squares": [index_name(i, SIZE) for i in state.last_squares],
            "lance": [index_name(i, SIZE) for i in state.lance],
            "variant": state.variant,
            "turn": state.turn,
            "repetitions": state.history.count(state.history[-1]) if state.history else 0,
        }

    def dump(self, state: LanceState) -> dict[str, Any]:
        return {
            "v": 1,
            "rows": _rows(state.cells),
            "to_move": state.to_move,
            "starting_seat": state.starting_seat,
            "in_hand": list(state.in_hand),
            "neutral_available": state.neutral_available,
            "turn": state.turn,
            "variant": state.variant,
            "history": [[_text(cells), seat] for cells, seat in state.history],
            "result": None if state.result is None else state.result.to_json(),
            "last_action": None if state.last_action is None else format_turn(state.last_action),
            "last_squares": [index_name(i, SIZE) for i in state.last_squares],
            "lance": [index_name(i, SIZE) for i in state.lance],
        }

    def load(self, data: Mapping[str, Any]) -> LanceState:
        if data.get("v") != 1:
            raise ValueError(f"unknown Lance Assembly state version {data.get('v')!r}")
        result = data.get("result")
        last = data.get("last_action")
        hand = data["in_hand"]
        return LanceState(
            cells=_cells_from_text("".join(data["rows"])),
            to_move=int(data["to_move"]),
            starting_seat=int(data["starting_seat"]),
            in_hand=(int(hand[0]), int(hand[1])),
            neutral_available=bool(data["neutral_available"]),
            turn=int(data["turn"]),
            variant=str(data["variant"]),
            history=tuple((_cells_from_text(text), int(seat)) for text, seat in data["history"]),
            result=None if result is None else Result.from_json(result),
            last_action=None if last is None else parse_turn(last),
            last_squares=tuple(parse_index(s, SIZE, SIZE) for s in data.get("last_squares", ())),
            lance=tuple(parse_index(s, SIZE, SIZE) for s in data.get("lance", ())),
        )


# -- helpers ------------------------------------------------------------------


def _seat_option(value: Any) -> int:
    if isinstance(value, str) and value.strip() in ("1", "2"):
        value = int(value)
    if isinstance(value, bool) or value not in (1, 2):
        raise IllegalAction(f"starting_seat must be 1 or 2, got {value!r}")
    return int(value)


def _variant_option(value: Any) -> str:
    text = str(value).strip().lower().replace(" ", "-").replace("_", "-")
    if text not in VARIANTS:
        raise IllegalAction(f"variant must be one of {', '.join(VARIANTS)}, got {value!r}")
    return text


def _rows(cells: tuple[int, ...]) -> list[str]:
    text = _text(cells)
    return [text[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)]


# A state's dump holds every position of the game so far (the repetition rule reads them), so
# each move's load and dump convert the whole history again: these two are memoized (positions
# are immutable tuples and strings), the history costs a lookup a position.
@lru_cache(maxsize=4096)
def _text(cells: tuple[int, ...]) -> str:
    return "".join(SYMBOLS[cell] for cell in cells)


def _cells_from_text(text: str) -> tuple[int, ...]:
    if not isinstance(text, str) or len(text) != SQUARES:
        raise ValueError("a Lance Assembly board has 36 squares")
    return _cells(text)


@lru_cache(maxsize=4096)
def _cells(text: str) -> tuple[int, ...]:
    return tuple(_FROM_SYMBOL[ch] for ch in text)


def _check_shape(state: LanceState, seat: int, parts: tuple[Part, ...]) -> None:
    """The order and count rules of a turn, before any square is looked at."""
    if not parts:
        raise IllegalAction("you may not pass: a turn must place a tile or slide")
    places = slides = neutrals = 0
    for part in parts:
        if isinstance(part, Place):
            if slides:
                raise IllegalAction("placing your tile must come before sliding")
            places += 1
        elif isinstance(part, Slide):
            slides += 1
        elif isinstance(part, Neutral):
            neutrals += 1
        else:
            raise IllegalAction("that is not a Lance Assembly turn")
    if state.turn == 0 and (slides or neutrals or places != 1):
        raise IllegalAction("on the first turn of a bout the starting player only places one tile")
    if places > 1:
        raise IllegalAction("you may place at most one of your tiles per turn")
    if slides > 1:
        raise IllegalAction("you may make at most one slide per turn")
    if neutrals > 1:
        raise IllegalAction("there is only one neutral tile, placed once per bout")
    if not places and not slides:
        raise IllegalAction("the neutral tile alone is not a turn: you must also place a tile or slide")


def _check_placement(cells: list[int], square: int, empty: int, what: str) -> None:
    if not 0 <= square < SQUARES:
        raise IllegalAction("that square is not on the board")
    if empty <= PLACEMENT_LIMIT:
        raise IllegalAction(
            f"you cannot place {what}: only {empty} squares are empty, and once 4 or fewer are empty "
            "players may only slide"
        )
    if cells[square] != EMPTY:
        raise IllegalAction(f"{index_name(square, SIZE)} is not empty")


def _name(index: int) -> str:
    return index_name(index, SIZE)


def _has_legal_turn(state: LanceState, seat: int) -> bool:
    cells = state.cells
    empty = cells.count(EMPTY)
    place_ok = state.in_hand[seat - 1] > 0 and empty > PLACEMENT_LIMIT
    if state.turn == 0:
        return place_ok
    if place_ok or any_slide(cells):
        return True
    # the neutral tile alone is no turn, but neutral-then-slide is
    neutral_ok = seat == state.neutral_owner and state.neutral_available and empty > PLACEMENT_LIMIT
    return neutral_ok


def _stalemate_no_turn(seat: int) -> Result:
    return Result(
        winners=frozenset(),
        reason="stalemate",
        detail=f"{COLOURS[seat].capitalize()} has no legal turn: stalemate, the bout is replayed.",
    )


def _conclude(state: LanceState, mover: int) -> LanceState:
    """The end-of-turn checks: lance, then repetition, then no legal turn."""
    red, blue = lances(state.cells)
    if red or blue:
        if red and blue:
            winner = mover
            detail = (
                f"{COLOURS[mover].capitalize()} made lances for both players in one turn; the mover wins."
            )
        else:
            winner = RED if red else BLUE
            detail = f"{COLOURS[winner].capitalize()} assembled a lance."
            if winner != mover:
                detail = (
                    f"{COLOURS[mover].capitalize()}'s turn assembled a lance for "
                    f"{COLOURS[winner].capitalize()}, who wins."
                )
        squares = red if winner == RED else blue
        return replace(
            state,
            result=Result(frozenset((winner,)), "lance", detail=detail),
            lance=tuple(sorted(squares)),
        )
    if state.history.count(state.history[-1]) >= REPETITIONS:
        return replace(
            state,
            result=Result(
                frozenset(),
                "stalemate",
                detail="The same position arose for the third time: stalemate, the bout is replayed.",
            ),
        )
    if not _has_legal_turn(state, state.to_move):
        return replace(state, result=_stalemate_no_turn(state.to_move))
    return state


__all__ = [
    "WINDOWS",
    "LanceAssembly",
    "LanceState",
    "Neutral",
    "Place",
    "Slide",
    "Turn",
]
