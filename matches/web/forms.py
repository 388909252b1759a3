"""The "host a match" form: games, their options, seats, format and clock.

The options of each game come from `default_options` (typed by their default
value, or as its page's `option_fields` say), its description and variants from
its own objects, so a new game shows up here without touching this file.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest

from games.core import RuleError
from games.registry import get_game, get_page, slugs
from matches.core import formats
from matches.core.formats import default_format
from matches.play.bots import STRENGTHS
from matches.seasons.ledger import PAGE_KEY

#: who plays a seat from the start: a person, or the computer at one of its strengths
SEAT_PLAYERS = [("", "a person"), *((s, f"the computer, {s}") for s in STRENGTHS)]

#: seat name fields on the form: the host's game seats up to 16 (its "seats" option)
MAX_SEATS = 16
#: the chat options of the form: value -> (stored value, words); the moderation panel changes them later
CHAT_TABLE: dict[str, tuple[bool | None, str]] = {
    "": (None, "as usual: on for 2 players, off for more"),
    "on": (True, "on"),
    "off": (False, "off"),
}
CHAT_SPECTATORS: dict[str, str] = {
    "on": "on",
    "delayed": "on, shown to players after the match",
    "off": "off",
}

#: who answers a seat's draw offer or takeback request (the format's `answers`): value -> words
ANSWERS: dict[str, str] = {
    "": "as usual: the opponent in a 2-player game (you may overrule), else you",
    formats.OPPONENT: "the opponent, and you may overrule",
    formats.HOST_ANSWERS: "you, the host",
}


class CreateError(ValueError):
    """The form makes no sense; the message is shown to the host.  `field` names
    the form field to mark (its name attribute), or "" for the whole form."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


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
                "description": get_page(slug).description,
                "seats": game.seats,
                # the host's game takes its seat count as an option: the form follows that field
                "seats_field": f"opt-{slug}-seats" if "seats" in game.default_options else "",
                "format": fmt,
                "clock": fmt.get("clock") or {},
                "sealed": game.sealed,
                # whether the host's choice of starting seat reaches the rules (Game.takes_starting_seat)
                "starts": bool(game.takes_starting_seat),
                "options": [_option(slug, key, value) for key, value in game.default_options.items()
                            if key != "starting_seat"],
            }
        )
    return out


def seats_shown(slug: str, posted: Mapping[str, str] | None) -> int:
    """How many seat rows the home form shows for `slug`, as home.js counts them: the game's seats,
    or for the host's game its "seats" option (what the host typed, else the default) within 2 and
    its most.  The page is drawn so from the start: nothing moves when the script takes over."""
    try:
        game = get_game(slug)
    except KeyError:
        return 2
    if "seats" not in game.default_options:
        return game.seats
    typed = posted.get(f"opt-{slug}-seats", "") if posted is not None else str(game.default_options["seats"])
    try:
        wanted = int(typed)
    except ValueError:
        return 2
    return max(2, min(game.seats, wanted))


def _field_kind(slug: str, key: str) -> str:
    """"per_seat" or "boards" when the game's page shows the option so, else ""."""
    found = get_page(slug).option_fields.get(key)
    return found.kind if found is not None else ""


def _option(slug: str, key: str, value: Any) -> dict[str, Any]:
    kind = _field_kind(slug, key) or ("bool" if isinstance(value, bool) else "int" if isinstance(value, int) else (
        "str" if isinstance(value, str) else "json"))
    # a game's named variants are picked from a list, each with its clock
    variants = get_game(slug).variants if key == "variant" else {}
    out = {
        "key": key,
        "field": f"opt-{slug}-{key}",
        "label": key.replace("_", " ").capitalize(),
        "kind": kind,
        "value": value,
        "text": json.dumps(value) if kind == "json" else ("" if value is None else str(value)),
        "choices": [{"value": c, "name": variant.name, "description": variant.description,
                     "clock": (default_format(slug, {key: c}).get("clock") or {})}
                    for c, variant in variants.items()],
    }
    if kind == "per_seat":
        out["seats"] = [{"n": n, "name": f"opt-{slug}-{key}-{n}"} for n in range(1, get_game(slug).seats + 1)]
        out["hint"] = get_page(slug).option_fields[key].hint
    if kind == "boards":
        out["boards"] = board_specs(slug, key, value)
        out["hint"] = get_page(slug).option_fields[key].hint  # how the game's editor is used, in its words
    return out


