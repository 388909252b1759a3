"""The Host's game: actions and their notation (pure Python, no Django).

Every quoted piece of text (a prompt, a choice, a reason, an announcement, a
free-text answer) is a JSON string, so any text, quotes and all, round-trips:
``round "Say \\"hi\\"" text``.  Canonical forms (defaults left out):

    round "Pick a number" number 1-10 seats 1,3,4      host: open a round
    round "Colour?" choice "Red", "Green" reveal host  reveal everyone|host|author
    round "Where?" square 3x4 / seat / text            rows x columns; seats; free text
    round "Quick!" number 1-5 time 60                  a time limit: the round closes after 60 s
    resolve                                            host: close the open round
    reveal round 2 / reveal round 2 seat 3             host: publish answers
    give 3 5 "Best answer" / take 3 2 "Late"           host: points with a reason
    announce "Night falls"                             host: a public line in the log
    eliminate 3                                        host: seat 3 is out
    end winner 2 / end winners 2,5 / end draw          host: the end of the bout
    end ranking 3, 1=2, 4                              best first; `=` ties
    round 2 answer 7                                   seat: a sealed answer to round 2

A seat may type just ``answer 7`` (or ``7``): the open round is filled in from
the state, and the answer is read as that round's kind asks (a number, a
choice by its text or its position, seats ``1,3``, a square ``B3``, or free
text, quoted or not).  The parser checks shape only and raises only
`NotationError`; ranges, seats and rounds are `CustomGame.apply`'s job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from games.core import NotationError

KINDS = ("text", "number", "choice", "seat", "square")
REVEALS = ("everyone", "host", "author")
MAX_SEATS = 16
MAX_PROMPT = 300
MAX_TEXT = 500
MAX_CHOICE = 100
MAX_CHOICES = 26
MAX_GRID = 26
MAX_NUMBER = 10**9
MAX_POINTS = 10**6
#: a round's own time limit: 5 seconds to a day
MIN_TIME, MAX_TIME = 5, 24 * 3600
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: an answer: a number, text (free text, a choice or a square like "B3"), or seats
Value = int | str | tuple[int, ...]


@dataclass(frozen=True)
class Spec:
    """The kind of answer a round asks for and its bounds."""

    kind: str = "text"
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    rows: int = 0
    columns: int = 0


@dataclass(frozen=True)
class OpenRound:
    """Host: open a round.  `seats` () means every seat still in play; `seconds` the
    round's own time limit on the server clock (None: the match's round clock, if any)."""

    prompt: str
    spec: Spec = Spec()
    seats: tuple[int, ...] = ()
    reveal: str = "everyone"
    seconds: int | None = None


@dataclass(frozen=True)
class Answer:
    """A seat's sealed answer to round `round` (kind as the round asks)."""

    round: int
    kind: str
    value: Value


@dataclass(frozen=True)
class Resolve:
    """Host: close the open round now."""


@dataclass(frozen=True)
class Reveal:
    """Host: publish round `round`'s answers (or only `seat`'s)."""

    round: int
    seat: int | None = None


@dataclass(frozen=True)
class Points:
    """Host: give (amount > 0) or take (amount < 0) points with a reason."""

    seat: int
    amount: int
    reason: str


@dataclass(frozen=True)
class Announce:
    """Host: a public announcement."""

    text: str


@dataclass(frozen=True)
class Eliminate:
    """Host: the seat is out."""

    seat: int


@dataclass(frozen=True)
class End:
    """Host: end the bout.  how is "winner" (ranking = (winners,)), "ranking"
    (groups best first, a group of several is a tie) or "draw" (ranking ()).  In a
    season, `token` names who earns a Token of Life, `candidate` the Elimination
    Candidates."""

    how: str
    ranking: tuple[tuple[int, ...], ...] = ()
    token: tuple[int, ...] = ()
    candidate: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        # seats within a place are kept sorted, so ties typed in any order are one action
        object.__setattr__(self, "ranking", tuple(tuple(sorted(group)) for group in self.ranking))
        object.__setattr__(self, "token", tuple(sorted(self.token)))
        object.__setattr__(self, "candidate", tuple(sorted(self.candidate)))


