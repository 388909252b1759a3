"""Server-side rendering of a match for one audience.

One function, `context(match, viewer)`, builds everything a page or a live
update shows; `fragments(match, viewer)` renders the out-of-band fragments
(board, clocks, log, status, score) that the websocket pushes and the
"refetch" GET returns.  The viewer decides what is hidden: `game.view()`
strips hidden information server-side and `log_entries` masks sealed
orders, so nothing secret is ever rendered into another audience's HTML.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

from django.template.backends.django import Template as DjangoTemplate
from django.template.loader import get_template, select_template
from django.urls import reverse
from django.utils import timezone

from games.core import HOST, SPECTATOR
from games.registry import get_page
from matches.core import outcome
from matches.core.audiences import AUDIENCE_HOST, AUDIENCE_WATCH, audiences, group_name, viewer_label
from matches.pages.clockfaces import clock_faces, configured_clocks
from matches.play import endings
from matches.play.offers import ASKS, NAMES, OPPONENT, answerer
from matches.play.offers import pending as open_requests
from matches.seasons import notices
from matches.templatetags.live_parts import MARK, Parts
from matches.templatetags.live_parts import PARTS as PARTS_KEY

__all__ = ["AUDIENCE_HOST", "AUDIENCE_WATCH", "audiences", "context", "fragments", "group_name", "snapshot",
           "step_context", "viewer_label"]

#: (match, seats) -> the host's presence box and away alerts ({"presence", "away_alerts"}), and
#: -> what the other audiences see of it (`presence.public`)
HostPresence = Callable[[Any, list[Any]], dict[str, Any]]
PublicPresence = Callable[[Any, list[Any]], dict[str, Any]]
_presence: tuple[HostPresence, PublicPresence] | None = None


def provide_presence(host: HostPresence, public: PublicPresence) -> None:
    """Presence (matches/live, above this layer) says who has a page open, wired at start-up
    (`apps.MatchesConfig.ready`) as core/away.py is for the sweeper."""
    global _presence
    _presence = (host, public)


# -- context -------------------------------------------------------------------


def snapshot(match: Any, *, turns: bool = True, bout: Any = None,
           standing: tuple[dict[int, Any], str] | None = None, seats: list[Any] | None = None,
           clocks: tuple[Any, ...] | None = None, state: Any = None) -> dict[str, Any]:
    """What every audience's rendering reads from the database: fetched once
    per update (live renders all audiences from one snapshot).

    The dict (bout, state, seats, score, clocks, turns, board_template) is
    also the way to draw a board for any (match, viewer, bout, state): build
    it with another bout/state and pass it to `context()` (see
    matches/live/README.md).  `turns=False` leaves the log out (live updates
    append only the new rows, see `log_rows`, and set `log_top`, the log's
    highest sequence).  Live updates pass what they loaded already: `bout`
    (the current bout) and `standing` (score and bout label, unchanged while
    the same bout runs), `seats`, the bout's `clocks` rows and its game
    `state` (as the rules returned it, not loaded again from `bout.state`)."""
    bout = bout if bout is not None else match.current_bout
    seats = seats if seats is not None else list(match.seats.order_by("number"))
    score, label = standing if standing is not None else (None, None)
    return {
        "bout": bout,
        "state": (state if state is not None else match.game.load(bout.state)) if bout is not None else None,
        "seats": seats,
        "score": score if score is not None else _score(match, seats),
        "clocks": clock_faces(bout, clocks),
        "turns": _turns(match, bout) if turns else None,
        "board_template": _board_template(match.game_slug),
        "bout_label": label if label is not None else outcome.bout_label(match, bout, _previous_bout(match, bout)),
    }


def _turns(match: Any, bout: Any) -> list[Any]:
    """The log as of the bout version drawn: a move committing between the reads of the bout and of
    the log is left to its own update (else a page sent this state on connect showed the move's row,
    and appended it again from that update, made from this version)."""
    rows = match.turns.select_related("bout")
    if bout is not None:
        rows = rows.exclude(bout_id=bout.id, version__gt=bout.version)
    return list(rows.order_by("sequence", "id"))


def context(match: Any, viewer: int, snap: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything a page or fragment of `match` shows to `viewer` (`snap`: a `snapshot` of it)."""
    snap = snap if snap is not None else snapshot(match)
    game = match.game
    bout = snap["bout"]
    seats = snap["seats"]
    names = {s.number: s.label for s in seats}  # "Bob (computer, normal)" while a bot plays the seat
    view: dict[str, Any] | None = None
    if bout is not None:
        view = game.view(snap["state"], viewer)
    score = snap["score"]
    log = log_entries(match, snap["turns"] or [], viewer, names)
    last_move = snap.get("last_move")  # (actor, text) of the bout's last active move, when the log is left out
    if last_move is not None:
        actor, last_text = last_move
        if game.sealed and viewer != HOST and actor >= 1 and actor != viewer:
            last_text = game.sealed_note  # as the log shows it to this viewer
    else:
        last_text = next((e["text"] for e in reversed(log) if e["kind"] == "move" and not e["undone"]
                          and not e["corrected"] and bout is not None and e["bout"] == bout.number), "")
    to_act = set(view["to_act"]) if view else set()
    pending = set(view["pending"]) if view else set()
    clocks = snap["clocks"] or ({s.number: configured_clocks(match) for s in seats} if bout is None else {})
    seat_rows = [
        {
            "number": s.number,
            "name": s.label,
            "to_act": s.number in to_act,
            "submitted": game.sealed and s.number in to_act and s.number not in pending,
            "score": score.get(s.number, 0),
            "clock": clocks.get(s.number),
            "me": s.number == viewer,
        }
        for s in seats
    ]
    banner = outcome.banner(match, bout, names, viewer, score)
    if "season" not in snap:  # what the page says about its season (read once per update, every audience)
        snap["season"] = notices.page_facts(match)
    # the live bout is over (a move, a time-out, a resignation or the host ended it, or the match):
    # the rules' state may still name a seat to move, so the page hooks hear it here (a replay step
    # is drawn as the rules left it)
    over = not snap.get("replay") and bout is not None and (bout.finished is not None or match.status == "finished")
    ctx: dict[str, Any] = {
        "match": match,
        "game": game,
        "bout": bout,
        "version": bout.version if bout is not None else 0,
        "bout_number": bout.number if bout is not None else 0,
        # the highest log sequence drawn: an offer, its answer or a note adds a row but no version,
        # so a page orders what it receives by (bout, version, log_top) (static/js/live.js)
        # (from the rows drawn; a live update that draws none says it: fanout.py)
        "log_top": snap["log_top"] if snap["turns"] is None else max((row.sequence for row in snap["turns"]), default=0),
        "viewer": viewer,
        "audience": viewer_label(viewer),
        "is_host": viewer == HOST,
        "is_seat": viewer >= 1,
        "view": view,
        "seats": seat_rows,
        "names": names,
        "log": log,
        "status": _status(match, bout, view, names, viewer, banner),
        # a replay step is never the viewer's turn (set before the game's page hook runs)
        "replay": bool(snap.get("replay")),
        # a pause stops every seat: nobody's turn until the host resumes (the Play button is disabled)
        "my_turn": (viewer >= 1 and viewer in to_act and match.status == "running" and not match.paused
                    and not snap.get("replay") and not over),
        "over": over,
        "paused": match.paused and match.status == "running" and not snap.get("replay"),
        "server_now": timezone.now().isoformat(timespec="milliseconds"),
        # squares to outline; the game's page hook fills them from its view
        "last_cells": [],
        "win_cells": [],
        "host_act_url": _host_act_url(match.host_token) if viewer == HOST else "",
        # what an ending the host types would give in the season, in words (the console's preview)
        "host_end_preview_url": (reverse("host_end_preview", args=[match.host_token])
                                 if viewer == HOST and snap["season"]["awards"] is not None else ""),
        "round_deadline": "" if snap.get("replay") else _round_deadline(bout, match),
        "round_left": bout.round_left if bout is not None and not snap.get("replay") else None,
        "last_text": last_text,
        "board_template": snap["board_template"],
        "head_template": head_template(match.game_slug),
        "title": outcome.title(match),
        "bout_label": snap.get("bout_label") or outcome.bout_label(match, bout, None),
        "banner": banner,
        # an elimination match says so on every page, and who it put out once over
        "elimination": snap["season"]["elimination"],
        # the AwardCounts the season asks of the match (none of an elimination match; the host's game's
        # console previews them); None outside a season
        "season_awards": snap["season"]["awards"],
        # a game may show its bank to the minute to players, exactly to the host
        "clock_minutes": match.game.clock_minutes and viewer != HOST,
        "viewer_cls": f"p{viewer}" if viewer >= 1 else "",
    }
    if viewer == HOST:
        # the host panel's "Start bout N" (read here: the panel must not ask the database)
        ctx["needs_next_bout"] = match.status == "running" and bout is not None and bout.finished is not None
        # the console offers what applies: the bout's endings, clocks and orders only while it is in
        # play; Undo also on a bout won on the board (it rewinds moves, not an ending: reopen does that)
        ctx["bout_in_play"] = match.status == "running" and bout is not None and bout.finished is None
        ctx["can_rewind"] = ctx["bout_in_play"] or (
            ctx["needs_next_bout"] and not snap.get("replay") and game.result(snap["state"]) is not None)
    if not snap.get("replay") and viewer != SPECTATOR and bout is not None and bout.finished is None:
        ctx["requests"] = _requests(match, bout, names, viewer)
        ctx["offers"] = [r for r in ctx["requests"] if r["boxed"]]  # a seat's offers box (answered by the opponent)
    if ctx["banner"] and ctx["banner"]["kind"] == "match" and not snap.get("replay"):
        ctx["rematch_url"] = _rematch_url(match, viewer)
        ctx["again"] = _practice_again(match, viewer, seats)
    if viewer == HOST and ctx["banner"] and ctx["banner"]["kind"] == "match" and not snap.get("replay"):
        ctx["banner"] = {**ctx["banner"], **_host_match_end(match, bout)}
    if viewer == HOST:
        # the Reopen button: only when the host or a clock (not the rules) ended the bout or match
        # (a bout in play has nothing to reopen: no query then, as a move is drawn)
        ctx["can_reopen"] = (bout is not None and match.status != "setup"
                             and (bout.finished is not None or match.status == "finished")
                             and not endings.reopen_refusal(match, bout))
    if viewer == HOST and snap.get("presence", True) and _presence is not None:
        ctx.update(_presence[0](match, seats))
    if viewer != HOST and snap.get("presence", True) and not snap.get("replay") and _presence is not None:
        # the same for every other audience: read once per update (the snapshot keeps it)
        if "watching" not in snap:
            snap["watching"] = _presence[1](match, seats)
        ctx["watching"] = snap["watching"]
    if view is not None and viewer == HOST:
        ctx["hidden_rows"] = [(names.get(int(k), f"seat {k}"), _items(v)) for k, v in view.get("hidden", {}).items()]
    if view is not None and viewer >= 1:
        ctx["private_rows"] = _items(view.get("private", {}))
    if view is not None:  # the game's page hooks (games/core/pages.py)
        ctx.update(get_page(match.game_slug).context(view, ctx))
    return ctx


