"""Websocket routes: one socket per page; the token decides the audience."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path

from matches.core.tokens import PATTERN
from matches.web.consumers import CLOSE_BAD_TOKEN, MatchConsumer


class NoSuchPage(AsyncWebsocketConsumer):
    """Any other path (a token of the wrong shape, a mistyped address): closed with 4404, as
    a token that opens nothing is, instead of the router's error (a 500 at the handshake)."""

    async def connect(self) -> None:
        await self.accept()  # accepted first so the browser sees the 4xxx code (as MatchConsumer)
        await self.close(code=CLOSE_BAD_TOKEN)


# django-stubs types re_path's view as a Django view only; channels' URLRouter routes ASGI
# applications through the same patterns (its documented use), hence the two ignores.
websocket_urlpatterns = [
    re_path(rf"^ws/m/(?P<token>{PATTERN})/$", MatchConsumer.as_asgi()),  # type: ignore[arg-type]
    re_path(r"", NoSuchPage.as_asgi()),  # type: ignore[arg-type]
]
