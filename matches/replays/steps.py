"""Replays of bouts: the steps of a bout rebuilt through the rules, and who may see them.

A bout's steps come from `new(bout.options)` and its active moves (the log is
the truth, never a stored picture).  Step 0 is the start of the bout, then one
step per active move; in sealed games one step per resolved round (a round's
submissions are never a step of their own, and a round still open is no step
at all).  Each audience draws each step from its own `game.view(state,
viewer)`, and the move list masks sealed orders exactly as the live log does
(`render.log_entries`), so what the live page hides stays hidden here.

Who may replay what:

- a finished bout: every audience;
- a running bout: the host; everyone else only if the host opened it with a
  delay, stored as `match.format["replay_behind"]` (N: the replay stops N steps
  behind the live board; 0: up to the live board).  No key: host only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core import HOST
from matches.core.replay_access import describe_access, replay_behind
from matches.models import Bout, Match, TurnLog
from matches.play import engine


@dataclass(frozen=True)
class Step:
    """One position of a replay: the state after `moves` (the start has none)."""

    index: int
    state: Any
    moves: tuple[TurnLog, ...] = ()

    @property
    def last(self) -> TurnLog | None:
        return self.moves[-1] if self.moves else None


@dataclass
class Replay:
    """A bout's steps, and how far `viewer` may go (`visible`: last step index shown)."""

    match: Match
    bout: Bout
    viewer: int
    steps: list[Step]
    visible: int
    allowed: bool
    note: str
    rows: list[TurnLog] = field(default_factory=list)

    @property
    def sealed(self) -> bool:
        return bool(self.match.game.sealed)

    def step(self, index: int) -> Step:
        """Step `index`, clamped to what the viewer may see."""
        return self.steps[max(0, min(int(index), self.visible))]

    def shown_rows(self) -> list[TurnLog]:
        """The bout's log rows the viewer may see.  A running bout seen by
        anyone but the host is cut at the first move no visible step holds
        (a later step, or a sealed round not resolved yet), with every row
        after it: moves, notes and all."""
        if self.viewer == HOST or self.bout.finished is not None:
            return self.rows
        shown = {m.pk for s in self.steps[1:self.visible + 1] for m in s.moves}
        out = []
        for row in self.rows:
            if row.kind == TurnLog.MOVE and row.active and row.pk not in shown:
                break
            out.append(row)
        return out


def build_steps(bout: Bout, moves: list[TurnLog] | None = None) -> list[Step]:
    """Every step of `bout`, replayed through the rules from its options."""
    game = bout.match.game
    state = game.new(bout.options)
    steps = [Step(0, state)]
    waiting: list[TurnLog] = []
    for entry in moves if moves is not None else list(bout.active_moves()):
        before = state
        state = game.play(state, entry.actor, entry.text)
        waiting.append(entry)
        if (
            not game.sealed
            or entry.actor == HOST  # the host's "resolve" closes the round
            or game.result(state) is not None
            or engine.sealed_round_changed(game, before, state, entry.actor)
            or (game.host_moves and engine.round_opened_or_closed(game, before, state))  # the last answer
        ):
            steps.append(Step(len(steps), state, tuple(waiting)))
            waiting = []
    return steps


def load(match: Match, bout: Bout, viewer: int) -> Replay:
    """The replay of `bout` as `viewer` may see it (check `.allowed` first)."""
    rows = list(bout.turns.order_by("sequence", "id"))
    steps = build_steps(bout, [r for r in rows if r.kind == TurnLog.MOVE and r.active])
    last = len(steps) - 1
    unit = "round" if match.game.sealed else "move"
    if bout.finished is not None:
        return Replay(match, bout, viewer, steps, last, True, "", rows)
    if viewer == HOST:
        note = (f"Bout {bout.number} is still being played. As host you can replay it up to the live board"
                f"{' (resolved rounds only)' if match.game.sealed else ''}; "
                f"{describe_access(match)}.")
        return Replay(match, bout, viewer, steps, last, True, note, rows)
    behind = replay_behind(match)
    if behind is None:
        note = (f"Bout {bout.number} is still being played. The host keeps its replay closed until it ends; "
                "finished bouts can be replayed by everyone.")
        return Replay(match, bout, viewer, steps, 0, False, note, rows)
    visible = max(0, last - behind)
    if behind == 0:
        note = f"Bout {bout.number} is still being played: this replay goes up to the live board."
    else:
        note = (f"Bout {bout.number} is still being played: this replay runs {behind} {unit}"
                f"{'s' if behind != 1 else ''} behind the live board.")
    return Replay(match, bout, viewer, steps, visible, True, note, rows)


def may_replay(match: Match, bout: Bout, viewer: int) -> bool:
    """Cheap check (no replay): may `viewer` open the replay of `bout`?"""
    return bout.finished is not None or viewer == HOST or replay_behind(match) is not None


def caption(replay: Replay, step: Step, names: dict[int, str], view: dict[str, Any] | None) -> str:
    """One sentence for a step ("Ann played place C3."); the page puts the
    counter ("Move 5 of 31") before it, and both are announced on change."""
    bout = replay.bout
    if step.index == 0:
        text = f"Start of bout {bout.number}."
    elif replay.sealed:
        text = "The round resolved."
    else:
        last = step.last
        assert last is not None
        who = "the host" if last.actor == HOST else names.get(last.actor, f"seat {last.actor}")
        text = f"{who} played {last.text}."
    result = (view or {}).get("result")
    if result is None and step.index == len(replay.steps) - 1 and bout.finished is not None:
        result = bout.result
    if result:
        winners = [names.get(int(s), f"seat {s}") for s in result.get("winners") or []]
        reason = result.get("reason") or bout.reason or "draw"
        text += f" {' and '.join(winners)} won ({reason})." if winners else f" No winner ({reason})."
    return text


def move_list(replay: Replay, names: dict[int, str]) -> list[dict[str, Any]]:
    """The move list of the replay page, as `replay.viewer` may see it.

    Active moves (turn-based) and resolved rounds (sealed) jump to their step;
    undone moves are listed struck through and lead nowhere (the board skips
    them); a corrected move is listed once, with its old text; host and clock
    notes are notes.  Sealed orders of other seats are masked exactly as in the
    live log."""
    from matches.pages import render

    rows = [r for r in replay.shown_rows() if not r.corrected]
    shown = render.log_entries(replay.match, rows, replay.viewer, names)
    step_of = {m.pk: s.index for s in replay.steps[1:replay.visible + 1] for m in s.moves}
    round_end = {s.moves[-1].pk: s.index for s in replay.steps[1:replay.visible + 1] if s.moves}
    out: list[dict[str, Any]] = [{"kind": "start", "step": 0, "who": "", "text": f"Start of bout {replay.bout.number}"}]
    for row, entry in zip(rows, shown, strict=True):
        item = dict(entry)
        item["step"] = None
        if row.kind == TurnLog.MOVE and row.active:
            if not replay.sealed:
                item["step"] = step_of.get(row.pk)
            elif row.pk not in step_of:
                item["kind"] = "open"  # host only: submitted in the round still open
        out.append(item)
        if replay.sealed and row.pk in round_end:
            index = round_end[row.pk]
            out.append({"kind": "round", "step": index, "who": "", "text": f"Round {index} resolved"})
    return out
