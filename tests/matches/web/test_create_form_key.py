"""The home page's "host a match" form carries a double-submit key, as the season forms do (issue
41): the same form posted twice (a double click, a retry after a cut) makes one match, and both
answers lead to its host page.  The key is bound to the browser that posted it (its CSRF cookie):
the same key from another browser makes that browser its own match, never hands it the first one's
host link.  A form drawn again (after an error) has a fresh key, and one brought back and changed
asks for another match."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from matches.models import Match
from tests.conftest import POSTGRES
from tests.threads import released_together

FORM = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}
KEY = re.compile(r'<input type="hidden" name="key" value="([A-Za-z0-9_-]{22})">')


def _form_key(client: Client) -> str:
    """The key of the form as the home page draws it for this browser (the GET sets its CSRF cookie)."""
    page = client.get("/").content.decode()
    found = KEY.findall(page.split('id="create-form"', 1)[1].split("</form>", 1)[0])
    assert len(found) == 1
    return str(found[0])


def _host_token(response: Any) -> str:
    assert response.status_code == 302, response.content.decode()[:500]
    return str(response["Location"]).rstrip("/").rsplit("/", 1)[1]


@pytest.mark.django_db
def test_a_doubled_create_submit_makes_one_match() -> None:
    ann = Client()
    key = _form_key(ann)
    first = _host_token(ann.post("/", {**FORM, "key": key}))
    again = _host_token(ann.post("/", {**FORM, "key": key}))
    assert again == first and Match.objects.count() == 1
    assert Match.objects.get().seats.count() == 2  # its seats made once

    # the form brought back (Back) and changed keeps its key, but asks for another match
    changed = _host_token(ann.post("/", {**FORM, "seat2": "Cy", "key": key}))
    assert changed != first and Match.objects.count() == 2
    assert _host_token(ann.post("/", {**FORM, "seat2": "Cy", "key": key})) == changed  # (doubled too)

    # a new form (a fresh key) is a new match
    assert _host_token(ann.post("/", {**FORM, "key": _form_key(ann)})) not in (first, changed)
    assert Match.objects.count() == 3


@pytest.mark.django_db
def test_a_key_from_another_browser_never_hands_over_the_match() -> None:
    ann, eve = Client(), Client()
    key = _form_key(ann)
    first = _host_token(ann.post("/", {**FORM, "key": key}))
    _form_key(eve)  # (Eve's own CSRF cookie)
    stolen = _host_token(eve.post("/", {**FORM, "key": key}))
    assert stolen != first and Match.objects.count() == 2
    assert first not in eve.get(f"/h/{stolen}/").content.decode()


@pytest.mark.django_db
def test_a_refused_form_is_drawn_with_a_fresh_key_and_made_nothing() -> None:
    ann = Client()
    key = _form_key(ann)
    reply = ann.post("/", {**FORM, "key": key, "seat1": "x" * 5000, "bouts": "-1"})
    assert reply.status_code == 400 and Match.objects.count() == 0
    fresh = KEY.findall(reply.content.decode().split('id="create-form"', 1)[1].split("</form>", 1)[0])
    assert len(fresh) == 1 and fresh[0] != key
    _host_token(ann.post("/", {**FORM, "key": key}))  # the refused key was not spent
    assert Match.objects.count() == 1


@pytest.mark.django_db
def test_a_doubled_practice_submit_makes_one_match_and_leads_both_to_its_seat() -> None:
    """The practice form has a key too: a double click on "Play the computer" (or on "Play again",
    posted by htmx) made a second match and left the first running against nobody."""
    ann, eve = Client(), Client()
    page = ann.get("/").content.decode()
    found = KEY.findall(page.split('id="practice-form"', 1)[1].split("</form>", 1)[0])
    assert len(found) == 1
    form = {"game": "squava", "strength": "easy", "seat": "2", "key": found[0]}
    first = ann.post("/practice/", form)["Location"]
    assert ann.post("/practice/", form)["Location"] == first and Match.objects.count() == 1
    assert ann.post("/practice/", form, headers={"HX-Request": "true"})["HX-Redirect"] == first
    assert first == f"/p/{Match.objects.get().seats.get(number=2).token}/"  # the player's seat
    eve.get("/")  # (Eve's own CSRF cookie): the same key is her own new match
    assert eve.post("/practice/", form)["Location"] != first and Match.objects.count() == 2


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_submits_at_once_make_one_match() -> None:
    """The doubled submits race (two requests in flight): the key's unique row lets one through, and
    the other, made to wait for it by PostgreSQL, answers with the same match."""
    ann = Client()
    key = _form_key(ann)
    cookie = ann.cookies["csrftoken"].value
    tokens: list[str] = []

    def submit() -> None:
        client = Client()
        client.cookies["csrftoken"] = cookie
        tokens.append(_host_token(client.post("/", {**FORM, "key": key})))

    assert released_together(submit, submit) == []
    assert len(tokens) == 2 and tokens[0] == tokens[1]
    assert Match.objects.count() == 1


def _practice_key(client: Client) -> str:
    page = client.get("/").content.decode()
    found = KEY.findall(page.split('id="practice-form"', 1)[1].split("</form>", 1)[0])
    assert len(found) == 1
    return str(found[0])


# the same fields fit both forms: the home form ignores strength and seat, practice the names
BOTH = {"game": "squava", "strength": "easy", "seat": "1"}


@pytest.mark.django_db
def test_the_practice_forms_key_posted_to_the_home_form_finds_no_practice_match() -> None:
    """One key space per form (issue 51): the practice form's key posted to `/` led to the practice
    match's host link, which nobody is meant to hold."""
    ann = Client()
    form = {**BOTH, "key": _practice_key(ann)}
    seat = ann.post("/practice/", form)["Location"]
    practice = Match.objects.get()
    assert practice.practice and seat == f"/p/{practice.seats.get(number=1).token}/"
    hosted = _host_token(ann.post("/", form))
    assert hosted != practice.host_token and Match.objects.count() == 2
    made = Match.objects.get(host_token=hosted)
    assert not made.practice and not made.seats.exclude(bot="").exists()  # the home form's own match
    assert _host_token(ann.post("/", form)) == hosted  # and its own doubled submit still finds it
    assert ann.post("/practice/", form)["Location"] == seat  # as the practice form's finds its own


@pytest.mark.django_db
def test_the_home_forms_key_posted_to_the_practice_form_makes_a_practice_match() -> None:
    """The other order was a 500 (`Seat.MultipleObjectsReturned`: the home form's match has no bot
    seat to tell the player's from)."""
    ann = Client()
    form = {**BOTH, "key": _form_key(ann)}
    hosted = _host_token(ann.post("/", form))
    reply = ann.post("/practice/", form)
    assert reply.status_code == 302, reply.content.decode()[:300]
    practice = Match.objects.exclude(host_token=hosted).get()
    assert practice.practice and reply["Location"] == f"/p/{practice.seats.get(number=1).token}/"
    assert ann.post("/practice/", form)["Location"] == reply["Location"] and Match.objects.count() == 2
    assert _host_token(ann.post("/", form)) == hosted
