"""bench/soak.py's workers: `manage.py run_bots` or `run_clocks` as deployed, plus one subscriber to
the on-commit event that writes when each change of a match committed.  Bench only.

    SOAK_COMMITS=FILE python bench/soak_worker.py run_bots

One line per committed change, `time.monotonic()` (one clock for every process of the machine, so
bench/soak.py compares it with the moment its spectator sockets hold the version):

    move <match id> <bout number> <bout version> <match status> <monotonic>    (a move's transaction)
    change <match id> - - <match status> <monotonic>                             (anything else: a time-out)
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from matches.core import events  # noqa: E402
from matches.models import Match  # noqa: E402

_out = open(os.environ["SOAK_COMMITS"], "a", buffering=1)  # noqa: SIM115 (open for the process's life)
_lock = threading.Lock()


def stamp(match_id: int, moved: events.Moved | None) -> None:
    now = time.monotonic()
    if moved is not None:
        line = f"move {match_id} {moved.bout.number} {moved.bout.version} {moved.match.status} {now:.6f}\n"
    else:
        status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
        line = f"change {match_id} - - {status} {now:.6f}\n"
    with _lock:
        _out.write(line)


events.subscribe(stamp)
call_command(*sys.argv[1:])
