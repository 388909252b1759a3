"""Computer players in seats: the host's switch, and the jobs that move for them.

A seat with `Seat.bot` set ("easy", "normal", "strong") is played by
`games.bots.choose` (pure: it decides from the seat's own view and legal actions
only, never from what the seat may not see).  The bot acts like a player, through
`services.submit`, from a worker, never on a request's path: thinking takes up to
a few seconds.

Every bot turn is a job (`bot_turn`) of Django's tasks framework (the django-tasks
backport) on its database backend (django-tasks-db): the same tables on SQLite and
PostgreSQL, so the embedded default needs no other service and production needs
nothing beside the PostgreSQL it has.  A job is enqueued when a bot seat becomes to
act, after the commit that made it so (`on_change`, subscribed to every committed
change in `MatchesConfig.ready`); nothing looks at a bot seat before that.  Its key
names the turn (the bout and its version, or its sealed round; and the requests the
bot answers): `Seat.bot_claim` holds the key of the turn queued (`bot_claimed_at`
empty) or taken (the time it was taken), so one turn is enqueued once however many
commits announce it.

Lanes: a turn of a quick strength (easy, normal) or one a person waits for goes in
`QUICK`, with a priority above the strong searches of `STRONG`.  Each worker
process serves the lanes with two threads (`LANE_THREADS`): one takes only quick
jobs, so an easy reply never waits behind a strong search, the other takes any job,
the highest priority first, so a free worker takes an easy job before an earlier
strong one.  Workers: `WORKER` (threads of each web server process, beside the clock
sweeper) or `manage.py run_bots` (one process each, any number, on any machine that
reaches the database).  A web process's own commits ring its lanes (`ring`): a bot
there replies as soon as its turn is committed, and its idle lanes look for jobs made
elsewhere once a second; a `run_bots` lane learns of a job only by looking
(`DEATHMATCH_BOT_POLL`).

Nothing twice, nothing lost: a job is taken by one worker (the backend's `SELECT ...
FOR UPDATE SKIP LOCKED`, an exclusive transaction on SQLite); the worker then claims
the turn with a compare-and-swap on `Seat.bot_claim`; the move carries the version
the bot thought about, so `submit` refuses it if anything changed meanwhile.  A job
for a turn that has passed (the person resigned, the host took the seat back, a
takeback) is dropped when taken.  The backend has no lease of its own: a job still
running `LEASE` after it was taken lost its worker (a strong search takes seconds),
and `reap` fails it and enqueues it again; the turn's own claim is past its lease
by then, so the new job takes it.  A paused match's bots wait: a job taken while
paused is dropped, and resuming (a commit) enqueues the turn again.

The bot respects the clock: it thinks at most its strength's budget, and never
more than half of the time its seat has left.  It answers its opponent's requests
at once, through `requests.respond` like a person (`ANSWERS`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Min, Q
from django.db.utils import DatabaseError, OperationalError
from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult, get_date_max
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from games import bots as computer
from games.bots.search import Strength
from games.core import RuleError
from matches.core import runtime
from matches.core.errors import NotAllowed, ServiceError
from matches.models import Bout, Match, Seat
from matches.play import clocks, engine, offers, requests, services
from matches.play.change import change

log = logging.getLogger(__name__)

STRENGTHS: Mapping[str, Strength] = computer.STRENGTHS
#: a job still running this long after it was taken lost its worker (a strong search takes seconds):
#: it is taken again, and so may the turn's claim
LEASE = timedelta(seconds=30)
#: a finished bot job's row is kept this long (a day's moves, to read back what the bots did), then deleted
#: by `prune`, at most once every `PRUNE_EVERY` per worker
KEEP_FINISHED = timedelta(days=1)
PRUNE_EVERY = timedelta(hours=1)
#: a turn whose move failed unexpectedly (a locked database) is tried again after this
RETRY = timedelta(seconds=1)
#: never think longer than this share of the time the seat has left
CLOCK_SHARE = 0.5
#: how a computer answers its opponent's requests, at once (the person does not wait a turn for
#: the request to lapse): it grants a takeback, as lichess's computer does, and declines a draw, as it
#: plays every bout to its end (the host may still grant a declined draw)
ANSWERS = {"takeback": True, "draw": False}

#: the lanes (the backend's queues, settings.TASKS): short thinking, or a person waiting; strong searches
QUICK, STRONG = "bots-quick", "bots-strong"
LANES = (QUICK, STRONG)
#: strengths whose thinking is short
QUICK_STRENGTHS = frozenset({"easy", "normal"})
#: priorities, added up (the highest first): a person waits for the move; the move is quick to think
PERSON_WAITS, SHORT_THINK = 20, 10
#: the lanes each worker thread of a process serves: the quick one alone, and every one (quick first)
LANE_THREADS: tuple[tuple[str, ...], ...] = ((QUICK,), LANES)


class LeaseExpired(Exception):
    """A bot job's worker stopped (it died mid-search): the job was enqueued again."""


