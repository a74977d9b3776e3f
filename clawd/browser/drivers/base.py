"""What a browser driver is: the way one profile gets its browser (launched, found, asked for),
what stopping it means and what clawd may do to it. The life cycle around it (locks, back-off,
failover, continuity, the sweeper) is the runtime's (browser/runtime.py), the same for all."""

from __future__ import annotations

import pathlib
from collections.abc import Iterable

from clawd.browser.browser import Browser
from clawd.config.model import BrowserConfig, ProfileConfig, StateLayout


class Driver:
    """A browser clawd connects to and does not own; subclasses say how it is found and what
    else they do. Every method is asked under the runtime's lock."""

    name = ""  # the `driver` of statuses and messages, and the registry's key
    # what the browser allows
    managed = False  # clawd launched it here and owns its data: headless, reset, tab cleanup
    chromium_flags = False  # clawd chooses its command line (a feature flag such as WebMCP)
    keepalive = True  # a peer can vanish without closing the socket: ping it
    backs_off = True  # failed starts delay the next automatic one
    endpoints: tuple[str, ...] = ()  # several browsers to try in order (failover), or none
    # what a launching driver knows of its browser (statuses show them for every driver)
    process = None  # launcher.ChromiumProcess
    executable: str | None = None
    headless: bool | None = None
    keeper = None  # continuity.StateKeeper: a session the browser's end may take, restored
    sandbox = None  # the container of a driver that has one (clawd/sandbox/driver.py)

    def __init__(
        self,
        profile: ProfileConfig,
        config: BrowserConfig,
        layout: StateLayout,
        *,
        launch_args: Iterable[str] = (),
        relay=None,
    ):
        """What the service offers every driver; each keeps what it needs. `launch_args`: clawd's
        own Chromium arguments (strict mode's proxy); `relay`: the extension relay, or None."""
        self.profile = profile
        self.config = config
        self.layout = layout
        self.launch_args = tuple(launch_args)
        self.relay = relay

    @property
    def user_data_dir(self) -> pathlib.Path | None:
        return None

    # -- start --------------------------------------------------------------------------------
    def check_on_demand(self) -> None:
        """Raise when a request may not start this browser by itself (only an explicit start)."""

    def free_to_connect(self) -> bool:
        """Connecting now launches nothing, so listing tabs may connect without a start first."""
        return False

    def obtain(self, headless: bool | None) -> str:
        """The browser's websocket URL (drivers without `endpoints`)."""
        raise NotImplementedError

    def locate(self, endpoint: str) -> str:
        """The websocket URL of one of `endpoints`."""
        raise NotImplementedError

    def connect_options(self, endpoint: str | None = None) -> dict:
        """Keyword arguments of the Connection to the browser (at `endpoint`)."""
        return {"handshake_timeout": self.config.remote_cdp_handshake_timeout_ms / 1000}

    def after_connect(self, connection) -> None:
        """The connection is open, no tab is set up yet."""

    def browser_options(self) -> dict:
        """Keyword arguments of the Browser over the connection (browser/browser.py)."""
        return {}

    def start_failed(self, exc: Exception) -> None:
        """A start failed after obtain(): release what it made (may raise a truer error)."""

    def touch(self) -> None:
        """A request used the running browser."""

    # -- stop ---------------------------------------------------------------------------------
    def close_browser(self, browser: Browser) -> bool:
        """Close the browser itself when clawd owns it; False: it outlives our connection, so
        the runtime clears the overrides clawd set in its tabs."""
        return False

    def stop(self) -> bool:
        """Our connection is closed: stop what else runs for it. True if that was running."""
        return False

    def connection_lost(self) -> None:
        """The browser's connection closed without a stop (a crash, the peer went away)."""

    # -- status -------------------------------------------------------------------------------
    def pid(self) -> int | None:
        process = self.process
        return process.pid if process is not None and process.alive() else None

    def status(self) -> dict:
        """The driver's own part of the runtime's status."""
        return {}

    def _discovery_timeout(self) -> float:
        return self.config.remote_cdp_timeout_ms / 1000
