"""HTTP and websocket routing (daphne serves both)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.drain import drain  # noqa: E402
from config.logredact import install_daphne_access_log  # noqa: E402
from config.origin import SameOriginValidator  # noqa: E402
from matches.web.routing import websocket_urlpatterns  # noqa: E402

# daphne's access log names the audience, never the secret token of a link
install_daphne_access_log()

# A server holding 1,000 sockets keeps a few hundred thousand objects alive; CPython's full
# (generation 2) collection walks all of them: ~250 ms on the project machine, during which no
# socket is served.  With the default thresholds (700, 10, 10) one ran every few moves at 1,000
# sockets (35 in 60 broadcasts); with generation 2 considered ten times less often, 4 (and the
# 95th percentile of a move at 1,000 spectators went from 200 to 169 ms, bench/README.md).
# Garbage without cycles is freed at once either way.  DEATHMATCH_GC_THRESHOLD="700,10,10"
# restores Python's default.
_threshold = os.environ.get("DEATHMATCH_GC_THRESHOLD", "").strip() or "700,10,100"
gc.set_threshold(*(int(x) for x in _threshold.split(",")))

# SIGTERM drains: the sockets are told to reconnect elsewhere (close 1012), the requests in flight
# are answered, then the process ends (config/drain.py)
application = drain.wrap(ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Origin must be this site: scheme, host and port (not only the host name)
        # types-channels wants its own pattern type here, which django-stubs' re_path never returns
        "websocket": SameOriginValidator(URLRouter(websocket_urlpatterns)),  # type: ignore[arg-type]
    }
))
drain.install()

# What starting made (modules, Django's setup, URL and template machinery) lives as long as the
# process: frozen once, full collections skip it (as CPython's gc.freeze() documentation suggests
# for objects that live forever).  Nothing made later is frozen: the objects of sockets and
# requests are collected as usual (freezing open sockets' objects whenever connections settled,
# the old config/gcfreeze.py, kept the cycles of closed ones for good: RSS grew ~70 MB per
# 2,000 sockets that came and went, tests/chaos/test_socket_memory.py).
gc.collect()
gc.freeze()
