"""The HTTP server class every loopback server of the tests uses (the site, provider fakes)."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer

from clawd.log import PEER_GONE


class QuietServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that does not print a peer that went away: a client that gave up
    (a timeout under test) or a Chromium that was stopped with a keep-alive connection open
    resets it, which is expected, and its traceback in the run's output would look like a
    failure. Any other error is printed as before. Its threads never hold the process."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], PEER_GONE):
            super().handle_error(request, client_address)
