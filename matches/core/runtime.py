"""What kind of process this is: a web server (daphne, runserver's serving child) starts the
in-process clock sweeper and webhook worker; a management command or a test does not."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from django.apps import apps


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
    process's workers (clocks, bots, webhooks) are started by `MatchesConfig.ready`, before every
    app is ready; a first query made then draws Django's "Accessing the database during app
    initialization is discouraged".  (`apps.ready_event` is what Django's own autoreloader waits on.)"""
    def after_setup() -> None:
        apps.ready_event.wait()
        target(*args)

    thread = threading.Thread(target=after_setup, name=name, daemon=True)
    thread.start()
    return thread
