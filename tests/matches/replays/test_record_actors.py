"""A record names who acted (issue 51): a seat's own draw offer, takeback request and answer are
that seat's lines (`# seat 2 (Bob): accepts ...`), never `# host` unless the host did it.  Through
the record each audience downloads from its own link, after the requests were posted from the
seats' own pages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games.core import HOST
from matches.replays import records

pytestmark = pytest.mark.django_db


def _post(client: Client, seat: Any, **data: str) -> None:
    html = client.post(f"/p/{seat.token}/request/", data).content.decode()
    found = re.search(r'<div id="move-error"[^>]*>(.*?)</div>', html, re.S)
    assert found is None or not re.sub(r"<[^>]+>|\s", "", found.group(1)), found and found.group(1)


def _offer(client: Client, seat: Any, kind: str) -> str:
    html = client.get(f"/p/{seat.token}/").content.decode()
    found = re.search(rf'id="offer-answer-{kind}".*?name="offer" value="(\d+)"', html, re.S)
    assert found, html[:300]
    return found.group(1)


def _notes(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("# ") and not line.startswith("# Deathmatch")]


def test_a_record_credits_the_seat_that_accepted_the_takeback(client: Client, make_match: Any, play: Any) -> None:
    match = make_match("lance-assembly", bouts=3)
    ann, bob = match.seat(1), match.seat(2)
    play(match, 1, "place C3")
    play(match, 2, "place D4")
    _post(client, ann, request="takeback")
    _post(client, bob, request="answer", kind="takeback", answer="accept", offer=_offer(client, bob, "takeback"))
    _post(client, ann, request="draw")
    _post(client, bob, request="answer", kind="draw", answer="accept", offer=_offer(client, bob, "draw"))

    for url in (f"/h/{match.host_token}/record.txt", f"/p/{ann.token}/record.txt", f"/w/{match.watch_token}/record.txt"):
        notes = _notes(client.get(url).content.decode())
        assert "# seat 1 (Ann): asks to take back their last move" in notes, notes
        assert "# seat 2 (Bob): accepts the takeback request of seat 1 (Ann): 2 turn(s) taken back" in notes
        assert "# seat 1 (Ann): offers a draw" in notes
        assert "# seat 2 (Bob): accepts the draw offer of seat 1 (Ann)" in notes
        assert not [n for n in notes if n.startswith(("# host: asks", "# host: accepts", "# host: offers"))], notes
    # a host action is still the host's
    assert any(n.startswith("# host: started") for n in _notes(records.export(match, HOST)))


def test_a_record_with_seat_lines_reads_back_its_moves(client: Client, make_match: Any, play: Any) -> None:
    """The seat's lines are comments the import reads past, as it did the `# host` ones: the
    moves read back are the bout's active ones."""
    match = make_match("lance-assembly", bouts=3)
    bob = match.seat(2)
    play(match, 1, "place C3")
    _post(client, bob, request="draw")
    play(match, 2, "place D4")
    text = records.export(match, HOST)
    assert "# seat 2 (Bob): offers a draw" in _notes(text), _notes(text)
    bout = records.parse(text).bouts[0]
    assert [(e.kind, e.actor, e.text) for e in bout.events] == [("move", 1, "place C3"), ("move", 2, "place D4")]
