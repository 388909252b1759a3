"""The OAuth2 adapter and the two views allauth routes to it: the login (a redirect to Discord's
authorize page) and the callback (the code traded for a token, the token for the user).  Both answer
404 while sign-in is not configured."""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from allauth.socialaccount.adapter import get_adapter
from allauth.socialaccount.providers.discord.views import DiscordOAuth2Adapter
from allauth.socialaccount.providers.oauth2.client import OAuth2Client, OAuth2Error
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView
from django.http import Http404, HttpRequest, HttpResponse

from matches.discord import api, oauth


class Refused(OAuth2Error):
    """Discord refused the exchange (invalid_grant: a code expired, used or forged; invalid_client)."""


class Unavailable(OAuth2Error):
    """Discord failed (5xx, 429) or answered something that is not what it documents."""


class SignInClient(OAuth2Client):
    """allauth's OAuth2 client with Discord's answers told apart: a refusal (4xx with an OAuth2
    error code) from a failure (anything else), so the user reads which it was."""

    def get_access_token(self, code: str, pkce_code_verifier: str | None = None,
                         extra_data: dict[str, Any] | None = None) -> dict[str, Any]:
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.callback_url,
                "client_id": self.consumer_key, "client_secret": self.consumer_secret, **(extra_data or {})}
        if pkce_code_verifier:
            data["code_verifier"] = pkce_code_verifier
        with get_adapter().get_requests_session() as session:
            response = session.post(self.access_token_url, data=data)
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code == HTTPStatus.OK and isinstance(answer, dict) and answer.get("access_token"):
            return answer
        error = answer.get("error") if isinstance(answer, dict) else None
        if 400 <= response.status_code < 500 and response.status_code != 429 and isinstance(error, str):
            raise Refused(f"Discord refused the code: HTTP {response.status_code} {error[:40]}")
        raise Unavailable(f"Discord's token endpoint answered HTTP {response.status_code}")


class SignInAdapter(DiscordOAuth2Adapter):
    client_class = SignInClient

    def __init__(self, request: HttpRequest) -> None:
        super().__init__(request)
        self.authorize_url = oauth.authorize_url()
        self.access_token_url = oauth.token_url()
        self.profile_url = oauth.me_url()

    def complete_login(self, request: HttpRequest, app: Any, token: Any, **kwargs: Any) -> Any:
        """The user the token belongs to, from Discord's /users/@me: the only source of the Discord
        id an account is bound to."""
        with get_adapter().get_requests_session() as session:
            response = session.get(self.profile_url, headers={"Authorization": f"Bearer {token.token}"})
        try:
            user = response.json()
        except ValueError:
            user = None
        if (response.status_code != HTTPStatus.OK or not isinstance(user, dict)
                or not api.SNOWFLAKE.match(str(user.get("id", "")))):
            raise Unavailable(f"Discord's /users/@me answered HTTP {response.status_code}")
        return self.get_provider().sociallogin_from_response(request, user)


def _only_configured(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not oauth.configured():
            raise Http404("Sign in with Discord is not configured on this server")
        return view(request, *args, **kwargs)

    return guarded


oauth2_login = _only_configured(OAuth2LoginView.adapter_view(SignInAdapter))
oauth2_callback = _only_configured(OAuth2CallbackView.adapter_view(SignInAdapter))
