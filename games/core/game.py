"""The Game interface every game implements (its contract, member by member: games/core/README.md).

A game is a stateless object; states and actions are immutable values
(frozen dataclasses holding tuples), so `apply` can never mutate its input
and actions compare equal after `parse(format(a))`.

Views.  `view(state, viewer)` is built here, once, from two hooks so that no
game can leak hidden information by accident:

    {"game": slug, "viewer": viewer,
     "public":  public_view(state)          # identical for every audience
     "private": hidden(state, seat)         # only in the seat's own view
     "hidden":  {seat: hidden(state, seat)}  # only in the HOST view}

Everything a seat may not show another seat (sealed bids, chips left, pending
orders, garnet spends) belongs in `hidden`, never in `public_view`.
"""

from __future__ import annotations

import functools
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from .errors import IllegalAction, NotationError
from .facts import DEFAULT_COUNTS, ONE_BOUT, AwardCounts, GarnetChange, SeasonAwards, Variant
from .notation import quote_as_typed
from .result import Result

#: Viewer/actor constants.  Seats are numbered from 1.
HOST = 0
SPECTATOR = -1

S = TypeVar("S")
A = TypeVar("A")


def viewer_name(viewer: int) -> str:
    if viewer == HOST:
        return "host"
    if viewer == SPECTATOR:
        return "spectator"
    return f"seat {viewer}"