CustomAction = OpenRound | Answer | Resolve | Reveal | Points | Announce | Eliminate | End
HOST_ACTIONS = (OpenRound, Resolve, Reveal, Points, Announce, Eliminate, End)


# -- formatting ------------------------------------------------------------
def quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def format_spec(spec: Spec) -> str:
    if spec.kind == "number":
        return f"number {spec.low}-{spec.high}" if spec.low >= 0 else f"number {spec.low} to {spec.high}"
    if spec.kind == "choice":
        return "choice " + ", ".join(quote(c) for c in spec.choices)
    if spec.kind == "square":
        return f"square {spec.rows}x{spec.columns}"
    return spec.kind


def format_value(kind: str, value: Value) -> str:
    if isinstance(value, tuple):
        return ",".join(str(s) for s in value)
    if isinstance(value, int):
        return str(value)
    return value if kind == "square" else quote(value)


def format_action(action: CustomAction) -> str:
    if isinstance(action, OpenRound):
        text = f"round {quote(action.prompt)} {format_spec(action.spec)}"
        if action.seats:
            text += " seats " + ",".join(str(s) for s in action.seats)
        if action.reveal != "everyone":
            text += f" reveal {action.reveal}"
        if action.seconds is not None:
            text += f" time {action.seconds}"
        return text
    if isinstance(action, Answer):
        return f"round {action.round} answer {format_value(action.kind, action.value)}"
    if isinstance(action, Resolve):
        return "resolve"
    if isinstance(action, Reveal):
        return f"reveal round {action.round}" + ("" if action.seat is None else f" seat {action.seat}")
    if isinstance(action, Points):
        verb = "give" if action.amount > 0 else "take"
        return f"{verb} {action.seat} {abs(action.amount)} {quote(action.reason)}"
    if isinstance(action, Announce):
        return f"announce {quote(action.text)}"
    if isinstance(action, Eliminate):
        return f"eliminate {action.seat}"
    if action.how == "draw":
        text = "end draw"
    elif action.how == "winner":
        winners = action.ranking[0]
        text = f"end winner{'s' if len(winners) > 1 else ''} " + ",".join(str(s) for s in winners)
    else:
        text = "end ranking " + ", ".join("=".join(str(s) for s in group) for group in action.ranking)
    if action.token:
        text += " token " + ",".join(str(s) for s in action.token)
    if action.candidate:
        text += " candidate " + ",".join(str(s) for s in action.candidate)
    return text


# -- tokens ----------------------------------------------------------------
_DECODER = json.JSONDecoder()
_WORD = re.compile(r"[^\s,\"\u201c]+")
OPEN_QUOTES = ('"', "\u201c")  # straight, or the curly quotes phones and word processors type


def tokens(text: str) -> list[str | tuple[str]]:
    """Bare words (str) and quoted strings ((text,)); commas and spaces separate.  A string in
    straight quotes is JSON (the canonical form: `quote`); one in curly quotes (\u201c...\u201d, as
    phones type them) is taken as it is, up to the closing curly quote.  Curly quotes inside a
    straight-quoted string are only text (a prompt may contain them)."""
    out: list[str | tuple[str]] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char.isspace() or char == ",":
            at += 1
        elif char == '"':
            try:
                value, at = _DECODER.raw_decode(text, at)
            except json.JSONDecodeError:
                raise NotationError(f"the quoted text starting {text[at:at + 20]!r} is not closed") from None
            out.append((value,))
        elif char == "\u201c":
            end = text.find("\u201d", at + 1)
            if end < 0:
                raise NotationError(f"the quoted text starting {text[at:at + 20]!r} is not closed")
            out.append((text[at + 1:end],))
            at = end + 1
        else:
            match = _WORD.match(text, at)
            assert match is not None
            out.append(match.group().lower())
            at = match.end()
    return out


def _words(parts: list[str | tuple[str]], what: str) -> list[str]:
    for part in parts:
        if isinstance(part, tuple):
            raise NotationError(f"expected {what}, got the quoted text {quote(part[0])}")
    return [p for p in parts if isinstance(p, str)]


