"""Bidding 3D Tic-Tac-Toe actions and their notation (pure Python, no Django).

A submission is a sealed set of bids, canonical ``A1 3; E5 2`` (tile, chips),
sorted by tile; ``pass`` is an empty submission and ``resolve`` the host's
closing of a round.  The parser also reads natural phrasings ("E5 - 2 chips",
"bid 2 on E5", "E5 x2") and raises only `NotationError`; whether the bids are
legal is `BiddingTTT.apply`'s job (`check_bids`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.core import IllegalAction, NotationError
from games.core.notation import normalize

BOARDS = "ABCDEFGHI"
TILE_NAMES: tuple[str, ...] = tuple(f"{BOARDS[i // 9]}{i % 9 + 1}" for i in range(81))
_TILE_INDEX = {name: i for i, name in enumerate(TILE_NAMES)}

#: a submission: (tile index 0-80, chips) pairs, sorted by tile
Bids = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Submit:
    """A sealed bid set (empty = pass).  Bids are kept sorted by tile."""

    bids: Bids = ()

    def __post_init__(self) -> None:
        for tile, _ in self.bids:
            if not 0 <= tile < 81:
                raise IllegalAction(f"there is no tile number {tile} (tiles are 0-80, A1-I9)")
        object.__setattr__(self, "bids", tuple(sorted(self.bids)))


@dataclass(frozen=True)
class Resolve:
    """Host only: close the round now."""


BiddingAction = Submit | Resolve


def tile_index(name: str) -> int:
    try:
        return _TILE_INDEX[name.strip().upper()]
    except KeyError:
        raise NotationError(f"expected a tile from A1 to I9 (board A-I, tile 1-9), got {name.strip().upper()!r}") from None


def format_action(action: BiddingAction) -> str:
    if isinstance(action, Resolve):
        return "resolve"
    if not action.bids:
        return "pass"
    return "; ".join(f"{TILE_NAMES[t]} {c}" for t, c in action.bids)


_TOKEN_RE = re.compile(r"[a-z]+[0-9]*|[0-9]+|\S")
_TILE_RE = re.compile(r"[a-z][0-9]+")
_TIMES_RE = re.compile(r"x[0-9]{1,6}")
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}
_FILLER = frozenset({
    "i", "a", "an", "bid", "bids", "bidding", "bet", "bets", "wager", "place", "put", "spend",
    "spending", "on", "in", "at", "tile", "tiles", "space", "spaces", "square", "squares", "chip",
    "chips", "for", "with", "of", "and", "then", "my", "the", "to", "will", "also", "plus", "x",
    "ll", "want", "would", "like", "please", "offer",
    "-", ":", ",", ";", "=", "&", "+", "@", "(", ")", "'", '"', "/", "|",
})
_PASS_WORDS = frozenset({"pass", "passes", "nothing", "none", "no", "empty", "skip"})
_RESOLVE_WORDS = frozenset({"resolve", "close", "end", "round", "the", "now"})
_EXPECTED = "expected bids like 'A1 3; E5 2' (tile, chips), or 'pass'"


def parse_action(text: str) -> BiddingAction:
    """'A1 3; E5 2', 'E5 - 2 chips', 'bid 2 on E5', 'pass', 'resolve' -> an action."""
    cleaned = normalize(text)
    if not cleaned:
        raise NotationError(f"{_EXPECTED}, got nothing")
    raw = _TOKEN_RE.findall(cleaned)
    words = [t for t in raw if t not in _FILLER]
    if words and set(words) <= _RESOLVE_WORDS and set(words) & {"resolve", "close", "end"}:
        return Resolve()
    if words and set(words) <= _PASS_WORDS:
        return Submit(())
    if not words:
        raise NotationError(f"{_EXPECTED}, got {text.strip()!r}")
    tokens: list[tuple[str, int]] = []  # ("tile", index) or ("chips", n)
    for word in words:
        if word.isdigit() and word.isascii():
            if len(word) > 6:
                raise NotationError(f"expected a number of chips, got {word!r}")
            tokens.append(("chips", int(word)))
        elif word in _NUMBER_WORDS:
            tokens.append(("chips", _NUMBER_WORDS[word]))
        elif _TIMES_RE.fullmatch(word):  # "E5 x2"
            tokens.append(("chips", int(word[1:])))
        elif _TILE_RE.fullmatch(word):
            tokens.append(("tile", tile_index(word)))
        else:
            raise NotationError(f"could not read {word!r}: {_EXPECTED}")
    if len(tokens) % 2:
        if tokens[-1][0] == "tile":
            raise NotationError(f"expected a number of chips for {TILE_NAMES[tokens[-1][1]]}")
        raise NotationError(f"each bid needs one tile and one number of chips: {_EXPECTED}")
    bids: list[tuple[int, int]] = []
    for (kind_a, a), (kind_b, b) in zip(tokens[::2], tokens[1::2], strict=True):
        if kind_a == kind_b:
            what = "tiles" if kind_a == "tile" else "numbers"
            raise NotationError(f"two {what} in a row: each bid needs one tile and one number of chips")
        bids.append((a, b) if kind_a == "tile" else (b, a))
    return Submit(tuple(bids))