def step_context(match: Any, viewer: int, bout: Any, state: Any, turns: list[Any]) -> dict[str, Any]:
    """Context of one replay step (matches/replay.py): `state` is a position of
    `bout` rebuilt through the rules, `turns` the log rows up to it (its last
    move is highlighted).  Drawn like the live board, from `viewer`'s own
    `game.view(state, viewer)`; no clocks, and never the viewer's turn."""
    snapshot = {
        "bout": bout,
        "state": state,
        "seats": list(match.seats.order_by("number")),
        "score": {},
        "clocks": {},
        "turns": turns,
        "board_template": _board_template(match.game_slug),
        "replay": True,
    }
    return context(match, viewer, snapshot)


def fragments(match: Any, viewer: int, snap: dict[str, Any] | None = None) -> str:
    """Every out-of-band fragment of one audience (the full update: on connect, on a refetch)."""
    ctx = context(match, viewer, snap)
    return assemble(ctx, parts(ctx))


def assemble(ctx: dict[str, Any], rendered: dict[str, Drawn]) -> str:
    """The full update from an audience's parts: meta, status, score, board, clocks, the whole log,
    then the host's panel, presence and away alerts, or the others' box of who is here and a seat's
    private panel."""
    oob = {**ctx, "oob": True}
    pieces = [meta(ctx, None), *(rendered[element].html for element, _ in PARTS),
              get_template("matches/partials/log.html").render(oob)]
    if ctx["is_host"]:
        pieces += [rendered["host-panel"].html, get_template("matches/partials/presence.html").render(oob),
                   get_template("matches/partials/away_alerts.html").render(oob)]
    elif "watching" in ctx:
        pieces.append(get_template("matches/partials/watching.html").render(oob))
    if ctx["is_seat"]:
        pieces += [rendered[element].html for element, _ in SEAT_PARTS]
    return "\n".join(pieces)