# -- the host's switch -------------------------------------------------------------------


def set_bot(match: Match, seat: int, strength: str) -> str:
    """Host: a computer player of `strength` takes `seat` ("" gives it back to its person).
    Logged ("seat 2 (Bob) is played by the computer (normal)") and announced; the page's
    names say "(computer, normal)" while it plays.  Its turn, if it is one, is enqueued on commit."""
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


# -- enqueued on commit ------------------------------------------------------------------


def turn_key(match: Match, bout: Bout | None, seat: int) -> str | None:
    """What the bot of `seat` has to do now, named as its job's key: its turn (the bout and its
    version, or its sealed round: one turn however many others submit meanwhile), and the requests
    it answers; None when it has nothing to do (not its turn, the match paused or over)."""
    if match.status != Match.RUNNING or match.paused or bout is None or bout.finished is not None:
        return None
    game = match.game
    state = game.load(bout.state)
    if game.result(state) is not None:
        return None
    key = f"{bout.pk}:r{bout.round_version}" if game.sealed else f"{bout.pk}:{bout.version}"
    asked = _to_answer(match, bout, seat)
    if asked:
        return f"{key}:a{zlib.crc32(','.join(asked).encode()):08x}"
    awaited = game.pending(state) if game.sealed else game.to_act(state)
    return key if seat in awaited else None


def enqueue_turns(match_id: int, *, delay: timedelta | None = None) -> int:
    """A job for each bot seat of the match that has something to do and whose turn is not queued
    yet: the seat's claim takes the turn's key and the job is inserted in one transaction (to run
    `delay` from now at the earliest, when given).  The jobs enqueued."""
    seats = list(Seat.objects.filter(match_id=match_id).order_by("number"))
    robots = [seat for seat in seats if seat.bot]
    if not robots:
        return 0
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Match.RUNNING or match.paused:
        return 0
    bout = Bout.objects.filter(match=match).order_by("-number").first()
    person = any(not seat.bot for seat in seats)
    enqueued = 0
    for seat in robots:
        key = turn_key(match, bout, seat.number)
        if key is None:
            continue
        quick = seat.bot in QUICK_STRENGTHS
        lane = QUICK if quick or person else STRONG
        priority = (PERSON_WAITS if person else 0) + (SHORT_THINK if quick else 0)
        with transaction.atomic():
            queued = (Seat.objects.filter(pk=seat.pk, bot=seat.bot).exclude(bot_claim=key)
                      .update(bot_claim=key, bot_claimed_at=None))
            if queued:
                run_after = None if delay is None else timezone.now() + delay
                _enqueue(seat.pk, key, lane=lane, priority=priority, run_after=run_after)
                enqueued += 1
    return enqueued


def _enqueue(seat_id: int, key: str, *, lane: str, priority: int, run_after: datetime | None = None) -> None:
    """Insert a bot job, and ring this process's lanes once it is committed."""
    bot_turn.using(queue_name=lane, priority=priority, run_after=run_after).enqueue(seat_id, key)
    transaction.on_commit(ring)


def on_change(match_id: int, moved: object) -> None:
    """After every committed change of a match (events.subscribe): its bots' turns, enqueued."""
    enqueue_turns(match_id)


