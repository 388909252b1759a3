"""Two Connect: Squava, Yinsh (blitz) and Gomoku played at once; win 2 boards.

The card is the game's rules as written for the show's community; the full
rules a player reads are howto.py's (the page /rules/two-connect/).  The boards'
own rules live in squava.py, yinsh.py and gomoku.py (each also registered
alone); this module is the match around them.

Turns.  Seat 1 moves first (option `starting_seat`); the players alternate
turns.  A turn is one move on each of two different boards, submitted
together and applied in the order given (`squava C3; gomoku H7`).  Exceptions
-- the turn is one move on one board -- when it is the very first turn of the
match, once any board is finished (won or drawn), or when only one board is
open to the player.  A board is open to a player when it is unfinished, the
turn bank does not close it to them, and they have a legal move on it (a
Yinsh board where all their rings are blocked cannot be chosen).  If the
first move of a turn finishes its board, the second move is still played.

Turn bank, per player: each player counts their own moves on each
unfinished board.  A board whose count reached 10 is closed to that player
until every other unfinished board also reached 10 for them; then all their
counts return to 0.  All counts of both players return to 0 whenever a board
is finished.  Counts are updated after each single move, so a move that
finishes a board resets every count and the second move of that turn then
counts 1 on its board.

Match result.  The first player to win 2 boards wins (reason "two-boards"),
even if the second move of the same turn gives the opponent a second board.
Otherwise the match ends when no board can still be won by anyone who needs
it, which this engine reads as exactly these two cases:

1. all three boards are finished (won or drawn); or
2. neither player can play on any board (every unfinished board is closed
   to them by the turn bank or, for Yinsh, they cannot move a ring), so
   nothing can change any more.  (The board rules make this a safety net
   only: a player always has a move on an unfinished Squava or Gomoku board,
   the bank never closes every unfinished board at once, so a player can be
   shut out only by a blocked Yinsh, and a Yinsh board blocked for both
   players is drawn.)

While a board is unfinished someone always needs it: with one board won
each, or with a drawn board, its winner takes the match (two boards, or
equal boards and the most recently won one); so an unfinished board is never
"dead" for the match, and the engine does not look ahead for boards whose
position can no longer produce a line (they are played out until full,
drawn or won).  At the end the player with more boards won wins
("more-boards"); with equal boards, the winner of the most recently won
board wins ("most-recent"); with no board won the match is a draw
("no-board-won").  `Result.scores` = boards won per seat.

Ruling: a player who cannot play on any board when their turn comes passes
automatically and the opponent plays again (`passed` in the view says who
passed); if neither can play, the match ends as in case 2 above.
Ruling: a ring placement on Yinsh counts as a move for the turn bank like
any other move.

Clock (20-minute bank per player, running out forfeits the match) is a
match event handled in matches/, not here.

Notation: `squava C3; gomoku H7`, `yinsh ring E5`, `yinsh E5-E8`.  The
parser also accepts lower case, commas, "and", "then", "on", "I play", e.g.
`squava c3 and gomoku h7`, `I play on yinsh ring e5, then squava b2.`

public_view keys: boards (list, in the order squava, yinsh, gomoku; each
holds that board's own view -- cells or points, rings, markers_left, status
open/won/drawn, winner, reason, last, last_squares -- plus `bank` (count per
seat), `open_to` (seats that may choose it now), `refusal` (per seat: why
they may not choose it, in `apply`'s words, or "") and `bank_waits_for`
(per seat: the boards still short of 10 while the bank closes this one));
board_order; bank
({seat: {board: count}}); bank_limit; open_boards ({seat: [board names]});
boards_won ({seat: n}); most_recent_win ({board, seat} or None);
finished_order; to_move; turn (1-based number of the turn being played);
moves_this_turn (for the player to move); one_move_rule (the refusal of a
two-move turn when the turn is one move, or ""); last (text of the last turn);
last_seat; passed (seat whose turn passed automatically, or None).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from games.core import Game, IllegalAction, NotationError, Result
from games.core.facts import ONE_BOUT
from games.core.notation import require_text

from .board import BOARD_WORDS, BoardRules, tokens
from .gomoku import Gomoku
from .squava import Squava
from .yinsh import Yinsh

#: The three boards, in the order of the card and of every per-board tuple here.
RULES: tuple[BoardRules[Any, Any], ...] = (Squava.rules, Yinsh.rules, Gomoku.rules)
BANK_LIMIT = 10
_INDEX = {word: i for i, word in enumerate(BOARD_WORDS)}
_BOARD_SPLIT = re.compile(r"\b(squava|yinsh|gomoku)\b")


@dataclass(frozen=True)
class TwoConnectAction:
    """The moves of one turn, in order: (board index, that board's move)."""

    moves: tuple[tuple[int, Any], ...]


@dataclass(frozen=True)
class TwoConnectState:
    boards: tuple[Any, ...]  # squava GridBoard, yinsh YinshBoard, gomoku GridBoard
    to_move: int
    turns: int = 0  # turns played so far
    bank: tuple[tuple[int, ...], ...] = ((0, 0, 0), (0, 0, 0))  # per seat, per board
    finished: tuple[int, ...] = ()  # board indices in the order they finished
    winner: int | None = None  # None while play goes on, 0 for a draw
    reason: str = ""
    detail: str = ""
    last: str = ""
    last_seat: int = 0
    passed: int = 0  # seat whose turn passed automatically after the last turn


class TwoConnect(Game[TwoConnectState, TwoConnectAction]):
    slug = "two-connect"
    name = "Two Connect"
    default_options: ClassVar[Mapping[str, Any]] = {"starting_seat": 1}
    takes_starting_seat = True  # who opens the match's boards: the option starting_seat
    reason_words = {"two-boards": "won two boards", "more-boards": "more boards", "most-recent": "most recent",
                    "no-board-won": "no board won"}
    #: one bank of 20 minutes for the whole match, shown to the players to the minute, kept to the second
    default_format = {**ONE_BOUT, "clock": {"per_move": None, "reserve": 1200, "refill": False, "on_timeout": "match",
                                            "round_seconds": None}}
    clock_minutes = True

    # -- setup and notation ----------------------------------------------------
    def new(self, options: Mapping[str, Any] | None = None) -> TwoConnectState:
        start = self.options(options)["starting_seat"]
        if start not in (1, 2):
            raise IllegalAction("starting_seat must be 1 or 2")
        return TwoConnectState(boards=tuple(r.initial() for r in RULES), to_move=int(start))

    def parse(self, state: TwoConnectState, seat: int, text: str) -> TwoConnectAction:
        cleaned = require_text(text, self.name)
        parts = _BOARD_SPLIT.split(cleaned)
        example = "'squava C3; gomoku H7' or 'yinsh ring E5'"
        if len(parts) == 1:
            raise NotationError(f"expected moves like {example} (each move starts with its board), got {cleaned!r}")
        # words before the first board word belong to its move ("place a ring on yinsh E5")
        segments = parts[2::2]
        segments[0] = f"{parts[0]} {segments[0]}"
        moves: list[tuple[int, Any]] = []
        for word, segment in zip(parts[1::2], segments, strict=True):
            index = _INDEX[word]
            if not tokens(segment):
                raise NotationError(f"expected a {RULES[index].title} move after {word!r}")
            moves.append((index, RULES[index].parse_move(segment)))
        if len(moves) > 2:
            raise NotationError(f"a turn is at most two moves (on two different boards), got {len(moves)}")
        return TwoConnectAction(tuple(moves))

    def format(self, action: TwoConnectAction) -> str:
        return "; ".join(f"{BOARD_WORDS[i]} {RULES[i].format_move(m)}" for i, m in action.moves)

    # -- who may play where ----------------------------------------------------
    def is_finished(self, state: TwoConnectState, board: int) -> bool:
        return RULES[board].outcome(state.boards[board]) is not None

    def bank_closed(self, state: TwoConnectState, seat: int, board: int) -> bool:
        """True if the turn bank closes `board` to `seat` (see the module docstring)."""
        counts = state.bank[seat - 1]
        if counts[board] < BANK_LIMIT:
            return False
        return any(
            counts[j] < BANK_LIMIT for j in range(3) if j != board and not self.is_finished(state, j)
        )

    def open_boards(self, state: TwoConnectState, seat: int) -> list[int]:
        """Boards `seat` could choose on their turn now."""
        return [
            i
            for i in range(3)
            if not self.is_finished(state, i)
            and not self.bank_closed(state, seat, i)
            and RULES[i].can_move(state.boards[i], seat)
        ]

    def moves_required(self, state: TwoConnectState, seat: int) -> int:
        """How many moves `seat`'s turn holds now: 0 (cannot play), 1 or 2."""
        available = self.open_boards(state, seat)
        if not available:
            return 0
        if state.turns == 0 or state.finished or len(available) == 1:
            return 1
        return 2

    # -- the contract ----------------------------------------------------------
    def legal_actions(self, state: TwoConnectState, seat: int) -> Iterator[TwoConnectAction]:
        if self.result(state) is not None or seat != state.to_move:
            return
        available = self.open_boards(state, seat)
        if self.moves_required(state, seat) == 1:
            for i in available:
                for m in RULES[i].legal_moves(state.boards[i], seat):
                    yield TwoConnectAction(((i, m),))
            return
        for i in available:
            for j in available:
                if i == j:
                    continue
                for m in RULES[i].legal_moves(state.boards[i], seat):
                    for n in RULES[j].legal_moves(state.boards[j], seat):
                        yield TwoConnectAction(((i, m), (j, n)))

    def random_action(
        self, state: TwoConnectState, seat: int, rng: random.Random
    ) -> TwoConnectAction | None:
        if self.result(state) is not None or seat != state.to_move:
            return None
        available = self.open_boards(state, seat)
        need = self.moves_required(state, seat)
        if need == 0:
            return None
        chosen = rng.sample(available, need)
        moves = []
        for i in chosen:
            move = RULES[i].random_move(state.boards[i], seat, rng)
            if move is None:  # cannot happen: open boards have a legal move
                return None
            moves.append((i, move))
        return TwoConnectAction(tuple(moves))

    def apply(self, state: TwoConnectState, seat: int, action: TwoConnectAction) -> TwoConnectState:
        self.require_turn(state, seat)
        self._check_turn_shape(state, seat, action)
        boards = list(state.boards)
        bank = [list(counts) for counts in state.bank]
        finished = list(state.finished)
        winner: int | None = None
        for i, move in action.moves:
            rules = RULES[i]
            try:
                board = rules.play(boards[i], seat, move)
            except IllegalAction as error:
                raise IllegalAction(f"{rules.title}: {error}") from None
            boards[i] = board
            if rules.outcome(board) is not None:
                finished.append(i)
                bank = [[0, 0, 0], [0, 0, 0]]
                if winner is None:
                    winner = _two_board_winner(boards, finished)
            else:
                counts = bank[seat - 1]
                counts[i] += 1
                if all(counts[j] >= BANK_LIMIT for j in range(3) if j not in finished):
                    bank[seat - 1] = [0, 0, 0]
        after = TwoConnectState(
            boards=tuple(boards),
            to_move=3 - seat,
            turns=state.turns + 1,
            bank=tuple(tuple(counts) for counts in bank),
            finished=tuple(finished),
            last=self.format(action),
            last_seat=seat,
        )
        if winner is not None:
            return _ended(after, winner, "two-boards", f"Seat {winner} won two boards.")
        if len(finished) == 3:
            return _match_end(after, "All three boards are finished.")
        if self.open_boards(after, 3 - seat):
            return after
        if self.open_boards(after, seat):
            return _replace(after, to_move=seat, passed=3 - seat)
        return _match_end(after, "Neither player can play on any board.")

    def _check_turn_shape(self, state: TwoConnectState, seat: int, action: TwoConnectAction) -> None:
        moves = action.moves
        if not moves:
            raise IllegalAction("a turn needs at least one move")
        if len(moves) > 2:
            raise IllegalAction("a turn is at most two moves, on two different boards")
        if len(moves) == 2 and moves[0][0] == moves[1][0]:
            title = RULES[moves[0][0]].title
            raise IllegalAction(f"both moves are on the {title} board: play on two different boards")
        for i, _move in moves:
            if not isinstance(i, int) or not 0 <= i < len(RULES):
                raise IllegalAction("there are only three boards: squava, yinsh and gomoku")
            self._check_open(state, seat, i)
        message = self.shape_refusal(state, seat, len(moves))
        if message:
            raise IllegalAction(message)

    def shape_refusal(self, state: TwoConnectState, seat: int, count: int) -> str:
        """Why a turn of `count` moves is the wrong size for `seat` now ("" if it is right)."""
        need = self.moves_required(state, seat)
        if count == need or need == 0:
            return ""
        if need == 2:
            return "this turn is one move on each of two different boards"
        if state.turns == 0:
            return "the first turn of the match is one move on one board"
        if state.finished:
            return "a board is finished, so every turn is one move on one board"
        title = RULES[self.open_boards(state, seat)[0]].title
        return f"only the {title} board is open to you this turn, so play one move on it"

    def bank_waits_for(self, state: TwoConnectState, seat: int, board: int) -> list[int]:
        """The unfinished boards `seat` must still play up to 10 before the bank reopens `board`
        (empty when the bank does not close it)."""
        if not self.bank_closed(state, seat, board):
            return []
        return [
            j for j in range(3)
            if j != board and not self.is_finished(state, j) and state.bank[seat - 1][j] < BANK_LIMIT
        ]

    def refusal(self, state: TwoConnectState, seat: int, board: int) -> str:
        """Why `seat` may not choose `board` on their turn now ("" if they may), in the
        words `apply` refuses with."""
        title = RULES[board].title
        if self.is_finished(state, board):
            return f"the {title} board is finished"
        waits = self.bank_waits_for(state, seat, board)
        if waits:
            others = " and ".join(RULES[j].title for j in waits)
            return (
                f"the turn bank closes the {title} board to you (10 moves) until you have also "
                f"played 10 moves on {others}"
            )
        if not RULES[board].can_move(state.boards[board], seat):
            return f"you cannot move any ring on the {title} board, so you cannot choose it"
        return ""

    def _check_open(self, state: TwoConnectState, seat: int, board: int) -> None:
        message = self.refusal(state, seat, board)
        if message:
            raise IllegalAction(message)

    def to_act(self, state: TwoConnectState) -> frozenset[int]:
        if state.winner is not None:
            return frozenset()
        return frozenset({state.to_move})

    def result(self, state: TwoConnectState) -> Result | None:
        if state.winner is None:
            return None
        won = _boards_won(state.boards)
        winners = frozenset() if state.winner == 0 else frozenset({state.winner})
        return Result(
            winners=winners,
            reason=state.reason,
            scores={1: won[0], 2: won[1]},
            detail=state.detail,
        )

    # -- views and storage -----------------------------------------------------
    def public_view(self, state: TwoConnectState) -> dict[str, Any]:
        open_to = {seat: self.open_boards(state, seat) for seat in (1, 2)}
        boards = []
        for i, rules in enumerate(RULES):
            view = rules.public(state.boards[i])
            view["index"] = i
            view["bank"] = {str(seat): state.bank[seat - 1][i] for seat in (1, 2)}
            view["open_to"] = [seat for seat in (1, 2) if i in open_to[seat]]
            view["refusal"] = {str(seat): self.refusal(state, seat, i) for seat in (1, 2)}
            view["bank_waits_for"] = {
                str(seat): [BOARD_WORDS[j] for j in self.bank_waits_for(state, seat, i)] for seat in (1, 2)
            }
            boards.append(view)
        won = _boards_won(state.boards)
        recent = _most_recent_win(state.boards, state.finished)
        over = state.winner is not None
        return {
            "boards": boards,
            "board_order": list(BOARD_WORDS),
            "bank": {
                str(seat): {BOARD_WORDS[i]: state.bank[seat - 1][i] for i in range(3)} for seat in (1, 2)
            },
            "bank_limit": BANK_LIMIT,
            "open_boards": {str(seat): [BOARD_WORDS[i] for i in open_to[seat]] for seat in (1, 2)},
            "boards_won": {"1": won[0], "2": won[1]},
            "most_recent_win": None if recent is None else {"board": BOARD_WORDS[recent[0]], "seat": recent[1]},
            "finished_order": [BOARD_WORDS[i] for i in state.finished],
            "to_move": None if over else state.to_move,
            "turn": state.turns + 1,
            "moves_this_turn": 0 if over else self.moves_required(state, state.to_move),
            # what `apply` says when the player to move submits two moves but the turn is one
            "one_move_rule": "" if over else self.shape_refusal(state, state.to_move, 2),
            "last": state.last or None,
            "last_seat": state.last_seat or None,
            "passed": state.passed or None,
        }

    def dump(self, state: TwoConnectState) -> dict[str, Any]:
        return {
            "v": 1,
            "boards": {BOARD_WORDS[i]: RULES[i].dump(b) for i, b in enumerate(state.boards)},
            "to_move": state.to_move,
            "turns": state.turns,
            "bank": [list(counts) for counts in state.bank],
            "finished": [BOARD_WORDS[i] for i in state.finished],
            "winner": state.winner,
            "reason": state.reason,
            "detail": state.detail,
            "last": state.last,
            "last_seat": state.last_seat,
            "passed": state.passed,
        }

    def load(self, data: Mapping[str, Any]) -> TwoConnectState:
        if data.get("v") != 1:
            raise ValueError(f"unknown two-connect state version {data.get('v')!r}")
        winner = data.get("winner")
        return TwoConnectState(
            boards=tuple(RULES[i].load(data["boards"][word]) for i, word in enumerate(BOARD_WORDS)),
            to_move=int(data["to_move"]),
            turns=int(data["turns"]),
            bank=tuple(tuple(int(n) for n in counts) for counts in data["bank"]),
            finished=tuple(_INDEX[str(word)] for word in data["finished"]),
            winner=None if winner is None else int(winner),
            reason=str(data.get("reason", "")),
            detail=str(data.get("detail", "")),
            last=str(data.get("last", "")),
            last_seat=int(data.get("last_seat", 0)),
            passed=int(data.get("passed", 0)),
        )


# -- helpers -------------------------------------------------------------------


def _boards_won(boards: tuple[Any, ...] | list[Any]) -> tuple[int, int]:
    outcomes = [RULES[i].outcome(b) for i, b in enumerate(boards)]
    return outcomes.count(1), outcomes.count(2)


def _two_board_winner(boards: list[Any], finished: list[int]) -> int | None:
    """The first seat to reach two won boards, walking the boards in finishing order."""
    won = {1: 0, 2: 0}
    for i in finished:
        seat = RULES[i].outcome(boards[i])
        if seat:
            won[seat] += 1
            if won[seat] == 2:
                return int(seat)
    return None


def _most_recent_win(boards: tuple[Any, ...], finished: tuple[int, ...]) -> tuple[int, int] | None:
    """(board index, seat) of the most recently won board, or None."""
    for i in reversed(finished):
        seat = RULES[i].outcome(boards[i])
        if seat:
            return i, int(seat)
    return None


def _replace(state: TwoConnectState, **changes: Any) -> TwoConnectState:
    return replace(state, **changes)


def _ended(state: TwoConnectState, winner: int, reason: str, detail: str) -> TwoConnectState:
    return _replace(state, winner=winner, reason=reason, detail=detail)


def _match_end(state: TwoConnectState, why: str) -> TwoConnectState:
    """No board can still be won by anyone who needs it: more boards, then the most recent win."""
    won = _boards_won(state.boards)
    if won[0] != won[1]:
        seat = 1 if won[0] > won[1] else 2
        return _ended(state, seat, "more-boards", f"{why} Seat {seat} won more boards.")
    recent = _most_recent_win(state.boards, state.finished)
    if recent is not None:
        board, seat = recent
        return _ended(
            state, seat, "most-recent",
            f"{why} Boards won are equal; seat {seat} won the most recently won board ({RULES[board].title}).",
        )
    return _ended(state, 0, "no-board-won", f"{why} No board was won: the match is a draw.")