def meta(ctx: dict[str, Any], base: int | str | None, oob: bool = True) -> str:
    """`#live-meta`: bout and version; `base` = the version a delta applies to (None: a full update).
    `oob=False` for a delta, which only the websocket carries (its extension swaps every top-level
    element out of band)."""
    return tidy(get_template("matches/partials/meta.html").render({**ctx, "oob": oob, "base": base}))


# -- live updates: the page as parts ------------------------------------------------

#: The fragments a live update may swap (element id -> partial), each rendered out of band.
PARTS = (
    ("status", "matches/partials/status.html"),
    ("banner", "matches/partials/banner.html"),
    ("elimination", "matches/partials/elimination.html"),
    ("score", "matches/partials/score.html"),
    ("board", "matches/partials/board_wrap.html"),
    ("clocks", "matches/partials/clocks.html"),
)
HOST_PARTS = (("host-panel", "matches/partials/host_panel.html"),)
SEAT_PARTS = (("private", "matches/partials/private.html"), ("offers", "matches/partials/offers.html"))


class Drawn:
    """One fragment as drawn for a live update: its frame, with `MARK` where each of its live parts
    (`{% live %}`, matches/templatetags/live_parts.py) goes, and those parts in order, as rendered."""

    __slots__ = ("_html", "frame", "live")

    def __init__(self, frame: str, live: tuple[str, ...]) -> None:
        self.frame, self.live = frame, live
        self._html: str | None = None

    @property
    def html(self) -> str:
        """The whole fragment, as a page draws it."""
        if self._html is None:
            pieces = self.frame.split(MARK)
            self._html = "".join(piece + part for piece, part in zip(pieces, (*self.live, ""), strict=True))
        return self._html

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Drawn) and self.frame == other.frame and self.live == other.live

    __hash__ = None  # type: ignore[assignment]

    def changes(self, new: Drawn) -> list[str]:
        """What turns this drawing into `new` on a page: nothing; the live parts that changed (each
        swapped by its id), when the frame around them is the same; or all of `new`."""
        if new == self:
            return []
        if new.frame != self.frame:
            return [new.html]
        return [part for part, before in zip(new.live, self.live, strict=True) if part != before]


