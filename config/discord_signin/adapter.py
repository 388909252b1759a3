"""allauth's social-account adapter for a Discord-only site (see the package's docstring)."""

from __future__ import annotations

from typing import Any

import requests
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.base.constants import AuthError
from django.contrib import messages
from django.http import HttpRequest, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme

from config.discord_signin.views import Refused
from matches.discord import api, oauth

#: the tag of sign-in's messages: the header shows these (templates/signin/header.html), the pages
#: that list their own messages show them too
TAG = "signin"
CANCELLED = "Discord sign-in was cancelled: you are not signed in."
REFUSED = ("Discord refused the sign-in (its code had expired or was already used): you are not signed in. "
           "Try Sign in with Discord again.")
FAILED = ("Discord did not complete the sign-in (it failed or could not be reached): you are not signed in. "
          "Try again in a moment.")
FOREIGN = ("This sign-in was not started from this browser, or was already finished: you are not signed in. "
           "Start again from Sign in with Discord.")


class SignInAccounts(DefaultSocialAccountAdapter):
    def list_apps(self, request: HttpRequest | None, provider: str | None = None,
                  client_id: str | None = None) -> list[SocialApp]:
        """The one application, built from the settings each time (no database row, and tests'
        override_settings apply): DISCORD_APPLICATION_ID is its OAuth2 client id."""
        if not oauth.configured() or provider not in (None, "discord") or client_id not in (None, api.application_id()):
            return []
        return [SocialApp(provider="discord", name="Discord", client_id=api.application_id(),
                          secret=oauth.client_secret())]

    def get_requests_session(self) -> requests.Session:
        return oauth.session()

    def is_auto_signup_allowed(self, request: HttpRequest, sociallogin: Any) -> bool:
        # a Discord user signing in for the first time gets an account; no form, no email
        return True

    def is_open_for_signup(self, request: HttpRequest, sociallogin: Any) -> bool:
        return True

    def on_authentication_error(self, request: HttpRequest, provider: Any, error: str | None = None,
                                exception: Exception | None = None,
                                extra_context: dict[str, Any] | None = None) -> None:
        """Back to the page the sign-in started from (else the home page) with what happened; no
        account is made or changed on any of these paths."""
        context = extra_context or {}
        state = context.get("state") or {}
        if error == AuthError.CANCELLED:
            sentence = CANCELLED
        elif isinstance(exception, Refused):
            sentence = REFUSED
        elif exception is not None:
            sentence = FAILED
        elif "state" not in context:  # no sign-in of this session has that state (or it was used)
            sentence = FOREIGN
        else:  # Discord sent the user back with an error other than access_denied
            sentence = FAILED
        messages.error(request, sentence, extra_tags=TAG)
        back = state.get("next") if isinstance(state, dict) else None
        if not (isinstance(back, str) and url_has_allowed_host_and_scheme(back, allowed_hosts=None)):
            back = "/"
        raise ImmediateHttpResponse(HttpResponseRedirect(back))