def due_seats() -> list[int]:
    """Ids of bot seats in running, unpaused matches (what a catch-up looks at)."""
    return list(Seat.objects.exclude(bot="").filter(match__status=Match.RUNNING, match__paused=False)
                .order_by("id").values_list("id", flat=True))


def enqueue_due() -> int:
    """Catch up (a worker starting): the turns of bot seats in running, unpaused matches that were
    never enqueued (made before this process subscribed, or while the job table did not exist)."""
    ids = Seat.objects.filter(pk__in=due_seats()).values_list("match_id", flat=True)
    return sum(enqueue_turns(match_id) for match_id in sorted(set(ids)))


# -- one bot turn ------------------------------------------------------------------------


@task(queue_name=STRONG)
def bot_turn(seat_id: int, key: str) -> bool:
    """The job: the bot of seat `seat_id` plays turn `key` if it is still that turn."""
    return play_turn(seat_id, key=key)


def claim(seat_id: int, strength: str, key: str, now: datetime) -> bool:
    """Compare-and-swap: this worker takes turn `key` of the seat (queued, or another turn's, or
    taken longer than the lease ago); False when another worker took it."""
    taken = (Seat.objects.filter(pk=seat_id, bot=strength)
             .filter(~Q(bot_claim=key) | Q(bot_claimed_at=None) | Q(bot_claimed_at__lt=now - LEASE))
             .update(bot_claim=key, bot_claimed_at=now))
    return taken == 1


def play_turn(seat_id: int, strengths: Mapping[str, Strength] = STRENGTHS, *, key: str | None = None) -> bool:
    """If the bot of seat `seat_id` has something to do (and it is turn `key`, when given: a job
    for a turn that has passed is dropped) and this worker wins the claim: answer its requests, or
    think and submit.  True when its move was applied."""
    seat = Seat.objects.select_related("match").filter(pk=seat_id).first()
    if seat is None:
        return False
    match = seat.match
    bout = Bout.objects.filter(match=match).order_by("-number").first()
    now_key = turn_key(match, bout, seat.number) if seat.bot else None
    if key is not None and now_key != key:
        # dropped; a turn queued under this key is given back, so that a resumed match (whose
        # commit may have found it still queued) enqueues it again
        release(seat.pk, key)
        enqueue_turns(match.pk)
        return False
    if now_key is None or bout is None:
        return False
    now = timezone.now()
    if not claim(seat.pk, seat.bot, now_key, now):
        return False
    if answer_requests(match, bout, seat.number):
        return False  # the answer changed the match: its commit enqueues what comes next
    game = match.game
    state = game.load(bout.state)
    if seat.number not in (game.pending(state) if game.sealed else game.to_act(state)):
        return False  # it had requests to answer only
    try:
        knobs = _within_clock(strengths[seat.bot], bout, seat.number, now)
        # per match too: two matches of one game must not replay one game move for move
        seed = zlib.crc32(f"{match.pk}:{bout.number}:{bout.version}:{seat.number}".encode())
        # choose() decides from game.view(state, seat) and the seat's legal actions only
        action = computer.choose(game, state, seat.number, knobs, seed=seed)
        services.submit(match.pk, seat.number, game.format(action), bout.version)
    except (ServiceError, RuleError) as error:
        # refused (the bout moved on meanwhile): the turn that follows, if its own, is enqueued by
        # the commit that moved it (and here, should that commit have found this turn claimed)
        log.info("bot of seat %s in match %s did not move: %s", seat.number, match.pk, error)
        enqueue_turns(match.pk)
        return False
    except Exception:
        release(seat.pk, now_key)  # e.g. a locked database: tried again a little later
        enqueue_turns(match.pk, delay=RETRY)
        raise
    return True


def _to_answer(match: Match, bout: Bout, seat: int) -> list[str]:
    """The open requests of its opponents the bot of `seat` answers, by id (where the opponent
    answers them; the host's matches wait for the host)."""
    if offers.answerer(match) != offers.OPPONENT:
        return []
    return [str(request.get("id") or request["kind"]) for request in offers.pending(match, bout)
            if request["seat"] != seat and not request.get("declined") and request["kind"] in ANSWERS]


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
    """Give a queued or claimed turn back (its job was dropped, or its move failed): it may be
    enqueued and claimed again.  Safe: a move carries the version it was thought on, so a turn is
    still played at most once."""
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


