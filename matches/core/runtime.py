"""The background workers' one runner, and what kind of process this is.

A worker (the clock sweeper, the computer players, the season webhooks, the Discord outbox) is its
loop body only: a
`Worker` names one round of its work (`step`, the number of things it did), the event that wakes
it early, and how long it may sleep.  `run` is the loop every worker shares: a round, then sleep
until woken or the idle time is up; a database not migrated yet is said once and retried quietly,
any other failure is logged and retried after the idle time.  The same worker runs

- in a web server process (daphne, runserver's serving child), one daemon thread each, started by
  `start_in_process` from `MatchesConfig.ready` unless its setting turns it off; never in tests,
  migrations or other management commands;
- alone, as its management command (`run_clocks`, `run_bots`, `run_webhooks`, `run_discord`), in
  production.

Each worker claims its work by compare-and-swap, so any number of copies may run at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import close_old_connections
from django.db.utils import DatabaseError

log = logging.getLogger(__name__)

Step = Callable[[], int]


@dataclass(frozen=True, eq=False)
class Worker:
    """One background worker.  `rounds()` opens what its rounds share for as long as it runs (an
    HTTP client, a subscription) and yields `step`, one round of the work: the number of things
    done.  `wake` set ends a sleep at once (set after a commit that made new work).  `wait(idle)`:
    how long to sleep after a round, at most `idle` seconds (the clocks wake at the next deadline).
    In a web process it runs when `enabled` (a setting, default `enabled_default`) is on; `idle`
    (a setting, default `idle_default`) is its longest sleep, the time in which work made by other
    processes is seen.  `done` says what a round did ("applied {} time-out(s)")."""

    name: str
    rounds: Callable[[], AbstractContextManager[Step]]
    wake: threading.Event
    done: str
    enabled: str
    idle: str
    idle_default: float = 1.0
    enabled_default: bool = True
    wait: Callable[[float], float] = field(default=lambda idle: idle)
    #: whether it can run at all here, and why not (the Discord worker: only in a Discord application)
    ready: Callable[[], bool] = field(default=lambda: True)
    unready: str = ""
    started: threading.Event = field(default_factory=threading.Event)

    def idle_seconds(self) -> float:
        return float(getattr(settings, self.idle, self.idle_default))

    def on(self) -> bool:
        return bool(getattr(settings, self.enabled, self.enabled_default)) and self.ready()


def steps(step: Step) -> Callable[[], AbstractContextManager[Step]]:
    """`Worker.rounds` for a worker whose rounds share nothing."""
    return lambda: contextlib.nullcontext(step)


def run(worker: Worker, idle: float, *, stop: threading.Event | None = None,
        on_done: Callable[[int], object] | None = None) -> None:
    """Round after round until `stop` is set: a round, then sleep until `worker.wake` is set or
    `worker.wait(idle)` seconds have passed.  `on_done(n)` after a round that did something."""
    warned = False
    with worker.rounds() as step:
        while stop is None or not stop.is_set():
            wait = idle
            try:
                close_old_connections()
                worker.wake.clear()  # a change committed from now on wakes the next sleep
                done = step()
                if done and on_done is not None:
                    on_done(done)
                wait = worker.wait(idle)
                warned = False
            except DatabaseError as error:  # e.g. before `migrate`: keep trying quietly
                if not warned:
                    log.warning("%s: database not ready (%s)", worker.name, error)
                    warned = True
            except Exception:
                log.exception("%s failed; retrying", worker.name)
                # not woken early: a round that fails on every commit would flood the log
                (stop or threading.Event()).wait(idle)
                continue
            worker.wake.wait(wait)
        close_old_connections()


def start_in_process(*workers: Worker, argv: list[str] | None = None,
                     environ: dict[str, str] | None = None) -> list[Worker]:
    """In a web server process: each worker whose setting is on, in a daemon thread of its own,
    once per process (`MatchesConfig.ready`).  The workers started."""
    if not is_web_server(argv, environ):
        return []
    started = []
    for worker in workers:
        if not worker.on() or worker.started.is_set():
            continue
        worker.started.set()
        start_worker(run, worker, worker.idle_seconds(), name=f"deathmatch-{worker.name}")
        started.append(worker)
    return started


def is_web_server(argv: list[str] | None = None, environ: dict[str, str] | None = None) -> bool:
    argv = sys.argv if argv is None else argv
    environ = dict(os.environ) if environ is None else environ
    if not argv:
        return False
    program = argv[0].replace("\\", "/")
    if os.path.basename(program).startswith("daphne") or program.endswith("daphne/__main__.py"):
        return True  # `daphne config.asgi:application` or `python -m daphne ...`
    if len(argv) > 1 and argv[1] == "runserver":
        # the autoreloader's parent only watches files; its child serves
        return environ.get("RUN_MAIN") == "true" or "--noreload" in argv
    return False


def start_worker(target: Callable[..., Any], *args: Any, name: str) -> threading.Thread:
    """Run `target(*args)` in a daemon thread of its own once Django is set up.  The web
    process's workers are started by `MatchesConfig.ready`, before every app is ready; a first
    query made then draws Django's "Accessing the database during app initialization is
    discouraged".  (`apps.ready_event` is what Django's own autoreloader waits on.)"""
    def after_setup() -> None:
        apps.ready_event.wait()
        target(*args)

    thread = threading.Thread(target=after_setup, name=name, daemon=True)
    thread.start()
    return thread
