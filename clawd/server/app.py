"""The HTTP server: a ThreadingHTTPServer carrying the service and the router."""
from __future__ import annotations

import socket
from http.server import ThreadingHTTPServer

from clawd.server.handler import Handler
from clawd.server.routes import ROUTES
from clawd.server.routing import Router
from clawd.server.service import Service


class ClawdServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, service: Service, host: str, port: int):
        self.service = service
        self.router = Router(ROUTES)
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]