# -- the workers (matches/core/runtime.py runs them) --------------------------------------------


def _jobs(lanes: tuple[str, ...]) -> Any:
    return DBTaskResult.objects.ready().filter(task_path=bot_turn.module_path, queue_name__in=lanes)


def take(lanes: tuple[str, ...] = LANES, worker_id: str = "") -> DBTaskResult[Any, Any] | None:
    """The next bot job of `lanes` (the highest priority, then the oldest), taken for this worker
    as the backend's own worker takes one (locked, skipping rows another worker holds); None when
    none is ready."""
    jobs = _jobs(lanes)
    with exclusive_transaction(jobs.db):
        job: DBTaskResult[Any, Any] | None = jobs.get_locked()
        if job is not None:
            job.claim(worker_id or _worker_id("sweep"))
    return job


def run_job(job: DBTaskResult[Any, Any], strengths: Mapping[str, Strength] = STRENGTHS) -> bool:
    """Run a job `take` returned, in this thread, and record its outcome on its row.  True when
    its move was applied."""
    try:
        seat_id, key = job.task_result.args
        moved = play_turn(seat_id, strengths, key=key)
    except Exception as error:
        job.set_failed(error)
        raise
    job.set_successful(moved)
    return moved


def run_ready(lanes: tuple[str, ...] = LANES, worker_id: str = "", strengths: Mapping[str, Strength] = STRENGTHS,
              stop: threading.Event | None = None) -> int:
    """Every ready job of `lanes`, in this thread, the highest priority first, until none is left
    (or `stop` is set); the moves applied."""
    played = 0
    while (stop is None or not stop.is_set()) and (job := take(lanes, worker_id)) is not None:
        try:
            played += run_job(job, strengths)
        except Exception:  # recorded on its row; one broken match must not stop the other bots
            log.exception("bot job %s failed", job.pk)
    return played


def sweep_bots(strengths: Mapping[str, Strength] = STRENGTHS) -> int:
    """Catch up (`enqueue_due`), then run every ready bot job in this thread, in lane order
    (`run_bots --once`); the moves applied."""
    enqueue_due()
    return run_ready(strengths=strengths)


def reap(now: datetime | None = None) -> int:
    """Bot jobs still running `LEASE` after they were taken lost their worker: each is failed
    (`LeaseExpired`) and enqueued again, in its lane.  The jobs enqueued again."""
    now = timezone.now() if now is None else now
    stale = list(DBTaskResult.objects.running().filter(task_path=bot_turn.module_path,
                                                       started_at__lt=now - LEASE).values_list("pk", flat=True))
    retaken = 0
    for pk in stale:
        with transaction.atomic():
            job = DBTaskResult.objects.running().select_for_update(skip_locked=True).filter(pk=pk).first()
            if job is None:
                continue  # another worker's reaper has it, or it finished meanwhile
            job.set_failed(LeaseExpired(f"its worker ({', '.join(job.worker_ids)}) stopped"))
            seat_id, key = job.task_result.args
            _enqueue(seat_id, key, lane=job.queue_name, priority=job.priority)
            log.warning("bot job %s lost its worker: enqueued again", pk)
            retaken += 1
    return retaken


def prune(now: datetime | None = None) -> int:
    """Delete the rows of bot jobs that finished (done, refused or failed) over `KEEP_FINISHED`
    ago: one a move, they would otherwise grow without end.  The rows deleted."""
    now = timezone.now() if now is None else now
    old = DBTaskResult.objects.finished().filter(task_path=bot_turn.module_path, finished_at__lt=now - KEEP_FINISHED)
    deleted, _ = old.delete()
    return deleted


def _worker_id(lane: str) -> str:
    return f"{socket.gethostname()[:40]}-{os.getpid()}-{lane}"[:64]


#: each lane thread's bell (`ring`): set when this process commits a bot job, so that the lane takes it at once
_BELLS: set[threading.Event] = set()
#: how often a lane that its process's commits ring (a web process's, which enqueues the jobs) still looks
#: for jobs made elsewhere (a management command; a web process whose lanes are off)
RUNG_POLL = 1.0


