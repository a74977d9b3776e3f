"""What the test support installs from the npm registry into a cache outside the tree (the
Browserless pool, the widget zoo's libraries): present, installed now, or a skip or failure that
says why."""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Callable


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
