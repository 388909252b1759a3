"""The "host a match" form: games, their options, seats, format and clock.

The options of each game come from `default_options` (typed by their default
value), so a new game shows up here without touching this file.
"""

from __future__ import annotations

import json
import math
from typing import Any

from games.registry import get_game, slugs

from .formats import default_format

MAX_SEATS = 4
#: options that are better picked from a list than typed
CHOICES: dict[tuple[str, str], list[str]] = {
    ("lance-assembly", "variant"): ["lance-assembly", "sliding-tic-tac-toe"],
}


class CreateError(ValueError):
    """The form makes no sense; the message is shown to the host."""


def games() -> list[dict[str, Any]]:
    """What the home page needs to know about every registered game."""
    out = []
    for slug in slugs():
        try:
            game = get_game(slug)
        except Exception:  # a game still being written must not break the home page
            continue
        fmt = default_format(slug, game.default_options)
        out.append(
            {
                "slug": slug,
                "name": game.name,
                "seats": game.seats,
                "format": fmt,
                "clock": fmt.get("clock") or {},
                "sealed": game.sealed,
                "options": [_option(slug, key, value) for key, value in game.default_options.items()
                            if key != "starting_seat"],
            }
        )
    return out


def _option(slug: str, key: str, value: Any) -> dict[str, Any]:
    kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else (
        "str" if isinstance(value, str) else "json")
    return {
        "key": key,
        "label": key.replace("_", " ").capitalize(),
        "kind": kind,
        "value": value,
        "text": json.dumps(value) if kind == "json" else ("" if value is None else str(value)),
        "choices": [{"value": c, "clock": (default_format(slug, {key: c}).get("clock") or {})}
                    for c in CHOICES.get((slug, key), [])],
    }


def parse_create(data: Any) -> dict[str, Any]:
    """POST data -> keyword arguments of `services.create_match` (CreateError if wrong)."""
    slug = str(data.get("game", ""))
    if slug not in slugs():
        raise CreateError("choose a game from the list")
    try:
        game = get_game(slug)
    except Exception:
        raise CreateError("that game is not available yet") from None
    options: dict[str, Any] = {}
    for key, default in game.default_options.items():
        if key == "starting_seat":
            continue
        field = f"opt-{slug}-{key}"
        if isinstance(default, bool):
            options[key] = field in data
        elif field in data:
            options[key] = _coerce(key, default, str(data.get(field, "")).strip())
    names = []
    for n in range(1, game.seats + 1):
        name = str(data.get(f"seat{n}", "")).strip()[:80]
        names.append(name or f"Player {n}")
    kwargs: dict[str, Any] = {"seat_names": names, "options": options}
    kwargs["bouts"] = _int(data.get("bouts"), "number of bouts", minimum=1, maximum=99)
    starting = _int(data.get("starting_seat"), "starting seat", minimum=1, maximum=game.seats)
    if starting is not None:
        kwargs["starting_seat"] = starting
    per_move = _number(data.get("per_move"), "per-move time")
    reserve = _number(data.get("reserve"), "reserve")
    round_seconds = _number(data.get("round_seconds"), "round deadline")
    if not any(key in data for key in ("per_move", "reserve", "round_seconds")):
        pass  # the game's default clock
    elif per_move is None and reserve is None and round_seconds is None:
        kwargs["clock"] = False
    else:
        kwargs["clock"] = {
            "per_move": per_move,
            "reserve": reserve,
            "round_seconds": round_seconds,
            "refill": "refill" in data,
        }
    return {"game_slug": slug, **kwargs}


def _coerce(key: str, default: Any, text: str) -> Any:
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise CreateError(f"option {key} must be a whole number") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise CreateError(f"option {key} must be a number") from None
    if isinstance(default, str) or default is None:
        return text if text or default is not None else None
    try:
        return json.loads(text)
    except ValueError:
        raise CreateError(f"option {key} must be written as JSON, like {json.dumps(default)}") from None


def _int(value: Any, label: str, *, minimum: int, maximum: int) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(str(value))
    except ValueError:
        raise CreateError(f"the {label} must be a whole number") from None
    if not minimum <= number <= maximum:
        raise CreateError(f"the {label} must be between {minimum} and {maximum}")
    return number


def _number(value: Any, label: str) -> float | None:
    if value in (None, ""):
        return None
    try:
        number = float(str(value))
    except ValueError:
        raise CreateError(f"the {label} must be a number of seconds") from None
    if not math.isfinite(number):
        raise CreateError(f"the {label} must be a number of seconds")
    if number < 0:
        raise CreateError(f"the {label} cannot be negative")
    return number
