"""The chat in the pages, for any message body: no 500, nothing unescaped (hypothesis through the
real views and templates)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.models import ChatMessage

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiet_match(make_match: Any) -> Any:
    return make_match("lance-assembly", start=False)


BODIES = st.lists(st.one_of(st.text(max_size=40), st.sampled_from(
    ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "&amp;", "</li></ol>", "{{ x }}", "{% now %}",
     "\x00", "\u202e", "'"])), max_size=6).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=BODIES)
def test_any_body_no_500_and_nothing_unescaped(quiet_match: Any, body: str) -> None:
    match = quiet_match
    ChatMessage.objects.filter(match=match).delete()  # (one match for every example: no repeat refused)
    seat = match.seats.get(number=1)
    client = Client()
    reply = client.post(f"/p/{seat.token}/chat/", {"room": "seat-1", "text": body}, HTTP_HX_REQUEST="true")
    assert reply.status_code == 200
    page = client.get(f"/h/{match.host_token}/").content.decode()
    line = ChatMessage.objects.filter(match=match).first()
    for html in (reply.content.decode(), page):
        assert "<script>alert" not in html and "<img src=x" not in html and "</li></ol>" not in html
        if line is not None:
            assert f'<span class="chat-body">{escape(line.text)}</span>' in html

