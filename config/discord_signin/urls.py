"""/accounts/discord/login/ and /accounts/discord/login/callback/ (allauth's names discord_login,
discord_callback), answered by `views`."""

from allauth.socialaccount.providers.oauth2.urls import default_urlpatterns

from config.discord_signin.provider import SignInProvider

urlpatterns = default_urlpatterns(SignInProvider)
