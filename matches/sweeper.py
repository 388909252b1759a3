"""The clock sweeper inside the web process, so the single run command
(`manage.py runserver`, or `daphne config.asgi:application`) keeps clocks
honest with nothing else running.

It starts only when the process is a web server (runserver's serving child,
or daphne) and `settings.DEATHMATCH_INPROCESS_CLOCKS` is on: never in tests,
migrations or other management commands.  It is a daemon thread calling the
same `sweep_clocks` as `manage.py run_clocks`; running both (or several web
processes) is safe because each time-out is claimed by compare-and-swap.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from django.conf import settings
from django.db import close_old_connections
from django.db.utils import DatabaseError

log = logging.getLogger(__name__)

_started = threading.Event()


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


def maybe_start() -> bool:
    if not getattr(settings, "DEATHMATCH_INPROCESS_CLOCKS", False) or not is_web_server():
        return False
    return start()


def start(interval: float | None = None) -> bool:
    if _started.is_set():
        return False
    _started.set()
    every = interval or float(getattr(settings, "DEATHMATCH_CLOCK_INTERVAL", 0.5))
    threading.Thread(target=_loop, args=(every,), name="deathmatch-clocks", daemon=True).start()
    return True


def _loop(interval: float) -> None:
    from .clocks import sweep_clocks

    warned = False
    while True:
        time.sleep(interval)
        try:
            close_old_connections()
            sweep_clocks()
            warned = False
        except DatabaseError as error:  # e.g. before `migrate`: keep trying quietly
            if not warned:
                log.warning("clock sweeper: database not ready (%s)", error)
                warned = True
        except Exception:
            log.exception("clock sweeper failed; retrying")
