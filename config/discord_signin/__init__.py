"""Sign in with Discord: django-allauth's Discord provider, wired to this server's settings.

- `provider.SignInProvider` (the `provider_class` of SOCIALACCOUNT_PROVIDERS["discord"]) is allauth's
  own Discord provider with the `identify` scope alone and `views.SignInAdapter` as its OAuth2
  adapter: the endpoints come from `DISCORD_API_BASE` (matches/discord/oauth.py), so the tests'
  stand-in Discord serves them, and every call goes through `oauth.session()` (the configured
  Discord host only).
- `adapter.SignInAccounts` (SOCIALACCOUNT_ADAPTER): the application from DISCORD_APPLICATION_ID and
  DISCORD_CLIENT_SECRET (no SocialApp row), an account made on the first sign-in, and every failed
  sign-in sent back to the page it started from with a sentence saying what happened.
- `context.signin`: the header's "Sign in with Discord" link, or the signed-in user's Discord name.

allauth looks for `urls.py` and `views.py` beside the provider class; hence a package of its own.
"""
