"""matches/core/runtime.py: the one runner of the background workers, in a web process or as a command."""

from __future__ import annotations

import io
import threading
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db.utils import DatabaseError

from matches.core import runtime
from matches.discord import sender


def test_a_worker_runs_only_once_every_app_is_ready(monkeypatch: Any) -> None:
    setting_up = threading.Event()  # Django's apps.ready_event while MatchesConfig.ready runs
    monkeypatch.setattr(apps, "ready_event", setting_up)  # the registry runtime waits on
    seen: list[tuple[str, bool]] = []
    worker = runtime.start_worker(lambda word: seen.append((word, setting_up.is_set())), "swept", name="test-worker")
    assert worker.daemon and worker.name == "test-worker"
    assert seen == []
    setting_up.set()
    worker.join()
    assert seen == [("swept", True)]  # it ran, with its argument, after the apps were ready


def _worker(step: Any, **fields: Any) -> runtime.Worker:
    fields = {"enabled": "TEST_WORKER_ON", "idle": "TEST_WORKER_IDLE", **fields}
    return runtime.Worker(name="test", rounds=runtime.steps(step), wake=threading.Event(), done="did {}", **fields)


def test_the_runner_does_a_round_each_time_it_is_woken_until_stopped() -> None:
    stop, rounds = threading.Event(), threading.Semaphore(0)
    seen: list[int] = []

    def step() -> int:
        seen.append(len(seen))
        rounds.release()
        return len(seen) % 2  # a round that did something, one that did not

    worker = _worker(step)
    done: list[int] = []
    thread = threading.Thread(target=runtime.run, args=(worker, 3600.0), kwargs={"stop": stop, "on_done": done.append})
    thread.start()
    assert rounds.acquire(timeout=10)  # the first round at once, then asleep for an hour
    worker.wake.set()  # a commit made work: the next round comes at once
    assert rounds.acquire(timeout=10)
    stop.set()
    worker.wake.set()
    thread.join(10)
    assert not thread.is_alive()
    assert seen[:2] == [0, 1] and done[:1] == [1]  # on_done only after the round that did something


def test_the_runner_sleeps_what_the_worker_asks_and_retries_a_database_not_ready(caplog: Any) -> None:
    stop, rounds = threading.Event(), threading.Semaphore(0)
    waits: list[float | None] = []

    def step() -> int:
        rounds.release()
        if len(waits) < 2:
            waits.append(None)
            raise DatabaseError("no such table: matches_bout")
        return 0

    def wait(idle: float) -> float:
        waits.append(idle)
        stop.set()
        return 0.0

    worker = _worker(step, wait=wait)
    worker.wake.set()
    thread = threading.Thread(target=runtime.run, args=(worker, 0.01), kwargs={"stop": stop})
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    assert waits == [None, None, 0.01]  # two failed rounds retried, then asked how long to sleep
    assert [r.getMessage() for r in caplog.records].count("test: database not ready (no such table: matches_bout)") == 1


def test_workers_start_in_web_servers_only_once_each_and_when_their_setting_is_on(settings: Any, monkeypatch: Any) -> None:
    started: list[tuple[str, float]] = []
    monkeypatch.setattr(runtime, "start_worker", lambda target, worker, idle, name: started.append((name, idle)))
    settings.TEST_WORKER_ON, settings.TEST_WORKER_IDLE = True, 0.5
    on, off = _worker(lambda: 0), _worker(lambda: 0, enabled="TEST_WORKER_OFF", enabled_default=False)
    daphne = ["/usr/local/bin/daphne", "config.asgi:application"]
    assert runtime.start_in_process(on, off, argv=["manage.py", "migrate"], environ={}) == []
    assert runtime.start_in_process(on, off, argv=daphne, environ={}) == [on]
    assert runtime.start_in_process(on, off, argv=daphne, environ={}) == []  # once per process
    assert started == [("deathmatch-test", 0.5)]


@pytest.mark.django_db
@pytest.mark.parametrize(("command", "said"), [("run_clocks", "applied 0 time-out(s)"),
                                               ("run_bots", "played 0 bot move(s)"),
                                               ("run_webhooks", "delivered 0 announcement(s)")])
def test_each_worker_is_a_management_command_that_can_run_once(command: str, said: str) -> None:
    out = io.StringIO()
    call_command(command, "--once", stdout=out)
    assert out.getvalue().strip() == said


def test_a_worker_that_cannot_run_here_says_why(settings: Any) -> None:
    settings.DISCORD_APPLICATION_ID = settings.DISCORD_PUBLIC_KEY = settings.DISCORD_BOT_TOKEN = ""
    with pytest.raises(CommandError, match="set DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN"):
        call_command("run_discord", "--once")
    settings.DEATHMATCH_INPROCESS_DISCORD = True
    assert runtime.start_in_process(sender.WORKER, argv=["/usr/local/bin/daphne"], environ={}) == []  # nor in a web process
