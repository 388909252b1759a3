"""Back to the Wall: four players, three boards, three sealed rounds.

The card is the game's rules as written for the show's community; the full
rules a player reads are howto.py's (the page /rules/back-to-the-wall/), which
this module and resolve.py follow sentence by sentence.  Where the card is
silent:

Ruling: default boards are Once 6x6 with walls B3 E4, Twice 7x7 with D3 D5,
  Thrice 8x8 with C6 F3 -- each pair symmetric through the centre, off the
  corners.  A board spec may give only `size` (the walls then follow the same
  pattern for that size) or only `walls` (the default size).  Sizes run from
  4 to 12; pre-placed walls must be on the board, off the corners, not
  repeated, and must not cut any corner off from every other corner.
Ruling: at the start of round 1 each seat's piece 1 stands on its corner and
  has captured it, as a spawned piece does in rounds 2 and 3.
Ruling: a submission is a complete order: it gives exactly 3 directions for
  every piece the seat has on every board.  A wall off the board, more walls
  than the board allows, the same wall twice in one submission, directions
  for a piece the seat does not have, a piece given directions twice, a wrong
  number of directions, and a second garnet spend on a board are refused
  (IllegalAction).  There is no `pass`: only a seat that has submitted nothing
  when the host resolves keeps its pieces in place.
Ruling: "leave any corner unconnected to every other corner" means: after the
  wall, some corner reaches no other corner through orthogonally connected
  non-wall squares.  Splitting the board into two halves with two corners
  each is allowed.
Ruling: a wall square submitted by several players is decided once, where it
  first comes in the order (seat order, then that player's order), and the
  outcome counts for each of them (placed walls count toward each one's garnet
  bonus).  Wall outcomes in the log: placed, corner, wall, piece, adjacent,
  isolates.
Ruling: the host resolves with `resolve`; the host enters a player's orders by
  acting as that seat (the match layer does this), so orders applied as HOST
  are refused, and a seat may not `resolve`.
Ruling: a blocked piece's fallback ties go first to a perpendicular over the
  opposite, then to the perpendicular pointing toward the piece's own corner
  (the one that brings it nearer its corner's column or row).  Corners lie on
  the border, so whenever both perpendiculars are open exactly one of them
  points that way: no tie remains.
Ruling: a piece whose seat gave no directions (missing submission) stays and
  takes no fallback.  Squares entered by one player's two pieces on one tick
  are captured normally.
Ruling: option `garnets` ({seat: garnets held}) sets what each seat may spend
  in the match; a match in a season gets the seats' ledger balances there when
  the bout starts (matches/engine.bout_options), seats left out hold 0.  With
  the default {} the rules do not count garnets (the host keeps the books) and
  check only the once-per-board limit.  A submission spending more garnets
  than the seat has left is refused.
Ruling: board scores published during play are captured squares only; garnet
  bonuses (which would reveal spends) appear with the final result.
Ruling (issue 41): seats equal on every tie-break for first place share the
  win (`winners` holds every seat ranked first), with the reason
  "tie", and no Token of Life: the host settles it, as Bidding's tie is; seats
  equal for last place are no Elimination Candidate, for the host to settle.
  No seat is both: when all four are equal, both are the host's (`final` then
  lists `tied_first` and `tied_last`; resolve.awards).

public_view keys: `round` (1-3, the round being played; 3 once finished),
`rounds`, `finished`, `submitted` {seat: bool}, `boards` (list, once/twice/
thrice: `name`, `title`, `size`, `wall_limit`, `walls` [square], `owners`
(rows of ints, 0 = no one), `pieces` [{seat, number, square}], `corners`
{seat: square}, `captured` {seat: n}), `last_round` (null or the resolution
trace of the round just resolved: {round, boards: [{name, title, size, walls:
[{seat, square, outcome, against, why}], moves: [{seat, number, start,
phases: [{submitted, taken, path, rule, options, why}]}], contested: [{phase,
tick, square}], spawned: [{seat, number, square}], before: {owners, walls,
pieces} (the board as the round started), ticks: [{phase, tick, positions,
captured, contested}]}]}), `earlier_rounds` (the traces of the rounds
before it), and once finished `final`
({ranking: [[seat, ...], ...], points {seat: total}, boards [{name, scores
{seat: captured + bonus}, captured, garnet_bonus, points}], garnets_earned
{seat: n}, garnet_spends {seat: {board: round}}, token_of_life [seat],
elimination_candidate [seat], tied_first [seat], tied_last [seat]}).  Hidden
per seat: `submission` (the pending orders in canonical text, or null),
`garnet_spends` {board: round},
`garnet_bonus` {board: n}, `garnets_to_spend` (n, or null when not counted).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import permutations, product
from typing import Any, ClassVar

from games.core import HOST, IllegalAction, NotationError, Result
from games.core.grid import parse_square, square_name

from .board import (
    BOARD_NAMES,
    BOARD_TITLES,
    DEFAULT_SIZES,
    DIRECTIONS,
    MAX_SIZE,
    MIN_SIZE,
    ROUNDS,
    SEATS,
    Action,
    Board,
    BoardLog,
    BoardOrders,
    Orders,
    Piece,
    Resolve,
    all_corners,
    corners_connected,
    default_walls,
    format_action,
    parse_action,
    start_board,
)
from .resolve import (
    award_words,
    awards,
    board_view,
    dump_log,
    final_ranking,
    load_log,
    log_view,
    place_points,
    resolve_board,
    sole_first,
)
from .season import SeasonLedger
from .state import NO_SUBMISSIONS, ZEROS, BackToTheWallState, Triple, make_state

__all__ = ["BackToTheWall", "BackToTheWallState", "make_state"]


class BackToTheWall(SeasonLedger):  # its garnets, Token of Life and candidates in a season: season.py
    slug = "back-to-the-wall"
    name = "Back to the Wall"
    seats = 4
    sealed = True
    takes_starting_seat = False  # the four seats give their orders at once, sealed: nobody moves first
    reason_words = {"points": "most points", "tie": "tied for first on every tie-break: the host settles the Token of Life"}
    default_options: ClassVar[Mapping[str, Any]] = {
        "boards": {
            name: {
                "size": DEFAULT_SIZES[i],
                "walls": [square_name(c, r) for c, r in default_walls(i, DEFAULT_SIZES[i])],
            }
            for i, name in enumerate(BOARD_NAMES)
        },
        "garnets": {},
    }

    # -- setup -----------------------------------------------------------------
    def new(self, options: Mapping[str, Any] | None = None) -> BackToTheWallState:
        opts = self.options(options)
        specs = opts["boards"]
        if not isinstance(specs, Mapping):
            raise IllegalAction("the boards option must map once, twice and thrice to {size, walls}")
        for key in specs:
            if key not in BOARD_NAMES:
                raise IllegalAction(f"there is no board {key!r}: the boards are once, twice and thrice")
        boards = tuple(self._board_from_spec(i, specs.get(name)) for i, name in enumerate(BOARD_NAMES))
        return BackToTheWallState(
            boards=(boards[0], boards[1], boards[2]),
            round=1,
            submissions=NO_SUBMISSIONS,
            spends=ZEROS,
            bonus=ZEROS,
            garnets=_garnets_option(opts["garnets"]),
        )

    def _board_from_spec(self, index: int, spec: Any) -> Board:
        title = BOARD_TITLES[BOARD_NAMES[index]]
        if spec is None:
            spec = {}
        if not isinstance(spec, Mapping):
            raise IllegalAction(f"{title}: expected {{'size': n, 'walls': [squares]}}")
        unknown = set(spec) - {"size", "walls"}
        if unknown:
            raise IllegalAction(f"{title}: unknown board option {sorted(unknown)[0]!r} (use size and walls)")
        size = spec.get("size", DEFAULT_SIZES[index])
        if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
            raise IllegalAction(
                f"{title}: the size must be a whole number from {MIN_SIZE} to {MAX_SIZE}, got {size!r}"
            )
        if "walls" in spec:
            raw = spec["walls"]
            if isinstance(raw, str) or not isinstance(raw, Sequence):
                raise IllegalAction(f"{title}: walls must be a list of squares like 'B3'")
            walls: list[int] = []
            for item in raw:
                if not isinstance(item, str):
                    raise IllegalAction(f"{title}: walls must be a list of squares like 'B3', got {item!r}")
                try:
                    col, row = parse_square(item, size, size)
                except NotationError as exc:
                    raise IllegalAction(
                        f"{title}: wall {item.strip()!r} is not on the board ({exc})"
                    ) from None
                walls.append(row * size + col)
        else:
            walls = [r * size + c for c, r in default_walls(index, size)]
        corners = all_corners(size)
        seen: set[int] = set()
        for sq in walls:
            name = square_name(sq % size, sq // size)
            if sq in corners:
                raise IllegalAction(f"{title}: a pre-placed wall cannot stand on the corner {name}")
            if sq in seen:
                raise IllegalAction(f"{title}: the wall {name} is listed twice")
            seen.add(sq)
        if not corners_connected(size, seen):
            raise IllegalAction(f"{title}: the pre-placed walls cut a corner off from every other corner")
        return start_board(index, size, walls)

    # -- notation --------------------------------------------------------------
    def parse(self, state: BackToTheWallState, seat: int, text: str) -> Action:
        return parse_action(text)

    def format(self, action: Action) -> str:
        return format_action(action)

    # -- turn order ------------------------------------------------------------
    def to_act(self, state: BackToTheWallState) -> frozenset[int]:
        return frozenset() if state.finished else frozenset(SEATS)

    def pending(self, state: BackToTheWallState) -> frozenset[int]:
        if state.finished:
            return frozenset()
        return frozenset(s for s in SEATS if state.submission(s) is None)

    # -- checking and applying -------------------------------------------------
    def apply(self, state: BackToTheWallState, seat: int, action: Action) -> BackToTheWallState:
        if isinstance(action, Resolve):
            if state.finished:
                raise IllegalAction("the bout is over")
            if seat != HOST:
                raise IllegalAction("only the host may resolve the round")
            return self._resolve(state)
        if seat == HOST and not state.finished:
            raise IllegalAction("the host enters orders for a player by acting for that seat")
        self.require_turn(state, seat)
        self.check_orders(state, seat, action)
        subs = list(state.submissions)
        subs[seat - 1] = action
        state = replace(state, submissions=(subs[0], subs[1], subs[2], subs[3]))
        if all(s is not None for s in state.submissions):
            return self._resolve(state)
        return state

    def check_orders(self, state: BackToTheWallState, seat: int, orders: Orders) -> None:
        """IllegalAction naming the first problem of `seat`'s submission."""
        for board, mine in zip(state.boards, orders.boards, strict=True):
            title = board.title
            if len(mine.walls) > board.wall_limit:
                allowed = "1 wall" if board.wall_limit == 1 else f"{board.wall_limit} walls"
                raise IllegalAction(f"you may submit at most {allowed} on {title}, got {len(mine.walls)}")
            seen: set[tuple[int, int]] = set()
            for col, row in mine.walls:
                name = square_name(col, row)
                if col >= board.size or row >= board.size:
                    raise IllegalAction(f"{name} is not on {title} (A1 to {board.last_square()})")
                if (col, row) in seen:
                    raise IllegalAction(f"you submitted the wall {name} twice on {title}")
                seen.add((col, row))
            numbers = [p.number for p in board.pieces_of(seat)]
            given: set[int] = set()
            for number, dirs in mine.moves:
                if number not in numbers:
                    raise IllegalAction(f"you have no piece {number} on {title}")
                if number in given:
                    raise IllegalAction(f"piece {number} on {title} is given directions twice")
                given.add(number)
                if len(dirs) != 3:
                    raise IllegalAction(
                        f"piece {number} on {title} needs exactly 3 directions, got {len(dirs)}"
                    )
            for number in numbers:
                if number not in given:
                    raise IllegalAction(f"you must give 3 directions for piece {number} on {title}")
            if mine.garnet and state.spends[seat - 1][board.index]:
                raise IllegalAction(f"you have already spent a garnet on {title}")
        left = state.garnets_left(seat)
        spending = [b.title for b, mine in zip(state.boards, orders.boards, strict=True) if mine.garnet]
        if left is not None and len(spending) > left:
            held = "no garnet" if left == 0 else f"only {left} garnet{'s' if left > 1 else ''}"
            raise IllegalAction(
                f"you have {held} to spend (this order spends one on {' and '.join(spending)})"
            )

    def _resolve(self, state: BackToTheWallState) -> BackToTheWallState:
        last = state.round >= ROUNDS
        spawn = None if last else state.round + 1
        boards: list[Board] = []
        logs: list[BoardLog] = []
        spends = [list(t) for t in state.spends]
        bonus = [list(t) for t in state.bonus]
        for board in state.boards:
            orders = {
                seat: (None if sub is None else sub.boards[board.index])
                for seat, sub in zip(SEATS, state.submissions, strict=True)
            }
            new_board, log, placed = resolve_board(board, orders, spawn)
            boards.append(new_board)
            logs.append(log)
            for seat in SEATS:
                mine = orders[seat]
                if mine is not None and mine.garnet:
                    spends[seat - 1][board.index] = state.round
                    bonus[seat - 1][board.index] = placed[seat]
        return BackToTheWallState(
            boards=(boards[0], boards[1], boards[2]),
            round=state.round if last else state.round + 1,
            submissions=NO_SUBMISSIONS,
            spends=_triples(spends),
            bonus=_triples(bonus),
            logs=(*state.logs, tuple(logs)),
            finished=last,
            garnets=state.garnets,
        )

    # -- listing actions -------------------------------------------------------
    def legal_actions(self, state: BackToTheWallState, seat: int) -> Iterator[Action]:
        if seat == HOST:
            if not state.finished:
                yield Resolve()
            return
        if state.finished or seat not in SEATS:
            return
        per_board = [self._board_choices(state, seat, b) for b in state.boards]
        left = state.garnets_left(seat)
        for choice in _lazy_product(per_board):
            if left is not None and sum(1 for c in choice if c.garnet) > left:
                continue
            yield Orders((choice[0], choice[1], choice[2]))

    def _board_choices(self, state: BackToTheWallState, seat: int, board: Board) -> Any:
        squares = [(c, r) for r in range(board.size) for c in range(board.size)]
        numbers = [p.number for p in board.pieces_of(seat)]
        spent = bool(state.spends[seat - 1][board.index]) or state.garnets_left(seat) == 0

        def walls() -> Iterator[tuple[tuple[int, int], ...]]:
            for count in range(board.wall_limit + 1):
                yield from permutations(squares, count)

        def dirs() -> Iterator[tuple[str, ...]]:
            return product(DIRECTIONS, repeat=3)

        def garnets() -> Iterator[bool]:
            return iter((False,) if spent else (False, True))

        def board_orders() -> Iterator[BoardOrders]:
            factories = [walls, *([dirs] * len(numbers)), garnets]
            for parts in _lazy_product(factories):
                moves = tuple(zip(numbers, parts[1:-1], strict=True))
                yield BoardOrders(parts[0], moves, parts[-1])

        return board_orders

    def random_action(self, state: BackToTheWallState, seat: int, rng: random.Random) -> Action | None:
        if seat == HOST:
            return None if state.finished else Resolve()
        if state.finished or seat not in SEATS:
            return None
        chosen: list[BoardOrders] = []
        for board in state.boards:
            count = rng.randint(0, board.wall_limit)
            cells = rng.sample(range(board.size * board.size), count)
            walls = tuple((sq % board.size, sq // board.size) for sq in cells)
            moves = tuple(
                (p.number, tuple(rng.choice(DIRECTIONS) for _ in range(3))) for p in board.pieces_of(seat)
            )
            left = state.garnets_left(seat)
            spent = sum(1 for b in chosen if b.garnet)
            can_spend = state.spends[seat - 1][board.index] == 0 and (left is None or spent < left)

            garnet = can_spend and rng.random() < 0.2
            chosen.append(BoardOrders(walls, moves, garnet))
        return Orders((chosen[0], chosen[1], chosen[2]))

    # -- outcome ---------------------------------------------------------------
    def board_scores(self, state: BackToTheWallState) -> list[dict[int, int]]:
        """Per board: captured squares plus garnet bonus, per seat (the final tally)."""
        return [
            {seat: b.captured(seat) + state.bonus[seat - 1][b.index] for seat in SEATS} for b in state.boards
        ]

    def result(self, state: BackToTheWallState) -> Result | None:
        if not state.finished:
            return None
        final = self._final(state)
        ranking: list[list[int]] = final["ranking"]
        totals: dict[int, float] = final["points"]
        order = "; ".join(", ".join(f"seat {s} ({totals[s]:g})" for s in group) for group in ranking)
        earned = ", ".join(f"seat {s}: {n}" for s, n in final["garnets_earned"].items() if n) or "none"
        won = awards(ranking)
        detail = (
            f"Ranking: {order}. Garnets earned: {earned}. "
            f"Token of Life: {award_words(won['token_of_life'], won['tied_first'])}. "
            f"Elimination Candidate: {award_words(won['elimination_candidate'], won['tied_last'])}."
        )
        return Result(
            # winners are the seats ranked first, several only if every tie-break is
            # equal; the awards of such a tie are the host's to settle (won, above)
            winners=frozenset(ranking[0]),
            reason="points" if won["token_of_life"] else "tie",
            scores={s: float(totals[s]) for s in SEATS},
            detail=detail,
        )

    def _final(self, state: BackToTheWallState) -> dict[str, Any]:
        scores = self.board_scores(state)
        points = [place_points(s) for s in scores]
        per_seat = {seat: [points[b][seat] for b in range(3)] for seat in SEATS}
        ranking = final_ranking(per_seat)
        earned = dict.fromkeys(SEATS, 0)
        for s in scores:
            first = sole_first(s)
            if first is not None:
                earned[first] += 1
        return {
            "ranking": ranking,
            "points": {seat: sum(per_seat[seat]) for seat in SEATS},
            "scores": scores,
            "board_points": points,
            "garnets_earned": earned,
        }

    # -- views -----------------------------------------------------------------
    def public_view(self, state: BackToTheWallState) -> dict[str, Any]:
        view: dict[str, Any] = {
            "round": state.round,
            "rounds": ROUNDS,
            "finished": state.finished,
            "submitted": {str(s): state.submission(s) is not None for s in SEATS},
            "boards": [board_view(b) for b in state.boards],
            "last_round": None,
            "earlier_rounds": [],
        }
        traces = _traces(state)
        if traces:
            view["last_round"] = traces[-1]
            view["earlier_rounds"] = traces[:-1]
        if state.finished:
            final = self._final(state)
            view["final"] = {
                "ranking": final["ranking"],
                "points": {str(s): v for s, v in final["points"].items()},
                "boards": [
                    {
                        "name": b.name,
                        "scores": {str(s): final["scores"][b.index][s] for s in SEATS},
                        "captured": {str(s): b.captured(s) for s in SEATS},
                        "garnet_bonus": {str(s): state.bonus[s - 1][b.index] for s in SEATS},
                        "points": {str(s): final["board_points"][b.index][s] for s in SEATS},
                    }
                    for b in state.boards
                ],
                "garnets_earned": {str(s): n for s, n in final["garnets_earned"].items()},
                "garnet_spends": {str(s): _spends_view(state, s) for s in SEATS},
                **awards(final["ranking"]),
            }
        return view

    def hidden(self, state: BackToTheWallState, seat: int) -> dict[str, Any]:
        sub = state.submission(seat)
        return {
            "submission": None if sub is None else format_action(sub),
            "garnet_spends": _spends_view(state, seat),
            "garnet_bonus": {
                name: state.bonus[seat - 1][i]
                for i, name in enumerate(BOARD_NAMES)
                if state.spends[seat - 1][i]
            },
            "garnets_to_spend": state.garnets_left(seat),
        }

    # -- persistence -----------------------------------------------------------
    def dump(self, state: BackToTheWallState) -> dict[str, Any]:
        return {
            "v": 1,
            "round": state.round,
            "finished": state.finished,
            "boards": [
                {
                    "size": b.size,
                    "walls": sorted(b.walls),
                    "owners": list(b.owners),
                    "pieces": [[p.seat, p.number, p.square] for p in b.pieces],
                }
                for b in state.boards
            ],
            "submissions": [None if s is None else format_action(s) for s in state.submissions],
            "spends": [list(t) for t in state.spends],
            "bonus": [list(t) for t in state.bonus],
            "logs": [[dump_log(log) for log in logs] for logs in state.logs],
            "garnets": None if state.garnets is None else list(state.garnets),
        }

    def load(self, data: Mapping[str, Any]) -> BackToTheWallState:
        if data.get("v") != 1:
            raise ValueError(f"unknown Back to the Wall state version {data.get('v')!r}")
        boards = tuple(
            Board(
                i,
                int(b["size"]),
                frozenset(int(x) for x in b["walls"]),
                tuple(int(x) for x in b["owners"]),
                tuple(sorted(Piece(int(s), int(n), int(q)) for s, n, q in b["pieces"])),
            )
            for i, b in enumerate(data["boards"])
        )
        # states stored before every round's log was kept hold only "last_log"
        rounds = data["logs"] if "logs" in data else [data["last_log"]] if data.get("last_log") else []
        garnets = data.get("garnets")
        subs: list[Orders | None] = []
        for text in data["submissions"]:
            if text is None:
                subs.append(None)
            else:
                action = parse_action(text)
                assert isinstance(action, Orders)
                subs.append(action)
        return BackToTheWallState(
            boards=(boards[0], boards[1], boards[2]),
            round=int(data["round"]),
            submissions=(subs[0], subs[1], subs[2], subs[3]),
            spends=_triples(data["spends"]),
            bonus=_triples(data["bonus"]),
            logs=tuple(tuple(load_log(log) for log in logs) for logs in rounds),
            finished=bool(data["finished"]),
            garnets=None if garnets is None else _quad(garnets),
        )


# -- helpers ---------------------------------------------------------------------
def _traces(state: BackToTheWallState) -> list[dict[str, Any]]:
    """The resolution trace of every resolved round, oldest first: {round, boards: [log_view]}."""
    traces: list[dict[str, Any]] = []
    walls = [b.walls for b in state.boards]  # walls when the round being walked back ended
    for number in range(len(state.logs), 0, -1):
        logs = state.logs[number - 1]
        traces.append(
            {
                "round": number,
                "boards": [
                    log_view(b, log, walls[b.index]) for b, log in zip(state.boards, logs, strict=True)
                ],
            }
        )
        for b, log in zip(state.boards, logs, strict=True):
            walls[b.index] = walls[b.index] - {w.square for w in log.walls if w.outcome == "placed"}
    return traces[::-1]


def _garnets_option(value: Any) -> tuple[int, int, int, int] | None:
    """Option `garnets` ({seat: garnets held}) -> per seat; {} -> None: spends are not counted.

    A match in a season gets the seats' ledger balances here when the bout
    starts (matches/engine.bout_options); seats left out of a non-empty map hold 0.
    """
    if not isinstance(value, Mapping):
        raise IllegalAction(f"option garnets must map seats to garnets held, like {{'1': 2}}, got {value!r}")
    if not value:
        return None
    held = [0, 0, 0, 0]
    for key, count in value.items():
        try:
            seat = int(key)
        except (TypeError, ValueError):
            seat = 0
        if seat not in SEATS:
            raise IllegalAction(f"option garnets: there is no seat {key!r} (seats are 1 to 4)")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise IllegalAction(f"option garnets: seat {seat} needs a whole number >= 0, got {count!r}")
        held[seat - 1] = count
    return (held[0], held[1], held[2], held[3])


def _lazy_product(factories: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """Like itertools.product over fresh iterators from `factories`, without materialising them."""
    if not factories:
        yield ()
        return
    for head in factories[0]():
        for rest in _lazy_product(factories[1:]):
            yield (head, *rest)


def _quad(values: Sequence[Any]) -> tuple[int, int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


def _triples(rows: Sequence[Sequence[int]]) -> tuple[Triple, Triple, Triple, Triple]:
    t = [(int(r[0]), int(r[1]), int(r[2])) for r in rows]
    return (t[0], t[1], t[2], t[3])


def _spends_view(state: BackToTheWallState, seat: int) -> dict[str, int]:
    return {
        name: state.spends[seat - 1][i] for i, name in enumerate(BOARD_NAMES) if state.spends[seat - 1][i]
    }
