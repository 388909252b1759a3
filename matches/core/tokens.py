"""The shape of a link's token in a URL (`<token:token>` in the url patterns).

Tokens are made by `secrets.token_urlsafe` (models.new_token): letters,
digits, "_" and "-".  A path whose token has any other character (a NUL byte
PostgreSQL refuses, a dot, a space) or is longer than any token could be
does not match a route: a 404 before any query.
"""

from __future__ import annotations

from django.urls import register_converter

#: the alphabet of secrets.token_urlsafe; 128 leaves room above today's 32 characters
PATTERN = r"[A-Za-z0-9_-]{1,128}"
#: characters in a token: secrets.token_urlsafe(24) (models.new_token) is 24 bytes in unpadded
#: base64, 4 characters for every 3 bytes.  config.logredact redacts every run this long.
LENGTH = 32


class TokenConverter:
    regex = PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TokenConverter, "token")