class Game(ABC, Generic[S, A]):
    """One game's rules.  Subclasses set the identity and implement the hooks."""

    slug: ClassVar[str]
    name: ClassVar[str]
    seats: ClassVar[int] = 2
    default_options: ClassVar[Mapping[str, Any]] = {}
    #: True for games played in sealed rounds (several seats act at once).
    sealed: ClassVar[bool] = False
    #: what another seat and spectators read in the log for a sealed submission they may not see
    sealed_note: ClassVar[str] = "submitted sealed orders"
    #: True when the host plays the game in notation too (the host's game: rounds, reveals,
    #: points): the host's page gets a move box, its actions go through `apply(state, HOST, ...)`.
    host_moves: ClassVar[bool] = False
    #: how a bout's first mover reaches the rules, which every game must say (the conformance test
    #: fails a game that leaves it None; matches/play/engine.py refuses to start its bout):
    #: True -- the option `starting_seat` (a key of `default_options`) takes the seat the host chose
    #: for bout 1 and, bout after bout, the alternating starter of the match format;
    #: False -- the rules fix who acts first (Grid Master: X, seat 1, always) or every seat acts at
    #: once (sealed rounds), so the platform passes no starting seat.
    takes_starting_seat: ClassVar[bool | None] = None

    # -- what the platform says about the game (games/core/README.md) ----
    #: Result.reason -> why, in words ("line": "three in a row"), for the end banner ("Ann wins
    #: the match — three in a row").  Every reason `result` gives needs its words: the structure
    #: test fails a game without them.  Match events (time-outs, forfeits, awards) are the platform's.
    reason_words: ClassVar[Mapping[str, str]] = {}
    #: the match format a host starts from (bouts, alternate, stalemate_replays, forfeit, clock:
    #: matches/core/formats.py says what each key means)
    default_format: ClassVar[Mapping[str, Any]] = ONE_BOUT
    #: named variants, by the value of the match option "variant": name and clock changes
    variants: ClassVar[Mapping[str, Variant]] = {}
    #: players read their bank to the minute above 10 minutes ("17 min"), with its seconds below ("9:42")
    clock_minutes: ClassVar[bool] = False
    #: seats spend garnets of the season ledger in their actions (`garnet_cost`, `garnets_spent`)
    spends_garnets: ClassVar[bool] = False
    #: what a seat may ask of the other side: "draw" (offer a draw), "takeback" (take back its last
    #: move).  A game where neither means anything (the host's game decides its own results) has none.
    seat_offers: ClassVar[frozenset[str]] = frozenset({"draw", "takeback"})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Parsers read lower-cased text, so their refusals quote it lower-cased ("got 'z99'"):
        # every game's own `parse` is wrapped, here once, to quote the player's words as typed.
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("parse")
        if callable(own):
            cls.parse = _quoting_as_typed(own)  # type: ignore[method-assign]

    # -- identity helpers -------------------------------------------------
    def options(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """`options` merged over `default_options` (unknown keys are refused)."""
        merged = dict(self.default_options)
        for key, value in (options or {}).items():
            if key not in merged:
                raise IllegalAction(f"{self.name} has no option {key!r}")
            merged[key] = value
        return merged

    def seat_count(self, options: Mapping[str, Any] | None = None) -> int:
        """Seats of a match with these options: `seats`, unless the game takes its
        count as an option (the host's game: 2 to 16).  IllegalAction for bad options."""
        return self.seats

    def offer_answerer(self, seat_count: int) -> str:
        """Who answers a seat's draw offer or takeback request unless the host chooses: "opponent"
        (the other seat, the host may overrule) when two seats play, as on lichess or BGA; "host"
        with more seats (whose opponent?) and in a game without seat offers."""
        return "opponent" if seat_count == 2 and self.seat_offers else "host"

    def seats_of(self, state: S) -> int:
        """Seats of the bout `state` belongs to (`seats` unless the count is an option)."""
        return self.seats

    def round_clock(self, state: S, seconds: float | None) -> float | None:
        """Seconds the sealed round that opens now may last on the server clock: the match's
        round clock (`seconds`, None for none) unless the game says otherwise (the host's game:
        each round's own time limit, and none while no round is open)."""
        return seconds

    def news(self, before: S, after: S, actor: int, action: A) -> list[str]:
        """Public lines worth announcing (a season's webhook) now that `action` by `actor` made
        `after` from `before`, seats written "seat N" (the platform puts names in).  None by
        default; the host's game announces each reveal."""
        return []

    # -- a season's ledger (matches/seasons/results.py asks; nothing by default) --
    def bout_garnets(self, state: S) -> list[GarnetChange]:
        """The garnets a finished bout earns or costs each seat, in the order they are logged."""
        return []

    def garnet_cost(self, action: A) -> int:
        """Garnets `action` spends (checked against the seat's season balance before it counts)."""
        return 0

    def garnets_spent(self, state: S, seat: int, *, pending: bool) -> int:
        """Garnets `seat` has spent in this running bout and not yet paid (its sealed submission
        of the open round too when `pending`)."""
        return 0

    def season_awards(self, state: S | None, winners: tuple[int, ...],
                      counts: AwardCounts = DEFAULT_COUNTS) -> SeasonAwards:
        """What a finished match gives in its season.  `state` is the last bout's when its rules
        ended it (None after a host's ruling); `winners` the match's; `counts` how many Tokens of
        Life and Elimination Candidates the season asks of it (none of an elimination match).  A
        game that ranks its seats gives them by `facts.ranked_awards` (ties at a cut flagged in
        `tied_tokens` / `tied_candidates`); what the match names explicitly (the host's game's
        `end ... token S candidate S`) is kept whatever the counts."""
        return SeasonAwards()

    def __repr__(self) -> str:
        return f"<Game {self.slug}>"

    # -- the contract -----------------------------------------------------
    @abstractmethod
    def new(self, options: Mapping[str, Any] | None = None) -> S:
        """The start of one bout."""

    @abstractmethod
    def parse(self, state: S, seat: int, text: str) -> A:
        """Notation -> action; `NotationError` with a clear message."""

    @abstractmethod
    def format(self, action: A) -> str:
        """Canonical notation; `parse(state, seat, format(a)) == a`."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> Iterator[A]:
        """Every legal action of `seat` now (lazy; may be large)."""

    @abstractmethod
    def apply(self, state: S, seat: int, action: A) -> S:
        """A new state, or `IllegalAction`; never mutates `state`."""

    @abstractmethod
    def to_act(self, state: S) -> frozenset[int]:
        """Seats that may act now (empty once the bout is over)."""

    @abstractmethod
    def result(self, state: S) -> Result | None:
        """None while play goes on."""

    @abstractmethod
    def public_view(self, state: S) -> dict[str, Any]:
        """JSON-safe facts every audience may see."""

    @abstractmethod
    def dump(self, state: S) -> dict[str, Any]:
        """JSON-safe form of `state`, stable across versions."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> S:
        """Inverse of `dump`."""

    # -- hooks with defaults ----------------------------------------------
    def hidden(self, state: S, seat: int) -> dict[str, Any]:
        """JSON-safe facts only `seat` (and the host) may see right now."""
        return {}

    def pending(self, state: S) -> frozenset[int]:
        """Seats whose action is still awaited.

        Equal to `to_act` for turn-based games; in sealed rounds a seat that
        has submitted stays in `to_act` (it may resubmit) but leaves `pending`.
        """
        return self.to_act(state)

    def play(self, state: S, seat: int, text: str) -> S:
        """parse then apply: the checked path the web layer calls."""
        return self.apply(state, seat, self.parse(state, seat, text))

    def random_action(self, state: S, seat: int, rng: random.Random) -> A | None:
        """A uniformly chosen legal action (None if there is none).

        Reservoir sampling over `legal_actions`; games with huge action
        spaces override this with something cheaper.
        """
        chosen: A | None = None
        for count, action in enumerate(self.legal_actions(state, seat), start=1):
            if rng.randrange(count) == 0:
                chosen = action
        return chosen

    def view(self, state: S, viewer: int) -> dict[str, Any]:
        """What `viewer` (a seat, SPECTATOR or HOST) may see."""
        out: dict[str, Any] = {
            "game": self.slug,
            "viewer": viewer,
            "public": self.public_view(state),
            "to_act": sorted(self.to_act(state)),
            "pending": sorted(self.pending(state)),
        }
        result = self.result(state)
        out["result"] = None if result is None else result.to_json()
        seats = self.seats_of(state)
        if viewer == HOST:
            out["hidden"] = {str(s): self.hidden(state, s) for s in range(1, seats + 1)}
        elif 1 <= viewer <= seats:
            out["private"] = self.hidden(state, viewer)
        return out

    # -- shared checks ----------------------------------------------------
    def require_turn(self, state: S, seat: int) -> None:
        """IllegalAction unless `seat` may act now."""
        if self.result(state) is not None:
            raise IllegalAction("the bout is over")
        if seat not in self.to_act(state):
            raise IllegalAction("it is not your turn")


def _quoting_as_typed(parse: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(parse)
    def parse_quoting_as_typed(self: Any, state: Any, seat: int, text: str) -> Any:
        try:
            return parse(self, state, seat, text)
        except NotationError as error:
            if isinstance(text, str) and len(error.args) == 1 and isinstance(error.args[0], str):
                error.args = (quote_as_typed(error.args[0], text),)
            raise

    return parse_quoting_as_typed
