"""Settings.  Embedded defaults (SQLite, in-memory channel layer) so
`python manage.py runserver` works on a bare machine; DATABASE_URL and
REDIS_URL switch to PostgreSQL and Redis.  Secrets and debug come from the
environment."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


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
    "games.lance_assembly",
    "games.grid_master",
    "games.two_connect",
    "games.bidding_ttt",
    "games.back_to_the_wall",
    "matches",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
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
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # several threads (web + in-process clock sweeper) share one file
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # take the write lock at BEGIN: two deferred transactions that both read
    # then write (a move and the clock sweeper) would fail at once with
    # "database is locked" instead of waiting for each other
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"

REDIS_URL = os.environ.get("REDIS_URL", "")
#: Channel and cache key prefix in Redis (benchmarks and tests sharing one Redis set their own).
REDIS_PREFIX = os.environ.get("DEATHMATCH_REDIS_PREFIX", "")
#: "pubsub" (default): channels_redis's RedisPubSubChannelLayer, one PUBLISH per group message that each
#: web process receives once and hands to its own sockets; "core": RedisChannelLayer, one list push per
#: socket.  bench/fanout.py measures both (see bench/README.md).
CHANNEL_LAYER_KIND = os.environ.get("DEATHMATCH_CHANNEL_LAYER", "core")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer"
            if CHANNEL_LAYER_KIND == "pubsub" else "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], **({"prefix": REDIS_PREFIX} if REDIS_PREFIX else {})},
        }
    }
    # shared cache: presence counters ("who is connected") across web processes
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": REDIS_PREFIX}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

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
STATIC_ROOT = BASE_DIR / "staticfiles"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The clock sweeper runs inside the web process unless turned off (run a
# separate `manage.py run_clocks` and set DEATHMATCH_INPROCESS_CLOCKS=0).
DEATHMATCH_INPROCESS_CLOCKS = _env_bool("DEATHMATCH_INPROCESS_CLOCKS", True)

if not DEBUG:
    SESSION_COOKIE_SECURE = _env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = _env_bool("DJANGO_SECURE_COOKIES", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    # runserver (daphne) gives its access log a handler of its own: don't print each line twice
    "loggers": {"django.channels.server": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}
