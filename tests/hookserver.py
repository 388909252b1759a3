"""A webhook endpoint for tests: a real local HTTP server (threads) that
records the JSON posts it receives and can fail or stay silent on demand."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Hook:
    """A webhook endpoint: records JSON posts; answers from `replies` (status
    codes, or "hang" to stay silent for 2 s), then 204; a failing answer
    carries `body`."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.requests = 0
        self.connections = 0
        self.replies: list[Any] = []
        self.headers: dict[str, str] = {}
        self.body = b""
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def setup(self) -> None:
                hook.connections += 1  # every TCP connection accepted, even one that never sends a request
                super().setup()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hook.requests += 1
                reply = hook.replies.pop(0) if hook.replies else 204
                if reply == "hang":
                    time.sleep(2)
                    reply = 204
                if reply < 300:
                    hook.posts.append(json.loads(body))
                body = hook.body if reply >= 300 else b""
                self.send_response(reply)
                for name, value in hook.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/api/webhooks/1/abc"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def texts(self) -> list[str]:
        return [p["content"] for p in self.posts]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
