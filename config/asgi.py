"""HTTP and websocket routing (daphne serves both)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.logredact import install_daphne_access_log  # noqa: E402
from config.origin import SameOriginValidator  # noqa: E402
from matches.routing import websocket_urlpatterns  # noqa: E402

# daphne's access log names the audience, never the secret token of a link
install_daphne_access_log()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Origin must be this site: scheme, host and port (not only the host name)
        "websocket": SameOriginValidator(URLRouter(websocket_urlpatterns)),
    }
)
