"""Computer players in seats: the host's switch, and the worker that moves for them.

A seat with `Seat.bot` set ("easy", "normal", "strong") is played by
`games.bots.choose` (pure: it decides from the seat's own view and legal actions
only, never from what the seat may not see).  The bot acts like a player, through
`services.submit`, from a worker: `WORKER` in a thread of each web server
process (beside the clock sweeper) or `manage.py run_bots`; never on a request's
path, because thinking takes up to a few seconds.

Exactly one move per turn across any number of workers: a worker claims the
seat's turn with a compare-and-swap on `Seat.bot_claim` (the bout and its
version, or its sealed round), like the sweeper claims a time-out; the loser of
the swap updates 0 rows and leaves the turn alone.  The move itself carries the
version the bot thought about, so even a claim taken again after its lease
(a worker died mid-thought) cannot play twice: `submit` refuses a stale version.

The bot respects the clock: it thinks at most its strength's budget, and never
more than half of the time its seat has left.  It answers its opponent's requests
at once, through `requests.respond` like a person (`ANSWERS`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from games import bots as computer
from games.bots.search import Strength
from games.core import RuleError
from matches.core import events, runtime
from matches.core.errors import NotAllowed, ServiceError
from matches.models import Bout, Match, Seat
from matches.play import clocks, engine, offers, requests, services
from matches.play.change import change

log = logging.getLogger(__name__)

STRENGTHS: Mapping[str, Strength] = computer.STRENGTHS
#: a claim older than this was abandoned (its worker died): the turn may be claimed again
LEASE = timedelta(seconds=30)
#: never think longer than this share of the time the seat has left
CLOCK_SHARE = 0.5

#: set after every committed change in this process: a bot may be to move
wanted = threading.Event()
#: how a computer answers its opponent's requests, at once (the person does not wait a turn for
#: the request to lapse): it grants a takeback, as lichess's computer does, and declines a draw, as it
#: plays every bout to its end (the host may still grant a declined draw)
ANSWERS = {"takeback": True, "draw": False}


# -- the host's switch -------------------------------------------------------------------


def set_bot(match: Match, seat: int, strength: str) -> str:
    """Host: a computer player of `strength` takes `seat` ("" gives it back to its person).
    Logged ("seat 2 (Bob) is played by the computer (normal)") and announced; the page's
    names say "(computer, normal)" while it plays."""
    strength = str(strength).strip().lower()
    if strength and strength not in STRENGTHS:
        raise NotAllowed(f"a computer player is easy, normal or strong, not {strength!r}")
    with change(match) as c:
        match, bout = c.match, c.bout
        if match.status == Match.FINISHED:
            raise NotAllowed("the match is over")
        number = engine.require_seat(match, seat)
        row = Seat.objects.select_for_update().get(match=match, number=number)
        if row.bot == strength:
            raise NotAllowed(f"the computer already plays {engine.seat_label(match, number)} ({strength})"
                             if strength else f"a person already plays {engine.seat_label(match, number)}")
        row.bot, row.bot_claim, row.bot_claimed_at = strength, "", None
        row.save(update_fields=["bot", "bot_claim", "bot_claimed_at"])
        if bout is not None and bout.finished is None:
            engine.bump(bout)
            bout.save()
        text = (f"{engine.seat_label(match, number)} is played by the computer ({strength})" if strength
                else f"{engine.seat_label(match, number)} is played by its person again")
        c.note(text)
    return text


# -- one bot turn ------------------------------------------------------------------------


def due_seats() -> list[int]:
    """Ids of bot seats in running, unpaused matches (each is checked for its turn)."""
    return list(Seat.objects.exclude(bot="").filter(match__status=Match.RUNNING, match__paused=False)
                .order_by("id").values_list("id", flat=True))


def claim(seat_id: int, strength: str, key: str, now: datetime) -> bool:
    """Compare-and-swap: this worker takes turn `key` of the seat; False when another did."""
    taken = (Seat.objects.filter(pk=seat_id, bot=strength)
             .filter(~Q(bot_claim=key) | Q(bot_claimed_at__lt=now - LEASE))
             .update(bot_claim=key, bot_claimed_at=now))
    return taken == 1


def play_turn(seat_id: int, strengths: Mapping[str, Strength] = STRENGTHS) -> bool:
    """If the bot of seat `seat_id` is to act and this worker wins the claim: think and submit.
    True when its move was applied."""
    seat = Seat.objects.select_related("match").filter(pk=seat_id).first()
    if seat is None or not seat.bot:
        return False
    match = seat.match
    bout = Bout.objects.filter(match=match).order_by("-number").first()
    if match.status != Match.RUNNING or match.paused or bout is None or bout.finished is not None:
        return False
    if answer_requests(match, bout, seat.number):
        return False  # the answer changed the bout (a takeback): its own event wakes the next sweep
    game = match.game
    state = game.load(bout.state)
    if game.result(state) is not None:
        return False
    awaited = game.pending(state) if game.sealed else game.to_act(state)
    if seat.number not in awaited:
        return False
    now = timezone.now()
    # a sealed round is one turn however many others submit meanwhile
    key = f"{bout.pk}:r{bout.round_version}" if game.sealed else f"{bout.pk}:{bout.version}"
    if not claim(seat.pk, seat.bot, key, now):
        return False
    try:
        knobs = _within_clock(strengths[seat.bot], bout, seat.number, now)
        # per match too: two matches of one game must not replay one game move for move
        seed = zlib.crc32(f"{match.pk}:{bout.number}:{bout.version}:{seat.number}".encode())
        # choose() decides from game.view(state, seat) and the seat's legal actions only
        action = computer.choose(game, state, seat.number, knobs, seed=seed)
        services.submit(match.pk, seat.number, game.format(action), bout.version)
    except (ServiceError, RuleError) as error:
        log.info("bot of seat %s in match %s did not move: %s", seat.number, match.pk, error)
        release(seat.pk, key)
        return False
    except Exception:
        release(seat.pk, key)  # e.g. a locked database: the next sweep tries again
        raise
    return True


def answer_requests(match: Match, bout: Bout, seat: int) -> int:
    """The bot of `seat` answers its opponent's open requests (where the opponent answers them; the
    host's matches wait for the host), each named by its id: a second worker's answer, or one to a
    request answered or ended meanwhile, is refused and changes nothing.  How many it answered."""
    if offers.answerer(match) != offers.OPPONENT:
        return 0
    answered = 0
    for request in offers.pending(match, bout):
        if request["seat"] == seat or request.get("declined") or request["kind"] not in ANSWERS:
            continue
        try:
            requests.respond(match, seat, request["kind"], ANSWERS[request["kind"]], offer=request.get("id"))
        except ServiceError as error:
            log.info("bot of seat %s in match %s did not answer: %s", seat, match.pk, error)
            continue
        answered += 1
    return answered


def release(seat_id: int, key: str) -> None:
    """Give a claimed turn back (its move failed): the next sweep may claim it again.  Safe: a move
    carries the version it was thought on, so a turn is still played at most once."""
    Seat.objects.filter(pk=seat_id, bot_claim=key).update(bot_claim="", bot_claimed_at=None)


def _within_clock(knobs: Strength, bout: Bout, seat: int, now: datetime) -> Strength:
    """`knobs` with its time budget cut to a share of what the seat's clock (and a sealed
    round's deadline) has left."""
    left: list[float] = []
    clock = clocks.of(bout, seat)
    if clock is not None and clock.deadline is not None:
        left.append(clock.remaining(now))
    if bout.round_deadline is not None:
        left.append(max(0.0, (bout.round_deadline - now).total_seconds()))
    if not left:
        return knobs
    budget = max(0.01, min(left) * CLOCK_SHARE)
    if knobs.seconds is not None and knobs.seconds <= budget:
        return knobs
    return replace(knobs, seconds=budget)


def sweep_bots(strengths: Mapping[str, Strength] = STRENGTHS) -> int:
    """Every bot to act moves once (claimed, so other workers skip it); the moves applied."""
    played = 0
    for seat_id in due_seats():
        try:
            played += play_turn(seat_id, strengths)
        except Exception:  # one broken match must not stop the other bots
            log.exception("bot turn failed for seat %s", seat_id)
    return played


# -- the worker (matches/core/runtime.py runs it) -----------------------------------------------


def _wake(match_id: int, moved: object) -> None:
    wanted.set()


@contextlib.contextmanager
def _rounds() -> Iterator[runtime.Step]:
    """While the worker runs, every committed change in this process wakes it: a bot may be to move."""
    events.subscribe(_wake)
    try:
        yield sweep_bots
    finally:
        events.unsubscribe(_wake)


# beside the clocks: on in a web process with the in-process clocks on
WORKER = runtime.Worker(
    name="bots", rounds=_rounds, wake=wanted, done="played {} bot move(s)", enabled="DEATHMATCH_INPROCESS_CLOCKS",
    enabled_default=False, idle="DEATHMATCH_CLOCK_MAX_IDLE")
