"""driver: existing-session, the user's own running Chrome, found through the DevToolsActivePort
file it writes into its user data directory (userDataDir, or looked for: browser/user_chrome.py)."""

from __future__ import annotations

import pathlib

from clawd import errors
from clawd.browser import user_chrome
from clawd.browser.drivers.base import Driver


class ExistingSessionDriver(Driver):
    name = "existing-session"
    _found: pathlib.Path | None = None  # the user data directory found when connecting

    @property
    def user_data_dir(self) -> pathlib.Path | None:
        if self.profile.user_data_dir is None:
            return self._found
        return pathlib.Path(self.profile.user_data_dir).expanduser()

    def obtain(self, headless: bool | None) -> str:
        if self.profile.user_data_dir is None:
            self._found = user_chrome.find()
        return devtools_active_port(self.user_data_dir)


def devtools_active_port(user_data_dir: pathlib.Path) -> str:
    """The browser websocket a DevToolsActivePort file names (its port, then its path)."""
    path = user_data_dir / "DevToolsActivePort"
    try:
        port, ws_path = path.read_text().splitlines()[:2]
        int(port)
    except (OSError, ValueError):
        raise errors.BrowserNotRunning(
            f"no running browser with remote debugging found for {user_data_dir} (no readable "
            f"DevToolsActivePort); {user_chrome.SWITCH_ON}"
        ) from None
    return f"ws://127.0.0.1:{port.strip()}{ws_path.strip()}"
