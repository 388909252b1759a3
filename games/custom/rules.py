"""The Host's game (`custom`): sealed answers to rounds the host opens, reveals and points.

For every game the server does not know: the host opens rounds in notation
(games/custom/notation.py), seats answer sealed, the host reveals, scores,
eliminates and ends the bout.  Pure rules; the clocks, the log and the pages
are the platform's.

Rulings decided here:

Ruling: seats.  One Game object serves every match (the registry holds one),
  so `seats` is a class-wide fact: the most a bout can have (16).  The bout's
  own count is the option "seats" (2-16, default 4), kept in `state.seats`;
  the platform reads it through `seat_count(options)` and `seats_of(state)`
  wherever it would read `game.seats`.  Names are the match's seat names, not
  a rules option.
Ruling: one round is open at a time; opening another while one is open is
  refused.  `seats all` (the default) means the seats still in play when the
  round opens.  Only those seats answer it.
Ruling: answers are sealed.  A seat may resubmit until its round closes; the
  last answer counts.  A round closes when every required seat still in play
  has answered, when the host resolves it, or when the host ends the bout; a
  seat that did not answer is recorded as "no answer" (None).  A time limit
  (`time 60` in the round's definition, else the match's round clock) runs on
  the platform's server clock (`round_clock`), which resolves the round when
  it passes (a match event).
Ruling: who has answered is public; what they answered is not, until the host
  reveals it.  The host sees every answer as it arrives; a seat always sees
  its own answers.  Only `reveal everyone` rounds can be revealed, and only
  once closed (a round or one seat's answer).  `reveal host` and `reveal
  author` answers are never public: they reach only the host and their author
  (the two differ only in what the pages say to the author).
Ruling: an eliminated seat answers nothing more and is no longer awaited
  (eliminating the last awaited seat closes the round); its earlier answers
  stay as they were.  Eliminating is final: an eliminated seat ranks below
  every seat still in, whatever its points (issue 41), on the scoreboard, in
  the ranking by points the host is offered, and in a ranking the host types
  (one that puts it level with or above a seat still in is refused).
Ruling: answers are checked against the round: a number in its range, one of
  its choices (by text, any case, or by position: a bare number is a
  position, so a choice named "2" is typed in quotes), one or more seats of this
  bout (any seat, in play or not), a square of its grid (column letter, row
  number: B3 is column 2, row 3), free text of 1 to 500 characters.
Ruling: points are whole numbers, given or taken one seat at a time with a
  reason; the scoreboard and its reasons are public.  `Result.scores` are the
  points.  The bout ends only when the host says so: a winner (or several), a
  ranking best first (ties with `=`; every seat exactly once; the winners are
  the first place) or a draw.  The reason is the word "winner", "ranking" or
  "draw".
Ruling (issue 52): a season's Tokens of Life and candidates: games/custom/season.py.
Ruling: `legal_actions` of a free-text round is a sample (a few fixed texts):
  there are too many texts to list.  The host's listed actions are a sample
  too (one round of each kind, one point either way per seat), so random
  playouts can exercise every action.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.core import HOST, Game, IllegalAction, NotationError, Result
from games.core.facts import DEFAULT_COUNTS, AwardCounts, SeasonAwards

from .notation import (
    HOST_ACTIONS,
    KINDS,
    LETTERS,
    MAX_SEATS,
    REVEALS,
    Announce,
    Answer,
    CustomAction,
    Eliminate,
    End,
    OpenRound,
    Points,
    Resolve,
    Reveal,
    Spec,
    Value,
    format_action,
    format_spec,
    parse_action,
    parse_value,
)
from .season import ending_awards

__all__ = ["CustomGame", "CustomState", "Round", "check_value"]

NUMBERED_ANSWER = re.compile(r"round\s+\d+\s+answer\b", re.I)
TEXT_SAMPLES = ("yes", "no", "I pass.", "The butler did it")


@dataclass(frozen=True)
class Round:
    """One round.  `answers` holds (seat, value) sorted by seat, value None for
    "no answer" (filled in when the round closes); `revealed` the seats whose
    answers are public."""

    number: int
    prompt: str
    spec: Spec
    required: tuple[int, ...]
    reveal: str = "everyone"
    answers: tuple[tuple[int, Value | None], ...] = ()
    closed: bool = False
    revealed: tuple[int, ...] = ()
    #: the round's own time limit (seconds on the server clock), or None
    seconds: int | None = None

    def answer_of(self, seat: int) -> Value | None:
        return dict(self.answers).get(seat)

    def answered(self) -> list[int]:
        return [s for s, v in self.answers if v is not None]


@dataclass(frozen=True)
class CustomState:
    seats: int
    points: tuple[int, ...]
    rounds: tuple[Round, ...] = ()
    eliminated: tuple[int, ...] = ()
    awards: tuple[tuple[int, int, str], ...] = ()
    announcements: tuple[str, ...] = ()
    ending: End | None = None

    def open_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds and not self.rounds[-1].closed else None

    def in_play(self) -> tuple[int, ...]:
        return tuple(s for s in range(1, self.seats + 1) if s not in self.eliminated)


class CustomGame(Game[CustomState, CustomAction]):
    """The Host's game: rounds, sealed answers, reveals and points (2-16 seats).

    public_view keys: seats (count), in_play, eliminated, points ({seat: n}),
    awards ([{seat, points, reason}]), announcements, open (round number or
    None), rounds ([{number, prompt, kind, definition, required, reveal, closed,
    answered, revealed ({seat: value or None})}]), ending (None or {how,
    ranking}).  hidden(state, seat): answers ({round: value or None}) of that
    seat's own answers.  Per-seat keys are strings.
    """

    slug = "custom"
    name = "Host's game"
    seats = MAX_SEATS
    sealed = True
    sealed_note = "answered"
    host_moves = True
    default_options = {"seats": 4}
    takes_starting_seat = False  # every seat answers a round at once, sealed: nobody moves first
    reason_words = {"winner": "winner", "ranking": "ranking", "draw": "declared by the host"}
    # the host runs every round and decides the result: a seat's draw offer or takeback means nothing
    seat_offers = frozenset[str]()

    # -- construction --------------------------------------------------
    def new(self, options: Mapping[str, Any] | None = None) -> CustomState:
        count = self.options(options)["seats"]
        if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= MAX_SEATS:
            raise IllegalAction(f"option seats must be a whole number from 2 to {MAX_SEATS}, got {count!r}")
        return CustomState(seats=count, points=(0,) * count)

    def season_awards(self, state: CustomState | None, winners: tuple[int, ...],
                      counts: AwardCounts = DEFAULT_COUNTS) -> SeasonAwards:
        """In a season: what the host's ending names, else what its ranking gives (ruling above)."""
        if state is None or state.ending is None:
            return SeasonAwards()
        return ending_awards(state.ending.how, state.ending.ranking, state.ending.token, state.ending.candidate,
                             counts)

    def seat_count(self, options: Mapping[str, Any] | None = None) -> int:
        return self.new(options).seats

    def seats_of(self, state: CustomState) -> int:
        return state.seats

    def round_clock(self, state: CustomState, seconds: float | None) -> float | None:
        """The open round's own time limit, else the match's round clock; none between rounds."""
        current = state.open_round()
        if current is None or state.ending is not None:
            return None
        return float(current.seconds) if current.seconds is not None else seconds

    # -- notation ------------------------------------------------------
    def parse(self, state: CustomState, seat: int, text: str) -> CustomAction:
        if not isinstance(text, str):
            raise NotationError("expected text")
        bare = text.strip()
        lowered = bare.lower()
        # a seat's text is an answer to the open round unless it names its round
        if seat != HOST and not NUMBERED_ANSWER.match(bare):
            current = state.open_round()
            if current is None:
                raise NotationError("there is no open round to answer")
            body = bare[len("answer"):] if lowered.startswith("answer") else bare
            return Answer(current.number, current.spec.kind, parse_value(current.spec, body))
        action = parse_action(text)
        if isinstance(action, Answer):
            number = action.round
            if not 1 <= number <= len(state.rounds):
                raise NotationError(f"there is no round {number}")
            spec = state.rounds[number - 1].spec
            assert isinstance(action.value, str)
            return Answer(number, spec.kind, parse_value(spec, action.value))
        return action

    def format(self, action: CustomAction) -> str:
        return format_action(action)

    # -- play ----------------------------------------------------------
    def to_act(self, state: CustomState) -> frozenset[int]:
        current = state.open_round()
        if state.ending is not None or current is None:
            return frozenset()
        return frozenset(s for s in current.required if s not in state.eliminated)

    def pending(self, state: CustomState) -> frozenset[int]:
        current = state.open_round()
        if current is None:
            return frozenset()
        return frozenset(s for s in self.to_act(state) if current.answer_of(s) is None)

    def result(self, state: CustomState) -> Result | None:
        end = state.ending
        if end is None:
            return None
        scores = {s: float(state.points[s - 1]) for s in range(1, state.seats + 1)}
        if end.how == "draw":
            return Result(frozenset(), "draw", scores, "The host declared a draw.")
        winners = frozenset(end.ranking[0])
        detail = "The host ranked the seats: " + ", then ".join(
            " and ".join(f"seat {s}" for s in group) for group in end.ranking) + "."
        if end.how == "winner":
            detail = "The host named the winner: " + " and ".join(f"seat {s}" for s in sorted(winners)) + "."
        return Result(winners, end.how, scores, detail)

    def apply(self, state: CustomState, seat: int, action: CustomAction) -> CustomState:
        if state.ending is not None:
            raise IllegalAction("the bout is over")
        if isinstance(action, Answer):
            if seat == HOST:
                raise IllegalAction("the host does not answer rounds; the seats do")
            return self._answer(state, seat, action)
        if not isinstance(action, HOST_ACTIONS):
            raise IllegalAction(f"not a {self.name} action: {action!r}")
        if seat != HOST:
            verb = "open a round" if isinstance(action, OpenRound) else format_action(action).split()[0]
            raise IllegalAction(f"only the host may {verb}; you can answer the open round")
        if isinstance(action, OpenRound):
            return _open(state, action)
        if isinstance(action, Resolve):
            current = state.open_round()
            if current is None:
                raise IllegalAction("there is no open round to resolve")
            return _close(state)
        if isinstance(action, Reveal):
            return _reveal(state, action)
        if isinstance(action, Points):
            _check_seat(state, action.seat)
            points = list(state.points)
            points[action.seat - 1] += action.amount
            return replace(state, points=tuple(points),
                           awards=(*state.awards, (action.seat, action.amount, action.reason)))
        if isinstance(action, Announce):
            return replace(state, announcements=(*state.announcements, action.text))
        if isinstance(action, Eliminate):
            _check_seat(state, action.seat)
            if action.seat in state.eliminated:
                raise IllegalAction(f"seat {action.seat} is already out")
            new = replace(state, eliminated=tuple(sorted((*state.eliminated, action.seat))))
            return _close(new) if new.open_round() is not None and not self.pending(new) else new
        return _end(state, action)

    def _answer(self, state: CustomState, seat: int, action: Answer) -> CustomState:
        if not 1 <= seat <= state.seats:
            raise IllegalAction(f"there is no seat {seat} in this bout")
        if not 1 <= action.round <= len(state.rounds):
            raise IllegalAction(f"there is no round {action.round}")
        target = state.rounds[action.round - 1]
        if target.closed:
            raise IllegalAction(f"round {target.number} is closed; answers are no longer taken")
        if seat in state.eliminated:
            raise IllegalAction(f"seat {seat} is out and can no longer answer")
        if seat not in target.required:
            raise IllegalAction(f"seat {seat} is not asked to answer round {target.number}")
        if action.kind != target.spec.kind:
            raise IllegalAction(f"round {target.number} asks for {_kind_words(target.spec)}, not {action.kind}")
        check_value(state, target.spec, action.value)
        answers = dict(target.answers)
        answers[seat] = action.value
        updated = replace(target, answers=tuple(sorted(answers.items())))
        new = replace(state, rounds=(*state.rounds[:-1], updated))
        return _close(new) if not self.pending(new) else new

    def legal_actions(self, state: CustomState, seat: int) -> Iterator[CustomAction]:
        """A seat's answers to the open round (a sample for free text); the
        host's: resolve, reveals, a sample of rounds and points, eliminations
        and every ending by winner, by points ranking and draw."""
        if state.ending is not None:
            return
        current = state.open_round()
        if seat != HOST:
            if current is None or seat not in self.to_act(state):
                return
            for value in _values(state, current.spec):
                yield Answer(current.number, current.spec.kind, value)
            return
        if current is not None:
            yield Resolve()
        else:
            yield from _sample_rounds(state)
        for past in state.rounds:
            if past.closed and past.reveal == "everyone":
                hidden = [s for s, _ in past.answers if s not in past.revealed]
                if hidden:
                    yield Reveal(past.number)
                yield from (Reveal(past.number, s) for s in hidden)
        for s in range(1, state.seats + 1):
            yield Points(s, 1, "a point")
            yield Points(s, -1, "a point off")
            if s not in state.eliminated:
                yield Eliminate(s)
        yield Announce("The next round starts soon.")
        for s in range(1, state.seats + 1):
            yield End("winner", ((s,),))
        def standing(s: int) -> tuple[bool, int]:
            return (s in state.eliminated, -state.points[s - 1])

        by_points = sorted(range(1, state.seats + 1), key=standing)
        yield End("ranking", tuple(tuple(g) for _, g in itertools.groupby(by_points, standing)))
        yield End("draw")

    def random_action(self, state: CustomState, seat: int, rng: random.Random) -> CustomAction | None:
        """Cheap for seats (number ranges and seat sets can be huge)."""
        current = state.open_round()
        if seat == HOST or current is None or seat not in self.to_act(state) or state.ending is not None:
            return super().random_action(state, seat, rng)
        spec = current.spec
        value: Value
        if spec.kind == "number":
            value = rng.randint(spec.low, spec.high)
        elif spec.kind == "seat":
            value = tuple(sorted(rng.sample(range(1, state.seats + 1), rng.randint(1, state.seats))))
        elif spec.kind == "square":
            value = f"{LETTERS[rng.randrange(spec.columns)]}{rng.randint(1, spec.rows)}"
        else:
            value = rng.choice(spec.choices or TEXT_SAMPLES)
        return Answer(current.number, spec.kind, value)

    def news(self, before: CustomState, after: CustomState, actor: int, action: CustomAction) -> list[str]:
        """A reveal is announced: the round, its prompt and the answers it made public."""
        if not isinstance(action, Reveal):
            return []
        shown = after.rounds[action.round - 1]
        new = [s for s in shown.revealed if s not in before.rounds[action.round - 1].revealed]
        answers = "; ".join(f"seat {s}: {_shown(shown.answer_of(s))}" for s in new)
        return [f"round {shown.number} revealed ({shown.prompt}): {answers}"]

    # -- views ---------------------------------------------------------
    def public_view(self, state: CustomState) -> dict[str, Any]:
        current = state.open_round()
        return {
            "seats": state.seats,
            "in_play": list(state.in_play()),
            "eliminated": list(state.eliminated),
            "points": {str(s): state.points[s - 1] for s in range(1, state.seats + 1)},
            "awards": [{"seat": s, "points": p, "reason": r} for s, p, r in state.awards],
            "announcements": list(state.announcements),
            "open": None if current is None else current.number,
            "rounds": [_public_round(r) for r in state.rounds],
            "ending": None if state.ending is None else {
                "how": state.ending.how, "ranking": [list(g) for g in state.ending.ranking],
                "token": list(state.ending.token), "candidate": list(state.ending.candidate)},
            # what a season reads from a finished bout (as from Back to the Wall's)
            "final": None if state.ending is None else {
                "token_of_life": list(state.ending.token), "elimination_candidate": list(state.ending.candidate)},
        }

    def hidden(self, state: CustomState, seat: int) -> dict[str, Any]:
        if not 1 <= seat <= state.seats:
            return {}
        return {"answers": {str(r.number): _json_value(r.answer_of(seat))
                            for r in state.rounds if seat in dict(r.answers)}}

    # -- storage -------------------------------------------------------
    def dump(self, state: CustomState) -> dict[str, Any]:
        return {
            "seats": state.seats,
            "points": list(state.points),
            "eliminated": list(state.eliminated),
            "awards": [list(a) for a in state.awards],
            "announcements": list(state.announcements),
            "ending": None if state.ending is None else self.format(state.ending),
            "rounds": [{
                "prompt": r.prompt, "spec": format_spec(r.spec), "required": list(r.required),
                "reveal": r.reveal, "closed": r.closed, "revealed": list(r.revealed),
                "answers": [[s, _json_value(v)] for s, v in r.answers], "seconds": r.seconds,
            } for r in state.rounds],
        }

    def load(self, data: Mapping[str, Any]) -> CustomState:
        rounds = []
        for number, raw in enumerate(data["rounds"], start=1):
            spec = parse_action(f'round "x" {raw["spec"]}')
            assert isinstance(spec, OpenRound)
            rounds.append(Round(
                number, str(raw["prompt"]), spec.spec, tuple(int(s) for s in raw["required"]), str(raw["reveal"]),
                tuple((int(s), _from_json(v)) for s, v in raw["answers"]), bool(raw["closed"]),
                tuple(int(s) for s in raw["revealed"]),
                None if raw.get("seconds") is None else int(raw["seconds"])))
        ending = None if data["ending"] is None else parse_action(str(data["ending"]))
        assert ending is None or isinstance(ending, End)
        return CustomState(
            seats=int(data["seats"]), points=tuple(int(p) for p in data["points"]), rounds=tuple(rounds),
            eliminated=tuple(int(s) for s in data["eliminated"]),
            awards=tuple((int(s), int(p), str(r)) for s, p, r in data["awards"]),
            announcements=tuple(str(a) for a in data["announcements"]), ending=ending)


