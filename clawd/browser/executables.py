"""Finding a Chromium-family executable (docs/architecture.md)."""

from __future__ import annotations

import os
import pathlib
import shutil
import sys
from collections.abc import Callable

from clawd import errors

LINUX_NAMES = (
    "google-chrome",
    "google-chrome-stable",
    "brave-browser",
    "microsoft-edge",
    "chromium",
    "chromium-browser",
)
LINUX_DIRS = ("/usr/bin", "/snap/bin")
MAC_BUNDLES = (
    "Google Chrome.app/Contents/MacOS/Google Chrome",
    "Brave Browser.app/Contents/MacOS/Brave Browser",
    "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "Chromium.app/Contents/MacOS/Chromium",
)


def find_executable(
    explicit: str | None = None,
    *,
    platform: str = sys.platform,
    which: Callable[[str], str | None] = shutil.which,
    is_file: Callable[[str], bool] = os.path.isfile,
) -> str:
    """The configured path, else the first known browser found. Raises BrowserLaunchFailed."""
    if explicit:
        path = os.path.expanduser(explicit)
        if not is_file(path):
            raise errors.BrowserLaunchFailed(
                f"browser.executablePath {explicit!r} does not exist", hint="browser.executablePath"
            )
        return path
    for candidate in candidates(platform=platform, which=which):
        if is_file(candidate):
            return candidate
    raise errors.BrowserLaunchFailed(
        "no Chromium-family browser found (looked for "
        + ", ".join(LINUX_NAMES if platform != "darwin" else MAC_BUNDLES)
        + "); install chromium (`apt-get install chromium`) or set browser.executablePath",
        hint="browser.executablePath",
    )


def candidates(*, platform: str = sys.platform, which=shutil.which) -> list[str]:
    if platform == "darwin":
        roots = ["/Applications", str(pathlib.Path.home() / "Applications")]
        return [f"{root}/{bundle}" for bundle in MAC_BUNDLES for root in roots]
    found = []
    for name in LINUX_NAMES:
        on_path = which(name)
        if on_path:
            found.append(on_path)
        found.extend(f"{d}/{name}" for d in LINUX_DIRS)
    return found
