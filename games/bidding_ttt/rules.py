"""Bidding 3D Tic-Tac-Toe: three rounds of sealed bids on nine tic-tac-toe boards.

The card is the game's rules as written for the show's community; the full
rules a player reads are howto.py's (the page /rules/bidding-ttt/).  Nine boards
A-I in reading order (A B C / D E F / G H I), tiles 1-9 in reading order on
each; a tile is board letter + digit (`E5` is the centre of the centre board).  Seat 1 is Red, seat 2 is Blue.

Rulings decided here (where the card is silent):

Ruling: the starting boards (Red D, Blue F) are controlled from the start but no
  tiles on them are owned; no one may bid on them; they count as controlled
  boards both for lines of boards and for the "more boards" tie-break.
Ruling: one bid per tile per submission (a duplicate tile is refused, not summed).
Ruling: resubmitting within a round replaces the previous submission; `pass`
  (an empty submission) is a submission.  The round resolves as soon as both
  seats have submitted, or when the host applies `resolve`; a seat that has not
  submitted then bids nothing.  Only the host may resolve; the host never bids.
Ruling: whether a seat has submitted this round is public (the "submitted" flags);
  the bids themselves and every seat's chips are never shown to the other seat or
  to spectators, not even after the round or the match.
Ruling: tiles another bidder tied on stay unowned and are not marked in any way
  (marking them would reveal bids).
Ruling: the round-1 restriction looks at the seat's bid tiles of that round only
  (nothing is owned before round 1 anyway); round 2 counts the boards holding at
  least one of the seat's bids.
Ruling: when the chips tie-break decides, the result says who has more chips left
  but never the numbers.  `Result.scores` is None (scores would leak chips).
Ruling: after both seats' lines of boards, or after round 3, the tie-breaks are
  boards controlled (a board both control counts for both), tiles owned, chips
  left, garnets (option "garnets", from the season's ledger, public); all equal
  is a draw (reason "tie") for the host to settle.
Ruling: an action lists its bids sorted by tile (A1 < A2 < ... < I9), so the same
  bids typed in any order are the same action and `parse(format(a)) == a`.

Options: "chips" (starting chips, default 80), "garnets" ({seat: garnets}, keys
int or str, default 0 each).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from games.core import HOST, Game, IllegalAction, Result

from .choices import all_subsets, allocations, capacity_ok, no_line_subsets, tile_sets
from .notation import (
    BOARDS,
    TILE_NAMES,
    BiddingAction,
    Bids,
    Resolve,
    Submit,
    format_action,
    parse_action,
    tile_index,
)

__all__ = ["BOARDS", "LINES", "ROUNDS", "TILE_NAMES", "BiddingAction", "BiddingState", "BiddingTTT", "Bids", "Resolve",
           "Submit", "check_bids", "tile_index"]

ROUNDS = 3
COLOURS = {1: "Red", 2: "Blue"}
#: seat -> index of the board it starts controlling (D, F)
STARTING_BOARDS = {1: 3, 2: 5}
#: the 8 lines of a 3x3 grid, as cell indices 0-8 (used for tiles and for boards)
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
LINE_MASKS: tuple[int, ...] = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in LINES)
RESTRICTIONS = {
    1: "round 1: your bid tiles may not contain three in a line on any board",
    2: "round 2: your bid tiles may lie on at most 2 boards",
    3: "round 3: bid anywhere you like",
}

@dataclass(frozen=True)
class BiddingState:
    """One match.  `owner[t]` is 0/1/2 for tile t = board * 9 + cell;
    `control[b]` is a bitmask of seats controlling board b (bit 1 Red, bit 2 Blue);
    `bids[s - 1]` is seat s's sealed submission this round (None: not submitted);
    `history[s - 1]` its submissions of the rounds already resolved."""

    round: int
    owner: tuple[int, ...]
    control: tuple[int, ...]
    chips: tuple[int, int]
    garnets: tuple[int, int] = (0, 0)
    start_chips: int = 80
    bids: tuple[Bids | None, Bids | None] = (None, None)
    history: tuple[tuple[Bids, ...], tuple[Bids, ...]] = ((), ())
    last_won: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    result: Result | None = field(default=None)


class BiddingTTT(Game[BiddingState, BiddingAction]):
    """Bidding 3D Tic-Tac-Toe (sealed rounds, 2 seats).

    public_view keys: round (1-3), rounds (3), finished, layout (3x3 board letters),
    tiles ({board letter: 3x3 rows of owner seat, 0 = unowned}), control ({board
    letter: [seats controlling it]}), controlled ({seat: [board letters]}),
    boards_controlled and tiles_owned ({seat: count}), starting_boards ({seat:
    letter}), colours ({seat: "red"/"blue"}), submitted ({seat: bool} for this
    round), garnets ({seat: n}), starting_chips, won_last_round ({seat: [tiles]}),
    restriction (sentence for the current round), reveal ([{round, won: {seat:
    [tiles]}, controlled: {seat: [board letters newly controlled]}}] per resolved
    round: only what the boards show, so a tie looks like no bid), control_lines
    ({board letter: {seat: [[3 tiles]]}}: the owned lines that give control).
    Keys of per-seat dicts are strings "1"/"2".

    hidden(state, seat): colour, chips (left), submitted, bids (this round's
    sealed bids or None), committed (their total), history ([{round, bids,
    spent}] of resolved rounds), outcomes ([{round, won, lost, tied}]: the seat's
    own bid tiles of each resolved round by outcome -- derivable from its own
    bids and the public boards, so it tells the seat nothing new).

    `position(red=..., blue=..., round=..., chips=...)` builds a test position
    from tile names; control follows from ownership and the starting boards.
    """

    slug = "bidding-ttt"
    name = "Bidding 3D Tic-Tac-Toe"
    seats = 2
    sealed = True
    #: the log's word for a seat's sealed bids, to another seat and to spectators ("Ann bid")
    sealed_note = "bid"
    default_options = {"chips": 80, "garnets": {}}
    takes_starting_seat = False  # both seats bid at once, in sealed rounds: nobody moves first
    # the words the end banner has always shown ("Red wins the match — line")
    reason_words = {"line": "line", "boards": "won more boards", "tiles": "tiles", "chips": "chips",
                    "garnets": "garnets", "tie": "tie"}

    # -- construction --------------------------------------------------
    def new(self, options: Mapping[str, Any] | None = None) -> BiddingState:
        opts = self.options(options)
        chips = opts["chips"]
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 0:
            raise IllegalAction(f"option chips must be a whole number >= 0, got {chips!r}")
        garnets = normalise_garnets(opts["garnets"])
        return self.position(chips=(chips, chips), garnets=garnets, start_chips=chips)

    def position(
        self,
        red: Sequence[str] | str = (),
        blue: Sequence[str] | str = (),
        *,
        round: int = 1,
        chips: tuple[int, int] = (80, 80),
        garnets: tuple[int, int] = (0, 0),
        start_chips: int = 80,
        bids: tuple[Bids | None, Bids | None] = (None, None),
    ) -> BiddingState:
        """A test-friendly state: tiles owned by Red / Blue by name ("A1 A2" or a list)."""
        owner = [0] * 81
        for seat, names in ((1, red), (2, blue)):
            for name in names.split() if isinstance(names, str) else names:
                owner[tile_index(name)] = seat
        control = tuple(_board_control(owner, b) for b in range(9))
        return BiddingState(
            round=round, owner=tuple(owner), control=control, chips=chips,
            garnets=garnets, start_chips=start_chips, bids=bids,
        )

    # -- notation ------------------------------------------------------
    def parse(self, state: BiddingState, seat: int, text: str) -> BiddingAction:
        return parse_action(text)

    def format(self, action: BiddingAction) -> str:
        return format_action(action)

    # -- play ----------------------------------------------------------
    def to_act(self, state: BiddingState) -> frozenset[int]:
        return frozenset() if state.result is not None else frozenset((1, 2))

    def pending(self, state: BiddingState) -> frozenset[int]:
        if state.result is not None:
            return frozenset()
        return frozenset(s for s in (1, 2) if state.bids[s - 1] is None)

    def result(self, state: BiddingState) -> Result | None:
        return state.result

    def apply(self, state: BiddingState, seat: int, action: BiddingAction) -> BiddingState:
        if isinstance(action, Resolve):
            if state.result is not None:
                raise IllegalAction("the bout is over")
            if seat != HOST:
                raise IllegalAction("only the host may close a round (resolve)")
            return _resolve(state)
        if not isinstance(action, Submit):
            raise IllegalAction(f"not a {self.name} action: {action!r}")
        if seat == HOST and state.result is None:
            raise IllegalAction("the host does not bid: only the players submit bids")
        self.require_turn(state, seat)
        check_bids(state, seat, action.bids)
        bids = (action.bids, state.bids[1]) if seat == 1 else (state.bids[0], action.bids)
        new = replace(state, bids=bids)
        if bids[0] is not None and bids[1] is not None:
            return _resolve(new)
        return new

    def legal_actions(self, state: BiddingState, seat: int) -> Iterator[BiddingAction]:
        """Every legal submission, lazily: pass, then by growing number of tiles
        (the host's only action is `resolve`)."""
        if state.result is not None:
            return
        if seat == HOST:
            yield Resolve()
            return
        if seat not in (1, 2):
            return
        chips = state.chips[seat - 1]
        yield Submit(())
        free = _free_tiles_by_board(state)
        if state.round == 1:
            options = {b: no_line_subsets(tiles, LINE_MASKS) for b, tiles in free.items()}
        else:
            options = {b: all_subsets(tiles) for b, tiles in free.items()}
        boards = [(b, options[b]) for b in sorted(options)]
        max_boards = 2 if state.round == 2 else 9
        for size in range(1, chips + 1):
            if not capacity_ok(boards, size, max_boards):
                break
            for tiles in tile_sets(boards, size, 0, max_boards):
                for alloc in allocations(len(tiles), chips):
                    yield Submit(tuple(zip(tiles, alloc, strict=True)))

    def random_action(self, state: BiddingState, seat: int, rng: random.Random) -> BiddingAction | None:
        """A random legal submission: sometimes a pass, else 1-12 tiles within the round's limits."""
        if state.result is not None:
            return None
        if seat == HOST:
            return Resolve()
        if seat not in (1, 2):
            return None
        chips = state.chips[seat - 1]
        free = _free_tiles_by_board(state)
        if not free or chips == 0 or rng.random() < 0.1:
            return Submit(())
        boards = sorted(free)
        if state.round == 2:
            boards = rng.sample(boards, min(len(boards), rng.choice((1, 2, 2))))
        pool = [t for b in boards for t in free[b]]
        rng.shuffle(pool)
        want = min(chips, rng.randint(1, 12), len(pool))
        chosen: list[int] = []
        masks: dict[int, int] = {}
        for tile in pool:
            if len(chosen) == want:
                break
            b, cell = divmod(tile, 9)
            if state.round == 1:
                mask = masks.get(b, 0) | (1 << cell)
                if any(mask & m == m for m in LINE_MASKS):
                    continue
                masks[b] = mask
            chosen.append(tile)
        rounds_left = ROUNDS - state.round + 1
        budget = rng.randint(len(chosen), max(len(chosen), min(chips, 2 * chips // rounds_left)))
        alloc = [1] * len(chosen)
        for _ in range(budget - len(chosen)):
            alloc[rng.randrange(len(chosen))] += 1
        return Submit(tuple(zip(chosen, alloc, strict=True)))

    # -- views ---------------------------------------------------------
    def public_view(self, state: BiddingState) -> dict[str, Any]:
        seats = (1, 2)
        return {
            "round": state.round,
            "rounds": ROUNDS,
            "finished": state.result is not None,
            "layout": [list(BOARDS[r * 3:r * 3 + 3]) for r in range(3)],
            "tiles": {
                BOARDS[b]: [list(state.owner[b * 9 + r * 3:b * 9 + r * 3 + 3]) for r in range(3)]
                for b in range(9)
            },
            "control": {BOARDS[b]: [s for s in seats if state.control[b] & s] for b in range(9)},
            "controlled": {str(s): [BOARDS[b] for b in range(9) if state.control[b] & s] for s in seats},
            "boards_controlled": {str(s): _boards_count(state, s) for s in seats},
            "tiles_owned": {str(s): state.owner.count(s) for s in seats},
            "starting_boards": {str(s): BOARDS[STARTING_BOARDS[s]] for s in seats},
            "colours": {str(s): COLOURS[s].lower() for s in seats},
            "submitted": {str(s): state.result is None and state.bids[s - 1] is not None for s in seats},
            "garnets": {str(s): state.garnets[s - 1] for s in seats},
            "starting_chips": state.start_chips,
            "won_last_round": {str(s): [TILE_NAMES[t] for t in state.last_won[s - 1]] for s in seats},
            "restriction": RESTRICTIONS.get(state.round, ""),
            "reveal": _reveal(state),
            "control_lines": _control_lines(state),
        }

    def hidden(self, state: BiddingState, seat: int) -> dict[str, Any]:
        bids = state.bids[seat - 1]
        return {
            "colour": COLOURS[seat].lower(),
            "chips": state.chips[seat - 1],
            "submitted": bids is not None,
            "bids": None if bids is None else _bids_json(bids),
            "committed": 0 if bids is None else sum(c for _, c in bids),
            "history": [
                {"round": r, "bids": _bids_json(past), "spent": sum(c for _, c in past)}
                for r, past in enumerate(state.history[seat - 1], start=1)
            ],
            "outcomes": _outcomes(state, seat),
        }

    # -- persistence ---------------------------------------------------
    def dump(self, state: BiddingState) -> dict[str, Any]:
        return {
            "v": 1,
            "round": state.round,
            "owner": list(state.owner),
            "control": list(state.control),
            "chips": list(state.chips),
            "garnets": list(state.garnets),
            "start_chips": state.start_chips,
            "bids": [None if b is None else _bids_pairs(b) for b in state.bids],
            "history": [[_bids_pairs(b) for b in h] for h in state.history],
            "last_won": [[TILE_NAMES[t] for t in won] for won in state.last_won],
            "result": None if state.result is None else state.result.to_json(),
        }

    def load(self, data: Mapping[str, Any]) -> BiddingState:
        if data.get("v") != 1:
            raise ValueError(f"unknown {self.slug} dump version {data.get('v')!r}")
        bids = data["bids"]
        history = data["history"]
        won = data["last_won"]
        chips = data["chips"]
        garnets = data["garnets"]
        return BiddingState(
            round=int(data["round"]),
            owner=tuple(int(x) for x in data["owner"]),
            control=tuple(int(x) for x in data["control"]),
            chips=(int(chips[0]), int(chips[1])),
            garnets=(int(garnets[0]), int(garnets[1])),
            start_chips=int(data["start_chips"]),
            bids=(_load_bids(bids[0]), _load_bids(bids[1])),
            history=(
                tuple(_pairs_bids(b) for b in history[0]),
                tuple(_pairs_bids(b) for b in history[1]),
            ),
            last_won=(tuple(tile_index(t) for t in won[0]), tuple(tile_index(t) for t in won[1])),
            result=None if data["result"] is None else Result.from_json(data["result"]),
        )


# -- rules helpers ---------------------------------------------------------

def normalise_garnets(value: Any) -> tuple[int, int]:
    """{1: 3, "2": 5} -> (3, 5); seats left out hold 0 garnets."""
    if not isinstance(value, Mapping):
        raise IllegalAction(f"option garnets must map seats to garnets, got {value!r}")
    out = [0, 0]
    for key, count in value.items():
        seat = key if isinstance(key, int) and not isinstance(key, bool) else None
        if isinstance(key, str) and key.strip() in ("1", "2"):
            seat = int(key)
        if seat not in (1, 2):
            raise IllegalAction(f"option garnets: there is no seat {key!r} (seats are 1 and 2)")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise IllegalAction(f"option garnets: seat {seat} needs a whole number >= 0, got {count!r}")
        out[seat - 1] = count
    return out[0], out[1]


def check_bids(state: BiddingState, seat: int, bids: Bids) -> None:
    """IllegalAction naming the first rule `bids` breaks for `seat` now."""
    seen: set[int] = set()
    masks: dict[int, int] = {}
    total = 0
    for tile, chips in bids:
        if not 0 <= tile < 81:
            raise IllegalAction(f"there is no tile number {tile}")
        name = TILE_NAMES[tile]
        if tile in seen:
            raise IllegalAction(f"you bid on {name} twice: one bid per tile")
        seen.add(tile)
        if chips < 1:
            raise IllegalAction(f"a bid must be at least 1 chip ({name}: {chips})")
        board, cell = divmod(tile, 9)
        if state.control[board]:
            raise IllegalAction(f"board {BOARDS[board]} is controlled: no one may bid on it")
        if state.owner[tile]:
            raise IllegalAction(f"{name} is already owned by {COLOURS[state.owner[tile]]}")
        masks[board] = masks.get(board, 0) | (1 << cell)
        total += chips
    have = state.chips[seat - 1]
    if total > have:
        raise IllegalAction(f"you bid {total} chips but have only {have}")
    if state.round == 1:
        for board in sorted(masks):
            for line, mask in zip(LINES, LINE_MASKS, strict=True):
                if masks[board] & mask == mask:
                    names = ", ".join(TILE_NAMES[board * 9 + c] for c in line)
                    raise IllegalAction(
                        f"round 1: your bids on board {BOARDS[board]} contain three in a line ({names})"
                    )
    elif state.round == 2 and len(masks) > 2:
        letters = ", ".join(BOARDS[b] for b in sorted(masks))
        raise IllegalAction(f"round 2: your bids cover {len(masks)} boards ({letters}); at most 2")


def _resolve(state: BiddingState) -> BiddingState:
    red = dict(state.bids[0] or ())
    blue = dict(state.bids[1] or ())
    owner = list(state.owner)
    won = _round_winners(state.bids[0] or (), state.bids[1] or ())
    touched: set[int] = set()
    for seat in (1, 2):
        for tile in won[seat - 1]:
            owner[tile] = seat
            touched.add(tile // 9)
    control = list(state.control)
    for board in touched:
        control[board] = _board_control(owner, board)
    new = replace(
        state,
        owner=tuple(owner),
        control=tuple(control),
        chips=(state.chips[0] - sum(red.values()), state.chips[1] - sum(blue.values())),
        bids=(None, None),
        history=(state.history[0] + (state.bids[0] or (),), state.history[1] + (state.bids[1] or (),)),
        last_won=(tuple(won[0]), tuple(won[1])),
    )
    result = _judge(new)
    if result is not None:
        return replace(new, result=result)
    return replace(new, round=state.round + 1)


def _judge(state: BiddingState) -> Result | None:
    lines = {s: _board_line(state, s) for s in (1, 2)}
    if (lines[1] is None) != (lines[2] is None):
        seat = 1 if lines[1] is not None else 2
        letters = ", ".join(BOARDS[b] for b in lines[seat] or ())
        return Result(
            frozenset({seat}), "line",
            detail=f"{COLOURS[seat]} controls boards {letters}: three boards in a line",
        )
    if lines[1] is None and state.round < ROUNDS:
        return None
    prefix = "both control three boards in a line" if lines[1] is not None else "no line of boards after round 3"
    # (reason, phrase, Red's figure, Blue's figure, show the figures?) -- chips never shown
    steps: tuple[tuple[str, str, int, int, bool], ...] = (
        ("boards", "controls more boards", _boards_count(state, 1), _boards_count(state, 2), True),
        ("tiles", "owns more tiles", state.owner.count(1), state.owner.count(2), True),
        ("chips", "has more chips left", state.chips[0], state.chips[1], False),
        ("garnets", "holds more garnets", state.garnets[0], state.garnets[1], True),
    )
    equal: list[str] = []
    for reason, phrase, a, b, show in steps:
        if a != b:
            seat = 1 if a > b else 2
            numbers = f" ({max(a, b)} to {min(a, b)})" if show else ""
            tied = f"; equal {', '.join(equal)}" if equal else ""
            return Result(frozenset({seat}), reason, detail=f"{prefix}{tied}: {COLOURS[seat]} {phrase}{numbers}")
        equal.append(reason)
    return Result(
        frozenset(), "tie",
        detail=f"{prefix}; equal boards, tiles, chips and garnets: a draw for the host to settle",
    )


def _board_control(owner: Sequence[int], board: int) -> int:
    bits = 0
    for seat in (1, 2):
        if STARTING_BOARDS[seat] == board:
            bits |= seat
            continue
        mask = 0
        for cell in range(9):
            if owner[board * 9 + cell] == seat:
                mask |= 1 << cell
        if any(mask & m == m for m in LINE_MASKS):
            bits |= seat
    return bits


def _boards_count(state: BiddingState, seat: int) -> int:
    return sum(1 for bits in state.control if bits & seat)


def _board_line(state: BiddingState, seat: int) -> tuple[int, int, int] | None:
    for line in LINES:
        if all(state.control[b] & seat for b in line):
            return line
    return None


def _round_winners(red: Bids, blue: Bids) -> tuple[list[int], list[int]]:
    """Tiles Red and Blue won with these bids (sorted; equal bids win nothing)."""
    r, b = dict(red), dict(blue)
    won: tuple[list[int], list[int]] = ([], [])
    for tile in sorted(r.keys() | b.keys()):
        if r.get(tile, 0) != b.get(tile, 0):
            won[0 if r.get(tile, 0) > b.get(tile, 0) else 1].append(tile)
    return won


def _reveal(state: BiddingState) -> list[dict[str, Any]]:
    """Per resolved round: the tiles each side won and the boards each newly controlled.

    Replayed from the histories: the owner before round 1 is today's owner without
    every tile won since (an owned tile is never bid on again, so none changed hands)."""
    rounds = [_round_winners(red, blue) for red, blue in zip(*state.history, strict=True)]
    owner = list(state.owner)
    for won in rounds:
        for tile in (*won[0], *won[1]):
            owner[tile] = 0
    control = [_board_control(owner, b) for b in range(9)]
    out: list[dict[str, Any]] = []
    for number, won in enumerate(rounds, start=1):
        for seat in (1, 2):
            for tile in won[seat - 1]:
                owner[tile] = seat
        after = [_board_control(owner, b) for b in range(9)]
        out.append({
            "round": number,
            "won": {str(s): [TILE_NAMES[t] for t in won[s - 1]] for s in (1, 2)},
            "controlled": {
                str(s): [BOARDS[b] for b in range(9) if after[b] & s and not control[b] & s] for s in (1, 2)
            },
        })
        control = after
    return out


def _control_lines(state: BiddingState) -> dict[str, dict[str, list[list[str]]]]:
    """Board letter -> seat -> the lines of three owned tiles there (starting boards have none)."""
    out: dict[str, dict[str, list[list[str]]]] = {}
    for board in range(9):
        for seat in (1, 2):
            lines = [
                [TILE_NAMES[board * 9 + c] for c in line]
                for line in LINES
                if all(state.owner[board * 9 + c] == seat for c in line)
            ]
            if lines:
                out.setdefault(BOARDS[board], {})[str(seat)] = lines
    return out


def _outcomes(state: BiddingState, seat: int) -> list[dict[str, Any]]:
    """The seat's own bid tiles of each resolved round, by outcome (won / lost / tied)."""
    out: list[dict[str, Any]] = []
    for number, (red, blue) in enumerate(zip(*state.history, strict=True), start=1):
        mine, theirs = (dict(red), dict(blue)) if seat == 1 else (dict(blue), dict(red))
        sorted_out: dict[str, list[str]] = {"won": [], "lost": [], "tied": []}
        for tile in sorted(mine):
            other = theirs.get(tile, 0)
            key = "won" if mine[tile] > other else "lost" if mine[tile] < other else "tied"
            sorted_out[key].append(TILE_NAMES[tile])
        out.append({"round": number, **sorted_out})
    return out


def _free_tiles_by_board(state: BiddingState) -> dict[int, list[int]]:
    """Uncontrolled board -> its unowned tiles (boards with none left out)."""
    out: dict[int, list[int]] = {}
    for board in range(9):
        if state.control[board]:
            continue
        tiles = [board * 9 + c for c in range(9) if not state.owner[board * 9 + c]]
        if tiles:
            out[board] = tiles
    return out


def _bids_json(bids: Bids) -> list[dict[str, Any]]:
    return [{"tile": TILE_NAMES[t], "chips": c} for t, c in bids]


def _bids_pairs(bids: Bids) -> list[list[Any]]:
    return [[TILE_NAMES[t], c] for t, c in bids]


def _pairs_bids(pairs: Sequence[Sequence[Any]]) -> Bids:
    return tuple(sorted((tile_index(str(t)), int(c)) for t, c in pairs))


def _load_bids(pairs: Sequence[Sequence[Any]] | None) -> Bids | None:
    return None if pairs is None else _pairs_bids(pairs)