# -- helpers -----------------------------------------------------------------
def check_value(state: CustomState, spec: Spec, value: Value) -> None:
    """IllegalAction unless `value` answers a round of kind `spec`."""
    if spec.kind == "number":
        if not isinstance(value, int) or not spec.low <= value <= spec.high:
            raise IllegalAction(f"{value} is out of range: answer a whole number from {spec.low} to {spec.high}")
    elif spec.kind == "choice":
        if value not in spec.choices:
            raise IllegalAction(f"{value!s} is not one of the choices: {', '.join(spec.choices)}")
    elif spec.kind == "seat":
        if not isinstance(value, tuple) or not value:
            raise IllegalAction("pick one or more seats")
        for s in value:
            if not 1 <= s <= state.seats:
                raise IllegalAction(f"there is no seat {s} in this bout (seats 1 to {state.seats})")
    elif spec.kind == "square":
        column = LETTERS.find(str(value)[:1])
        row = str(value)[1:]
        if column < 0 or column >= spec.columns or not row.isdigit() or not 1 <= int(row) <= spec.rows:
            raise IllegalAction(f"{value} is not on the grid: columns A to {LETTERS[spec.columns - 1]}, "
                                f"rows 1 to {spec.rows}")
    elif not isinstance(value, str) or not 1 <= len(value) <= 500:
        raise IllegalAction("a text answer has 1 to 500 characters")


