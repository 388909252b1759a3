"""Real concurrency for the PostgreSQL race tests: callables released at once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def released_together(*targets: Callable[[], Any], timeout: float = 60) -> list[Exception]:
    """Run `targets` in threads released together by a barrier; the exceptions they raised.
    Each thread closes its own database connection when done."""
    errors: list[Exception] = []
    barrier = threading.Barrier(len(targets))

    def run(target: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            target()
        except Exception as error:  # collected for the assertions
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return errors
