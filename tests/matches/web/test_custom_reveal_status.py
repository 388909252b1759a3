"""The Host's game pages while a closed round's answers wait for the host's reveal (issue 56):
the host's page says to reveal them, a seat that answered that its answer is in, a spectator
that the host will reveal them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tests.hostform import seq


def _status(page: str) -> str:
    hit = re.search(r'id="status"[^>]*>(.*?)</', page, re.S)
    assert hit is not None
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", hit.group(1))).strip()


@pytest.mark.django_db
def test_every_page_says_the_answers_wait_for_the_hosts_reveal(client: Client, make_match: Any) -> None:
    match = make_match("custom", options={"seats": 2}, seat_names=["Ann", "Bob"])
    ann, bob = match.seats.order_by("number")

    def version() -> int:
        return int(match.bouts.order_by("-number").first().version)

    opened = client.post(f"/h/{match.host_token}/act/", {"action": "play", "host_seq": seq(match.host_token),
                                                        "version": version(), "text": 'round "Pick" number 1-9'})
    assert opened.status_code in (200, 302)
    for seat, answer in ((ann, "3"), (bob, "5")):
        client.post(f"/p/{seat.token}/move/", {"text": answer, "version": version()})
    host = client.get(f"/h/{match.host_token}/").content.decode()
    watch = client.get(f"/w/{match.watch_token}/").content.decode()
    seat = client.get(f"/p/{ann.token}/").content.decode()
    assert _status(host) == "All answers to round 1 are in: reveal them when ready (Reveal round 1 below)."
    assert _status(watch) == "All answers to round 1 are in; the host will reveal them."
    assert _status(seat) == "Round 1: your answer is in; the host will reveal the answers."
    for page in (host, watch, seat):
        assert "No round is open" not in page and "Waiting for the host to open a round" not in page
    assert "Reveal round 1" in host