def _check_seat(state: CustomState, seat: int) -> None:
    if not 1 <= seat <= state.seats:
        raise IllegalAction(f"there is no seat {seat} in this bout (seats 1 to {state.seats})")


def _kind_words(spec: Spec) -> str:
    return {"text": "free text", "number": "a whole number", "choice": "one of its choices",
            "seat": "one or more seats", "square": "a square of its grid"}[spec.kind]


def _open(state: CustomState, action: OpenRound) -> CustomState:
    current = state.open_round()
    if current is not None:
        raise IllegalAction(f"round {current.number} is still open; resolve it before opening another")
    if action.spec.kind not in KINDS or action.reveal not in REVEALS:
        raise IllegalAction(f"not a round definition: {action!r}")
    for s in action.seats:
        _check_seat(state, s)
        if s in state.eliminated:
            raise IllegalAction(f"seat {s} is out and cannot be asked to answer")
    required = action.seats or state.in_play()
    if not required:
        raise IllegalAction("every seat is out: nobody could answer a round")
    number = len(state.rounds) + 1
    return replace(state, rounds=(*state.rounds, Round(number, action.prompt, action.spec, required, action.reveal,
                                                       seconds=action.seconds)))


def _close(state: CustomState) -> CustomState:
    """Close the open round: every required seat without an answer gets None."""
    current = state.open_round()
    assert current is not None
    answers = dict(current.answers)
    for s in current.required:
        answers.setdefault(s, None)
    closed = replace(current, answers=tuple(sorted(answers.items())), closed=True)
    return replace(state, rounds=(*state.rounds[:-1], closed))


