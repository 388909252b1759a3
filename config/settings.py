"""Settings.  Embedded defaults (SQLite, in-memory channel layer) so
`python manage.py runserver` works on a bare machine; DATABASE_URL and
REDIS_URL switch to PostgreSQL and Redis.  Secrets and debug come from the
environment."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext

from games.registry import apps as game_apps

# Django's generic classes (ModelAdmin, QuerySet...) as django-stubs types them are subscripted
# at run time too (`admin.ModelAdmin[Season]`); Django itself has no __class_getitem__ on them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


DEBUG = _env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-set-DJANGO_SECRET_KEY-in-production"

ALLOWED_HOSTS = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "django_ratelimit",  # per-client limits (config/ratelimits.py); its system checks look at the cache
    "django_tasks_db",  # the computer players' turns, as jobs in the database (TASKS below)
    # "Sign in with Discord" (config/discord_signin/): accounts exist only through Discord
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.discord",
    *game_apps(),  # each game's folder (games/registry.py: a game is its folder and one registry line)
    "matches",
]

MIDDLEWARE = [
    # GET /healthz: answered first, before anything checks the Host header (config/health.py says why)
    "config.health.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # a form post declaring another charset than UTF-8: 400 with a sentence, not a 500
    "config.middleware.FormCharsetMiddleware",
    # a page under a secret link, or a redirect to one: Cache-Control no-store, private
    "config.middleware.SecretLinkNoStoreMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",  # allauth's flows keep their state through it
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # a client that guessed too many secret links gets 429 for links that open nothing until its window frees
    "config.ratelimits.TokenGuessMiddleware",
    # no free database connection in time: 503 + Retry-After, not a 500
    "config.middleware.OverloadMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.discord_signin.context.signin",  # the header's Sign in with Discord
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# An empty DATABASE_URL= (as compose files and .env templates often leave it)
# counts as unset.
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip() or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # several threads (web + in-process clock sweeper) share one file
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # take the write lock at BEGIN: two deferred transactions that both read
    # then write (a move and the clock sweeper) would fail at once with
    # "database is locked" instead of waiting for each other
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's connection pool (psycopg_pool).  Under daphne every concurrent
    # request runs in a thread of its own with a connection of its own:
    # without a pool 1,000 concurrent requests opened 1,000 connections and
    # PostgreSQL refused the excess ("too many clients", HTTP 500).  With it a
    # process holds at most DEATHMATCH_DB_POOL_SIZE connections; a request
    # beyond that waits up to DEATHMATCH_DB_POOL_TIMEOUT seconds for a free one,
    # then gets 503 + Retry-After (config.middleware).  Size: web processes x
    # pool size (+ the clock sweepers, 1 each) must stay under the server's
    # max_connections (100 by default).  DEATHMATCH_DB_POOL_SIZE=0 turns it off.
    DB_POOL_SIZE = int(os.environ.get("DEATHMATCH_DB_POOL_SIZE", "").strip() or 10)
    DB_POOL_TIMEOUT = _env_float("DEATHMATCH_DB_POOL_TIMEOUT", 20.0)
    if DB_POOL_SIZE > 0:
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1, "max_size": DB_POOL_SIZE, "timeout": DB_POOL_TIMEOUT}
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("DATABASE_CONN_MAX_AGE", "").strip() or 0)

#: The Redis servers: REDIS_URL names one, or several separated by commas (or REDIS_URLS does).
#: With several the channel layer shards its groups and channels over all of them (channels_redis's
#: consistent hashing: a server that fails costs only the live updates that pass through it); the
#: cache, presence and the rate-limit counters use the first, REDIS_URL below.
REDIS_URLS = [url for url in re.split(r"[\s,]+", os.environ.get("REDIS_URLS", "").strip()
                                       or os.environ.get("REDIS_URL", "").strip()) if url]
REDIS_URL = REDIS_URLS[0] if REDIS_URLS else ""
# Redis timeouts (seconds).  The channel layer's connections read with REDIS_SOCKET_TIMEOUT (its own
# calls give up sooner: config/channel_layer.py).  The cache (presence) uses short timeouts: a page
# never waits long for a frozen Redis.
REDIS_SOCKET_TIMEOUT = _env_float("DEATHMATCH_REDIS_SOCKET_TIMEOUT", 15.0)
REDIS_CONNECT_TIMEOUT = _env_float("DEATHMATCH_REDIS_CONNECT_TIMEOUT", 1.0)
REDIS_CACHE_TIMEOUT = _env_float("DEATHMATCH_REDIS_CACHE_TIMEOUT", 0.25)
# presence (matches/presence.py): a connection not refreshed for this long no longer counts
DEATHMATCH_PRESENCE_TTL = _env_float("DEATHMATCH_PRESENCE_TTL", 60.0)
# a practice match whose player has had no page of it open this long (seconds) ends as abandoned
DEATHMATCH_PRACTICE_ABANDONED_AFTER = _env_float("DEATHMATCH_PRACTICE_ABANDONED_AFTER", 30 * 60.0)
#: Channel and cache key prefix in Redis (benchmarks and tests sharing one Redis set their own).
REDIS_PREFIX = os.environ.get("DEATHMATCH_REDIS_PREFIX", "").strip()
#: "pubsub": config/channel_layer.py (channels_redis's pub/sub layer with the outage handling);
#: "core": channels_redis's list-based RedisChannelLayer as it is (no outage handling), which
#: bench/fanout.py can measure against it (bench/README.md).
CHANNEL_LAYER_KIND = os.environ.get("DEATHMATCH_CHANNEL_LAYER", "pubsub").strip() or "pubsub"
if REDIS_URL:
    _REDIS_HOSTS = [{
        "address": url,
        "socket_timeout": REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
        "socket_keepalive": True,
        "health_check_interval": 30,
    } for url in REDIS_URLS]
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.ResilientRedisChannelLayer",
            "CONFIG": {
                "hosts": _REDIS_HOSTS,
                # a call that takes longer is abandoned and logged, and Redis is not asked again for
                # a second; the pages resync when it answers
                "timeout": 2.0,
                **({"prefix": REDIS_PREFIX} if REDIS_PREFIX else {}),
            },
        }
    }
    if CHANNEL_LAYER_KIND == "core":
        CHANNEL_LAYERS["default"] = {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": _REDIS_HOSTS, **({"prefix": REDIS_PREFIX} if REDIS_PREFIX else {})},
        }
    # shared cache: presence ("who is connected") across web processes, on the first Redis server
    # (Django's RedisCache given several would write to the first and read from the others, as
    # replicas: not a way to spread keys)
    CACHES: dict[str, dict[str, Any]] = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
            "OPTIONS": {
                "socket_timeout": REDIS_CACHE_TIMEOUT,
                "socket_connect_timeout": REDIS_CACHE_TIMEOUT,
                "max_connections": 100,
                "pool_class": "config.redispool.SharedPool",  # one pool a process: config/redispool.py
                "timeout": 2,  # seconds to wait for a free pooled connection
            },
        }
    }
    # rate limits (config/ratelimits.py) are counted here, so every web process sees the same counts;
    # while Redis does not answer, each process counts in its own memory (logged), never not at all
    CACHES["ratelimit"] = {**CACHES["default"], "KEY_PREFIX": f"{REDIS_PREFIX}ratelimit"}
    # Django's own RedisCache is not on django-ratelimit's list (jsocol/django-ratelimit#283), yet
    # it has what the library needs: add() is SET NX and incr() is Redis's atomic INCR
    SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "ratelimit": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "ratelimit"},
    }
    # Without REDIS_URL the app is one process by design (the in-memory channel layer above already
    # requires it), so a cache in this process's memory is shared by every request it serves: the
    # "not a shared cache" error does not apply.  With REDIS_URL the limits live in Redis.
    SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]

# Per-client rate limits (config/ratelimits.py, django-ratelimit): "count/period" per client address.
# Creating seasons and creating matches each have a budget of their own; a secret link (/p/, /h/,
# /w/, /f/, /s/ and their sub-pages, the websocket) that matches nothing counts as a miss, and a
# client past its misses gets 429 for every such link until the window frees (a valid link always
# opens); the season manage page's "send a test post" counts per season and per client.
RATELIMIT_USE_CACHE = "ratelimit"
RATELIMIT_IP_META_KEY = "config.ratelimits.client_ip"
DEATHMATCH_RATE_LIMITS = {"seasons": "10/m", "matches": "10/m", "token-misses": "30/m", "webhook-tests": "3/m",
                          "chat-names": "10/m"}
#: How many proxies in front of the app append the client's address to X-Forwarded-For (0: none; the
#: client is REMOTE_ADDR).  With 1, the last address in the header (the one the proxy added) is the
#: client; addresses a client wrote into the header itself are never trusted.
DEATHMATCH_TRUSTED_PROXIES = int(os.environ.get("DEATHMATCH_TRUSTED_PROXIES", "").strip() or 0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", "") or BASE_DIR / "staticfiles")
# In production (DJANGO_DEBUG=0, the Dockerfile's collectstatic) WhiteNoise serves hashed names
# (app.3f2a….css, cached for a year as immutable) and their gzip/Brotli copies (issue 56: htmx went
# out at 52 KB where gzip gives 16 KB).  With DEBUG on (dev serving, the tests, .ci/install's
# collectstatic) the plain storage: a manifest would have to be rebuilt after every edit of a file.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG
                    else "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The clock sweeper runs inside the web process unless turned off (run a
# separate `manage.py run_clocks` and set DEATHMATCH_INPROCESS_CLOCKS=0).
DEATHMATCH_INPROCESS_CLOCKS = _env_bool("DEATHMATCH_INPROCESS_CLOCKS", True)

# Computer players' turns are jobs (matches/play/bots.py) of Django's tasks framework (the
# django-tasks backport) on its database backend: the same tables on SQLite and PostgreSQL, so the
# embedded default needs no other service.  Two lanes: quick moves (easy, normal, or a person
# waiting) and strong searches.  Workers: threads of the web process beside the clocks, which the
# process's own commits wake, or `run_bots`, which looks for a job every DEATHMATCH_BOT_POLL seconds
# when idle.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["bots-quick", "bots-strong"],
    },
}
DEATHMATCH_BOT_POLL = float(os.environ.get("DEATHMATCH_BOT_POLL", "0.1"))

# Season announcements (matches/webhooks.py): posted by a worker thread in each
# web process unless turned off (then run `manage.py run_webhooks`).  Links in
# announcements start with DEATHMATCH_PUBLIC_URL (else the address a season was
# created from).  Webhooks to private/local addresses only while debugging.
DEATHMATCH_INPROCESS_WEBHOOKS = _env_bool("DEATHMATCH_INPROCESS_WEBHOOKS", True)
DEATHMATCH_PUBLIC_URL = os.environ.get("DEATHMATCH_PUBLIC_URL", "").strip()
DEATHMATCH_WEBHOOK_ALLOW_PRIVATE = _env_bool("DEATHMATCH_WEBHOOK_ALLOW_PRIVATE", DEBUG)

# Hosting from Discord (matches/discord/, README "Hosting from Discord"): the application's id, its
# public key (hex: every interaction's signature is checked with it) and its bot token.  Without all
# three /discord/interactions/ answers 404.  Messages are sent by a worker thread in each web process
# unless DEATHMATCH_INPROCESS_DISCORD is off (then run `manage.py run_discord`), only ever to
# DISCORD_API_BASE's host (tests point it at a stand-in).
DISCORD_APPLICATION_ID = os.environ.get("DISCORD_APPLICATION_ID", "").strip()
DISCORD_PUBLIC_KEY = os.environ.get("DISCORD_PUBLIC_KEY", "").strip()
DISCORD_BOT_TOKEN = os.environ.get("DISCORD_BOT_TOKEN", "").strip()
DISCORD_API_BASE = os.environ.get("DISCORD_API_BASE", "").strip() or "https://discord.com/api/v10"
DEATHMATCH_INPROCESS_DISCORD = _env_bool("DEATHMATCH_INPROCESS_DISCORD", True)

# Sign in with Discord (config/discord_signin/, README "Sign in with Discord"): OAuth2's authorization
# code flow with the identify scope, through django-allauth's Discord provider.  On when both
# DISCORD_APPLICATION_ID (the OAuth2 client id) and DISCORD_CLIENT_SECRET are set (the secret is read
# here alone and sent only in the token exchange, to DISCORD_API_BASE's host; never logged).  The
# application is built from these settings by the adapter, so no SocialApp row is needed.
DISCORD_CLIENT_SECRET = os.environ.get("DISCORD_CLIENT_SECRET", "").strip()
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",  # the admin's staff accounts
    "allauth.account.auth_backends.AuthenticationBackend",
]
SOCIALACCOUNT_ONLY = True  # no local passwords, sign-up or password-reset pages: Discord only
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*"]
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_STORE_TOKENS = False  # the token is used once, to read /users/@me: not kept
# The header's link is a plain GET that goes straight on to Discord (no confirmation page of ours).
# What allauth's POST step guards against is a page of another site starting a sign-in for the
# visitor: that signs them in as themselves, after Discord asked them; the state check still refuses
# a callback this browser did not start.
SOCIALACCOUNT_LOGIN_ON_GET = True
SOCIALACCOUNT_ADAPTER = "config.discord_signin.adapter.SignInAccounts"
SOCIALACCOUNT_PROVIDERS = {"discord": {"provider_class": "config.discord_signin.provider.SignInProvider",
                                       "SCOPE": ["identify"]}}
LOGIN_REDIRECT_URL = "my_matches"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"

# Behind HTTPS (DJANGO_SECURE_COOKIES=1, the default with debug off): secure
# cookies, HSTS, redirect to https.  Behind a TLS-terminating proxy that sets
# X-Forwarded-Proto, that header tells Django the request was https.
HTTPS = not DEBUG and _env_bool("DJANGO_SECURE_COOKIES", True)
if not DEBUG:
    SESSION_COOKIE_SECURE = HTTPS
    CSRF_COOKIE_SECURE = HTTPS
if HTTPS:
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "").strip() or 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = _env_bool("DJANGO_HSTS_PRELOAD", True)
    SECURE_SSL_REDIRECT = _env_bool("DJANGO_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Sign in with Discord's redirect_uri is https even where the proxy's header did not say so: it must
    # be the one registered in Discord's Developer Portal, character for character
    ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"

# Content-Security-Policy (django-csp): scripts and styles only from this site
# (no inline script; htmx's own indicator style is turned off in base.html);
# style attributes stay allowed (boards size their grids with style="--cols").
# connect-src 'self' covers the page's own websocket (ws:/wss: on the same host).
# On by default with debug off; DEATHMATCH_CSP=1/0 forces it.  (Off while
# debugging by default: test drivers such as Playwright's wait_for_function
# evaluate strings in the page, which the policy rightly refuses.)
CSP_DIRECTIVES = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "style-src-attr": ["'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
CONTENT_SECURITY_POLICY = {"DIRECTIVES": CSP_DIRECTIVES} if _env_bool("DEATHMATCH_CSP", not DEBUG) else None

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # secret links never reach a log line: tokens in paths become the audience (config.logredact)
    "filters": {"redact_tokens": {"()": "config.logredact.RedactTokensFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_tokens"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        # runserver (daphne) gives its access log a handler of its own: don't print each line twice
        "django.channels.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # Django's default "django" handlers print paths unfiltered: use ours
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # httpx logs each request's URL at INFO, and the URLs this server posts to carry credentials
        # in their paths (a Discord follow-up's interaction token, a season's webhook URL)
        "httpx": {"level": "WARNING"},
    },
}
