"""Drawing a match once per audience with a socket open: the drawings fanout.py sends (delta.py).

Each drawing is whole (every fragment and live part, as drawn) and says which log rows came since
this process's previous drawing of the match; the processes that write it to their sockets take
from it what their sockets lack.  This process's previous drawing (`_last`, in memory only) saves
reads: the score and seats of a running bout, the host's panel while unchanged, and for a move
that follows it exactly, the move's own rows, match, bout and clocks (`events.Moved`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, Q

from games.core import HOST, SPECTATOR
from matches.core.audiences import audiences, group_name, viewer_label
from matches.core.events import Moved
from matches.live import delta, presence
from matches.pages import render

#: matches whose last drawing this process keeps
KEEP_MATCHES = 1000
#: called with an audience's (group, drawing) as soon as it is drawn
OnDrawn = Callable[[str, delta.Drawing], None]


@dataclass
class MatchDrawing:
    """This process's last drawing of a match, every audience's (what the next one reuses)."""

    match_token: str  # the match's watch token: a reused id (a test database) is another match
    bout: int
    version: int
    finished: bool
    log_max_id: int
    log_flagged: int
    log_top: int = 0  # the highest sequence in the log drawn
    host_seq: int | None = None  # host actions so far (None: not counted, no host socket)
    panel_key: str | None = None  # what the host panel showed (render.host_panel_key)
    last_move: tuple[int, str] | None = None
    status: str = ""  # the match's
    standing: tuple[dict[int, Any], str] | None = None  # score and bout label (render.snapshot)
    seats: list[Any] | None = None  # the match's seats (they change only before it starts)
    parts: dict[int, dict[str, render.Drawn]] = field(default_factory=dict)

    @property
    def frame(self) -> str:
        return frame(self.match_token, self.bout, self.finished, self.log_flagged)


_last: OrderedDict[int, MatchDrawing] = OrderedDict()
_lock = threading.Lock()


def frame(token: str, bout: int, finished: bool, flagged: int) -> str:
    """What a delta cannot change: the match, its bout, whether it ended (the log's replay links),
    how many log rows were undone or corrected (a rewritten log)."""
    return f"{token}:{bout}:{int(finished)}:{flagged}"


def forget(match_id: int | None = None) -> None:
    """Drop this process's last drawing (of every match when None)."""
    with _lock:
        if match_id is None:
            _last.clear()
        else:
            _last.pop(int(match_id), None)


def _keep(match_id: int, drawing: MatchDrawing) -> None:
    with _lock:
        _last[match_id] = drawing
        _last.move_to_end(match_id)
        while len(_last) > KEEP_MATCHES:
            _last.popitem(last=False)


def _wire(ctx: dict[str, Any], frame_: str, parts: dict[str, render.Drawn], rows: list[tuple[int, str]],
          rows_from: int, whole: str | None) -> delta.Drawing:
    return {"bout": ctx["bout_number"], "version": ctx["version"], "log": ctx["log_top"], "frame": frame_,
            "meta": render.meta(ctx, delta.BASE, oob=False), "rows": [list(r) for r in rows], "rows_from": rows_from,
            "parts": {element: [drawn.frame, list(drawn.live)] for element, drawn in parts.items()}, "whole": whole}


def on_connect(match: Any, viewer: int) -> tuple[str, delta.Drawing]:
    """A socket's state on connect: the whole update, and the drawing it is (its relay's first record)."""
    snap = render.snapshot(match)
    ctx = render.context(match, viewer, snap)
    parts = render.parts(ctx)
    whole = render.assemble(ctx, parts)
    bout = ctx["bout"]
    flagged = sum(1 for r in snap["turns"] if r.undone or r.corrected)
    frame_ = frame(match.watch_token, ctx["bout_number"], bout is not None and bout.finished is not None, flagged)
    return whole, _wire(ctx, frame_, parts, [], ctx["log_top"], None)


def prepare(match_id: int, moved: Moved | None = None, on_drawn: OnDrawn | None = None) -> list[tuple[str, delta.Drawing]]:
    """Draw every audience with an open socket: [(group, drawing)], each also passed to `on_drawn`
    as soon as it is drawn.  `moved` (what a move's transaction wrote): when it follows this
    process's last drawing exactly, the match, bout, clocks and rows are not read."""
    from matches.models import Bout, Match

    last = _last.get(int(match_id))
    if moved is not None and last is not None and _follows(last, moved):
        return _draw(moved.match, moved.bout, last, moved, on_drawn)
    # the match and its current bout in one query (a match in setup has none)
    current = Bout.objects.select_related("match").filter(match_id=match_id).order_by("-number").first()
    match = current.match if current is not None else Match.objects.filter(pk=match_id).first()
    if match is None:
        forget(match_id)
        return []
    return _draw(match, current, last, None, on_drawn)


def _follows(last: MatchDrawing, moved: Moved) -> bool:
    """`moved` is the next version of what `last` drew: same match and running bout, one version
    on, and its log rows follow the last row drawn (no row written elsewhere between)."""
    bout, match, rows = moved.bout, moved.match, moved.rows
    sequences = [r.sequence for r in rows]
    return (bool(rows) and match.status == "running" and bout.finished is None and not last.finished
            and last.match_token == match.watch_token and last.status == match.status
            and last.bout == bout.number and last.version + 1 == bout.version and last.seats is not None
            and sequences == list(range(last.log_top + 1, last.log_top + 1 + len(rows)))
            and all(r.bout_id == bout.id and not r.undone and not r.corrected for r in rows))


def _draw(match: Any, current: Any, last: MatchDrawing | None, moved: Moved | None,
          on_drawn: OnDrawn | None) -> list[tuple[str, delta.Drawing]]:
    """Each open audience's (group, drawing); `moved` only when it follows `last` (`_follows`)."""
    from matches.models import TurnLog

    viewers = audiences(match)
    open_ = presence.open_audiences(match.id, [viewer_label(v) for v in viewers])
    if open_ is not None:
        viewers = [v for v in viewers if viewer_label(v) in open_]
    if not viewers:
        forget(match.id)
        return []
    if last is not None and last.match_token != match.watch_token:
        last = None
    # the score and the bout's label change only when a bout ends or another starts; seats only in setup
    # or by a host action (a computer player taking a seat), never by a move
    same_bout = (last is not None and current is not None and last.bout == current.number
                 and not last.finished and current.finished is None and last.status == match.status)
    snap = render.snapshot(match, turns=False, bout=current,
                           standing=last.standing if same_bout and last is not None else None,
                           seats=last.seats if same_bout and last is not None and moved is not None else None,
                           clocks=moved.clocks if moved is not None else None)
    snap["presence"] = False  # the host's presence list has messages of its own
    bout = snap["bout"]
    bout_no, version = (bout.number, bout.version) if bout is not None else (0, 0)
    finished = bout is not None and bout.finished is not None
    # the log as of the bout version drawn (a move committing meanwhile comes with the next drawing)
    log_rows = TurnLog.objects.filter(match_id=match.id)
    if bout is not None:
        log_rows = log_rows.exclude(bout_id=bout.id, version__gt=version)
    rows: list[Any] = []
    if moved is not None and last is not None:
        rows = list(moved.rows)
        log_max, log_top, flagged = max(r.id for r in rows), rows[-1].sequence, last.log_flagged
    else:
        found = log_rows.aggregate(top=Max("id"), seq=Max("sequence"),
                                   flagged=Count("id", filter=Q(undone=True) | Q(corrected=True)))
        log_max, log_top, flagged = found["top"] or 0, found["seq"] or 0, found["flagged"]
    now = MatchDrawing(match.watch_token, bout_no, version, finished, log_max, flagged, log_top=log_top,
                       status=match.status, standing=(snap["score"], snap["bout_label"]), seats=snap["seats"])
    # rows since `last`, when it has the same frame (else every page is sent the whole update)
    follows = last is not None and last.frame == now.frame and last.log_max_id <= log_max
    if follows and last is not None and moved is None:
        rows = list(log_rows.filter(id__gt=last.log_max_id, id__lte=log_max).select_related("bout")
                    .order_by("sequence", "id"))
        follows = bout is not None and all(r.bout_id == bout.id for r in rows)  # (before bout 1: whole)
    full_snap: dict[str, Any] | None = None
    rows_from = last.log_top if follows and last is not None else 0
    if not follows:  # every audience's whole update; the rows of this version, for pages on the one before
        turns = list(log_rows.select_related("bout").order_by("sequence", "id"))
        full_snap = {**snap, "turns": turns, "presence": True, "last_move": None}
        rows = [r for r in turns if bout is not None and r.bout_id == bout.id and r.version == version]
        rows_from = max((r.sequence for r in turns if r not in rows), default=0)
    moves = [r for r in rows if r.kind == TurnLog.MOVE and not r.undone and not r.corrected]
    if follows and moves:  # the bout's last move is among the rows appended (all of this bout, in order)
        snap["last_move"] = (moves[-1].actor, moves[-1].text)
    elif follows and last is not None and last.last_move is not None:
        snap["last_move"] = last.last_move  # no move since, and no undo/correction (else not `follows`)
    else:
        snap["last_move"] = _last_move(bout)
    now.last_move, snap["log_top"] = snap["last_move"], log_top
    out = []
    for viewer in _in_order(match, viewers, snap["state"]):
        old = last.parts.get(viewer) if follows and last is not None else None
        if old is None:  # the whole update too: a page on another frame (or none drawn here) needs it
            if full_snap is None:
                full_snap = {**snap, "turns": list(log_rows.select_related("bout").order_by("sequence", "id")),
                             "presence": True, "last_move": None}
            ctx = render.context(match, viewer, full_snap)
        else:
            ctx = render.context(match, viewer, snap)
        keep = {}
        if viewer == HOST:
            # the panel is redrawn only when what it shows changed (not for every move)
            now.host_seq = ctx["host_seq"] = _host_seq(match, last if follows else None, rows)
            now.panel_key = render.host_panel_key(ctx, now.host_seq)
            if old is not None and last is not None and now.panel_key == last.panel_key and "host-panel" in old:
                keep["host-panel"] = old["host-panel"]
        parts = now.parts[viewer] = render.parts(ctx, keep)
        whole = render.assemble(ctx, parts) if old is None else None
        drawn_rows = render.log_rows(match, ctx, rows) if rows else []
        out.append((group_name(match.id, viewer), _wire(ctx, now.frame, parts, drawn_rows, rows_from, whole)))
        if on_drawn is not None:
            on_drawn(*out[-1])
    _keep(match.id, now)
    return out


def _in_order(match: Any, viewers: list[int], state: Any) -> list[int]:
    """Who gets a move first: the seats to act (their clocks run from the commit, so every audience
    drawn before theirs is charged to them), then spectators (the most sockets), the other seats, the host."""
    to_act = set(match.game.to_act(state)) if state is not None else set()
    return sorted(viewers, key=lambda v: (v not in to_act, v != SPECTATOR, v == HOST, v))


def _host_seq(match: Any, before: MatchDrawing | None, rows: list[Any]) -> int:
    """The match's host-action count (host_actions.host_seq): counted from the rows appended since
    the last drawing when it knows the count before them, else asked of the database."""
    from matches.models import TurnLog

    if before is not None and before.host_seq is not None:
        return before.host_seq + sum(1 for r in rows if TurnLog.is_host_entry(r))
    return int(TurnLog.host_entries(match.pk).count())


def _last_move(bout: Any) -> tuple[int, str]:
    """(actor, text) of the bout's last active move; render masks it per viewer in sealed games."""
    from matches.models import TurnLog

    if bout is None:
        return (0, "")
    found = (TurnLog.objects.filter(bout_id=bout.id, kind=TurnLog.MOVE, undone=False, corrected=False)
             .order_by("-sequence", "-id").values_list("actor", "text").first())
    return (found[0], found[1]) if found else (0, "")