def _reveal(state: CustomState, action: Reveal) -> CustomState:
    if not 1 <= action.round <= len(state.rounds):
        raise IllegalAction(f"there is no round {action.round}")
    target = state.rounds[action.round - 1]
    if not target.closed:
        raise IllegalAction(f"round {target.number} is still open; resolve it before revealing")
    if target.reveal != "everyone":
        whose = "the host only" if target.reveal == "host" else "each answer's author only"
        raise IllegalAction(f"round {target.number}'s answers are for {whose} and are never revealed")
    seats = [s for s, _ in target.answers]
    if action.seat is not None and action.seat not in seats:
        raise IllegalAction(f"seat {action.seat} was not asked to answer round {target.number}")
    wanted = seats if action.seat is None else [action.seat]
    if all(s in target.revealed for s in wanted):
        what = f"round {target.number}" if action.seat is None else f"seat {action.seat}'s answer"
        raise IllegalAction(f"{what} is already revealed")
    revealed = tuple(sorted({*target.revealed, *wanted}))
    rounds = list(state.rounds)
    rounds[target.number - 1] = replace(target, revealed=revealed)
    return replace(state, rounds=tuple(rounds))


def _end(state: CustomState, action: End) -> CustomState:
    if action.how not in ("winner", "ranking", "draw"):
        raise IllegalAction(f"not an ending: {action!r}")
    listed = [s for group in action.ranking for s in group]
    for s in (*listed, *action.token, *action.candidate):
        _check_seat(state, s)
    if action.how == "ranking":
        missing = [s for s in range(1, state.seats + 1) if s not in listed]
        if missing:
            raise IllegalAction(f"the ranking leaves out seat {missing[0]}: rank every seat, ties with =")
        place = {s: i for i, group in enumerate(action.ranking) for s in group}
        for out in state.eliminated:
            above = [s for s in state.in_play() if place[s] >= place[out]]
            if above:
                raise IllegalAction(f"seat {out} is out: it ranks below every seat still in, seat {above[0]} too")
    closed = _close(state) if state.open_round() is not None else state
    return replace(closed, ending=action)