def _text(part: str | tuple[str] | None, what: str, limit: int) -> str:
    if not isinstance(part, tuple):
        raise NotationError(f"expected {what} in double quotes, got {'nothing' if part is None else repr(part)}")
    return check_text(part[0], what, limit)


def check_text(text: str, what: str, limit: int) -> str:
    cleaned = text.strip()
    if not cleaned:
        raise NotationError(f"{what} is empty")
    if len(cleaned) > limit:
        raise NotationError(f"{what} is {len(cleaned)} characters long; the most is {limit}")
    return cleaned


def seat_number(word: str) -> int:
    if not re.fullmatch(r"\d{1,3}", word) or not 1 <= int(word) <= MAX_SEATS:
        raise NotationError(f"expected a seat from 1 to {MAX_SEATS}, got {word!r}")
    return int(word)


def seat_list(words: list[str], what: str) -> tuple[int, ...]:
    seats = [seat_number(w) for w in words if w not in ("and", "&")]
    if not seats:
        raise NotationError(f"expected {what}: seat numbers like 1,3,4")
    if len(set(seats)) != len(seats):
        raise NotationError(f"{what} names a seat twice")
    return tuple(sorted(seats))


def whole(word: str, what: str) -> int:
    if not re.fullmatch(r"[-+]?\d{1,10}", word) or abs(int(word)) > MAX_NUMBER:
        raise NotationError(f"expected a whole number for {what}, got {word!r}")
    return int(word)


# -- parsing ---------------------------------------------------------------
def parse_action(text: str) -> CustomAction:
    """Host actions, and answers that name their round (`round 2 answer 7`)."""
    if not isinstance(text, str):
        raise NotationError("expected text")
    parts = tokens(text.strip().rstrip("."))
    if not parts:
        raise NotationError("expected a Host's game action, got nothing")
    head, rest = parts[0], parts[1:]
    if head == "round" and rest and isinstance(rest[0], str) and rest[0].isdigit():
        return _parse_numbered_answer(text)
    if head == "round":
        return parse_round(rest)
    if head in ("resolve", "close"):
        if rest:
            raise NotationError("resolve takes nothing after it")
        return Resolve()
    if head == "reveal":
        return _parse_reveal(_words(rest, "a round number"))
    if head in ("give", "take"):
        words = _words(rest[:2], "a seat and a number of points")
        if len(words) < 2:
            raise NotationError(f"expected {head} SEAT POINTS \"reason\", like {head} 3 5 \"Best answer\"")
        amount = whole(words[1], "points")
        if not 1 <= amount <= MAX_POINTS:
            raise NotationError(f"points must be from 1 to {MAX_POINTS}, got {amount}")
        reason = _text(rest[2] if len(rest) > 2 else None, "the reason", MAX_CHOICE)
        if len(rest) > 3:
            raise NotationError("put the whole reason in one pair of double quotes")
        return Points(seat_number(words[0]), amount if head == "give" else -amount, reason)
    if head == "announce":
        if len(rest) != 1:
            raise NotationError('expected announce "text", the text in one pair of double quotes')
        return Announce(_text(rest[0], "the announcement", MAX_TEXT))
    if head == "eliminate":
        words = _words(rest, "a seat")
        if len(words) != 1:
            raise NotationError("expected eliminate SEAT, like eliminate 3")
        return Eliminate(seat_number(words[0]))
    if head == "end":
        return _parse_end(_words(rest, "winner, winners, ranking or draw"))
    raise NotationError(f"unknown action {head if isinstance(head, str) else quote(head[0])!r}: expected round, "
                        "resolve, reveal, give, take, announce, eliminate or end")


