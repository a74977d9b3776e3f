"""The fixture web site: tests/site/ served over http from 127.0.0.1 on port 0, plus dynamic
routes a test registers (redirects, slow answers, cookies, downloads, auth)."""

from __future__ import annotations

import functools
import pathlib
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler

from tests.support.servers import QuietServer

SITE_ROOT = pathlib.Path(__file__).resolve().parent.parent / "site"

# a dynamic route: (handler) -> None; it writes the whole answer itself
DynamicRoute = Callable[[SimpleHTTPRequestHandler], None]


class _SiteHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _dynamic(self) -> bool:
        path = self.path.split("?", 1)[0]
        route = self.server.routes.get(path)
        if route is None:
            return False
        route(self)
        return True

    def do_GET(self):
        self.server.hits.append(self.path)
        if not self._dynamic():
            super().do_GET()

    def do_POST(self):
        self.server.hits.append(self.path)
        if not self._dynamic():
            self.send_error(404)

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


class Site:
    def __init__(self, root: pathlib.Path = SITE_ROOT, host: str = "127.0.0.1"):
        handler = functools.partial(_SiteHandler, directory=str(root))
        self.server = QuietServer((host, 0), handler)
        self.server.routes = {}
        self.server.hits = []
        self.host = host
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True, name="site")
        self._thread.start()

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def route(self, path: str, handler: DynamicRoute) -> None:
        self.server.routes[path] = handler

    @property
    def hits(self) -> list[str]:
        return self.server.hits

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def answer(
    handler,
    status: int = 200,
    body: bytes | str = b"",
    content_type: str = "text/html",
    headers: dict | None = None,
) -> None:
    """Write a whole response from a dynamic route."""
    data = body.encode() if isinstance(body, str) else body
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)