def _values(state: CustomState, spec: Spec) -> Iterator[Value]:
    if spec.kind == "number":
        yield from range(spec.low, spec.high + 1)
    elif spec.kind == "choice":
        yield from spec.choices
    elif spec.kind == "seat":
        seats = range(1, state.seats + 1)
        for size in range(1, state.seats + 1):
            yield from itertools.combinations(seats, size)
    elif spec.kind == "square":
        for row in range(1, spec.rows + 1):
            yield from (f"{LETTERS[c]}{row}" for c in range(spec.columns))
    else:
        yield from TEXT_SAMPLES


def _sample_rounds(state: CustomState) -> Iterator[OpenRound]:
    if not state.in_play():
        return
    some = state.in_play()[: max(1, len(state.in_play()) // 2)]
    yield OpenRound("Say something", Spec("text"))
    yield OpenRound("Pick a number", Spec("number", low=1, high=10), some)
    yield OpenRound("Which colour?", Spec("choice", choices=("Red", "Green", "Blue")), reveal="host")
    yield OpenRound("Who is the wolf?", Spec("seat"), reveal="author")
    yield OpenRound("Where is the treasure?", Spec("square", rows=3, columns=4), seconds=60)


def _public_round(r: Round) -> dict[str, Any]:
    return {
        "number": r.number, "prompt": r.prompt, "kind": r.spec.kind, "definition": format_spec(r.spec),
        "required": list(r.required), "reveal": r.reveal, "closed": r.closed, "answered": r.answered(),
        "seconds": r.seconds,
        "revealed": {str(s): _json_value(r.answer_of(s)) for s in r.revealed},
    }


def _shown(value: Value | None) -> str:
    if value is None:
        return "no answer"
    if isinstance(value, tuple):
        return "seats " + ", ".join(str(s) for s in value)
    return str(value)


def _json_value(value: Value | None) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _from_json(value: Any) -> Value | None:
    if isinstance(value, list):
        return tuple(int(s) for s in value)
    return value if value is None or isinstance(value, (int, str)) else str(value)

