"""Websocket routes: one socket per page; the token decides the audience."""

from django.urls import re_path

from .consumers import MatchConsumer

websocket_urlpatterns = [
    re_path(r"^ws/m/(?P<token>[A-Za-z0-9_\-]{1,128})/$", MatchConsumer.as_asgi()),
]
