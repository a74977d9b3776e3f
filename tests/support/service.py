"""The real clawd service in-process on port 0 (a thread), and a client to it."""

from __future__ import annotations

import contextlib
import threading

from clawd.client import Client
from clawd.server.app import ClawdServer
from clawd.server.service import Service


class RunningService:
    def __init__(self, config, *, resolver=None):
        self.config = config
        self.service = Service(config, resolver=resolver)
        self.server = ClawdServer(self.service, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.port}"
        self._thread = threading.Thread(
            target=self.server.serve_forever,
            kwargs={"poll_interval": 0.1},
            daemon=True,
            name="clawd-test-server",
        )
        self._thread.start()
        self.token = self.service.auth.token

    def live_tab(self, tab_id: str, profile: str | None = None):
        """The service's own Tab behind a tab id, for tests that look behind the API (it does
        not count as using the tab, unlike Browser.resolve)."""
        return next(t for t in self.service.runtime(profile).browser.tabs() if t.tab_id == tab_id)

    def client(self, **kw) -> Client:
        return Client(self.url, token=self.token, **kw)

    def close(self) -> None:
        self.server.shutdown()
        self.service.stop_all()
        self.server.server_close()


OTHER_SITE = "other.test"  # a second site name for the test site: its frames run out of process


@contextlib.contextmanager
def two_site_service(home):
    """A running service whose Chromium isolates sites (--site-per-process) and reaches the test
    site on 127.0.0.1 also as OTHER_SITE, so a page can embed a cross-origin, out-of-process
    frame; yields (running, started client)."""
    from tests.support.browser import ENV_FLAGS, require_chromium, service_config

    require_chromium()
    config = service_config(
        home,
        extra={
            "browser": {
                "extraArgs": [
                    *ENV_FLAGS,
                    "--site-per-process",
                    f"--host-resolver-rules=MAP {OTHER_SITE} 127.0.0.1",
                ],
                "ssrfPolicy": {"allowedHostnames": ["127.0.0.1", OTHER_SITE]},
            }
        },
    )
    local = (OTHER_SITE, "127.0.0.1")
    running = RunningService(config, resolver=lambda host: ["127.0.0.1"] if host in local else [])
    client = running.client()
    try:
        client.start()
        yield running, client
    finally:
        client.close()
        running.close()