def draw(name: str, ctx: dict[str, Any]) -> Drawn:
    """A fragment's partial drawn with its live parts recorded apart (see `Drawn`)."""
    found = Parts()
    frame = tidy(get_template(name).render({**ctx, PARTS_KEY: found}))
    return Drawn(frame, tuple(tidy(part) if "\n" in part else part for part in found.found))  # (cells: one line)


def parts(ctx: dict[str, Any], keep: dict[str, Drawn] | None = None) -> dict[str, Drawn]:
    """The out-of-band fragments of one audience (not the log, not the meta), by element id, each
    drawn from its template.  `keep`: fragments whose inputs did not change, reused as they are
    (live/drawing.py)."""
    ctx = {**ctx, "oob": True}
    wanted = PARTS + (HOST_PARTS if ctx["is_host"] else ()) + (SEAT_PARTS if ctx["is_seat"] else ())
    return {element: keep[element] if keep and element in keep else draw(name, ctx) for element, name in wanted}


_BLANKS = re.compile(r"\s*\n\s*")


def tidy(html: str) -> str:
    """A rendering with each run of white space that holds a line break cut to the line break: the
    page shows the same (no part holds preformatted text), and every update is that much smaller."""
    return _BLANKS.sub("\n", html).strip()


def host_panel_key(ctx: dict[str, Any], host_seq: int) -> str:
    """Everything the host panel shows but the bout version (live.js copies that into every form's
    `version` input from `#live-meta`): equal keys, equal panels, so a delta need not redraw it."""
    match, bout = ctx["match"], ctx["bout"]
    needs_next = match.status == "running" and bout is not None and bout.finished is not None
    return json.dumps([match.status, match.paused, needs_next, host_seq, bool(ctx.get("can_reopen")), ctx["bout_number"],
                       bool(ctx.get("can_rewind")),
                       ctx.get("hidden_rows"), ctx["names"], ctx["host_act_url"], (match.format or {})],
                      sort_keys=True, default=repr)


