"""The user's own everyday browser, for existing-session profiles without a userDataDir (the
built-in `user` profile): its user data directory in the usual places of each OS, and the
DevToolsActivePort file a browser with remote debugging switched on writes there."""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Mapping

from clawd import errors

# (browser, path under the per-OS base), in the order they are tried
_LINUX = (
    ("Google Chrome", ".config/google-chrome"),
    ("Chromium", ".config/chromium"),
    ("Brave", ".config/BraveSoftware/Brave-Browser"),
    ("Microsoft Edge", ".config/microsoft-edge"),
)
_MACOS = (
    ("Google Chrome", "Library/Application Support/Google/Chrome"),
    ("Chromium", "Library/Application Support/Chromium"),
    ("Brave", "Library/Application Support/BraveSoftware/Brave-Browser"),
    ("Microsoft Edge", "Library/Application Support/Microsoft Edge"),
)
_WINDOWS = (
    ("Google Chrome", "Google/Chrome/User Data"),
    ("Chromium", "Chromium/User Data"),
    ("Brave", "BraveSoftware/Brave-Browser/User Data"),
    ("Microsoft Edge", "Microsoft/Edge/User Data"),
)

SWITCH_ON = (
    "switch remote debugging on in that browser: open chrome://inspect/#remote-debugging and allow "
    "it (Chrome 144 and newer), or start the browser with --remote-debugging-port=0 and a "
    "--user-data-dir of its own (Chrome 136+ refuses the port on its default directory)"
)


def candidates(
    *,
    platform: str | None = None,
    home: pathlib.Path | None = None,
    env: Mapping[str, str] | None = None,
) -> list[tuple[str, pathlib.Path]]:
    """(browser, user data directory) where each Chromium-family browser keeps it on this OS."""
    platform = platform or sys.platform
    env = os.environ if env is None else env
    home = pathlib.Path(home or env.get("HOME") or pathlib.Path.home())
    if platform == "darwin":
        return [(name, home / sub) for name, sub in _MACOS]
    if platform.startswith("win"):
        base = pathlib.Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
        return [(name, base / sub) for name, sub in _WINDOWS]
    base = pathlib.Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return [(name, base / pathlib.Path(sub).relative_to(".config")) for name, sub in _LINUX]


def find(found: list[tuple[str, pathlib.Path]] | None = None) -> pathlib.Path:
    """The first user data directory whose browser has remote debugging on (DevToolsActivePort);
    BrowserNotRunning naming what to switch on otherwise."""
    found = candidates() if found is None else found
    present = [(name, path) for name, path in found if path.is_dir()]
    for _, path in present:
        if (path / "DevToolsActivePort").is_file():
            return path
    if not present:
        looked = ", ".join(str(path) for _, path in found)
        raise errors.BrowserNotRunning(
            f"no Chrome, Chromium, Brave or Edge user data directory found "
            f"(looked in {looked}); set userDataDir on the profile"
        )
    name, path = present[0]
    raise errors.BrowserNotRunning(
        f"{name} ({path}) does not have remote debugging on: {SWITCH_ON}"
    )