def parse_round(parts: list[str | tuple[str]]) -> OpenRound:
    prompt = _text(parts[0] if parts else None, "the prompt", MAX_PROMPT)
    rest = parts[1:]
    if not rest or not isinstance(rest[0], str) or rest[0] not in KINDS:
        got = "nothing" if not rest else repr(rest[0] if isinstance(rest[0], str) else rest[0][0])
        raise NotationError(f"expected the kind of answer after the prompt (text, number, choice, seat or square), "
                            f"got {got}")
    kind = rest[0]
    end = next((i for i, p in enumerate(rest) if i and p in _ROUND_WORDS), len(rest))
    spec = _parse_spec(kind, rest[1:end])
    seats: tuple[int, ...] = ()
    reveal = "everyone"
    seconds: int | None = None
    tail = rest[end:]
    while tail:
        word = tail[0]
        stop = next((i for i, p in enumerate(tail) if i and p in _ROUND_WORDS), len(tail))
        args = _words(tail[1:stop], f"what follows {word}")
        if word == "seats":
            seats = () if args == ["all"] else seat_list(args, "the seats that answer")
        elif word == "time":
            seconds = _seconds(args)
        else:
            if len(args) != 1 or args[0] not in (*REVEALS, "all", "authors"):
                raise NotationError("expected reveal everyone, reveal host or reveal author")
            reveal = {"all": "everyone", "authors": "author"}.get(args[0], args[0])
        tail = tail[stop:]
    return OpenRound(prompt, spec, seats, reveal, seconds)


_ROUND_WORDS = ("seats", "reveal", "time")


def _seconds(args: list[str]) -> int:
    text = "".join(args)
    found = re.fullmatch(r"(\d{1,6})(s|sec|secs|seconds?|m|min|mins|minutes?)?", text)
    if not found:
        raise NotationError(f"expected a time limit like time 60 (seconds) or time 2m, got time {' '.join(args)!r}")
    seconds = int(found.group(1)) * (60 if (found.group(2) or "s").startswith("m") else 1)
    if not MIN_TIME <= seconds <= MAX_TIME:
        raise NotationError(f"a round's time limit is {MIN_TIME} seconds to {MAX_TIME // 3600} hours, got {seconds} s")
    return seconds


def _parse_spec(kind: str, parts: list[str | tuple[str]]) -> Spec:
    if kind in ("text", "seat"):
        if parts:
            raise NotationError(f"a {kind} round takes nothing after {kind!r} but seats and reveal")
        return Spec(kind)
    if kind == "choice":
        choices = tuple(check_text(p[0] if isinstance(p, tuple) else p, "a choice", MAX_CHOICE)
                        for p in parts if p != "or")
        if len(choices) < 2:
            raise NotationError('a choice round needs at least two choices, like choice "Red", "Blue"')
        if len(choices) > MAX_CHOICES:
            raise NotationError(f"a choice round has at most {MAX_CHOICES} choices, got {len(choices)}")
        if len({c.lower() for c in choices}) != len(choices):
            raise NotationError("a choice round lists the same choice twice")
        return Spec(kind, choices=choices)
    joined = " ".join(_words(parts, f"the {kind} round's bounds"))
    if kind == "number":
        match = re.fullmatch(r"([-+]?\d{1,10})\s*(?:-|to|\.\.)\s*([-+]?\d{1,10})", joined)
        if not match:
            raise NotationError(f"expected a range like number 1-10, got {('number ' + joined).strip()!r}")
        low, high = whole(match.group(1), "the lowest number"), whole(match.group(2), "the highest number")
        if low > high:
            raise NotationError(f"the range {low} to {high} is empty: put the lower number first")
        return Spec(kind, low=low, high=high)
    match = re.fullmatch(r"(\d{1,3})\s*(?:x|\u00d7|by)\s*(\d{1,3})", joined)
    if not match:
        raise NotationError(f"expected a grid like square 3x4 (rows x columns), got {('square ' + joined).strip()!r}")
    rows, columns = int(match.group(1)), int(match.group(2))
    if not (1 <= rows <= MAX_GRID and 1 <= columns <= MAX_GRID):
        raise NotationError(f"a grid has 1 to {MAX_GRID} rows and columns, got {rows}x{columns}")
    return Spec(kind, rows=rows, columns=columns)


def _parse_reveal(words: list[str]) -> Reveal:
    words = [w for w in words if w not in ("round", "seat", "answer", "of")]
    if len(words) not in (1, 2):
        raise NotationError("expected reveal round N, or reveal round N seat S")
    number = parse_round_number(words[0])
    return Reveal(number, seat_number(words[1]) if len(words) == 2 else None)


