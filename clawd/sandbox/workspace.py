"""The host directories a sandbox container mounts: the workspace at /workspace (none|ro|rw,
inside $CLAWD_HOME/workspaces, an existing directory reached through no symlink) and the binds."""

from __future__ import annotations

import os
import pathlib

from clawd import errors
from clawd.config.model import SandboxConfig, StateLayout

MOUNT = "/workspace"


def volumes(layout: StateLayout, settings: SandboxConfig) -> dict:
    """The SDK's `volumes` mapping: {host path: {bind, mode}}."""
    mounts = {}
    ws = settings.workspace
    if ws.path is not None and ws.access != "none":
        mounts[str(resolve(layout.workspaces, ws.path))] = {"bind": MOUNT, "mode": ws.access}
    for bind in settings.binds:
        host, inside, *mode = bind.split(":")
        checked = _existing_dir(pathlib.Path(host), f"sandbox.binds entry {bind!r}")
        mounts[str(checked)] = {"bind": inside, "mode": mode[0] if mode else "ro"}
    return mounts


def resolve(root: pathlib.Path, raw: str) -> pathlib.Path:
    """`raw` (relative to `root`, or absolute inside it) as a real directory under `root`."""
    root = pathlib.Path(os.path.realpath(root))
    given = pathlib.Path(os.path.expanduser(raw))
    path = given if given.is_absolute() else root / given
    path = pathlib.Path(os.path.normpath(path))
    if not _inside(path, root):
        raise errors.InvalidWorkspace(
            f"sandbox workspace {raw!r} is outside its allowed root {root}"
        )
    probe = root
    for part in path.relative_to(root).parts:  # no symlink anywhere below the root
        probe = probe / part
        if probe.is_symlink():
            raise errors.InvalidWorkspace(f"sandbox workspace {raw!r} goes through a symlink")
    return _existing_dir(path, f"sandbox workspace {raw!r}")


def _existing_dir(path: pathlib.Path, what: str) -> pathlib.Path:
    if path.is_symlink():
        raise errors.InvalidWorkspace(f"{what} is a symlink")
    if not path.is_dir():
        raise errors.InvalidWorkspace(f"{what} is not an existing directory")
    return pathlib.Path(os.path.realpath(path))


def _inside(path: pathlib.Path, root: pathlib.Path) -> bool:
    return path == root or root in path.parents