def board_specs(slug: str, key: str, value: Any) -> list[dict[str, Any]]:
    """A board editor's boards (the game page's `boards`: name, title, size, walls, the sizes
    allowed) with the names of their form fields."""
    return [{**spec, "size_field": f"opt-{slug}-{key}-{spec['name']}-size",
             "walls_field": f"opt-{slug}-{key}-{spec['name']}-walls"}
            for spec in get_page(slug).boards(value)]


def check_board(slug: str, board: str, size: Any, walls: Any) -> dict[str, Any]:
    """One board of the editor checked by the game's own rules (its page's `check_board`):
    {ok, error, size, walls, corners {square: seat}}.  With `walls` None the
    board gets the game's default walls for that size.  No `slug`: the first game with a board editor."""
    slug = slug or next((s for s in slugs() if any(f.kind == "boards" for f in get_page(s).option_fields.values())), "")
    game, page = get_game(slug), get_page(slug)
    key = next((k for k, f in page.option_fields.items() if f.kind == "boards"), None)
    if key is None or board not in [b["name"] for b in page.boards(game.default_options.get(key))]:
        raise CreateError("there is no such board")
    number = _int(size, "board size", minimum=1, maximum=99, field="size")
    return page.check_board(game, board, number, None if walls is None else _squares(str(walls)))


def _squares(text: str) -> list[str]:
    return [part.strip().upper() for part in text.replace(";", ",").replace(" ", ",").split(",") if part.strip()]