def ring() -> None:
    """A bot job was committed in this process: every lane of the process looks at once."""
    for bell in list(_BELLS):
        bell.set()


def _next_delayed(lanes: tuple[str, ...], now: datetime) -> datetime | None:
    """When the earliest job of `lanes` enqueued to run later (`RETRY`) becomes ready."""
    later: datetime | None = (DBTaskResult.objects.filter(
        task_path=bot_turn.module_path, queue_name__in=lanes, status=TaskResultStatus.READY,
        run_after__gt=now, run_after__lt=get_date_max()).aggregate(at=Min("run_after"))["at"])
    return later


class Lane:
    """One worker thread on some lanes: every ready job (`run_ready`), then a sleep until its
    bell rings (a job committed in this process), the next delayed job is due, or `poll` seconds
    have passed (jobs other processes enqueued).  Started again after a database error (not
    migrated yet)."""

    def __init__(self, lanes: tuple[str, ...], number: int, poll: float) -> None:
        self.lanes = lanes
        self.poll = poll
        self.stopped = threading.Event()
        self.bell = threading.Event()
        self.asleep = threading.Event()  # set while it waits for its bell
        self.worker_id = _worker_id(f"{number}{'q' if lanes == (QUICK,) else 'a'}")
        _BELLS.add(self.bell)
        self.thread = runtime.start_worker(self.serve, name=f"deathmatch-bots-{'-'.join(lanes)}")

    def serve(self) -> None:
        warned = False
        while not self.stopped.is_set():
            self.asleep.clear()
            self.bell.clear()  # a job committed from now on rings the sleep below
            wait = self.poll
            try:
                close_old_connections()
                run_ready(self.lanes, self.worker_id, stop=self.stopped)
                now = timezone.now()
                later = _next_delayed(self.lanes, now)
                if later is not None:
                    wait = min(wait, (later - now).total_seconds())
                warned = False
            except DatabaseError as error:
                busy = isinstance(error, OperationalError) and is_locked_database_exception(error)
                if not busy:  # (SQLite busy: looked at again after the poll) not migrated yet: said once
                    if not warned:
                        log.warning("bot lane %s: database not ready (%s)", ",".join(self.lanes), error)
                        warned = True
                    wait = max(wait, 1.0)
            except Exception:
                log.exception("bot lane %s failed; retrying", ",".join(self.lanes))
                wait = max(wait, 1.0)
            self.asleep.set()
            self.bell.wait(wait)
        close_old_connections()

    def stop(self) -> None:
        self.stopped.set()
        self.bell.set()
        _BELLS.discard(self.bell)


@contextlib.contextmanager
def _rounds() -> Iterator[runtime.Step]:
    """While the worker runs: its lane threads take the jobs; its rounds catch up once, then take
    back the jobs of workers that died (and, once an hour, delete old finished jobs)."""
    # a web process enqueues the jobs its commits make, and rings its lanes; a `run_bots` process
    # learns of them only by looking
    poll = RUNG_POLL if runtime.is_web_server() else float(settings.DEATHMATCH_BOT_POLL)
    lanes = [Lane(served, number, poll) for number, served in enumerate(LANE_THREADS)]
    caught_up = False
    pruned: datetime | None = None

    def step() -> int:
        nonlocal caught_up, pruned
        if not caught_up:
            enqueue_due()
            caught_up = True
        now = timezone.now()
        if pruned is None or now - pruned >= PRUNE_EVERY:
            prune(now)
            pruned = now
        return reap(now)

    try:
        yield step
    finally:
        for lane in lanes:
            lane.stop()


# beside the clocks: on in a web process with the in-process clocks on
WORKER = runtime.Worker(
    name="bots", rounds=_rounds, wake=threading.Event(), done="took back {} bot job(s) whose worker stopped",
    enabled="DEATHMATCH_INPROCESS_CLOCKS", enabled_default=False, idle="DEATHMATCH_BOT_REAP_SECONDS",
    idle_default=LEASE.total_seconds() / 3)
