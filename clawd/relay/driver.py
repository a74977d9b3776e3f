"""driver: extension, the tabs the user shares from their everyday Chrome through the clawd
extension, reached through the relay (server.py) as if it were a browser."""

from __future__ import annotations

from clawd import errors
from clawd.browser.drivers.base import Driver


class ExtensionDriver(Driver):
    name = "extension"
    backs_off = False  # asking the relay costs nothing

    def free_to_connect(self) -> bool:
        return self.relay is not None and self.relay.connected

    def obtain(self, headless: bool | None) -> str:
        """The relay's DevTools websocket, once the extension is connected."""
        relay = self.relay
        if relay is None:
            raise errors.RelayDisconnected(
                "the extension relay is off: set relay.enabled: true and restart clawd"
            )
        if not relay.connected:
            raise errors.RelayDisconnected(
                f"no clawd extension is connected to the relay on 127.0.0.1:{relay.port}: open "
                "Chrome with the clawd extension and pair it (its options page: relay port and "
                "token)"
            )
        return relay.browser_ws_url

    def browser_options(self) -> dict:
        # a window a shared tab opens stays the user's until they share it
        return {"no_tab": _no_tab, "attaches_popups": False}

    def status(self) -> dict:
        relay = self.relay
        return {
            "relay": relay.status() if relay is not None else {"enabled": False, "connected": False}
        }


def _no_tab() -> Exception:
    return errors.RelayNoTab(
        "no tab is shared with clawd: click the clawd button on the tab to share "
        "(the badge shows ON)"
    )
