"""Match formats: how many bouts, who starts, and the clock, per game.

Each game's default is its `Game.default_format` (its rules' bouts and clock), with the clock
changes of the variant the match options name (`Game.variants`); the host may override any key when creating a
match.  A format is a JSON dict stored on `Match.format`:

    bouts              N: the match is first to ceil(N/2) bouts won (or N played)
    alternate          the starting seat moves on by one every bout
    stalemate_replays  a stalemated bout is replayed with the same starter and
                       does not count toward N
    forfeit            "bout" | "match": what a host forfeit loses
    away_alert         M: the host is alerted when a seat has had no page open for M seconds
                       (absent: never; with or without a clock)
    answers            "opponent" | "host": who answers a seat's draw offer or takeback
                       request: the other seat (the host may overrule), or the host alone
                       (a new match: the game's `offer_answerer` for its seat count unless the
                       host chose; absent, in a match older than the option: the host)
    clock              {per_move, reserve, refill, on_timeout, round_seconds}
                       or None (no clock)

Clock keys: `per_move` seconds per turn (None: no allowance); `reserve`
seconds (None with no per_move: no clock); time over per_move comes out of
the reserve; `refill` resets the reserve at every bout (else it carries
over); `on_timeout` "bout" | "match" is what running out loses; `bank`
is shorthand for {per_move: None, reserve: bank, refill: False}; `lag_compensation`
False charges every seat the server's own measure of its moves (on when absent: play/lag.py);
`away_pause` N pauses the clocks when the seat to act has had no page open for N seconds, for at
most `away_budget` seconds a seat a bout in all (AWAY_BUDGET when absent): past it its clock runs.  Sealed
games use `round_seconds` instead: a deadline for the whole round, after
which the round is resolved as if the host applied "resolve".
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from games.registry import get_game

CLOCK_KEYS = {"per_move", "reserve", "refill", "on_timeout", "round_seconds", "bank", "lag_compensation",
              "away_pause", "away_budget"}
#: `practice`: a match against the computer (matches/web/practice.py), which nobody hosts: its host
#: page exists, but no person holds its link, so the pages never point a player to the host
FORMAT_KEYS = {"bouts", "alternate", "stalemate_replays", "forfeit", "clock", "auto_next_bout", "away_alert",
               "answers", "practice"}

#: who answers a seat's draw offer or takeback request (`answers`): the other seat, and the host
#: may overrule; or the host alone
OPPONENT, HOST_ANSWERS = "opponent", "host"

#: `away_budget` when the host sets none: two minutes a seat a bout
AWAY_BUDGET = 120.0


#: The longest clock setting (a week): timedelta and the database overflow
#: long before 1e15 seconds, and no death match waits longer.
MAX_SECONDS = 7 * 24 * 3600
#: The least a move's allowance and a sealed round's deadline may be: a clock shorter than a round
#: trip over the network is no clock (the host's form and Discord's /deathmatch new both refuse less).
#: A reserve may be 0 (every second over the allowance loses).
MIN_SECONDS: dict[str, float] = {"per_move": 1, "round_seconds": 1}
#: The most bouts a match may have (the host's form and /deathmatch new offer no more).
MAX_BOUTS = 99


class FormatError(ValueError):
    """A format the host asked for makes no sense (message shown to the host)."""


def default_format(game_slug: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The default format of `game_slug`, as its rules set it (with the variant in `options`)."""
    game = get_game(game_slug)
    fmt = copy.deepcopy(dict(game.default_format))
    variant = (options or {}).get("variant")
    if isinstance(variant, str):
        found = game.variants.get(variant.strip().lower())
        if found is not None and found.clock and fmt["clock"]:
            fmt["clock"].update(found.clock)
    return fmt


def build_format(
    game_slug: str,
    options: Mapping[str, Any] | None = None,
    *,
    bouts: int | None = None,
    clock: Mapping[str, Any] | bool | None = True,
    **overrides: Any,
) -> dict[str, Any]:
    """The default format with the host's changes.  `clock=True` keeps the
    default clock, `None`/`False` turns it off, a dict changes some keys."""
    fmt = default_format(game_slug, options)
    for key, value in overrides.items():
        if key not in FORMAT_KEYS - {"clock", "bouts"}:
            raise FormatError(f"there is no match setting called {key!r}")
        fmt[key] = value
    if bouts is not None:
        if int(bouts) < 1:
            raise FormatError("a match needs at least one bout")
        if int(bouts) > MAX_BOUTS:
            raise FormatError(f"a match has at most {MAX_BOUTS} bouts")
        fmt["bouts"] = int(bouts)
    if clock is None or clock is False:
        fmt["clock"] = None
    elif clock is not True:
        fmt["clock"] = normalise_clock(clock, fmt["clock"])
    if fmt["forfeit"] not in ("bout", "match"):
        raise FormatError("a forfeit loses either the bout or the match")
    if fmt.get("away_alert") in ("", None):
        fmt.pop("away_alert", None)
    else:
        fmt["away_alert"] = _seconds(fmt["away_alert"], "the time away before the host is alerted")
    return fmt