def parse_create(data: Any) -> dict[str, Any]:
    """POST data -> keyword arguments of `services.create_match`, and "computer": {seat: strength}
    for the seats a bot plays from the start (CreateError if wrong)."""
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
        kind = _field_kind(slug, key)
        if kind == "per_seat":
            options[key] = _per_seat(data, field, key, game.seats)
        elif kind == "boards":
            options[key] = _boards(data, field, key, slug, game, default)
        elif isinstance(default, bool):
            options[key] = field in data
        elif field in data:
            options[key] = _coerce(key, default, str(data.get(field, "")).strip(), field)
    try:
        count = game.seat_count(options)
    except RuleError as exc:
        raise CreateError(str(exc), field=f"opt-{slug}-seats") from None
    if "seats" in game.default_options:  # a seat count the host chooses: the names typed decide it
        count = options["seats"] = _named_seats(data, count, game.seats)
    names: list[str] = []
    for n in range(1, count + 1):
        name = str(data.get(f"seat{n}", "")).strip()[:80] or f"Player {n}"
        same = next((i for i, other in enumerate(names, start=1) if other.casefold() == name.casefold()), None)
        if same is not None:  # the pages, the log and the results tell seats apart by name
            raise CreateError(f"seat {same} and seat {n} are both called {name!r}: give each seat its own name",
                              f"seat{n}")
        names.append(name)
    kwargs: dict[str, Any] = {"seat_names": names, "options": options, "computer": _computer(data, count)}
    answers = str(data.get("answers", ""))
    try:  # issue 41: the opponent answers in a 2-player game unless the host says otherwise
        formats.settle_answers(game, count, answers if answers in ANSWERS else "?")
    except formats.FormatError as exc:
        raise CreateError(str(exc), field="answers") from None
    if answers:
        kwargs["answers"] = answers
    kwargs["bouts"] = _int(data.get("bouts"), "number of bouts", minimum=1, maximum=formats.MAX_BOUTS, field="bouts")
    starting = _int(data.get("starting_seat"), "starting seat", minimum=1, maximum=count, field="starting_seat")
    if starting is not None and game.takes_starting_seat:  # (the rules fix the first mover otherwise)
        kwargs["starting_seat"] = starting
    per_move = _number(data.get("per_move"), "per-move time", "per_move")
    reserve = _number(data.get("reserve"), "reserve", "reserve")
    round_seconds = _number(data.get("round_seconds"), "round deadline", "round_seconds")
    for key, label, value in (("per_move", "per-move time", per_move), ("round_seconds", "round deadline",
                                                                         round_seconds)):
        if value is not None and 0 < value < formats.MIN_SECONDS[key]:  # (0 or empty: no such clock)
            raise CreateError(f"the {label} must be at least {formats.MIN_SECONDS[key]:g} s", field=key)
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
    if "no_lag_comp" in data and kwargs.get("clock") is not False:  # issue 26: compensation is on by default
        kwargs["clock"] = {**(kwargs.get("clock") or {}), "lag_compensation": False}
    away = _number(data.get("away_pause"), "time away before the clocks pause", "away_pause")
    if away is not None and kwargs.get("clock") is not False:
        kwargs["clock"] = {**(kwargs.get("clock") or {}), "away_pause": away}
    budget = _number(data.get("away_budget"), "away time per bout", "away_budget")
    if budget is not None:  # issue 37: how long, in all, the away pauses may hold a seat's clock a bout
        if away is None:
            raise CreateError("the away time per bout is how long the clocks may stay paused for a player away: "
                              "set the time away before the clocks pause too, or leave it empty", field="away_budget")
        if budget == 0:
            raise CreateError("the away time per bout must be more than 0 seconds (leave the pause empty for none)",
                              field="away_budget")
        if budget > formats.MAX_SECONDS:
            raise CreateError(f"the away time per bout must be at most {formats.MAX_SECONDS} seconds (a week)",
                              field="away_budget")
        if kwargs.get("clock") is not False:
            kwargs["clock"] = {**(kwargs.get("clock") or {}), "away_budget": budget}
    table = str(data.get("chat_table", ""))
    if table not in CHAT_TABLE:
        raise CreateError(f"the players' table is on, off, or as usual (on for 2 players), not {table[:40]!r}",
                          "chat_table")
    spectators = str(data.get("chat_spectators", "on"))
    if spectators not in CHAT_SPECTATORS:
        raise CreateError("the spectators' room is on, off, or shown to players when the match ends, "
                          f"not {spectators[:40]!r}", "chat_spectators")
    kwargs["chat_table"], kwargs["chat_spectators"] = CHAT_TABLE[table][0], spectators
    alert = _number(data.get("away_alert"), "time away before you are alerted", "away_alert")
    if alert is not None:  # issue 26: works without a clock too
        if alert == 0:
            raise CreateError("the time away before you are alerted must be more than 0 seconds", field="away_alert")
        if alert > formats.MAX_SECONDS:
            raise CreateError(f"the time away before you are alerted must be at most {formats.MAX_SECONDS} seconds "
                              "(a week)", field="away_alert")
        kwargs["away_alert"] = alert
    return {"game_slug": slug, **kwargs}


def _named_seats(data: Any, count: int, most: int) -> int:
    """The seat count of a game that takes it as an option (the host's game): as on BGA, the
    players the host names make the table, so two names are two seats whatever the count field
    says; it counts only the seats when no name is typed.  A seat is named by its name or by the
    computer playing it; an unnamed seat before the last named one stays ("Player 2")."""
    named = [n for n in range(1, min(most, MAX_SEATS) + 1)
             if str(data.get(f"seat{n}", "")).strip() or str(data.get(f"bot{n}", "")).strip()]
    if not named:
        return count
    if max(named) < 2:
        raise CreateError("you named one player: name every player (at least two), "
                          "or leave the names empty for as many unnamed seats as the seat count says", "seat2")
    return max(named)


def _computer(data: Any, count: int) -> dict[int, str]:
    """The seats the computer plays from the start ("played by" on each seat: a person, or the
    computer at a strength) -> {seat: strength}.  The host may change them later on the dashboard."""
    out: dict[int, str] = {}
    for n in range(1, count + 1):
        strength = str(data.get(f"bot{n}", "")).strip().lower()
        if strength and strength not in STRENGTHS:
            raise CreateError(f"seat {n} is played by a person or by the computer (easy, normal or strong), "
                              f"not {strength[:40]!r}", f"bot{n}")
        if strength:
            out[n] = strength
    return out


