"""Where a profile's user data goes when it is reset or deleted: $CLAWD_HOME/trash/<name>-<time>,
kept (cookies and logins a user may still want back) until they erase it; `purge` erases at once."""

from __future__ import annotations

import os
import pathlib
import shutil
import time

from clawd.config.model import StateLayout


def discard(layout: StateLayout, profile: str, path: pathlib.Path, *, purge: bool = False) -> dict:
    """Move `path` to the trash (or erase it with purge); what happened, for the response."""
    if not path.exists():
        return {"removedData": False}
    if purge:
        shutil.rmtree(path, ignore_errors=True)
        return {"removedData": True, "purged": True}
    layout.trash.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = _free_name(layout.trash, f"{profile}-{time.strftime('%Y%m%d-%H%M%S')}")
    shutil.move(str(path), str(target))
    return {"removedData": True, "trashedTo": str(target)}


def _free_name(directory: pathlib.Path, stem: str) -> pathlib.Path:
    candidate, n = directory / stem, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = directory / f"{stem}-{n}"
    return candidate


def entries(layout: StateLayout) -> list[dict]:
    """What the trash holds, oldest first: {name, path, bytes}."""
    try:
        found = sorted(layout.trash.iterdir(), key=lambda p: p.stat().st_ctime)  # ctime: when moved
    except OSError:
        return []
    return [{"name": p.name, "path": str(p), "bytes": _size(p)} for p in found if p.is_dir()]


def _size(path: pathlib.Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total
