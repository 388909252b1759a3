"""The host's Connected panel's lag figure (issue 41, item 3): "lag 6844 ms a move on average ·
0.20 s given back" stood beside moves each logged "+0.04 lag".  The panel averaged each move's
claim (server elapsed - the page's think time), which also holds any time the page did not show
the position (opened or reloaded mid-turn) and which the server charged as thinking, not lag.
Through the services with time frozen and the host's page as it is loaded."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

import pytest
from django.test import Client

from matches.core import netlag
from matches.play import services

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def own_cache(settings: Any) -> None:
    """Measured lags in a cache namespace of this test only (Redis is shared)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


def _submit(match: Any, seat: int, text: str, think: float) -> Any:
    return services.submit(match, seat, text, match.bouts.order_by("-number").first().version, think=think)


def _lag_line(match: Any, name: str) -> str:
    html = Client().get(f"/h/{match.host_token}/").content.decode()
    found = re.search(rf"{name} \(seat \d\).*?<small class=\"lag muted\">(.*?)</small>", html, re.S)
    assert found, html[:300]
    return found.group(1)


def test_the_lag_figure_is_the_lag_each_move_was_counted_not_time_the_page_did_not_see(
    time_machine: Any, make_match: Any
) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("lance-assembly", bouts=3, clock={"per_move": 60, "reserve": 300})
    netlag.record(match.pk, 1, 0.01)  # Ann's socket: a 10 ms round trip
    # Ann reloads her page 29 s into her turn and plays 1 s later: the page saw 1 s of it
    time_machine.shift(30.0)
    first = _submit(match, 1, "place C3", 1.0)
    time_machine.shift(2.0)
    _submit(match, 2, "place D4", 2.0)
    time_machine.shift(5.0)  # her next turn, seen whole: 30 ms of lag
    second = _submit(match, 1, "place E5", 4.97)
    assert (first.lag_comp, second.lag_comp) == (pytest.approx(0.05), pytest.approx(0.03))
    # the log shows +0.05 and +0.03 lag: the panel says 40 ms a move, not the 14.5 s the claims average
    assert _lag_line(match, "Ann") == "lag 40 ms a move on average · 0.08 s given back"


def test_without_compensation_the_panel_still_reads_the_claims(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("lance-assembly", clock={"per_move": 60, "reserve": 300, "lag_compensation": False})
    time_machine.shift(3.0)
    _submit(match, 1, "place C3", 2.9)
    assert _lag_line(match, "Ann") == "lag 100 ms a move on average · 0.00 s given back"