def log_rows(match: Any, ctx: dict[str, Any], rows: list[Any]) -> list[tuple[int, str]]:
    """New log rows for one audience: [(sequence, `<li>` to append to `#log-list`)]."""
    entries = log_entries(match, rows, ctx["viewer"], ctx["names"])
    if ctx.get("view") is not None:  # the game's notes on log rows
        entries = get_page(match.game_slug).log_notes(ctx["view"], entries, ctx)
    row = get_template("matches/partials/log_row.html")
    return [(e["sequence"], tidy(row.render({**ctx, "e": e}))) for e in entries]


# -- helpers -------------------------------------------------------------------


def _found_name(found: object) -> str:
    """The name of the template the loaders found (the one engine, in settings, is Django's)."""
    assert isinstance(found, DjangoTemplate) and found.template.name is not None
    return found.template.name


def _board_template(slug: str) -> str:
    return _found_name(get_template(f"{app_dir(slug)}/board.html"))


@lru_cache(maxsize=1024)
def _host_act_url(token: str) -> str:
    return reverse("host_act", args=[token])


@cache  # the same for every page of the game (the loader is asked once per process)
def head_template(slug: str) -> str:
    """`<app>/head.html`: the game's own stylesheet and click script, in <head>."""
    return _found_name(select_template([f"{app_dir(slug)}/head.html", "matches/partials/head_none.html"]))


def controls_template(slug: str) -> str:
    return _found_name(get_template(f"{app_dir(slug)}/controls.html"))


def app_dir(slug: str) -> str:
    from games.registry import app_dir as registry_app_dir

    return registry_app_dir(slug)


def _score(match: Any, seats: list[Any] | None = None) -> dict[int, Any]:
    try:
        return {int(k): v for k, v in (match.score(seats) or {}).items()}
    except Exception:  # a half-written format must not break every page
        return {}


def _previous_bout(match: Any, bout: Any) -> Any:
    if bout is None or bout.number <= 1:
        return None
    return match.bouts.filter(number=bout.number - 1).first()


