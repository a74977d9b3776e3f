"""driver: remote, a browser at cdpUrl (a list: tried in order), often a pool such as Browserless
whose sessions end on their own: the pool's end becomes its own error, and a state keeper
(browser/continuity.py) carries cookies and tabs over to the next session."""

from __future__ import annotations

from collections.abc import Callable

from clawd import errors
from clawd.browser.continuity import StateKeeper
from clawd.browser.drivers.base import Driver
from clawd.cdp import discovery, pool


class RemoteDriver(Driver):
    name = "remote"

    def __init__(self, profile, config, layout, **offered):
        super().__init__(profile, config, layout, **offered)
        self.endpoints = tuple(profile.cdp_urls)
        self.keeper = StateKeeper(profile.name, profile.remote)

    def locate(self, endpoint: str) -> str:
        return discovery.websocket_url(
            endpoint,
            timeout=self._discovery_timeout(),
            allow_other_host=self.config.ssrf_policy.dangerously_allow_private_network,
        )

    def connect_options(self, endpoint: str | None = None) -> dict:
        return {**super().connect_options(), "gone": self._gone_error(endpoint)}

    def _gone_error(self, url: str) -> Callable[[str], errors.ClawdError]:
        restore = self.keeper.mode

        def gone(reason: str) -> errors.ClawdError:
            if reason == "closed by clawd":
                return errors.BrowserGone(f"browser connection closed ({reason})")
            return pool.session_ended(discovery.redact(url), reason, restore=restore)

        return gone
