"""The chat options on the "host a match" form (issue 24): the players' table and the spectators'
room are chosen when the match is created, stored where the chat's moderation panel reads them,
and a bad value is refused with a sentence that names it, creating nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from games.core import HOST
from matches.core import chatrooms
from matches.models import ChatSettings, Match

pytestmark = pytest.mark.django_db

FORM = {"game": "lance-assembly", "seat1": "Ann", "seat2": "Bob"}


def _create(client: Client, **fields: str) -> Match:
    response = client.post("/", {**FORM, **fields})
    assert response.status_code == 302, response.content.decode()[:500]
    match = Match.objects.get(host_token=response["Location"].split("/")[2])
    return match


def test_the_form_offers_the_chat_options() -> None:
    page = Client().get("/").content.decode()
    assert '<select name="chat_table" id="chat-table">' in page
    assert '<option value="">as usual: on for 2 players, off for more</option>' in page
    assert '<option value="delayed">on, shown to players after the match</option>' in page


def test_created_with_the_table_off_and_the_spectators_room_delayed() -> None:
    client = Client()
    match = _create(client, chat_table="off", chat_spectators="delayed")
    opts = chatrooms.options(match)
    assert (opts.table, opts.spectators) == (False, chatrooms.DELAYED)
    assert chatrooms.readable(match, 1, opts) == ["seat-1", "announce"]
    # the moderation panel shows what the form chose
    host_page = client.get(f"/h/{match.host_token}/").content.decode()
    form = host_page.split('class="chat-options-form"')[1].split("</form>")[0]
    assert 'name="table" checked' not in form and '<option value="delayed" selected>' in form
    assert 'id="chat-room-table"' not in host_page
    seat_page = client.get(f"/p/{match.seats.get(number=1).token}/").content.decode()
    assert 'id="chat-room-table"' not in seat_page and 'id="chat-room-spectators"' not in seat_page


def test_defaults_table_on_for_two_players_off_for_four() -> None:
    client = Client()
    two = _create(client)
    assert not ChatSettings.objects.filter(match=two).exists()  # nothing chosen: the defaults
    assert chatrooms.options(two) == chatrooms.Options(True, chatrooms.ON)
    four = _create(client, game="back-to-the-wall", seat3="Cy", seat4="Di", chat_table="")
    assert chatrooms.options(four).table is False
    assert chatrooms.TABLE not in chatrooms.readable(four, 1, chatrooms.options(four))
    # "on" turns the table on for four players too; the host then sees it
    four_on = _create(client, game="back-to-the-wall", seat3="Cy", seat4="Di", chat_table="on",
                      chat_spectators="off")
    opts = chatrooms.options(four_on)
    assert (opts.table, opts.spectators) == (True, chatrooms.OFF)
    assert chatrooms.readable(four_on, HOST, opts) == ["announce", "seat-1", "seat-2", "seat-3", "seat-4", "table"]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("chat_table", "maybe", "the players&#x27; table is on, off, or as usual (on for 2 players), not &#x27;maybe&#x27;"),
    ("chat_spectators", "later", "the spectators&#x27; room is on, off, or shown to players when the match ends, "
                                 "not &#x27;later&#x27;"),
])
def test_a_bad_chat_option_is_refused_and_creates_nothing(field: str, value: str, message: str) -> None:
    response = Client().post("/", {**FORM, field: value})
    page = response.content.decode()
    assert response.status_code == 400
    assert f'<div class="move-error" role="alert" id="form-error">{message}</div>' in page
    assert f'<select name="{field}"' in page and 'aria-invalid="true"' in page.split(f'name="{field}"')[1][:80]
    assert Match.objects.count() == 0 and ChatSettings.objects.count() == 0
