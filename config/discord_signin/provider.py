"""allauth's Discord provider with this server's adapter (see the package's docstring)."""

from __future__ import annotations

from typing import Any

from allauth.socialaccount.providers.discord.provider import DiscordProvider

from config.discord_signin.views import SignInAdapter


class SignInProvider(DiscordProvider):
    oauth2_adapter_class = SignInAdapter

    def get_default_scope(self) -> list[str]:
        # the Discord id and name are all the app needs: no email, no guilds
        return ["identify"]

    def extract_common_fields(self, data: dict[str, Any]) -> dict[str, Any]:
        # the username alone: an email address Discord might send is not kept (identify has none)
        return {"username": data.get("username")}


provider_classes = [SignInProvider]
