"""Defect 5 of issue 21: requests anyone can send never get a 500.

- a token path holding a byte the database refuses (NUL), or too long for a
  token, is a 404, decided by its shape before any query;
- a form post declaring a charset other than UTF-8 gets a 400 with a sentence;
- a websocket to a path with no route is closed with 4404;
- twenty people opening seasons with one name (or names that slugify alike)
  at the same moment: one season per name, the others are told it is taken.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.test import Client

from config.asgi import application
from matches.models import Season
from tests.conftest import POSTGRES
from tests.threads import released_together
from tests.wsclient import Communicator

BAD_TOKENS = ["%00", "a%00b", "x" * 129, "a.b", "%C3%A9t%C3%A9", "a%20b"]
TOKEN_PAGES = ["/p/{t}/", "/p/{t}/move/", "/h/{t}/", "/h/{t}/act/", "/w/{t}/", "/f/{t}/", "/s/{t}/", "/s/{t}/act/",
               "/p/{t}/bouts/1/", "/h/{t}/bouts/1/record.txt", "/w/{t}/record.txt"]


@pytest.mark.django_db
@pytest.mark.parametrize("page", TOKEN_PAGES)
def test_a_token_of_the_wrong_shape_is_a_404_without_a_query(page: str, django_assert_num_queries: Any) -> None:
    client = Client(raise_request_exception=False)
    for token in BAD_TOKENS:
        with django_assert_num_queries(0):
            get = client.get(page.format(t=token))
            post = client.post(page.format(t=token), {"text": "place C3"})
        assert get.status_code == 404, (page, token)
        assert post.status_code in (404, 405), (page, token)


@pytest.mark.django_db
def test_well_formed_tokens_still_open_their_pages(roles: Any) -> None:
    client = Client()
    for url in (f"/p/{roles.player1.token}/", f"/h/{roles.host}/", f"/w/{roles.spectator}/",
                f"/f/{roles.spectator}/", f"/w/{roles.spectator}/record.txt"):
        assert client.get(url).status_code == 200, url
    assert client.get(f"/p/{roles.outsider}/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("charset", ["latin-1", "iso-8859-1", "utf-16", "cp1252"])
def test_a_form_post_in_another_charset_gets_a_400_with_a_sentence(settings: Any, debug: bool, charset: str) -> None:
    settings.DEBUG = debug
    client = Client(raise_request_exception=False)
    for url in ("/seasons/", "/", f"/p/{secrets.token_urlsafe(24)}/move/"):
        response = client.post(url, "name=Caf%E9", content_type=f"application/x-www-form-urlencoded; charset={charset}")
        assert response.status_code == 400, url
        assert response["Content-Type"].startswith("text/plain")
        assert "UTF-8" in response.content.decode() and charset in response.content.decode()
    assert Season.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", "UTF8"])
def test_a_form_post_that_names_utf8_is_read(charset: str) -> None:
    response = Client().post("/seasons/", "name=Caf%C3%A9", follow=True,
                             content_type=f"application/x-www-form-urlencoded; charset={charset}")
    assert response.status_code == 200
    assert Season.objects.get().name == "Café"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/ws/x/", "/ws/m/a.b/", f"/ws/m/{'a' * 129}/", "/ws/m/%00/", "/ws/m/\x00/",
                                  "/ws/m/", "/ws/m/abc/extra/", "/", "/p/abc/"])
async def test_a_websocket_with_no_route_is_closed_4404(path: str) -> None:
    comm = Communicator(application, path, headers=[(b"host", b"testserver"),
                                                             (b"origin", b"http://testserver")])
    connected, code = await comm.connect(timeout=10)
    if connected:
        assert await comm.receive_output(timeout=10) == {"type": "websocket.close", "code": 4404}
    else:
        assert code == 4404
    await comm.wait()


@pytest.mark.django_db(transaction=True)
async def test_a_websocket_with_no_route_from_a_foreign_origin_is_still_denied() -> None:
    comm = Communicator(application, "/ws/x/", headers=[(b"host", b"testserver"),
                                                                 (b"origin", b"http://evil.example")])
    connected, _ = await comm.connect(timeout=10)
    assert not connected


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("names", [["Spring"] * 20, ["Spring", "spring", "SPRING", "Spring!", "Spring?", "spring."] * 3
                                   + ["Spring ", " spring"]], ids=["same name", "names that slugify alike"])
def test_concurrent_seasons_with_one_name_never_500(names: list[str]) -> None:
    responses: list[Any] = []

    def post(name: str, client: int) -> Any:  # one address a client: 20 posts from one would meet its rate limit
        return lambda: responses.append(Client(raise_request_exception=False, REMOTE_ADDR=f"10.0.0.{client}")
                                        .post("/seasons/", {"name": name}))

    errors = released_together(*(post(name, n) for n, name in enumerate(names, start=1)))
    assert errors == []
    assert sorted({r.status_code for r in responses}) <= [302, 400], [r.status_code for r in responses]
    refused = [r for r in responses if r.status_code == 400]
    for response in refused:
        assert "there is already a season called" in response.content.decode()
        assert 'id="season-name"' in response.content.decode()  # the form, shown again
    seasons = list(Season.objects.all())
    assert len(seasons) == len(responses) - len(refused)
    assert len({s.name.lower() for s in seasons}) == len(seasons)  # one season a name, whatever its case
    assert len({s.slug for s in seasons}) == len(seasons)