def parse_round_number(word: str) -> int:
    if not re.fullmatch(r"\d{1,6}", word) or int(word) < 1:
        raise NotationError(f"expected a round number, got {word!r}")
    return int(word)


def _parse_end(words: list[str]) -> End:
    if not words:
        raise NotationError("expected end winner S, end ranking S, S, ... or end draw")
    extra: dict[str, tuple[int, ...]] = {}
    cut = next((i for i, w in enumerate(words) if w in ("token", "candidate", "candidates")), len(words))
    tail = words[cut:]
    words = words[:cut]
    while tail:  # token 2 / candidate 1,4: a season's Token of Life and Elimination Candidates
        key = "token" if tail[0] == "token" else "candidate"
        stop = next((i for i, w in enumerate(tail) if i and w in ("token", "candidate", "candidates")), len(tail))
        if key in extra:
            raise NotationError(f"the ending names {key} twice")
        extra[key] = seat_list(tail[1:stop], "the Token of Life" if key == "token" else "the Elimination Candidates")
        tail = tail[stop:]
    if not words:
        raise NotationError("expected end winner S, end ranking S, S, ... or end draw")
    return replace(_parse_how(words), token=extra.get("token", ()), candidate=extra.get("candidate", ()))


def _parse_how(words: list[str]) -> End:
    how, rest = words[0], words[1:]
    if how == "draw" and not rest:
        return End("draw")
    if how in ("winner", "winners"):
        return End("winner", (seat_list(rest, "the winners"),))
    if how == "ranking":
        groups = tuple(seat_list([w for w in word.split("=") if w], "a place in the ranking")
                       for word in " ".join(rest).replace(" = ", "=").split())
        flat = [s for g in groups for s in g]
        if not groups:
            raise NotationError("expected the ranking best first, like end ranking 3, 1=2, 4")
        if len(set(flat)) != len(flat):
            raise NotationError("the ranking names a seat twice")
        return End("ranking", groups)
    raise NotationError(f"expected end winner, end ranking or end draw, got end {' '.join(words)!r}")


def _parse_numbered_answer(text: str) -> Answer:
    match = re.fullmatch(r"\s*round\s+(\S+)\s+answer\b(.*)", text, flags=re.S | re.I)
    if not match:
        raise NotationError("expected round N answer ..., like round 2 answer 7")
    return Answer(parse_round_number(match.group(1)), "", match.group(2))


def parse_value(spec: Spec, text: str) -> Value:
    """An answer's text read as `spec` asks (shape only: apply checks ranges)."""
    raw = text.strip()
    if spec.kind == "text":
        if raw.startswith(OPEN_QUOTES):
            parts = tokens(raw)
            if len(parts) != 1:
                raise NotationError("put the whole answer in one pair of double quotes")
            return check_text(_text(parts[0], "the answer", MAX_TEXT), "the answer", MAX_TEXT)
        return check_text(raw, "the answer", MAX_TEXT)
    if not raw.startswith(OPEN_QUOTES):
        raw = raw.rstrip(".").strip()  # a full stop ends a sentence, not an answer
    parts = tokens(raw)
    if not parts:
        raise NotationError("the answer is empty")
    if spec.kind == "choice":
        if raw.startswith(OPEN_QUOTES) and len(parts) != 1:
            raise NotationError("put the whole choice in one pair of double quotes")
        part = parts[0]
        if isinstance(part, str) and re.fullmatch(r"\d{1,3}", raw) and 1 <= int(raw) <= len(spec.choices):
            return spec.choices[int(raw) - 1]
        word = part[0] if isinstance(part, tuple) else raw
        return next((c for c in spec.choices if c.lower() == word.strip().lower()), word.strip())
    words = _words(parts, "an answer without quotes")
    if spec.kind == "number":
        if len(words) != 1:
            raise NotationError(f"expected one whole number, got {raw!r}")
        return whole(words[0], "the answer")
    if spec.kind == "seat":
        return seat_list([w for w in words if w != "seats"], "the seats you pick")
    if len(words) != 1 or not re.fullmatch(r"[a-z]\d{1,2}", words[0]):
        raise NotationError(f"expected a square like B3 (column letter, row number), got {raw!r}")
    return words[0].upper()
