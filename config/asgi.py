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

# Full (generation 2) collections walk every object of 1,000 open sockets (~250 ms without serving
# one): considered ten times less often (bench/gcpause.py); DEATHMATCH_GC_THRESHOLD="700,10,10" is Python's.
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

# What starting made lives as long as the process: frozen once, full collections skip it (CPython's
# gc.freeze() advice); nothing made later is frozen (frozen sockets' cycles stayed: test_socket_memory.py).
gc.collect()
gc.freeze()
