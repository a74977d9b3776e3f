"""The real clawd service in-process on port 0 (a thread), and a client to it."""

from __future__ import annotations

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
