"""The app's ASGI application plus one bare Channels consumer, for bench/fanout.py only.

`ws/bench/bare/<name>/` joins group `bench-bare-<name>`; a message {"fire": v}
from any member makes it `group_send` the page it was given at start
(BENCH_BARE_PAGE, a file) with `data-version="v"`, exactly as a consumer that
renders nothing and sends the whole page would.  Production routing
(config/asgi.py) is untouched.
"""

from __future__ import annotations

import json
import os
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.urls import re_path

from config.asgi import application as app  # sets up Django first
from matches.web.routing import websocket_urlpatterns

_PAGE = ""


def _page() -> str:
    global _PAGE
    if not _PAGE:
        with open(os.environ["BENCH_BARE_PAGE"], encoding="utf-8") as handle:
            _PAGE = handle.read()
    return _PAGE


class BareConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = "bench-bare-" + self.scope["url_route"]["kwargs"]["name"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        version = int(json.loads(text_data or "{}")["fire"])
        html = _page().replace('data-version="0"', f'data-version="{version}"', 1)
        await self.channel_layer.group_send(self.group, {"type": "bare.page", "html": html})

    async def bare_page(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])

    async def layer_recovered(self, event: dict[str, Any]) -> None:
        """The resilient Redis layer's "Redis is back" note (config/channel_layer.py): nothing to resync."""


application = ProtocolTypeRouter(
    {
        "http": app,
        # types-channels wants its own pattern type here, which django-stubs' re_path (made for
        # Django views, not consumers) never returns: as in config/asgi.py and matches/web/routing.py
        "websocket": URLRouter(
            [re_path(r"^ws/bench/bare/(?P<name>[a-z0-9]+)/$", BareConsumer.as_asgi()), *websocket_urlpatterns]  # type: ignore[arg-type, list-item]
        ),
    }
)
