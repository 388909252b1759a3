"""The header's sign-in state, for every page (a template context processor)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.http import urlencode

from matches.discord import oauth

#: pages under a secret link: the sign-in link never carries them back as `next` (a query string is
#: logged where a path's token is redacted, and the link would travel in the session's state)
SECRET_PREFIXES = ("/p/", "/h/", "/w/", "/f/", "/s/", "/me/", "/accounts/")


def _discord_name(request: HttpRequest) -> str:
    from allauth.socialaccount.models import SocialAccount

    account = SocialAccount.objects.filter(user_id=request.user.pk, provider="discord").first()
    if account is None:
        return str(request.user.get_username())
    data = account.extra_data if isinstance(account.extra_data, dict) else {}
    # Discord's display name, else the unique username (what Discord itself shows)
    return str(data.get("global_name") or data.get("username") or request.user.get_username())


def login_url(request: HttpRequest) -> str:
    url = reverse("discord_login")
    if request.path.startswith(SECRET_PREFIXES):
        return url
    return f"{url}?{urlencode({'next': request.get_full_path()})}"


def signin(request: HttpRequest) -> dict[str, Any]:
    if not oauth.configured():
        return {"signin": None}
    signed_in = bool(getattr(request, "user", None) and request.user.is_authenticated)
    return {"signin": {
        "login_url": SimpleLazyObject(lambda: login_url(request)),
        "name": SimpleLazyObject(lambda: _discord_name(request)) if signed_in else "",
        "signed_in": signed_in,
    }}