def _per_seat(data: Any, field: str, key: str, seats: int) -> dict[str, int]:
    """One whole-number field per seat (`<field>-<seat>`) -> {"1": n, ...}; empty fields are left out."""
    out: dict[str, int] = {}
    for seat in range(1, seats + 1):
        name = f"{field}-{seat}"
        value = _int(data.get(name), f"{key} of seat {seat}", minimum=0, maximum=1000, field=name)
        if value is not None:
            out[str(seat)] = value
    return out


def _boards(data: Any, field: str, key: str, slug: str, game: Any, default: Any) -> dict[str, Any]:
    """Per board a size select (`<field>-<board>-size`) and its walls as square
    names (`<field>-<board>-walls`, "B3, E4"), each board checked by the
    game's rules so the host learns which board is wrong."""
    boards: dict[str, Any] = {}
    for spec in board_specs(slug, key, default):
        name = spec["name"]
        size_field, walls_field = f"{field}-{name}-size", f"{field}-{name}-walls"
        if size_field not in data and walls_field not in data:
            continue
        size = _int(data.get(size_field), f"size of {spec['title']}", minimum=min(spec["sizes"]),
                    maximum=max(spec["sizes"]), field=size_field)
        board: dict[str, Any] = {"size": size if size is not None else spec["size"]}
        if walls_field in data:
            board["walls"] = _squares(str(data.get(walls_field, "")))
        try:
            game.new({key: {name: board}})
        except RuleError as exc:
            raise CreateError(str(exc), field=walls_field) from None
        boards[name] = board
    return boards


def _coerce(key: str, default: Any, text: str, field: str = "") -> Any:
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise CreateError(f"option {key} must be a whole number", field=field) from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise CreateError(f"option {key} must be a number", field=field) from None
    if isinstance(default, str) or default is None:
        return text if text or default is not None else None
    if _too_deep(text):  # "[" * 5000 made json (and later deepcopy) raise RecursionError: a 500
        raise CreateError(f"option {key} is nested too deeply", field=field)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise CreateError(f"option {key} must be written as JSON, like {json.dumps(default)}", field=field) from None


MAX_JSON_DEPTH = 20


def _too_deep(text: str) -> bool:
    """More than MAX_JSON_DEPTH nested brackets (counted even inside strings: an option needs few)."""
    depth = 0
    for char in text:
        if char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _int(value: Any, label: str, *, minimum: int, maximum: int, field: str = "") -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        raise CreateError(f"the {label} must be a whole number", field=field) from None
    if not minimum <= number <= maximum:
        raise CreateError(f"the {label} must be between {minimum} and {maximum}", field=field)
    return number


def _number(value: Any, label: str, field: str = "") -> float | None:
    if value in (None, ""):
        return None
    try:
        number = float(str(value))
    except ValueError:
        raise CreateError(f"the {label} must be a number of seconds", field=field) from None
    if not math.isfinite(number):
        raise CreateError(f"the {label} must be a number of seconds", field=field)
    if number < 0:
        raise CreateError(f"the {label} cannot be negative", field=field)
    return number


def form_client(request: HttpRequest, form: str) -> str | None:
    """Who posts `form`, for its double-submit key: a digest of the browser's CSRF secret (every form
    post carries that cookie; it stays the same across pages and web processes).  None without one:
    the key is then not used, so it can find nothing."""
    secret = str(request.META.get("CSRF_COOKIE") or "")
    return hashlib.sha256(f"{form}:{secret}".encode()).hexdigest()[:20] if secret else None


def create_key(request: HttpRequest, form: str) -> str | None:
    """The double-submit key of a form that creates a match (templatetags/season_tags.form_key):
    `form` names it ("match-form": the home page's, "practice-form": "Play the computer"), each a
    key space of its own, so one form's key posted to the other finds nothing of the first's.
    Bound to the browser that posted it: the same key from anyone else is another form, never a
    way to the first one's host link.  And to what was posted: a form brought back (the browser's
    Back) and changed keeps its key, but asks for another match.  None for a post without a key
    of the page's shape."""
    key, client = str(request.POST.get("key", "")), form_client(request, form)
    if client is None or not PAGE_KEY.match(key):
        return None
    fields = sorted((name, value) for name, values in request.POST.lists() for value in values
                    if name != "csrfmiddlewaretoken")
    posted = hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:16]
    return f"{key}:{client}:{posted}"
