"""What a clock shows after its seat flags, and a bank below 10 minutes (issue 41, item 3), through
the services and each audience's page (the Django test client) and the fragments a socket gets:

- a seat that ran out of time shows 0:00 and "flagged" on every page (both seats', the spectators',
  the host's; a reload is a fresh load), not its next turn's allowance ("0:10 + 0:00"), until the
  next bout gives it a new clock;
- a bank shown to the minute ("19 min") shows its seconds below 10 minutes ("9:42")."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.test import Client

from games.core import HOST, SPECTATOR
from matches.pages import render
from matches.play import services
from matches.templatetags.match_tags import minutes

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def _pages(match: Any) -> dict[str, str]:
    client = Client()
    urls = {"ann": f"/p/{match.seat(1).token}/", "bob": f"/p/{match.seat(2).token}/",
            "watch": f"/w/{match.watch_token}/", "host": f"/h/{match.host_token}/"}
    return {who: client.get(url).content.decode() for who, url in urls.items()}


def _clock(html: str, seat: int) -> tuple[str, str]:
    """(the state's start tag, what the clock shows: its visible text, white space collapsed)."""
    state = re.search(rf'<span id="clock-state-{seat}"[^>]*>', html)
    face = re.search(rf'<div id="clock-{seat}" .*?</div>', html, re.S)
    assert state and face, seat
    shown = re.sub(r'<span class="visually-hidden">[^<]*</span>', "", face.group(0))
    return state.group(0), re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", shown)).strip()


def test_a_flagged_seat_shows_0_00_flagged_on_every_page_until_the_next_bout(
        time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("lance-assembly", bouts=3, clock={"per_move": 10, "reserve": 0})
    services.submit(match, 1, "place C3", match.current_bout.version)
    time_machine.shift(15)  # past Bob's allowance and the lag grace
    assert services.sweep_clocks() == 1
    match.refresh_from_db()
    you = {"ann": "", "bob": " (you)", "watch": "", "host": ""}
    for who, html in _pages(match).items():
        state, shown = _clock(html, 2)
        assert shown == f"Bob{you[who]} 10 s a move + reserve flagged 0:00", who
        assert ' flagged"' in state and 'data-reserve-left="0.0"' in state and 'data-move-left="0.0"' in state, who
        assert "data-deadline" not in state, who
        state, shown = _clock(html, 1)  # the winner's clock stands as it was
        assert shown.endswith("0:10 + 0:00") and "flagged" not in shown + state, who
        # a finished bout is nobody's turn: no clock is lit as the one to move
        assert " active" not in _clock(html, 1)[0] + _clock(html, 2)[0], who
    # what a socket gets (on connect, or in a live update) says the same
    for viewer in (1, 2, SPECTATOR, HOST):
        assert "flagged 0:00" in _clock(render.fragments(match, viewer), 2)[1], viewer
    services.start_next_bout(match)
    for who, html in _pages(match).items():
        assert "flagged" not in _clock(html, 2)[1] and _clock(html, 2)[1].endswith("0:10 + 0:00"), who
        assert sum(" active" in _clock(html, seat)[0] for seat in (1, 2)) == 1, who  # the next bout's mover


def test_a_bank_flagged_seat_shows_0_00_to_players_and_host(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("two-connect", clock={"bank": 30})
    time_machine.shift(35)  # Ann, to move first, never does
    assert services.sweep_clocks() == 1
    match.refresh_from_db()
    for who, html in _pages(match).items():
        assert _clock(html, 1)[1].endswith("flagged 0:00"), who
        assert _clock(html, 2)[1].endswith("0:30") and "flagged" not in _clock(html, 2)[1], who


@pytest.mark.parametrize(("seconds", "shown"), [
    (1200, "20 min"), (1140.2, "19 min"), (600, "10 min"), (599.5, "10 min"), (599, "9:59"), (582, "9:42"),
    (61, "1:01"), (59.2, "1:00"), (9, "0:09"), (0, "0:00"), (-3, "0:00"), (None, "—"),
])
def test_a_bank_to_the_minute_shows_its_seconds_below_10_minutes(seconds: Any, shown: str) -> None:
    assert minutes(seconds) == shown


def test_players_see_a_bank_below_10_minutes_with_its_seconds(time_machine: Any, make_match: Any) -> None:
    time_machine.move_to(T0, tick=False)
    match = make_match("two-connect", clock={"bank": 582})
    pages = _pages(match)
    for who in ("ann", "bob", "watch", "host"):
        assert _clock(pages[who], 1)[1].endswith("9:42") and _clock(pages[who], 2)[1].endswith("9:42"), who
    # the players' and spectators' pages count it down so too (clocks.js), the host's exactly
    assert all(re.search(r'<div id="clock-1" [^>]*data-minutes="1"', pages[who]) for who in ("ann", "bob", "watch"))
    assert re.search(r'<div id="clock-1" [^>]*data-minutes="0"', pages["host"])
