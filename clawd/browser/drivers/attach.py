"""driver: attach-only, a managed profile with attachOnly: clawd launches nothing and connects to
whatever Chromium answers on the profile's cdpPort."""

from __future__ import annotations

from clawd import errors
from clawd.browser.drivers.base import Driver
from clawd.cdp import discovery


class AttachDriver(Driver):
    name = "attach-only"

    def obtain(self, headless: bool | None) -> str:
        port = self.profile.cdp_port
        try:
            return discovery.discover(f"http://127.0.0.1:{port}", timeout=self._discovery_timeout())
        except errors.CdpUnreachable:
            raise errors.BrowserNotRunning(
                f"profile {self.profile.name} is attach-only and no browser answers on port "
                f"{port}; start Chromium with --remote-debugging-port={port}"
            ) from None