def log_entries(match: Any, rows: list[Any], viewer: int, names: dict[int, str]) -> list[dict[str, Any]]:
    sealed = match.game.sealed
    hostless = match.practice  # what the server did for a practice match (started it) is nobody's
    out = []
    for row in rows:
        text = row.text
        corrected_from = row.corrected_from
        if sealed and viewer != HOST and row.kind == "move" and row.actor >= 1 and row.actor != viewer:
            # sealed orders are never shown to another seat or to spectators,
            # not even after the round resolved (Bidding's bids and Back to the Wall's orders stay secret)
            text, corrected_from = match.game.sealed_note, ""
        elif sealed and viewer != HOST and row.kind != "move":
            text = _public_note(text)
        if row.kind == "move" and row.actor >= 1:
            who = names.get(row.actor, f"seat {row.actor}") + (" (by host)" if row.by_host else "")
        elif row.kind == "seat" and row.actor >= 1:  # a seat's own note: "seat 1 (Ann) offers a draw"
            who, text = names.get(row.actor, f"seat {row.actor}"), re.sub(r"^seat \d+(?: \([^)]*\))? ", "", text)
        else:
            who = "" if hostless and row.actor == HOST and row.kind != "clock" else row.who
        out.append(
            {
                "bout": row.bout.number if row.bout is not None else 0,
                "sequence": row.sequence,
                "kind": row.kind,
                "actor": row.actor if row.kind == "move" else 0,
                "who": who,
                "text": text,
                "time_used": row.time_used,
                "lag_comp": row.lag_comp,
                "undone": row.undone,
                "corrected": row.corrected,
                "corrected_from": corrected_from,
                "created": row.created,
            }
        )
    return out


def _public_note(text: str) -> str:
    """A host note without the sealed orders it quotes ("undo 1 (seat 2: A1 3)" -> "undo 1")."""
    found = re.match(r"\s*(undo \d+|corrected turn #\d+)", text)
    return found.group(1) if found else text


def _status(match: Any, bout: Any, view: dict[str, Any] | None, names: dict[int, str], viewer: int,
            banner: dict[str, Any] | None = None) -> str:
    def who(seat: int) -> str:
        return "you" if seat == viewer else names.get(seat, f"seat {seat}")

    if match.status == "setup" or bout is None:
        return "Waiting for the host to start the match."
    if banner:  # an ending: the banner's one sentence (outcome.sentence)
        return outcome.sentence(banner)
    if match.status == "finished":
        return "The match is over."
    result = view.get("result") if view else None
    if result is None and bout.result:
        result = bout.result
    if result:
        return f"Bout {bout.number} is over."
    assert view is not None
    if match.paused:
        # the sweeper pauses by itself while the seat to act has no page open (match option away_pause)
        return "Paused: a player has no page open." if match.away_paused else "Paused by the host."
    if match.game.sealed:
        waiting = [who(s) for s in view["pending"]]
        return "Waiting for sealed orders from " + ", ".join(waiting) + "." if waiting else "All orders are in."
    acting = [who(s) for s in view["to_act"]]
    if acting == ["you"]:
        return "Your turn."
    return f"{' and '.join(acting)} to move." if acting else "Waiting."


#: a seat's own open request, as that seat reads it
_MINE = {"draw": "You offered a draw", "takeback": "You asked to take back your last move"}


def _requests(match: Any, bout: Any, names: dict[int, str], viewer: int) -> list[dict[str, Any]]:
    """The open requests `viewer` sees (matches/play/requests.py).  When the host alone answers: the
    host all of them, a seat its own and others' draw offers (a takeback request is between its seat
    and the host), each a note in the status.  When the opponent answers: both seats and the host see
    both kinds; the seats in their offers box (the opponent with Accept and Decline: `answerable`)."""
    found = open_requests(match, bout)
    by_opponent = bool(found) and answerer(match) == OPPONENT
    # a practice match has no host to overrule (nobody holds its host link)
    overrule = "" if match.practice else "; the host may still grant it"
    out = []
    for r in found:
        seat, kind, declined = int(r["seat"]), str(r["kind"]), bool(r.get("declined"))
        name = names.get(seat, f"Seat {seat}")
        other = next((n for s, n in names.items() if s != seat), "the opponent")
        row = {"seat": seat, "kind": kind, "mine": seat == viewer, "id": r.get("id"), "declined": declined,
               "boxed": by_opponent and viewer >= 1, "answerable": by_opponent and viewer >= 1 and seat != viewer
               and not declined, "name": NAMES[kind]}
        if not by_opponent:
            if viewer == HOST or seat == viewer or kind == "draw":
                text = _MINE[kind] if seat == viewer else f"{name} {ASKS[kind]}"
                out.append({**row, "text": f"{text}: {'answer it under Moderation' if viewer == HOST else 'the host decides'}."})
        elif viewer == HOST:
            text = (f"{other} declined the {NAMES[kind]} of {name}: you may grant it under Moderation." if declined
                    else f"{name} {ASKS[kind]}: {other} answers, or you overrule under Moderation.")
            out.append({**row, "text": text})
        elif seat == viewer:
            out.append({**row, "text": f"{other} declined your {NAMES[kind]}{overrule}." if declined
                        else f"{_MINE[kind]}: waiting for {other}'s answer (a move ends it)."})
        else:
            out.append({**row, "text": f"You declined the {NAMES[kind]} of {name}{overrule}."
                        if declined else f"{name} {ASKS[kind]}."})
    return out


