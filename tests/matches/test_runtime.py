"""matches/core/runtime.py: the web process's workers start once Django is set up."""

from __future__ import annotations

import threading
from typing import Any

from matches.core import runtime


def test_a_worker_runs_only_once_every_app_is_ready(monkeypatch: Any) -> None:
    setting_up = threading.Event()  # Django's apps.ready_event while MatchesConfig.ready runs
    monkeypatch.setattr(runtime.apps, "ready_event", setting_up)
    seen: list[tuple[str, bool]] = []
    worker = runtime.start_worker(lambda word: seen.append((word, setting_up.is_set())), "swept", name="test-worker")
    assert worker.daemon and worker.name == "test-worker"
    assert seen == []
    setting_up.set()
    worker.join()
    assert seen == [("swept", True)]  # it ran, with its argument, after the apps were ready
