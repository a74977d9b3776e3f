"""The HTTP server: a ThreadingHTTPServer carrying the service, the router, and the requests in
flight, so that whoever stops it (daemon.py) can drain it in order."""

from __future__ import annotations

import logging
import socket
import threading
import time
from http.server import ThreadingHTTPServer

from clawd import log as clawd_log
from clawd.server.handler import Handler
from clawd.server.routes import ROUTES
from clawd.server.routing import Router
from clawd.server.service import Service

log = logging.getLogger("clawd.server")


class InFlight:
    """The requests being handled right now, so shutdown can wait for them and answer the
    stragglers."""

    def __init__(self):
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)  # a request ended
        self._running: dict[int, object] = {}
        self._ids = iter(range(1, 1 << 62))

    def add(self, request: object) -> int:
        """Count `request` in; `remove(key)` with the key returned counts it out."""
        with self._lock:
            key = next(self._ids)
            self._running[key] = request
            return key

    def remove(self, key: int) -> None:
        with self._cond:
            del self._running[key]
            self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def requests(self) -> list:
        with self._cond:
            return list(self._running.values())

    def describe(self) -> list[str]:
        return [str(request) for request in self.requests()]


class ClawdServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, service: Service, host: str, port: int):
        self.service = service
        self.router = Router(ROUTES)
        self.in_flight = InFlight()  # every Handler registers here while it runs
        self.draining = threading.Event()  # set: each connection closes after its answer
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def handle_error(self, request, client_address) -> None:
        clawd_log.connection_error(log, client_address)

    def drain(self) -> None:
        """Stop taking requests: the accept loop ends (call it from another thread than
        serve_forever's), new connections are refused instead of queueing unanswered, and the
        ones open close after the answer they are working on."""
        self.draining.set()
        self.shutdown()
        self.socket.close()