def _seconds(value: Any, label: str) -> float:
    """A positive number of seconds, at most MAX_SECONDS."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise FormatError(f"{label} must be a number of seconds") from None
    if not math.isfinite(number) or number > MAX_SECONDS:
        raise FormatError(f"{label} must be at most {MAX_SECONDS} seconds (a week)")
    if number <= 0:
        raise FormatError(f"{label} must be more than 0 seconds")
    return number


def normalise_clock(clock: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    unknown = set(clock) - CLOCK_KEYS
    if unknown:
        raise FormatError(f"there is no clock setting called {sorted(unknown)[0]!r}")
    out: dict[str, Any] = {"per_move": None, "reserve": None, "refill": True, "on_timeout": "bout", "round_seconds": None}
    out.update(base or {})
    out.update({k: v for k, v in clock.items() if k != "bank"})
    if clock.get("bank") is not None:
        out.update(per_move=None, reserve=clock["bank"], refill=False)
    away_keys = []
    for key in ("away_pause", "away_budget"):  # absent unless set: old formats stay as they were
        if out.get(key) in ("", None):
            out.pop(key, None)
        else:
            away_keys.append(key)
    for key in ("per_move", "reserve", "round_seconds", *away_keys):
        value = out[key]
        if value in ("", None):
            out[key] = None
            continue
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            raise FormatError(f"the clock setting {key} must be a number of seconds") from None
        if not math.isfinite(out[key]) or out[key] > MAX_SECONDS:
            raise FormatError(f"the clock setting {key} must be at most {MAX_SECONDS} seconds (a week)")
        if out[key] < 0 or (key != "reserve" and out[key] == 0):
            raise FormatError(f"the clock setting {key} must be a positive number of seconds")
        if out[key] < MIN_SECONDS.get(key, 0.0):
            raise FormatError(f"the clock setting {key} must be at least {MIN_SECONDS[key]:g} s")
    if out["on_timeout"] not in ("bout", "match"):
        raise FormatError("running out of time loses either the bout or the match")
    out["refill"] = bool(out["refill"])
    if "lag_compensation" in out:
        out["lag_compensation"] = bool(out["lag_compensation"])
    if out["per_move"] is None and out["reserve"] is None and out["round_seconds"] is None:
        return None
    return out


def has_seat_clock(fmt: Mapping[str, Any]) -> bool:
    clock = fmt.get("clock")
    if not clock:
        return False
    return clock.get("per_move") is not None or clock.get("reserve") is not None


def lag_compensation(fmt: Mapping[str, Any]) -> bool:
    """Whether seats' clocks give back network lag (play/lag.py); on unless the host turned it off."""
    return bool((fmt.get("clock") or {}).get("lag_compensation", True))


def away_pause(fmt: Mapping[str, Any]) -> float | None:
    """Seconds the seat to act may have no page open before the clocks pause (None: never)."""
    value = (fmt.get("clock") or {}).get("away_pause")
    return None if value is None else float(value)


def away_budget(fmt: Mapping[str, Any]) -> float:
    """Seconds in all a seat's away pauses may hold the clocks in one bout (issue 37): past them, its
    clock runs and times out as usual.  Matches created before the option get the default too."""
    value = (fmt.get("clock") or {}).get("away_budget")
    return AWAY_BUDGET if value is None else float(value)


def settle_answers(game: Any, seat_count: int, chosen: Any) -> str:
    """The `answers` of a new match: `chosen` ("" or None: the game's default for the seat count),
    refused when it cannot work (FormatError)."""
    if chosen in ("", None):
        return str(game.offer_answerer(seat_count))
    if chosen not in (OPPONENT, HOST_ANSWERS):
        raise FormatError("draw offers and takeback requests are answered by the opponent or by the host")
    if chosen == OPPONENT and not game.seat_offers:
        raise FormatError(f"{game.name} has no draw offers or takebacks for seats: there is nothing to answer")
    if chosen == OPPONENT and seat_count != 2:
        raise FormatError(f"the opponent answers only in a match of two seats, not {seat_count}: "
                          "with more, the host answers")
    return str(chosen)


def answers(fmt: Mapping[str, Any]) -> str:
    """Who answers a draw offer or takeback request in a match of this format.  A new match always
    has the key (`settle_answers`); one created before the option keeps the host answering, as it
    started: its open requests carry no id a seat's answer could name."""
    found = fmt.get("answers")
    return str(found) if found in (OPPONENT, HOST_ANSWERS) else HOST_ANSWERS


def away_alert(fmt: Mapping[str, Any]) -> float | None:
    """Seconds a seat may have no page open before the host is alerted (None: never)."""
    value = fmt.get("away_alert")
    return None if value is None else float(value)


def round_seconds(fmt: Mapping[str, Any]) -> float | None:
    clock = fmt.get("clock")
    return None if not clock else clock.get("round_seconds")