def _rematch_url(match: Any, viewer: int) -> str:
    """Where `viewer` plays or watches the rematch ("" when there is none): a seat's own link (the
    page it is on, which now leads there), the host's new host page, spectators' new watch page."""
    found = (match.format or {}).get("rematch")
    if not isinstance(found, dict):
        return ""
    if viewer >= 1:
        return "./"
    new = type(match).objects.filter(pk=found.get("match")).values("host_token", "watch_token").first()
    if new is None:
        return ""
    return (reverse("host_page", args=[new["host_token"]]) if viewer == HOST
            else reverse("watch_page", args=[new["watch_token"]]))


def _practice_again(match: Any, viewer: int, seats: list[Any]) -> dict[str, Any] | None:
    """A finished practice match's "Play again", as the practice form posts it: the same game
    against the same computer, the player in the next seat (in a two-seat game the other side, as
    lichess alternates colours); None for anyone else or any other match."""
    strength = next((s.bot for s in seats if s.bot), "")
    if viewer < 1 or not match.practice or not strength:
        return None
    seat = viewer % len(seats) + 1
    note = ("you move first" if seat == 1 else "you move second") if len(seats) == 2 else f"you take seat {seat}"
    return {"game": match.game_slug, "strength": strength, "seat": seat, "note": note}


def _host_match_end(match: Any, bout: Any) -> dict[str, Any]:
    """What the host can do about a finished match, in the end banner: Reopen takes back only an
    ending by the host or a clock; a bout the rules decided is fixed by correcting a turn (linked)."""
    refusal = endings.reopen_refusal(match, bout)
    if not refusal:
        return {"next": f"The match is over. If it ended wrongly, Reopen bout {bout.number} (under Moderation) "
                        "takes that ending back and play goes on."}
    if bout.finished is not None and not endings.last_ending(bout):
        last = bout.active_moves().last()
        if last is not None:
            return {"next": f"The match is over. Bout {bout.number} was decided on the board: if a move was wrong, "
                            "correct its turn in the log and the bout is replayed from there.",
                    "correct_turn": {"bout": bout.number, "sequence": last.sequence, "who": last.who,
                                     "text": last.text}}
    return {"next": f"The match is over. It cannot be reopened: {refusal}."}


def _items(data: Any) -> list[tuple[str, str]]:
    """A dict as readable (label, text) rows; nested values compactly."""
    if not isinstance(data, dict):
        return [("", _text(data))] if data not in (None, {}, []) else []
    return [(str(k).replace("_", " "), _text(v)) for k, v in data.items()]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_text(v)}" for k, v in value.items()) or "—"
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value) or "—"
    if value is None:
        return "—"
    return str(value)


def _round_deadline(bout: Any, match: Any) -> str:
    deadline = getattr(bout, "round_deadline", None)
    if deadline is None or match.paused or getattr(bout, "finished", None):
        return ""
    return str(deadline.isoformat())
